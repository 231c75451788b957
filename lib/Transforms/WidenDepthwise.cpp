//===- WidenDepthwise.cpp - A band's depthwise convolution in place -------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// A band (or patch) of a stride-1 depthwise convolution reads its rows with
// the halo its window needs, so its output has fewer rows (or columns) than
// its input, and `isInPlaceDepthwise` (an output of the input's shape) does
// not hold: input and output coexist. This rewrite computes the convolution
// over the whole input instead, with 'same' padding, and takes the rows the
// band needs as a view (`tensor.extract_slice`) of the result: a rows of
// the result whose window reads a halo row as padding are computed but not
// read. The wider convolution is then in place (its output takes over its
// input's buffer channel by channel, `inplace-depthwise`), and so are its
// fused rescale and the elementwise ops after it; the view is what the band
// reads. The results do not change: every row read is computed from the same
// inputs by the same arithmetic (the padding a window reads is the original
// op's, at the image's borders only).
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Transforms/Passes.h"

#include "MemOpt/CostModel/CostModel.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_WIDENDEPTHWISEPASS
#include "MemOpt/Transforms/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

/// Returns true if every operand of \p op other than \p value is computed
/// from constants alone (a rescale's multiplier, shift and zero points, a
/// clamp has none).
static bool readsOnlyConstantsBesides(Operation *op, Value value) {
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    if (operand == value)
      return true;
    Operation *def = operand.getDefiningOp();
    return def && def->hasTrait<OpTrait::ConstantLike>();
  });
}

/// Returns the ops computed with \p depthwise in place: the convolution, its
/// fused rescale, and the chain of elementwise ops of one activation operand
/// after it, each the only reader of the one before and of its shape.
static SmallVector<Operation *> getInPlaceChain(Operation *depthwise) {
  SmallVector<Operation *> chain = {depthwise};
  auto shape = cast<RankedTensorType>(depthwise->getResult(0).getType())
                   .getShape();
  while (true) {
    Value last = chain.back()->getResult(0);
    if (!last.hasOneUse())
      break;
    Operation *user = *last.user_begin();
    // The fused rescale narrows the accumulator; the ops after it keep
    // its type, so that each writes over the one before.
    bool fusedRescale = chain.size() == 1 && isFusedAccumulator(depthwise);
    if (!fusedRescale &&
        (!isElementwiseOp(user) || user->getResult(0).getType() != last.getType()))
      break;
    auto type = dyn_cast<RankedTensorType>(user->getResult(0).getType());
    if (!type || type.getShape() != shape ||
        !readsOnlyConstantsBesides(user, last))
      break;
    chain.push_back(user);
  }
  return chain;
}

/// The padding of one spatial dimension of the wider convolution and where
/// the original output starts in its output.
struct WideDimension {
  int64_t padBefore = 0, padAfter = 0, offset = 0;
};

/// Returns the padding of a dimension of \p inputSize rows and
/// \p outputSize output rows (padded by \p padBefore and \p padAfter) whose
/// window spans \p extent rows, computed with an output of \p inputSize
/// rows, or nothing if the output is larger than the input. The new padding
/// is at least the old on both sides, so a row of the original output reads
/// the same rows and the same padding: half of the window before, as the
/// 'same' padding of TFLite and TOSA, where the old padding allows it.
static std::optional<WideDimension> widenDimension(int64_t inputSize,
                                                   int64_t outputSize,
                                                   int64_t padBefore,
                                                   int64_t padAfter,
                                                   int64_t extent) {
  if (outputSize > inputSize || padBefore < 0 || padAfter < 0)
    return std::nullopt;
  int64_t total = extent - 1;
  int64_t before = std::clamp<int64_t>(total / 2, padBefore, total - padAfter);
  return WideDimension{before, total - before, before - padBefore};
}

