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
// For the same reason the chain of `tensor.insert_slice`s into a
// `tensor.empty` that a concat lowers to becomes one `tensor.concat`.
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

/// Copies every slice the function returns (isCopiedSlice) into a tensor of
/// its own right after it, where the schedule put it, and lets every user
/// read the copy: bufferization would otherwise copy the strided view at the
/// return, keeping the sliced buffer live to the end.
static void copyReturnedSlices(func::FuncOp func) {
  SmallVector<tensor::ExtractSliceOp> slices;
  func.walk([&](tensor::ExtractSliceOp slice) {
    if (isCopiedSlice(slice))
      slices.push_back(slice);
  });
  for (tensor::ExtractSliceOp slice : slices) {
    RankedTensorType type = slice.getType();
    OpBuilder builder(slice->getContext());
    builder.setInsertionPointAfter(slice);
    Value empty = tensor::EmptyOp::create(
        builder, slice.getLoc(), type.getShape(), type.getElementType());
    auto copy = linalg::CopyOp::create(builder, slice.getLoc(),
                                       slice.getResult(), empty);
    slice.getResult().replaceAllUsesExcept(copy.getResult(0), copy);
  }
}

/// Returns the tensor.concat that \p chain (insert_slices, each into the
/// previous one's result, the first into a `tensor.empty` of \p type) amounts
/// to: the dimension along which the slices tile the whole tensor and the
/// sources in the order of their offsets; std::nullopt if they do not tile it
/// along one dimension with static, unit-stride, full-rank slices.
static std::optional<std::pair<int64_t, SmallVector<Value>>>
getConcatOfSlices(ArrayRef<tensor::InsertSliceOp> chain,
                  RankedTensorType type) {
  std::optional<int64_t> dim;
  SmallVector<std::pair<int64_t, Value>> slices;
  for (tensor::InsertSliceOp insert : chain) {
    auto source = dyn_cast<RankedTensorType>(insert.getSourceType());
    if (!source || source.getRank() != type.getRank() ||
        !source.hasStaticShape() || !insert.getOffsets().empty() ||
        !insert.getSizes().empty() || !insert.getStrides().empty() ||
        llvm::any_of(insert.getStaticStrides(),
                     [](int64_t stride) { return stride != 1; }) ||
        insert.getStaticSizes() != source.getShape())
      return std::nullopt;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (source.getDimSize(d) == type.getDimSize(d) &&
          insert.getStaticOffsets()[d] == 0)
        continue;
      if (dim && *dim != d)
        return std::nullopt;
      dim = d;
    }
    if (!dim)
      return std::nullopt;
    slices.emplace_back(insert.getStaticOffsets()[*dim], insert.getSource());
  }
  llvm::stable_sort(
      slices, [](const auto &a, const auto &b) { return a.first < b.first; });
  int64_t next = 0;
  SmallVector<Value> sources;
  for (auto [offset, source] : slices) {
    if (offset != next)
      return std::nullopt;
    next += cast<RankedTensorType>(source.getType()).getDimSize(*dim);
    sources.push_back(source);
  }
  if (next != type.getDimSize(*dim))
    return std::nullopt;
  return std::make_pair(*dim, std::move(sources));
}

/// Replaces every `tensor.empty` directly followed by a chain of
/// `tensor.insert_slice`s that tile it along one dimension (the lowering of
/// a `tosa.concat`) by one `tensor.concat` where the chain ends. The buffers
/// are the same (a new buffer, each operand copied into its slice, all at
/// the concat's step), but one-shot bufferization sees one op that reads its
/// operands instead of a chain of in-place writes that forms one alias set,
/// whose analysis costs O(n^2) per insert for a concat of n operands.
static void formConcats(func::FuncOp func) {
  SmallVector<tensor::EmptyOp> empties;
  func.walk([&](tensor::EmptyOp empty) { empties.push_back(empty); });
  for (tensor::EmptyOp empty : empties) {
    auto type = dyn_cast<RankedTensorType>(empty.getType());
    if (!type || !type.hasStaticShape())
      continue;
    SmallVector<tensor::InsertSliceOp> chain;
    Value dest = empty.getResult();
    for (Operation *next = empty->getNextNode(); dest.hasOneUse();
         next = next->getNextNode()) {
      auto insert = dyn_cast_or_null<tensor::InsertSliceOp>(next);
      if (!insert || insert.getDest() != dest)
        break;
      chain.push_back(insert);
      dest = insert.getResult();
    }
    if (chain.size() < 2)
      continue;
    auto concat = getConcatOfSlices(chain, type);
    if (!concat)
      continue;
    tensor::InsertSliceOp last = chain.back();
    OpBuilder builder(last);
    auto op = tensor::ConcatOp::create(builder, last.getLoc(), type,
                                       static_cast<uint64_t>(concat->first),
                                       concat->second);
    last.getResult().replaceAllUsesWith(op.getResult());
    for (tensor::InsertSliceOp insert : llvm::reverse(chain))
      insert->erase();
    empty->erase();
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
    formConcats(func);
    copyReturnedSlices(func);
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
