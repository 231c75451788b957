//===- PrepareBufferization.cpp - prepare-bufferization pass --------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Readies tensor IR for one-shot bufferization on a microcontroller: inputs
// become read-only, and elementwise ops reuse the buffer of an input that dies
// at them instead of allocating their own.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_PREPAREBUFFERIZATIONPASS
#include "MemOpt/Transforms/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

/// Returns the input of \p op that its (single) init may be replaced with, or
/// a null value: an input with the init's type, an identity indexing map, no
/// other user, defined by an op (not a function argument), while the init is
/// a `tensor.empty` the body never reads.
static Value getReusableInput(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumResults() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops())
    return {};
  OpOperand *init = op.getDpsInitOperand(0);
  if (!init->get().getDefiningOp<tensor::EmptyOp>() ||
      op.payloadUsesValueFromOperand(init) ||
      !op.getMatchingIndexingMap(init).isIdentity())
    return {};
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value value = input->get();
    if (value.getType() != init->get().getType() ||
        !op.getMatchingIndexingMap(input).isIdentity() ||
        !value.getDefiningOp() || !value.hasOneUse())
      continue;
    // Constants live in flash; never write over them.
    if (value.getDefiningOp()->hasTrait<OpTrait::ConstantLike>())
      continue;
    return value;
  }
  return {};
}

namespace {
/// Marks tensor arguments read-only and makes elementwise ops write over an
/// input that dies at them.
struct PrepareBufferizationPass
    : memopt::impl::PrepareBufferizationPassBase<PrepareBufferizationPass> {
  using PrepareBufferizationPassBase::PrepareBufferizationPassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    for (BlockArgument arg : func.getArguments())
      if (isa<TensorType>(arg.getType()))
        func.setArgAttr(arg.getArgNumber(),
                        bufferization::BufferizationDialect::kWritableAttrName,
                        BoolAttr::get(&getContext(), false));
    if (!inPlaceElementwise)
      return;
    func.walk([](linalg::GenericOp op) {
      if (Value input = getReusableInput(op))
        op.getDpsInitOperand(0)->set(input);
    });
  }
};
} // namespace
