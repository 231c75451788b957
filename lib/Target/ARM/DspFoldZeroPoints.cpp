//===- DspFoldZeroPoints.cpp - arm-dsp-fold-zero-points -------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Folds the input zero point of a bufferized int8 convolution into its bias,
// so that the DSP kernels (arm-dsp-int8-kernels) need no SADD16 for it:
//
//   sum((x - zi) * (w - zw)) + b = sum(x * (w - zw)) + (b - zi * sum(w - zw))
//
// over the taps of one output channel, exactly in int32 (both sides wrap
// modulo 2^32). The convolution then gets the input zero point 0 and its
// bias initialization reads a new constant b' = b - zi * sum(w - zw). This
// needs a constant filter and a bias initialization that copies a constant
// per-channel bias, and every tap must read the input: a convolution whose
// input is a padded window (a buffer filled with the zero point, whose taps
// the kernels skip) keeps its zero point. The filter and the bias may be the
// same block of output channels of their constants (the subviews of a fully
// connected layer computed a block of outputs at a time,
// `fuse-rescale-accumulators`).
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Target/ARM/Passes.h"

#include "Int8KernelUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_ARMDSPFOLDINPUTZEROPOINTSPASS
#include "MemOpt/Target/ARM/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

/// Returns true if \p a and \p b read the same output channels: both whole,
/// or subviews of the same rows.
static bool readSameRows(armkernels::ConstantRows a,
                         armkernels::ConstantRows b) {
  if (!a.rows || !b.rows)
    return !a.rows && !b.rows;
  return isEqualConstantIntOrValue(a.rows.getMixedOffsets()[0],
                                   b.rows.getMixedOffsets()[0]) &&
         isEqualConstantIntOrValue(a.rows.getMixedSizes()[0],
                                   b.rows.getMixedSizes()[0]);
}

/// Returns the i32 constant \p value, if it is one.
static std::optional<int64_t> getConstant(Value value) {
  APInt constant;
  if (!matchPattern(value, m_ConstantInt(&constant)))
    return std::nullopt;
  return constant.getSExtValue();
}

/// Returns the linalg.generic right before \p conv that initializes its
/// output with a per-output-channel bias (output[n, h, w, c] = bias[c]),
/// else null.
static linalg::GenericOp getBiasInit(linalg::Conv2DNhwcFhwcQOp conv) {
  auto generic = dyn_cast_if_present<linalg::GenericOp>(conv->getPrevNode());
  Value output = conv.getDpsInitOperand(0)->get();
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 ||
      generic.getDpsInitOperand(0)->get() != output ||
      generic.getNumLoops() != 4 || generic.getNumParallelLoops() != 4)
    return {};
  MLIRContext *context = conv.getContext();
  AffineMap channel = AffineMap::get(4, 0, getAffineDimExpr(3, context));
  if (generic.getIndexingMapsArray() !=
      SmallVector<AffineMap>{channel,
                             AffineMap::getMultiDimIdentityMap(4, context)})
    return {};
  Block &body = generic.getRegion().front();
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (body.getOperations().size() != 1 || !yield ||
      yield.getNumOperands() != 1 || yield.getOperand(0) != body.getArgument(0))
    return {};
  return generic;
}

