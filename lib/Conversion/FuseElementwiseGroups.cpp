//===- FuseElementwiseGroups.cpp - Elementwise groups of the model --------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The lowering of the memory model's fused elementwise groups
// (isFusedIntoConsumer): `fuse-elementwise-groups` fuses each
// `linalg.generic` that carries the mark of `mark-fused-elementwise`
// (MarkFusedElementwise.cpp) into its user with upstream elementwise fusion.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Conversion/Passes.h"

#include "MemOpt/Conversion/LocationMarks.h"
#include "MemOpt/Utils/Attributes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_FUSEELEMENTWISEGROUPSPASS
#include "MemOpt/Conversion/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

/// Returns true if the location of \p op carries the elementwise mark of
/// `mark-fused-elementwise`.
static bool isMarked(Operation *op) {
  return hasLocationMark(op, kFusedIntoConsumerLocName);
}

/// Returns the marked generic that computes \p value, or null.
static linalg::GenericOp getMarkedProducer(Value value) {
  auto generic = value.getDefiningOp<linalg::GenericOp>();
  return generic && isMarked(generic) ? generic : linalg::GenericOp();
}

namespace {
struct FuseElementwiseGroupsPass
    : memopt::impl::FuseElementwiseGroupsPassBase<FuseElementwiseGroupsPass> {
  void runOnOperation() override;
};
} // namespace

void FuseElementwiseGroupsPass::runOnOperation() {
  func::FuncOp func = getOperation();
  IRRewriter rewriter(&getContext());

  // 1. A reduction that reads a marked op becomes a generic with a
  // reduction iterator, into which the producer can fuse.
  SmallVector<linalg::ReduceOp> reductions;
  func.walk([&](linalg::ReduceOp reduce) {
    if (llvm::any_of(reduce.getInputs(), [](Value input) {
          return static_cast<bool>(getMarkedProducer(input));
        }))
      reductions.push_back(reduce);
  });
  for (linalg::ReduceOp reduce : reductions) {
    rewriter.setInsertionPoint(reduce);
    if (failed(linalg::generalizeNamedOp(
            rewriter, cast<linalg::LinalgOp>(reduce.getOperation())))) {
      reduce.emitOpError("could not be generalized to fuse its producer");
      return signalPassFailure();
    }
  }

  // 2. Each unmarked generic (the root of a group) absorbs its marked
  // producers, nearest first, until none is left: the marked ops of a chain
  // fuse into the root, never into each other.
  SmallVector<linalg::GenericOp> roots;
  func.walk([&](linalg::GenericOp generic) {
    if (!isMarked(generic) &&
        llvm::any_of(generic.getDpsInputs(), [](Value input) {
          return static_cast<bool>(getMarkedProducer(input));
        }))
      roots.push_back(generic);
  });
  for (linalg::GenericOp root : roots) {
    for (bool fused = true; fused;) {
      fused = false;
      for (OpOperand *operand : root.getDpsInputOperands()) {
        linalg::GenericOp producer = getMarkedProducer(operand->get());
        if (!producer || !producer->hasOneUse() ||
            !linalg::areElementwiseOpsFusable(operand))
          continue;
        rewriter.setInsertionPoint(root);
        FailureOr<linalg::ElementwiseOpFusionResult> result =
            linalg::fuseElementwiseOps(rewriter, operand);
        if (failed(result))
          continue;
        for (auto [original, replacement] : result->replacements)
          rewriter.replaceAllUsesWith(original, replacement);
        rewriter.eraseOp(root);
        if (producer->use_empty())
          rewriter.eraseOp(producer);
        root = cast<linalg::GenericOp>(result->fusedOp);
        fused = true;
        break;
      }
    }
  }

  // 3. The model counted no buffer for a marked op: one left is an error.
  WalkResult left = func.walk([&](linalg::LinalgOp op) {
    if (!isMarked(op))
      return WalkResult::advance();
    op->emitOpError("is computed inside its consumer by the memory model "
                    "(isFusedIntoConsumer), but could not be fused into it");
    return WalkResult::interrupt();
  });
  if (left.wasInterrupted())
    signalPassFailure();
}
