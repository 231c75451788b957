//===- HoistedWeights.cpp - Depthwise weights read before loops -----------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Reads a one-channel depthwise filter's weights before the loops around
// its convolution, for the DSP and the MVE kernels (HoistedWeights.h).
//
//===----------------------------------------------------------------------===//

#include "HoistedWeights.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::armkernels;

/// Returns the op before which the weights of \p conv's filter \p filter are
/// read in \p scope; for WeightScope::Channel, sets \p values to the
/// filter's constant values, if it has them.
static Operation *getHoistPoint(Operation *conv, Value filter,
                                WeightScope scope,
                                std::optional<SmallVector<int64_t>> &values) {
  // The loop over the rows around the loop over the columns.
  if (scope == WeightScope::RowLoop)
    return conv->getParentOp()->getParentOp();
  values = getGlobalValues(filter);
  Operation *point = conv;
  while (auto loop = dyn_cast<scf::ForOp>(point->getParentOp())) {
    if (!values || !loop.isDefinedOutsideOfLoop(filter))
      break;
    point = loop;
  }
  return point;
}

/// Packs the taps of \p hoisted in halfword pairs (WeightScope::Channel).
static void packHalfwordPairs(OpBuilder &b, Location loc,
                              HoistedWeights &hoisted) {
  ArrayRef<Value> weights = hoisted.taps;
  for (size_t t = 0; !hoisted.splatWeight && t < weights.size(); t += 2) {
    if (t + 1 == weights.size()) {
      // The bottom half of the sign-extended weight is the weight.
      hoisted.pairs.push_back(weights[t]);
      break;
    }
    Value bottom = arith::AndIOp::create(b, loc, weights[t],
                                         getI32Constant(b, loc, 0xFFFF));
    Value top = arith::ShLIOp::create(b, loc, weights[t + 1],
                                      getI32Constant(b, loc, 16));
    hoisted.pairs.push_back(arith::OrIOp::create(b, loc, bottom, top));
  }
}

HoistedWeights armkernels::hoistWeights(OpBuilder &b, Location loc,
                                        Operation *conv, const ConvParts &parts,
                                        int64_t kh, int64_t kw,
                                        WeightScope scope,
                                        const WeightReads &reads) {
  std::optional<SmallVector<int64_t>> values;
  Operation *point = getHoistPoint(conv, parts.filter, scope, values);
  OpBuilder::InsertionGuard insertionGuard(b);
  b.setInsertionPoint(point);
  HoistedWeights hoisted;
  hoisted.kw = kw;
  bool rowSums = scope == WeightScope::RowLoop;
  if (!rowSums && values && !values->empty() && llvm::all_equal(*values)) {
    hoisted.splatWeight = values->front() - parts.filterZp;
    hoisted.taps.assign(kh * kw, getI32Constant(b, loc, *hoisted.splatWeight));
  } else {
    if (reads.prepare)
      reads.prepare(b, loc);
    if (rowSums)
      hoisted.sum = getI32Constant(b, loc, 0);
    for (int64_t ky = 0; ky < kh; ++ky) {
      Value rowSum = rowSums ? getI32Constant(b, loc, 0) : Value();
      for (int64_t kx = 0; kx < kw; ++kx) {
        Value weight = reads.read(b, loc, ky, kx);
        hoisted.taps.push_back(weight);
        if (rowSums)
          rowSum = arith::AddIOp::create(b, loc, rowSum, weight);
      }
      if (rowSums) {
        hoisted.rowSums.push_back(rowSum);
        hoisted.sum = arith::AddIOp::create(b, loc, hoisted.sum, rowSum);
      }
    }
  }
  if (rowSums)
    return hoisted;
  packHalfwordPairs(b, loc, hoisted);
  if (parts.inputZp != 0) {
    Value sum = hoisted.taps.front();
    for (Value weight : ArrayRef<Value>(hoisted.taps).drop_front())
      sum = arith::AddIOp::create(b, loc, sum, weight);
    hoisted.foldedZeroPoint = arith::MulIOp::create(
        b, loc, sum, getI32Constant(b, loc, -parts.inputZp));
  }
  return hoisted;
}