/// Folds the input zero point of \p conv into its bias if it can (see the
/// file comment). Returns true if it did.
static bool foldInputZeroPoint(linalg::Conv2DNhwcFhwcQOp conv,
                               SymbolTable &symbols, bool paddedWindows) {
  if (!conv.hasPureBufferSemantics())
    return false;
  std::optional<int64_t> inputZp =
      getConstant(conv.getDpsInputOperand(2)->get());
  std::optional<int64_t> filterZp =
      getConstant(conv.getDpsInputOperand(3)->get());
  if (!inputZp || !filterZp || *inputZp == 0)
    return false;
  Value input = conv.getDpsInputOperand(0)->get();
  // A padded window: the kernels skip its taps outside the image (unless
  // they read every tap, paddedWindows).
  if (!paddedWindows && llvm::any_of(input.getUsers(), [](Operation *user) {
        return isa<linalg::FillOp>(user);
      }))
    return false;
  armkernels::ConstantRows filterRows =
      armkernels::getConstantRows(conv.getDpsInputOperand(1)->get(), symbols);
  memref::GlobalOp filter = filterRows.global;
  linalg::GenericOp init = getBiasInit(conv);
  if (!filter || !init)
    return false;
  armkernels::ConstantRows biasRows =
      armkernels::getConstantRows(init.getDpsInputOperand(0)->get(), symbols);
  memref::GlobalOp bias = biasRows.global;
  if (!readSameRows(filterRows, biasRows))
    return false;
  auto biasType = bias ? dyn_cast<MemRefType>(bias.getType()) : MemRefType();
  auto filterType = cast<MemRefType>(filter.getType());
  if (!biasType || !biasType.getElementType().isInteger(32) ||
      biasType.getRank() != 1 || filterType.getRank() != 4 ||
      !filterType.getElementType().isInteger(8) ||
      biasType.getDimSize(0) != filterType.getDimSize(0))
    return false;

  // b' = b - zi * sum(w - zw), wrapping modulo 2^32 as the convolution does.
  auto filterValues = cast<DenseIntElementsAttr>(filter.getConstantInitValue());
  auto biasValues = cast<DenseIntElementsAttr>(bias.getConstantInitValue());
  int64_t numOc = filterType.getDimSize(0);
  int64_t perOc = filterType.getNumElements() / numOc;
  SmallVector<uint32_t> sums(numOc, 0);
  for (auto [index, w] : llvm::enumerate(filterValues.getValues<APInt>()))
    sums[index / perOc] += static_cast<uint32_t>(w.getSExtValue() - *filterZp);
  SmallVector<APInt> folded;
  for (auto [oc, b] : llvm::enumerate(biasValues.getValues<APInt>())) {
    uint32_t value = static_cast<uint32_t>(b.getSExtValue()) -
                     static_cast<uint32_t>(*inputZp) * sums[oc];
    folded.push_back(APInt(32, value));
  }

  OpBuilder builder(bias);
  auto global = memref::GlobalOp::create(
      builder, bias.getLoc(), (bias.getSymName() + "_izp").str(),
      builder.getStringAttr("private"), biasType,
      DenseIntElementsAttr::get(
          RankedTensorType::get(biasType.getShape(), builder.getI32Type()),
          folded),
      /*constant=*/true, bias.getAlignmentAttr());
  symbols.insert(global);
  builder.setInsertionPoint(init);
  Value folded32 = memref::GetGlobalOp::create(builder, init.getLoc(), biasType,
                                               global.getSymName());
  // The same rows of the folded bias.
  if (memref::SubViewOp rows = biasRows.rows)
    folded32 = memref::SubViewOp::create(
        builder, rows.getLoc(), rows.getType(), folded32,
        rows.getMixedOffsets(), rows.getMixedSizes(), rows.getMixedStrides());
  init->setOperand(0, folded32);
  builder.setInsertionPoint(conv);
  conv->setOperand(2, arith::ConstantIntOp::create(builder, conv.getLoc(),
                                                   builder.getI32Type(), 0));
  return true;
}

namespace {
/// Folds the input zero points of the module's int8 convolutions into their
/// biases.
struct ArmDspFoldInputZeroPointsPass
    : memopt::impl::ArmDspFoldInputZeroPointsPassBase<
          ArmDspFoldInputZeroPointsPass> {
  using ArmDspFoldInputZeroPointsPassBase::ArmDspFoldInputZeroPointsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<linalg::Conv2DNhwcFhwcQOp> convs;
    module.walk([&](linalg::Conv2DNhwcFhwcQOp conv) { convs.push_back(conv); });
    int64_t count = 0;
    for (linalg::Conv2DNhwcFhwcQOp conv : convs)
      count += foldInputZeroPoint(conv, symbols, paddedWindows);
    numFolded += count;
  }
};
} // namespace
