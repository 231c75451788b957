//===- ReuseDyingInputs.cpp - reuse-dying-inputs pass ---------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Carries out, on buffers, the in-place decisions that prepare-bufferization
// marked on tensors: an elementwise `linalg.generic` at the top level of a
// function writes its result over the buffer of the marked input when no
// alias of that buffer is used after it, instead of into the fresh allocation
// one-shot bufferization gave it.
//
// One forward walk over the function's top-level ops numbers them, gives
// every top-level allocation a buffer id and every memref value the ids of
// the buffers it aliases (a view its source's; any other op's memref result
// every buffer the op uses, as MemRefLiveness does), and records the first
// and last step that uses each buffer. A second walk merges the output buffer
// of each marked generic into its input's buffer (union-find, the merged
// buffer living until the later of the two last uses), so the whole pass is
// linear in the size of the function.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Conversion/Passes.h"

#include "MemOpt/Utils/Attributes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

#include <limits>

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_REUSEDYINGINPUTSPASS
#include "MemOpt/Conversion/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

namespace {
/// Buffers of one function body: top-level allocations, the buffers each
/// memref value aliases, the steps that use them, and merges.
class BufferUses {
public:
  /// Numbers the top-level ops of \p body and records, for every top-level
  /// `memref.alloc`, the first and last step at which any alias of it is
  /// used (by the op at that step or by an op nested in it).
  explicit BufferUses(Block &body);

  /// Returns the step of the top-level op \p op.
  unsigned getStep(Operation *op) const { return steps.lookup(op); }

  /// Returns the representative of the one buffer \p value aliases, or
  /// std::nullopt if it aliases none or several.
  std::optional<unsigned> getOnlyBuffer(Value value);

  /// Returns true if \p value aliases buffer \p id (a representative).
  bool aliases(Value value, unsigned id);

  /// Returns the buffer id of \p alloc, or std::nullopt.
  std::optional<unsigned> getAllocBuffer(Operation *alloc) const;

  unsigned getFirstUse(unsigned id) const { return firstUse[id]; }
  unsigned getLastUse(unsigned id) const { return lastUse[id]; }

  /// Merges buffer \p from into buffer \p into (both representatives): the
  /// merged buffer is used until the later of their last uses.
  void merge(unsigned from, unsigned into);

private:
  unsigned find(unsigned id);

  llvm::DenseMap<Operation *, unsigned> steps;
  llvm::DenseMap<Operation *, unsigned> allocIds;
  llvm::DenseMap<Value, SmallVector<unsigned, 1>> valueBuffers;
  SmallVector<unsigned> parent;
  SmallVector<unsigned> firstUse;
  SmallVector<unsigned> lastUse;
};
} // namespace

/// Returns true if \p loop yields, as \p result, its iteration argument
/// itself (directly or through the same result of loops nested in it), so
/// that the result is the buffer of the matching init.
static bool isCarriedThrough(scf::ForOp loop, OpResult result) {
  unsigned number = result.getResultNumber();
  Value yielded = loop.getYieldedValues()[number];
  Value iterArg = loop.getRegionIterArgs()[number];
  while (yielded != iterArg) {
    auto inner = yielded.getDefiningOp<scf::ForOp>();
    if (!inner || inner->getParentOp() != loop.getOperation())
      return false;
    auto innerResult = cast<OpResult>(yielded);
    if (!isCarriedThrough(inner, innerResult))
      return false;
    yielded = inner.getInitArgs()[innerResult.getResultNumber()];
  }
  return true;
}

BufferUses::BufferUses(Block &body) {
  unsigned step = 0;
  for (Operation &top : body) {
    steps[&top] = step;
    if (auto alloc = dyn_cast<memref::AllocOp>(top)) {
      auto id = static_cast<unsigned>(parent.size());
      allocIds[&top] = id;
      valueBuffers[alloc.getResult()] = {id};
      parent.push_back(id);
      firstUse.push_back(std::numeric_limits<unsigned>::max());
      lastUse.push_back(step);
      ++step;
      continue;
    }
    llvm::SetVector<unsigned> used;
    top.walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        auto it = valueBuffers.find(operand);
        if (it != valueBuffers.end())
          used.insert(it->second.begin(), it->second.end());
      }
    });
    for (unsigned id : used) {
      firstUse[id] = std::min(firstUse[id], step);
      lastUse[id] = std::max(lastUse[id], step);
    }
    auto view = dyn_cast<ViewLikeOpInterface>(top);
    auto loop = dyn_cast<scf::ForOp>(top);
    for (Value result : top.getResults()) {
      if (!isa<BaseMemRefType>(result.getType()))
        continue;
      SmallVector<unsigned, 1> ids;
      Value source;
      if (view && view.getViewDest() == result)
        source = view.getViewSource();
      else if (loop && isCarriedThrough(loop, cast<OpResult>(result)))
        source = loop.getInitArgs()[cast<OpResult>(result).getResultNumber()];
      if (source) {
        auto it = valueBuffers.find(source);
        if (it != valueBuffers.end())
          ids = it->second;
      } else {
        ids.assign(used.begin(), used.end());
      }
      if (!ids.empty())
        valueBuffers[result] = std::move(ids);
    }
    ++step;
  }
}

