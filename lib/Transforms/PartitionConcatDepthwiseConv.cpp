//===- PartitionConcatDepthwiseConv.cpp - Kernel-wise partition -----------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Rewrites `tosa.depthwise_conv2d(concat(x1..xn))` (possibly through unary
// elementwise ops) into one depthwise convolution per branch, on the matching
// channel slice of the weights [KH, KW, C, M] and of the bias [C * M], joined
// by a concat along channels:
//
//   y = concat(dw(x1, W[:, :, c1, :], b[c1 * M]), dw(x2, ...), ...)
//
// Output channel c * M + m depends on input channel c only, so with a channel
// multiplier M the branch of ci channels yields ci * M consecutive output
// channels. The computation per element is unchanged: bit-exact for every
// type.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Transforms/Passes.h"

#include "MemOpt/Transforms/PartitionConcat.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::memopt;

LogicalResult
mlir::memopt::partitionConcatDepthwiseConv(RewriterBase &rewriter,
                                           tosa::DepthwiseConv2DOp conv) {
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
  auto concatType = cast<RankedTensorType>(site->concat.getType());
  int64_t channels = weightType.getDimSize(2);
  int64_t multiplier = weightType.getDimSize(3);
  if (channels != concatType.getDimSize(3) ||
      outputType.getDimSize(3) != channels * multiplier)
    return rewriter.notifyMatchFailure(conv, "weight channels do not match");
  int64_t biasSize = biasType.getDimSize(0);
  if (biasSize != 1 && biasSize != channels * multiplier)
    return rewriter.notifyMatchFailure(conv, "unexpected bias size");

  rewriter.setInsertionPoint(conv);
  SmallVector<Value> branches = createBranchInputs(rewriter, *site);
  SmallVector<Value> parts;
  int64_t offset = 0;
  for (auto [i, branch] : llvm::enumerate(branches)) {
    int64_t branchChannels =
        cast<RankedTensorType>(branch.getType()).getDimSize(3);
    Location loc = appendToName(conv.getLoc(), "/part" + Twine(i));
    IRMapping mapping;
    mapping.map(conv.getInput(), branch);
    mapping.map(conv.getWeight(),
                sliceAlongAxis(rewriter, loc, conv.getWeight(), 2, offset,
                               branchChannels));
    if (biasSize != 1)
      mapping.map(conv.getBias(), sliceAlongAxis(rewriter, loc, conv.getBias(),
                                                 0, offset * multiplier,
                                                 branchChannels * multiplier));
    Operation *part = rewriter.clone(*conv, mapping);
    part->setLoc(loc);
    SmallVector<int64_t> shape(outputType.getShape());
    shape[3] = branchChannels * multiplier;
    part->getResult(0).setType(
        RankedTensorType::get(shape, outputType.getElementType()));
    parts.push_back(part->getResult(0));
    offset += branchChannels;
  }
  Value result =
      tosa::ConcatOp::create(rewriter, appendToName(conv.getLoc(), "/concat"),
                             outputType, parts, rewriter.getI32IntegerAttr(3));
  rewriter.replaceOp(conv, result);
  eraseDeadSite(rewriter, *site);
  return success();
}

namespace {
/// Splits a depthwise_conv2d fed by a channel concat into per-branch ones.
struct PartitionConcatDepthwiseConvPattern
    : public OpRewritePattern<tosa::DepthwiseConv2DOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tosa::DepthwiseConv2DOp conv,
                                PatternRewriter &rewriter) const override {
    return partitionConcatDepthwiseConv(rewriter, conv);
  }
};
} // namespace

void mlir::memopt::populatePartitionConcatDepthwiseConvPatterns(
    RewritePatternSet &patterns) {
  patterns.add<PartitionConcatDepthwiseConvPattern>(patterns.getContext());
}
