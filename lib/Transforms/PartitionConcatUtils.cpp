//===- PartitionConcatUtils.cpp - Shared parts of the concat rewrites -----===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Matching a channel concat that reaches a convolution through unary
// elementwise ops, cloning those ops into the branches, and slicing constants
// (weights, biases, per-channel rescale parameters) by channel.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Transforms/PartitionConcat.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"

#include <cstring>

using namespace mlir;
using namespace mlir::memopt;

/// Returns true if \p op is a unary elementwise op whose single operand is
/// the tensor: it commutes with a channel concat as is.
static bool isPlainUnaryElementwise(Operation *op) {
  return isa<tosa::ClampOp, tosa::CastOp, tosa::AbsOp, tosa::CeilOp,
             tosa::ClzOp, tosa::CosOp, tosa::ErfOp, tosa::ExpOp, tosa::FloorOp,
             tosa::LogOp, tosa::LogicalNotOp, tosa::BitwiseNotOp,
             tosa::ReciprocalOp, tosa::RsqrtOp, tosa::SigmoidOp, tosa::SinOp,
             tosa::TanhOp>(op) &&
         op->getNumOperands() == 1 && op->getNumResults() == 1;
}

/// Returns true if \p value is a dense constant.
static bool isDenseConstant(Value value) {
  DenseElementsAttr attr;
  return matchPattern(value, m_Constant(&attr));
}

FailureOr<ConcatSite> mlir::memopt::matchConcatSite(Value input,
                                                    std::string *reason) {
  auto fail = [&](const Twine &why) -> FailureOr<ConcatSite> {
    if (reason)
      *reason = why.str();
    return failure();
  };
  ConcatSite site;
  Value current = input;
  while (true) {
    Operation *def = current.getDefiningOp();
    if (!def)
      return fail("input is not computed by a concat");
    if (auto concat = dyn_cast<tosa::ConcatOp>(def)) {
      site.concat = concat;
      break;
    }
    if (auto rescale = dyn_cast<tosa::RescaleOp>(def)) {
      if (rescale.getPerChannel() &&
          (!isDenseConstant(rescale.getMultiplier()) ||
           !isDenseConstant(rescale.getShift())))
        return fail("per-channel rescale parameters are not constants");
    } else if (!isPlainUnaryElementwise(def)) {
      return fail("input is not a concat or a unary elementwise op on one");
    }
    site.chain.push_back(def);
    current = def->getOperand(0);
  }
  std::reverse(site.chain.begin(), site.chain.end());

  auto type = dyn_cast<RankedTensorType>(site.concat.getType());
  if (!type || type.getRank() != 4 || !type.hasStaticShape())
    return fail("concat result is not a static 4-D tensor");
  if (site.concat.getAxis() != 3)
    return fail("concat is not along channels (axis 3)");
  if (site.concat.getInput1().size() < 2)
    return fail("concat has fewer than two operands");
  for (Value operand : site.concat.getInput1()) {
    auto operandType = dyn_cast<RankedTensorType>(operand.getType());
    if (!operandType || !operandType.hasStaticShape())
      return fail("concat operand has no static shape");
  }
  for (Operation *op : site.chain) {
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType || resultType.getShape() != type.getShape())
      return fail("elementwise op changes the shape");
  }
  return site;
}

