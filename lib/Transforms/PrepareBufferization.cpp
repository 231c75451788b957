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
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

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

/// Returns the static box [offset, offset + size) per dimension of \p op, or
/// std::nullopt if it is not static with unit strides.
static std::optional<SmallVector<std::pair<int64_t, int64_t>>>
getStaticBox(tensor::InsertSliceOp op) {
  if (!op.hasUnitStride())
    return std::nullopt;
  SmallVector<std::pair<int64_t, int64_t>> box;
  for (auto [offset, size] :
       llvm::zip(op.getStaticOffsets(), op.getStaticSizes())) {
    if (ShapedType::isDynamic(offset) || ShapedType::isDynamic(size))
      return std::nullopt;
    box.push_back({offset, offset + size});
  }
  return box;
}

/// Returns true if the boxes \p a and \p b share no element.
static bool areDisjoint(ArrayRef<std::pair<int64_t, int64_t>> a,
                        ArrayRef<std::pair<int64_t, int64_t>> b) {
  for (auto [x, y] : llvm::zip(a, b))
    if (x.second <= y.first || y.second <= x.first)
      return true;
  return false;
}

/// Returns the op that starts the destination chain of \p value: following
/// the init operand of destination-style ops back to its root, the root op if
/// it is in \p block, else the op defining \p value.
static Operation *getChainStart(Value value, Block *block) {
  Operation *start = value.getDefiningOp();
  Operation *op = start;
  while (auto dps = dyn_cast_or_null<DestinationStyleOpInterface>(op)) {
    if (dps.getNumDpsInits() != 1)
      break;
    Operation *init = dps.getDpsInitOperand(0)->get().getDefiningOp();
    if (!init || init->getBlock() != block)
      break;
    start = init;
    op = init;
  }
  return start;
}

/// Reorders a chain of `tensor.insert_slice` ops that fill disjoint static
/// slices of a `tensor.empty` (a lowered concat) so that each operand is
/// inserted right after it is produced, and moves the `tensor.empty` before
/// the first producer. Empty-tensor elimination can then let every producer
/// write into its slice in the scheduled order, instead of moving producers
/// after the operands inserted before them. Returns true if it changed the IR.
static bool reorderInsertChain(tensor::EmptyOp empty) {
  Block *block = empty->getBlock();
  SmallVector<tensor::InsertSliceOp> chain;
  SmallVector<SmallVector<std::pair<int64_t, int64_t>>> boxes;
  Value current = empty.getResult();
  while (current.hasOneUse()) {
    auto insert = dyn_cast<tensor::InsertSliceOp>(*current.getUsers().begin());
    if (!insert || insert.getDest() != current || insert->getBlock() != block)
      break;
    std::optional<SmallVector<std::pair<int64_t, int64_t>>> box =
        getStaticBox(insert);
    if (!box)
      return false;
    for (const auto &other : boxes)
      if (!areDisjoint(*box, other))
        return false;
    boxes.push_back(*box);
    chain.push_back(insert);
    current = insert.getResult();
  }
  if (chain.size() < 2)
    return false;

  // Position of each source's producer in the block (arguments first).
  DenseMap<Operation *, unsigned> position;
  for (auto [i, op] : llvm::enumerate(*block))
    position[&op] = i;
  auto sourcePosition = [&](tensor::InsertSliceOp insert) -> int64_t {
    Operation *def = insert.getSource().getDefiningOp();
    return def && def->getBlock() == block ? (int64_t)position[def] : -1;
  };
  SmallVector<tensor::InsertSliceOp> sorted(chain);
  llvm::stable_sort(sorted,
                    [&](tensor::InsertSliceOp a, tensor::InsertSliceOp b) {
                      return sourcePosition(a) < sourcePosition(b);
                    });

  // Uses of the chain's result outside the chain move to the new end.
  Value oldEnd = chain.back().getResult();
  SmallVector<OpOperand *> outsideUses;
  for (OpOperand &use : oldEnd.getUses())
    outsideUses.push_back(&use);

  // The destination goes right before the first producer's chain.
  Operation *firstSource = sorted.front().getSource().getDefiningOp();
  if (firstSource && firstSource->getBlock() == block) {
    Operation *start = getChainStart(sorted.front().getSource(), block);
    empty->moveBefore(start);
  }
  Value dest = empty.getResult();
  Operation *after = empty;
  for (tensor::InsertSliceOp insert : sorted) {
    insert.getDestMutable().assign(dest);
    Operation *def = insert.getSource().getDefiningOp();
    if (def && def->getBlock() == block && after->isBeforeInBlock(def))
      after = def;
    insert->moveAfter(after);
    after = insert;
    dest = insert.getResult();
  }
  for (OpOperand *use : outsideUses)
    use->set(dest);
  return true;
}

namespace {
/// Decomposes a `tensor.pad` whose source has no other user into
/// `tensor.empty` + `linalg.fill` + `tensor.insert_slice`. A source with
/// other users would keep living, now in the larger padded buffer, so its pad
/// stays a transient copy.
struct DecomposeSoleUsePad : linalg::DecomposePadOpPattern {
  using DecomposePadOpPattern::DecomposePadOpPattern;

  LogicalResult matchAndRewrite(tensor::PadOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getSource().hasOneUse() || !op.getSource().getDefiningOp())
      return rewriter.notifyMatchFailure(op, "source has other users");
    return DecomposePadOpPattern::matchAndRewrite(op, rewriter);
  }
};

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
    // Pads become an empty tensor, a fill and an insert_slice, so that
    // empty-tensor elimination lets the producer write into the interior of
    // the padded buffer.
    RewritePatternSet patterns(&getContext());
    if (decomposePads)
      patterns.add<DecomposeSoleUsePad>(&getContext());
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();
    if (!inPlaceElementwise)
      return;
    func.walk([](linalg::GenericOp op) {
      if (Value input = getReusableInput(op))
        op.getDpsInitOperand(0)->set(input);
    });
  }
};
} // namespace
