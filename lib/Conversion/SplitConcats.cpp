//===- SplitConcats.cpp - split-concats pass ------------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Splits every `tosa.concat` with more operands than a limit into a balanced
// tree of concats along the same axis, each within the limit (by default the
// MAX_TENSOR_LIST_SIZE of the module's TOSA level).
//
// Canonicalization folds a tree of concats along one axis into one concat of
// all leaves, which may exceed the level's list size although every concat
// of the input was within it. `cortex-m-pipeline` validates the TOSA after
// canonicalization, so it splits such concats just before the validation;
// the canonicalization that opens TOSA to linalg folds the tree back into the
// one concat the memory model planned.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TargetEnv.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_SPLITCONCATSPASS
#include "MemOpt/Conversion/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

/// Returns the type of the concat of \p inputs along \p axis, whose other
/// dimensions and element type are those of \p full.
static RankedTensorType getConcatType(ValueRange inputs, int64_t axis,
                                      RankedTensorType full) {
  SmallVector<int64_t> shape(full.getShape());
  int64_t size = 0;
  for (Value input : inputs) {
    int64_t dim = cast<RankedTensorType>(input.getType()).getDimSize(axis);
    if (ShapedType::isDynamic(dim) || ShapedType::isDynamic(size)) {
      size = ShapedType::kDynamic;
      continue;
    }
    size += dim;
  }
  shape[axis] = size;
  return RankedTensorType::get(shape, full.getElementType(),
                               full.getEncoding());
}

namespace {
/// Rewrites a `tosa.concat` of more than `maxOperands` operands into a tree:
/// runs of `maxOperands` consecutive operands are concatenated first, then
/// their results, level by level, until one concat is within the limit.
struct SplitConcatPattern : OpRewritePattern<tosa::ConcatOp> {
  SplitConcatPattern(MLIRContext *context, unsigned maxOperands)
      : OpRewritePattern(context), maxOperands(maxOperands) {}

  LogicalResult matchAndRewrite(tosa::ConcatOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (maxOperands < 2 || op.getInput1().size() <= maxOperands || !type ||
        !llvm::all_of(op.getInput1().getTypes(),
                      [](Type t) { return isa<RankedTensorType>(t); }))
      return rewriter.notifyMatchFailure(op, "within the limit");
    int64_t axis = op.getAxis();
    SmallVector<Value> level(op.getInput1());
    while (level.size() > maxOperands) {
      SmallVector<Value> next;
      for (size_t begin = 0; begin < level.size(); begin += maxOperands) {
        ArrayRef<Value> run = ArrayRef(level).slice(
            begin, std::min<size_t>(maxOperands, level.size() - begin));
        if (run.size() == 1) {
          next.push_back(run.front());
          continue;
        }
        next.push_back(tosa::ConcatOp::create(rewriter, op.getLoc(),
                                              getConcatType(run, axis, type),
                                              run, op.getAxisAttr()));
      }
      level = std::move(next);
    }
    rewriter.replaceOpWithNewOp<tosa::ConcatOp>(op, type, level,
                                                op.getAxisAttr());
    return success();
  }

  unsigned maxOperands;
};
} // namespace

void mlir::memopt::populateSplitConcatsPatterns(RewritePatternSet &patterns,
                                                unsigned maxOperands) {
  patterns.add<SplitConcatPattern>(patterns.getContext(), maxOperands);
}

namespace {
/// Applies SplitConcatPattern once to every concat of a function, without
/// folding (which would flatten the tree again).
struct SplitConcatsPass : memopt::impl::SplitConcatsPassBase<SplitConcatsPass> {
  using SplitConcatsPassBase::SplitConcatsPassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    int64_t limit = maxOperands;
    if (limit < 0) {
      func.emitError("max-operands ") << limit << " is negative";
      return signalPassFailure();
    }
    if (limit == 0) {
      tosa::TargetEnvAttr env = tosa::lookupTargetEnvOrDefault(func);
      limit = env.getLevel() == tosa::Level::eightK
                  ? tosa::TOSA_LEVEL_EIGHTK.MAX_TENSOR_LIST_SIZE
                  : tosa::TOSA_LEVEL_NONE.MAX_TENSOR_LIST_SIZE;
    }
    if (limit < 2) {
      func.emitError("max-operands ")
          << limit << " cannot hold a concat of two operands";
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    populateSplitConcatsPatterns(patterns, static_cast<unsigned>(limit));
    walkAndApplyPatterns(func, std::move(patterns));
  }
};
} // namespace
