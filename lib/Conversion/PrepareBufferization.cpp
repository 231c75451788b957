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
// `tensor.empty` that a concat lowers to becomes one `tensor.concat`, unless
// the cost model computes some operands directly into their slices
// (getInPlaceConcat, marked by `mark-fused-elementwise`): then the chain is
// reordered and each marked operand's lowering writes into a
// `tensor.extract_slice` of the concat's destination.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Conversion/Passes.h"

#include "MemOpt/Conversion/LocationMarks.h"
#include "MemOpt/CostModel/CostModel.h"
#include "MemOpt/Utils/Attributes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_PREPAREBUFFERIZATIONPASS
#include "MemOpt/Conversion/Passes.h.inc"
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

/// Returns the concat chain that starts at \p empty: the
/// `tensor.insert_slice`s that directly follow it, each into the previous
/// one's result, the first into \p empty.
static SmallVector<tensor::InsertSliceOp> getInsertChain(tensor::EmptyOp empty) {
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
  return chain;
}

/// Returns true if \p value is computed by an op the cost model writes into
/// its slice of a concat (marked by `mark-fused-elementwise`).
static bool isMarkedIntoSlice(Value value) {
  Operation *def = value.getDefiningOp();
  return def && hasLocationMark(def, kIntoConcatSliceLocName);
}

/// Readies the lowering of \p source (a marked concat operand) to start from
/// a slice instead of its own `tensor.empty`: follows the init chain from
/// \p source (destination-style ops through their tied init, a one-result
/// `scf.for` through its loop init) to the `tensor.empty`, clones links that
/// have other users, moves the chain right before \p source's op, and
/// returns the operand that reads the `tensor.empty`, or failure if the
/// chain does not end in a `tensor.empty` of the same block.
static FailureOr<OpOperand *> isolateInitChain(Value source) {
  Operation *last = source.getDefiningOp();
  Value current = source;
  OpOperand *use = nullptr;
  Operation *consumer = nullptr;
  while (true) {
    Operation *def = current.getDefiningOp();
    if (!def || def->getBlock() != last->getBlock())
      return failure();
    if (isa<tensor::EmptyOp>(def))
      return use;
    if (def->getNumResults() != 1)
      return failure();
    if (consumer) {
      // A link shared with another chain (a fill CSE merged) is cloned.
      if (!current.hasOneUse()) {
        OpBuilder builder(consumer);
        Operation *clone = builder.clone(*def);
        use->set(clone->getResult(0));
        def = clone;
      } else {
        def->moveBefore(consumer);
      }
    }
    OpOperand *init = nullptr;
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(def))
      init = dps.getTiedOpOperand(cast<OpResult>(def->getResult(0)));
    else if (auto loop = dyn_cast<scf::ForOp>(def))
      init = &loop.getInitsMutable()[0];
    if (!init)
      return failure();
    use = init;
    consumer = def;
    current = init->get();
  }
}

/// Writes the marked operands of every concat chain into their slices (see
/// the file comment); returns failure after an error at a marked op that
/// could not be.
static LogicalResult writeOperandsIntoSlices(func::FuncOp func) {
  SmallVector<tensor::EmptyOp> empties;
  func.walk([&](tensor::EmptyOp empty) { empties.push_back(empty); });
  DenseSet<Operation *> done;
  for (tensor::EmptyOp empty : empties) {
    auto type = dyn_cast<RankedTensorType>(empty.getType());
    if (!type || !type.hasStaticShape())
      continue;
    SmallVector<tensor::InsertSliceOp> chain = getInsertChain(empty);
    if (chain.size() < 2 || !getConcatOfSlices(chain, type) ||
        llvm::none_of(chain, [](tensor::InsertSliceOp insert) {
          return isMarkedIntoSlice(insert.getSource());
        }))
      continue;
    // Marked sources in the order their ops run; the others keep their
    // place (and order) at the end of the chain, where the concat was.
    SmallVector<tensor::InsertSliceOp> inPlace, copied;
    for (tensor::InsertSliceOp insert : chain)
      (isMarkedIntoSlice(insert.getSource()) ? inPlace : copied)
          .push_back(insert);
    llvm::stable_sort(inPlace, [](tensor::InsertSliceOp a,
                                  tensor::InsertSliceOp b) {
      return a.getSource().getDefiningOp()->isBeforeInBlock(
          b.getSource().getDefiningOp());
    });
    Value oldEnd = chain.back().getResult();
    SmallVector<OpOperand *> outsideUses;
    for (OpOperand &use : oldEnd.getUses())
      outsideUses.push_back(&use);
    Operation *concatPoint = chain.back()->getNextNode();

    Value dest = empty.getResult();
    for (auto [index, insert] : llvm::enumerate(inPlace)) {
      Operation *producer = insert.getSource().getDefiningOp();
      FailureOr<OpOperand *> emptyUse = isolateInitChain(insert.getSource());
      if (failed(emptyUse) || !*emptyUse) {
        producer->emitOpError(
            "is computed into its slice of a concat by the memory model "
            "(getInPlaceConcat), but its lowering has no init to redirect "
            "into the slice");
        return failure();
      }
      // The chain now runs right before the producer; its first op reads
      // the slice instead of the `tensor.empty`, and the concat's
      // destination is created before the first such chain.
      Operation *chainStart = (*emptyUse)->getOwner();
      if (index == 0)
        empty->moveBefore(chainStart);
      OpBuilder builder(chainStart);
      auto slice = tensor::ExtractSliceOp::create(
          builder, insert.getLoc(), insert.getSourceType(), dest,
          insert.getMixedOffsets(), insert.getMixedSizes(),
          insert.getMixedStrides());
      (*emptyUse)->set(slice.getResult());
      insert.getDestMutable().assign(dest);
      insert->moveAfter(producer);
      dest = insert.getResult();
      done.insert(producer);
    }
    for (tensor::InsertSliceOp insert : copied) {
      insert.getDestMutable().assign(dest);
      if (concatPoint)
        insert->moveBefore(concatPoint);
      dest = insert.getResult();
    }
    for (OpOperand *use : outsideUses)
      use->set(dest);
  }
  // A marked op the model wrote into a slice but no chain consumed is an
  // error: its lowering would copy it. (Concats are at the top level; the
  // marked ops inside a fused per-pixel loop insert into the loop's tensor.)
  for (Block &block : func.getBody())
    for (auto insert : block.getOps<tensor::InsertSliceOp>()) {
      Operation *def = insert.getSource().getDefiningOp();
      if (!isMarkedIntoSlice(insert.getSource()) || done.contains(def))
        continue;
      def->emitOpError("is computed into its slice of a concat by the "
                       "memory model (getInPlaceConcat), but its concat was "
                       "lowered otherwise");
      return failure();
    }
  return success();
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
    if (failed(writeOperandsIntoSlices(func)))
      return signalPassFailure();
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
