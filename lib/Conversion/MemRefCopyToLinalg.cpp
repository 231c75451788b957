//===- MemRefCopyToLinalg.cpp - memref-copy-to-linalg pass ----------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Replaces memref.copy by linalg.copy, which lowers to loops instead of a call
// to the `memrefCopy` runtime function.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_MEMREFCOPYTOLINALGPASS
#include "MemOpt/Conversion/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

namespace {
/// Rewrites `memref.copy %a, %b` to `linalg.copy ins(%a) outs(%b)`.
struct MemRefCopyToLinalgPattern : OpRewritePattern<memref::CopyOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::CopyOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<linalg::CopyOp>(op, op.getSource(),
                                                op.getTarget());
    return success();
  }
};

/// Applies MemRefCopyToLinalgPattern to a function.
struct MemRefCopyToLinalgPass
    : memopt::impl::MemRefCopyToLinalgPassBase<MemRefCopyToLinalgPass> {
  using MemRefCopyToLinalgPassBase::MemRefCopyToLinalgPassBase;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<MemRefCopyToLinalgPattern>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
