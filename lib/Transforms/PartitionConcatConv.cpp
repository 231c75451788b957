//===- PartitionConcatConv.cpp - Channel-wise partition of concat+conv ----===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Rewrites `tosa.conv2d(concat(x1..xn))` (possibly through unary elementwise
// ops) into partial convolutions, one per branch on the matching
// input-channel slice of the weights:
//
//   y = conv(x1, W[:, :, :, c1], b) + conv(x2, W[:, :, :, c2], 0) + ...
//
// The partials are summed in order by `tosa.add` ops marked
// `memopt.accumulate`, so each x_i can die as soon as its partial has run and
// the sum needs a single buffer. Zero points are shared by all partials; for
// int8 the partials and the sum are i32 accumulators and the existing
// `tosa.rescale` after the convolution still runs once: the result is
// bit-exact. Any stride, padding and dilation works, since every partial keeps
// them.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Transforms/Passes.h"

#include "MemOpt/Transforms/PartitionConcat.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::memopt;

LogicalResult mlir::memopt::partitionConcatConv(RewriterBase &rewriter,
                                                tosa::Conv2DOp conv) {
  std::string reason;
  FailureOr<ConcatSite> site = matchConcatSite(conv.getInput(), &reason);
  if (failed(site))
    return rewriter.notifyMatchFailure(conv, reason);
  auto outputType = dyn_cast<RankedTensorType>(conv.getType());
  auto weightType = dyn_cast<RankedTensorType>(conv.getWeight().getType());
  auto biasType = dyn_cast<RankedTensorType>(conv.getBias().getType());
  if (!outputType || !outputType.hasStaticShape() || !weightType ||
      !weightType.hasStaticShape() || !biasType || !biasType.hasStaticShape())
    return rewriter.notifyMatchFailure(conv, "expected static shapes");
  Type accType = outputType.getElementType();
  if (!isa<FloatType>(accType) && !accType.isInteger(32))
    return rewriter.notifyMatchFailure(
        conv, "partial sums need tosa.add on the result type (float or i32)");
  auto concatType = cast<RankedTensorType>(site->concat.getType());
  if (weightType.getDimSize(3) != concatType.getDimSize(3))
    return rewriter.notifyMatchFailure(conv, "weight channels do not match");

  rewriter.setInsertionPoint(conv);
  SmallVector<Value> branches = createBranchInputs(rewriter, *site);
  Value zeroBias;
  Value sum;
  int64_t offset = 0;
  for (auto [i, branch] : llvm::enumerate(branches)) {
    int64_t channels = cast<RankedTensorType>(branch.getType()).getDimSize(3);
    Location loc = appendToName(conv.getLoc(), "/part" + Twine(i));
    IRMapping mapping;
    mapping.map(conv.getInput(), branch);
    mapping.map(
        conv.getWeight(),
        sliceAlongAxis(rewriter, loc, conv.getWeight(), 3, offset, channels));
    if (i > 0) {
      // The bias is added once, by the first partial.
      if (!zeroBias)
        zeroBias = tosa::ConstOp::create(
            rewriter, conv.getLoc(), biasType,
            cast<ElementsAttr>(rewriter.getZeroAttr(biasType)));
      mapping.map(conv.getBias(), zeroBias);
    }
    Operation *partial = rewriter.clone(*conv, mapping);
    partial->setLoc(loc);
    if (!sum) {
      sum = partial->getResult(0);
    } else {
      auto add = tosa::AddOp::create(
          rewriter, appendToName(conv.getLoc(), "/acc" + Twine(i)), outputType,
          sum, partial->getResult(0));
      add->setAttr(kAccumulateAttrName, rewriter.getUnitAttr());
      sum = add.getResult();
    }
    offset += channels;
  }
  rewriter.replaceOp(conv, sum);
  eraseDeadSite(rewriter, *site);
  return success();
}

namespace {
/// Splits a conv2d fed by a channel concat into accumulated partial convs.
struct PartitionConcatConvPattern : public OpRewritePattern<tosa::Conv2DOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tosa::Conv2DOp conv,
                                PatternRewriter &rewriter) const override {
    return partitionConcatConv(rewriter, conv);
  }
};
} // namespace

void mlir::memopt::populatePartitionConcatConvPatterns(
    RewritePatternSet &patterns) {
  patterns.add<PartitionConcatConvPattern>(patterns.getContext());
}
