//===- DecomposeTransposeConv.cpp - decompose-transpose-conv pass ---------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Rewrites tosa.transpose_conv2d into tosa.conv2d and the data movement
// around it with upstream TOSA's decomposition patterns, applied alone (not
// the other optional decompositions, which turn 1x1 depthwise convolutions
// into elementwise ops), and folds the reversal of constant weights that the
// decomposition makes: the memory model counts ops computed from weights as
// free, so they must not be left to run.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Tosa/Transforms/Passes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_DECOMPOSETRANSPOSECONVPASS
#include "MemOpt/Conversion/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;

namespace {
/// Folds `tosa.reverse` of a constant into the reversed constant.
struct FoldConstantReverse : OpRewritePattern<tosa::ReverseOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tosa::ReverseOp op,
                                PatternRewriter &rewriter) const override {
    DenseElementsAttr values;
    if (!matchPattern(op.getInput1(), m_Constant(&values)))
      return rewriter.notifyMatchFailure(op, "input is not a constant");
    auto type = cast<ShapedType>(values.getType());
    if (!type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    DenseElementsAttr reversed = values;
    if (!values.isSplat()) {
      ArrayRef<int64_t> shape = type.getShape();
      int64_t axis = op.getAxis();
      int64_t inner = 1;
      for (int64_t dim : shape.drop_front(axis + 1))
        inner *= dim;
      int64_t extent = shape[axis];
      SmallVector<Attribute> in(values.getValues<Attribute>());
      SmallVector<Attribute> out(in.size());
      // Index i = (outer * extent + a) * inner + k moves to a' = extent-1-a.
      for (int64_t i = 0, e = in.size(); i < e; ++i) {
        int64_t k = i % inner, a = (i / inner) % extent,
                outer = i / (inner * extent);
        out[(outer * extent + (extent - 1 - a)) * inner + k] = in[i];
      }
      reversed = DenseElementsAttr::get(type, out);
    }
    rewriter.replaceOpWithNewOp<tosa::ConstOp>(op, op.getType(), reversed);
    return success();
  }
};

struct DecomposeTransposeConvPass
    : memopt::impl::DecomposeTransposeConvPassBase<DecomposeTransposeConvPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    tosa::populateTosaDecomposeTransposeConv(&getContext(), patterns);
    patterns.add<FoldConstantReverse>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      getOperation().emitError("decompose-transpose-conv did not converge");
      return signalPassFailure();
    }
    // A transposed convolution the patterns leave (dynamic shapes) would
    // fail later in TOSA to linalg; say so here, at the op.
    WalkResult result = getOperation().walk([](tosa::TransposeConv2DOp op) {
      op.emitOpError("could not be decomposed into tosa.conv2d (it needs "
                     "static shapes)");
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
