//===- PrepareBufferization.cpp - prepare-bufferization pass --------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Readies tensor IR for one-shot bufferization on a microcontroller: inputs
// become read-only, values returned twice get a copy each (io=caller), and
// elementwise ops are told to reuse the buffer of an input that dies at them
// instead of allocating their own, by the same rule as the cost model.
//
// At the top level of the function the decision is a mark
// (kOverwriteInputAttrName) that `reuse-dying-inputs` carries out on buffers
// after bufferization. Tying the init to the input on tensors instead would
// put a whole chain of such ops (a running sum over n branches) into one
// alias set of one-shot bufferization, whose analysis then checks every read
// of the set against every write for each op: O(n^3) for the chain. Inside
// loops, where the buffer pass does not look, the init is tied on tensors.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Transforms/Passes.h"

#include "MemOpt/CostModel/CostModel.h"
#include "MemOpt/Utils/Attributes.h"

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

/// Returns the input of \p op whose buffer its (single) init may take over,
/// or null: the first input the cost model lets the result overwrite
/// (canOverwriteOperand), read through an identity indexing map, while the
/// init is a `tensor.empty` the body never reads.
static OpOperand *getReusableInput(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumResults() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops())
    return nullptr;
  OpOperand *init = op.getDpsInitOperand(0);
  if (!init->get().getDefiningOp<tensor::EmptyOp>() ||
      op.payloadUsesValueFromOperand(init) ||
      !op.getMatchingIndexingMap(init).isIdentity())
    return nullptr;
  for (OpOperand *input : op.getDpsInputOperands())
    if (op.getMatchingIndexingMap(input).isIdentity() &&
        canOverwriteOperand(input->get(), init->get().getType()))
      return input;
  return nullptr;
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
/// Marks tensor arguments read-only and lets elementwise ops write over an
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
    Block *body = &func.getBody().front();
    func.walk([&](linalg::GenericOp op) {
      OpOperand *input = getReusableInput(op);
      if (!input)
        return;
      if (op->getBlock() == body && func.getBody().hasOneBlock())
        op->setAttr(kOverwriteInputAttrName,
                    IntegerAttr::get(IntegerType::get(op.getContext(), 64),
                                     input->getOperandNumber()));
      else
        op.getDpsInitOperand(0)->set(input->get());
    });
  }
};
} // namespace