LogicalResult
mlir::memopt::widenDepthwiseInPlace(RewriterBase &rewriter,
                                    tosa::DepthwiseConv2DOp depthwise) {
  auto input = dyn_cast<RankedTensorType>(depthwise.getInput().getType());
  auto output = dyn_cast<RankedTensorType>(depthwise.getType());
  auto weight = dyn_cast<RankedTensorType>(depthwise.getWeight().getType());
  if (!input || !output || !weight || !input.hasStaticShape() ||
      !output.hasStaticShape() || !weight.hasStaticShape() ||
      input.getRank() != 4 || weight.getRank() != 4)
    return rewriter.notifyMatchFailure(depthwise, "needs static NHWC shapes");
  if (weight.getDimSize(3) != 1 ||
      llvm::any_of(depthwise.getStride(), [](int64_t s) { return s != 1; }))
    return rewriter.notifyMatchFailure(depthwise,
                                       "needs multiplier 1 and stride 1");
  if (output.getShape() == input.getShape())
    return rewriter.notifyMatchFailure(depthwise, "already of its input's "
                                                  "shape");
  ArrayRef<int64_t> pad = depthwise.getPad();
  ArrayRef<int64_t> dilation = depthwise.getDilation();
  std::array<WideDimension, 2> dims;
  for (unsigned dim = 0; dim < 2; ++dim) {
    std::optional<WideDimension> wide = widenDimension(
        input.getDimSize(dim + 1), output.getDimSize(dim + 1), pad[2 * dim],
        pad[2 * dim + 1],
        (weight.getDimSize(dim) - 1) * dilation[dim] + 1);
    if (!wide)
      return rewriter.notifyMatchFailure(depthwise,
                                         "output larger than its input");
    dims[dim] = *wide;
  }
  SmallVector<Operation *> chain = getInPlaceChain(depthwise);
  // The group's result takes over the input's buffer: it must have its type,
  // and nothing else may read the input.
  auto last = cast<RankedTensorType>(chain.back()->getResult(0).getType());
  if (!canOverwriteOperand(depthwise.getInput(),
                           last.clone(input.getShape())))
    return rewriter.notifyMatchFailure(depthwise,
                                       "its input cannot be overwritten");

  // Each op of the chain again, over the input's rows, where it was.
  IRMapping mapping;
  Operation *wide = nullptr;
  for (Operation *op : chain) {
    rewriter.setInsertionPoint(op);
    wide = rewriter.clone(*op, mapping);
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    wide->getResult(0).setType(type.clone(input.getShape()));
    if (op == depthwise)
      wide->setAttr("pad", rewriter.getDenseI64ArrayAttr(
                               {dims[0].padBefore, dims[0].padAfter,
                                dims[1].padBefore, dims[1].padAfter}));
    mapping.map(op->getResult(0), wide->getResult(0));
  }
  SmallVector<OpFoldResult> offsets = {
      rewriter.getIndexAttr(0), rewriter.getIndexAttr(dims[0].offset),
      rewriter.getIndexAttr(dims[1].offset), rewriter.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes, strides(4, rewriter.getIndexAttr(1));
  for (int64_t size : output.getShape())
    sizes.push_back(rewriter.getIndexAttr(size));
  auto view = tensor::ExtractSliceOp::create(
      rewriter, chain.back()->getLoc(), last, wide->getResult(0), offsets,
      sizes, strides);
  rewriter.replaceOp(chain.back(), view.getResult());
  for (Operation *op : llvm::reverse(ArrayRef(chain).drop_back()))
    rewriter.eraseOp(op);
  return success();
}

namespace {
/// Computes a stride-1 depthwise convolution of a smaller output than its
/// input over its whole input, in place, and views the rows it had.
struct WidenDepthwisePattern
    : public OpRewritePattern<tosa::DepthwiseConv2DOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tosa::DepthwiseConv2DOp depthwise,
                                PatternRewriter &rewriter) const override {
    return widenDepthwiseInPlace(rewriter, depthwise);
  }
};

/// Applies WidenDepthwisePattern to a function.
struct WidenDepthwisePass
    : public memopt::impl::WidenDepthwisePassBase<WidenDepthwisePass> {
  using WidenDepthwisePassBase::WidenDepthwisePassBase;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateWidenDepthwisePatterns(patterns);
    // Only the convolutions: no folding of the rest of the function.
    SmallVector<Operation *> ops;
    getOperation().walk(
        [&](tosa::DepthwiseConv2DOp op) { ops.push_back(op); });
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    (void)applyOpPatternsGreedily(ops, std::move(patterns), config);
  }
};
} // namespace

void mlir::memopt::populateWidenDepthwisePatterns(
    RewritePatternSet &patterns) {
  patterns.add<WidenDepthwisePattern>(patterns.getContext());
}