Value mlir::memopt::sliceAlongAxis(RewriterBase &rewriter, Location loc,
                                   Value value, int64_t axis, int64_t offset,
                                   int64_t size) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  if (offset == 0 && size == shape[axis])
    return value;
  shape[axis] = size;
  auto slicedType = RankedTensorType::get(shape, type.getElementType());

  DenseElementsAttr attr;
  int64_t elementBits = type.getElementType().isIntOrFloat()
                            ? type.getElementType().getIntOrFloatBitWidth()
                            : 0;
  if (matchPattern(value, m_Constant(&attr))) {
    if (attr.isSplat())
      return tosa::ConstOp::create(rewriter, loc, slicedType,
                                   attr.resizeSplat(slicedType));
    if (elementBits % 8 == 0 && elementBits > 0) {
      // Copy the slice out of the raw row-major data: for every index of the
      // outer dimensions, one contiguous run of size x inner elements.
      int64_t elementBytes = elementBits / 8;
      int64_t inner = 1, outer = 1;
      for (int64_t d = axis + 1; d < type.getRank(); ++d)
        inner *= type.getDimSize(d);
      for (int64_t d = 0; d < axis; ++d)
        outer *= type.getDimSize(d);
      ArrayRef<char> raw = attr.getRawData();
      int64_t run = size * inner * elementBytes;
      int64_t stride = type.getDimSize(axis) * inner * elementBytes;
      std::vector<char> data(outer * run);
      for (int64_t o = 0; o < outer; ++o)
        std::memcpy(data.data() + o * run,
                    raw.data() + o * stride + offset * inner * elementBytes,
                    run);
      auto sliced = DenseElementsAttr::getFromRawBuffer(slicedType, data);
      return tosa::ConstOp::create(rewriter, loc, slicedType, sliced);
    }
  }

  // Anything else is sliced at run time.
  MLIRContext *context = rewriter.getContext();
  int64_t rank = type.getRank();
  auto shapeAttrType = RankedTensorType::get({rank}, rewriter.getIndexType());
  SmallVector<int64_t> start(rank, 0);
  start[axis] = offset;
  Value startValue = tosa::ConstShapeOp::create(
      rewriter, loc, tosa::shapeType::get(context, rank),
      DenseIntElementsAttr::get(shapeAttrType, start));
  Value sizeValue = tosa::ConstShapeOp::create(
      rewriter, loc, tosa::shapeType::get(context, rank),
      DenseIntElementsAttr::get(shapeAttrType, shape));
  return tosa::SliceOp::create(rewriter, loc, slicedType, value, startValue,
                               sizeValue);
}

SmallVector<Value> mlir::memopt::createBranchInputs(RewriterBase &rewriter,
                                                    const ConcatSite &site) {
  SmallVector<Value> branches;
  int64_t offset = 0;
  tosa::ConcatOp concat = site.concat;
  for (Value operand : concat.getInput1()) {
    auto operandType = cast<RankedTensorType>(operand.getType());
    int64_t channels = operandType.getDimSize(3);
    Value current = operand;
    for (Operation *op : site.chain) {
      auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
      SmallVector<int64_t> shape(resultType.getShape());
      shape[3] = channels;
      IRMapping mapping;
      mapping.map(op->getOperand(0), current);
      if (auto rescale = dyn_cast<tosa::RescaleOp>(op);
          rescale && rescale.getPerChannel()) {
        mapping.map(rescale.getMultiplier(),
                    sliceAlongAxis(rewriter, op->getLoc(),
                                   rescale.getMultiplier(), 0, offset,
                                   channels));
        mapping.map(rescale.getShift(),
                    sliceAlongAxis(rewriter, op->getLoc(), rescale.getShift(),
                                   0, offset, channels));
      }
      Operation *clone = rewriter.clone(*op, mapping);
      clone->setLoc(appendToName(op->getLoc(), "/b" + Twine(branches.size())));
      clone->getResult(0).setType(
          RankedTensorType::get(shape, resultType.getElementType()));
      current = clone->getResult(0);
    }
    branches.push_back(current);
    offset += channels;
  }
  return branches;
}

void mlir::memopt::eraseDeadSite(RewriterBase &rewriter,
                                 const ConcatSite &site) {
  for (Operation *op : llvm::reverse(site.chain)) {
    if (!op->use_empty())
      return;
    rewriter.eraseOp(op);
  }
  if (site.concat->use_empty())
    rewriter.eraseOp(site.concat);
}

Location mlir::memopt::appendToName(Location loc, const Twine &suffix) {
  if (auto nameLoc = dyn_cast<NameLoc>(loc))
    return NameLoc::get(
        StringAttr::get(loc.getContext(), nameLoc.getName().str() + suffix),
        nameLoc.getChildLoc());
  return loc;
}
