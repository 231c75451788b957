//===- PrepareBufferization.cpp - prepare-bufferization pass --------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Readies tensor IR for one-shot bufferization on a microcontroller: inputs
// become read-only, values returned twice get a copy each (io=caller), and
// elementwise ops reuse the buffer of an input that dies at them instead of
// allocating their own, by the same rule as the cost model.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Transforms/Passes.h"

#include "MemOpt/CostModel/CostModel.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_PREPAREBUFFERIZATIONPASS
#include "MemOpt/Transforms/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

/// Returns the input of \p op that its (single) init may be replaced with, or
/// a null value: the first input the cost model lets the result overwrite
/// (canOverwriteOperand), read through an identity indexing map, while the
/// init is a `tensor.empty` the body never reads.
static Value getReusableInput(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumResults() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops())
    return {};
  OpOperand *init = op.getDpsInitOperand(0);
  if (!init->get().getDefiningOp<tensor::EmptyOp>() ||
      op.payloadUsesValueFromOperand(init) ||
      !op.getMatchingIndexingMap(init).isIdentity())
    return {};
  for (OpOperand *input : op.getDpsInputOperands())
    if (op.getMatchingIndexingMap(input).isIdentity() &&
        canOverwriteOperand(input->get(), init->get().getType()))
      return input->get();
  return {};
}

/// Gives every result of \p func after the first that returns the same value
/// a copy of its own.
static void copyDuplicateResults(func::FuncOp func) {
  for (auto ret : func.getOps<func::ReturnOp>()) {
    llvm::SmallDenseSet<Value> seen;
    for (OpOperand &operand : ret->getOpOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.get().getType());
      if (!type || seen.insert(operand.get()).second)
        continue;
      OpBuilder builder(ret);
      Value empty = tensor::EmptyOp::create(
          builder, ret.getLoc(), type.getShape(), type.getElementType());
      operand.set(
          linalg::CopyOp::create(builder, ret.getLoc(), operand.get(), empty)
              .getResult(0));
    }
  }
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
    if (copyDuplicateResults)
      ::copyDuplicateResults(func);
    if (!inPlaceElementwise)
      return;
    func.walk([](linalg::GenericOp op) {
      if (Value input = getReusableInput(op))
        op.getDpsInitOperand(0)->set(input);
    });
  }
};
} // namespace