unsigned BufferUses::find(unsigned id) {
  while (parent[id] != id) {
    parent[id] = parent[parent[id]];
    id = parent[id];
  }
  return id;
}

std::optional<unsigned> BufferUses::getOnlyBuffer(Value value) {
  auto it = valueBuffers.find(value);
  if (it == valueBuffers.end() || it->second.empty())
    return std::nullopt;
  unsigned id = find(it->second.front());
  for (unsigned other : it->second)
    if (find(other) != id)
      return std::nullopt;
  return id;
}

bool BufferUses::aliases(Value value, unsigned id) {
  auto it = valueBuffers.find(value);
  if (it == valueBuffers.end())
    return false;
  return llvm::any_of(it->second,
                      [&](unsigned other) { return find(other) == id; });
}

std::optional<unsigned> BufferUses::getAllocBuffer(Operation *alloc) const {
  auto it = allocIds.find(alloc);
  if (it == allocIds.end())
    return std::nullopt;
  return it->second;
}

void BufferUses::merge(unsigned from, unsigned into) {
  parent[from] = into;
  firstUse[into] = std::min(firstUse[into], firstUse[from]);
  lastUse[into] = std::max(lastUse[into], lastUse[from]);
}

/// Makes \p op, a marked generic at step \p step, write over the buffer of
/// its input number \p inputNumber if that is safe; returns true if it did.
static bool reuseInput(linalg::GenericOp op, unsigned inputNumber,
                       BufferUses &uses) {
  if (op->getNumResults() != 0 || op.getNumDpsInits() != 1 ||
      inputNumber >= op.getNumDpsInputs())
    return false;
  Value input = op->getOperand(inputNumber);
  Value init = op.getDpsInitOperand(0)->get();
  auto alloc = init.getDefiningOp<memref::AllocOp>();
  if (!alloc || input.getType() != init.getType() ||
      alloc->getBlock() != op->getBlock())
    return false;
  std::optional<unsigned> from = uses.getAllocBuffer(alloc);
  std::optional<unsigned> into = uses.getOnlyBuffer(input);
  if (!from || !into || *from == *into)
    return false;
  // The input's buffer dies here, and the output's is not used before.
  unsigned step = uses.getStep(op);
  if (uses.getLastUse(*into) != step || uses.getFirstUse(*from) != step)
    return false;
  // No other operand of the generic, nor any value its body uses, reads the
  // input's buffer through another view.
  bool otherAlias = false;
  op->walk([&](Operation *nested) {
    for (OpOperand &operand : nested->getOpOperands())
      if (!(nested == op.getOperation() &&
            operand.getOperandNumber() == inputNumber) &&
          uses.aliases(operand.get(), *into))
        otherAlias = true;
  });
  if (otherAlias)
    return false;
  // The output buffer is written by this op only after its allocation; a
  // dealloc of it would free the input's buffer.
  if (llvm::any_of(alloc->getUsers(), [](Operation *user) {
        return isa<memref::DeallocOp>(user);
      }))
    return false;
  init.replaceAllUsesWith(input);
  alloc->erase();
  uses.merge(*from, *into);
  return true;
}

namespace {
/// Carries out the in-place marks of prepare-bufferization on buffers.
struct ReuseDyingInputsPass
    : memopt::impl::ReuseDyingInputsPassBase<ReuseDyingInputsPass> {
  using ReuseDyingInputsPassBase::ReuseDyingInputsPassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<std::pair<linalg::GenericOp, unsigned>> marked;
    func.walk([&](linalg::GenericOp op) {
      if (auto mark = op->getAttrOfType<IntegerAttr>(kOverwriteInputAttrName)) {
        op->removeAttr(kOverwriteInputAttrName);
        if (op->getParentOp() == func.getOperation() &&
            func.getBody().hasOneBlock() && mark.getInt() >= 0)
          marked.emplace_back(op, static_cast<unsigned>(mark.getInt()));
      }
    });
    if (marked.empty())
      return;
    BufferUses uses(func.getBody().front());
    for (auto [op, inputNumber] : marked) {
      if (reuseInput(op, inputNumber, uses))
        ++numReused;
      else
        ++numKept;
    }
  }
};
} // namespace
