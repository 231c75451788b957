//===- MemPlanOps.cpp - memplan operations --------------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Verifiers of `memplan.arena` and `memplan.place`. The arena's verifier is
// the proof that a plan is safe: aligned offsets, every buffer inside the
// arena, and no shared byte between buffers live at the same step.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Dialect/MemPlan/MemPlanOps.h"
#include "MemOpt/Utils/StorageSize.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::memplan;

std::optional<int64_t>
mlir::memplan::getStaticSizeInBytes(MemRefType type, const DataLayout &layout) {
  return memopt::getStorageBytes(type, layout);
}

//===----------------------------------------------------------------------===//
// ArenaOp
//===----------------------------------------------------------------------===//

/// One placed buffer, as the arena verifier sees it.
namespace {
struct PlacedBuffer {
  PlaceOp op;
  int64_t offset;
  int64_t size;
  /// The alignment its offset needs: its element's, at most the arena's.
  int64_t alignment;
  int64_t first;
  int64_t last;
};
} // namespace

/// Returns the first and the last op of \p block (which holds \p place or an
/// ancestor of it) that use the placed buffer or any alias of it (values
/// computed from it by any op, nested uses counting at their ancestor in the
/// block), or nulls if nothing uses it.
static std::pair<Operation *, Operation *> getUseSpan(PlaceOp place,
                                                      Block *block) {
  Operation *first = nullptr, *last = nullptr;
  SmallVector<Value> worklist{place.getResult()};
  llvm::DenseSet<Value> seen;
  auto pushMemRefs = [&](Operation *op) {
    for (Value result : op->getResults())
      if (isa<BaseMemRefType>(result.getType()))
        worklist.push_back(result);
  };
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    for (OpOperand &use : value.getUses()) {
      Operation *owner = use.getOwner();
      Operation *top = block->findAncestorOpInBlock(*owner);
      if (!top)
        continue;
      if (!first || top->isBeforeInBlock(first))
        first = top;
      if (!last || last->isBeforeInBlock(top))
        last = top;
      pushMemRefs(owner);
      if (top != owner)
        pushMemRefs(top);
    }
  }
  return {first, last};
}

/// Returns true if \p later takes over bytes of \p earlier: its
/// kOverwritesAttrName names earlier's offset, and it starts while earlier is
/// live and outlives it.
static bool takesOver(const PlacedBuffer &later, const PlacedBuffer &earlier) {
  auto attr = later.op->getAttrOfType<IntegerAttr>(kOverwritesAttrName);
  return attr && attr.getInt() == earlier.offset &&
         earlier.first <= later.first && later.first <= earlier.last &&
         earlier.last <= later.last;
}

/// Describes \p buffer for a diagnostic: offset, size and live range.
static void describe(InFlightDiagnostic &diag, const PlacedBuffer &buffer) {
  diag << "buffer at offset " << buffer.offset << " (" << buffer.size
       << " bytes, live [" << buffer.first << ", " << buffer.last << "])";
}

LogicalResult ArenaOp::verify() {
  int64_t alignment = getAlignment();
  if (!llvm::isPowerOf2_64(static_cast<uint64_t>(alignment)))
    return emitOpError("alignment ") << alignment << " is not a power of two";
  auto type = cast<MemRefType>(getArena().getType());
  if (!type.hasStaticShape())
    return emitOpError("arena type ") << type << " must have a static size";
  if (!type.getLayout().isIdentity())
    return emitOpError("arena type ")
           << type << " must have the identity layout";
  int64_t arenaSize = getSize();

  DataLayout layout = DataLayout::closest(*this);
  SmallVector<PlacedBuffer> buffers;
  for (Operation *user : getArena().getUsers()) {
    auto place = dyn_cast<PlaceOp>(user);
    if (!place) {
      InFlightDiagnostic diag = emitOpError("is used by '")
                                << user->getName()
                                << "'; only memplan.place may use an arena";
      diag.attachNote(user->getLoc()) << "used here";
      return diag;
    }
    // Malformed places (missing attributes, bad types) are reported by
    // their own verifier.
    if (!place.getOffsetAttr() || !place.getFirstAttr() ||
        !place.getLastAttr() || place->getNumResults() != 1 ||
        !isa<MemRefType>(place->getResult(0).getType()))
      continue;
    auto placedType = cast<MemRefType>(place.getType());
    std::optional<int64_t> size = getStaticSizeInBytes(placedType, layout);
    std::optional<int64_t> elementAlignment =
        memopt::getElementStorageAlignment(placedType.getElementType(), layout);
    if (!size || !elementAlignment)
      continue;
    buffers.push_back({place, static_cast<int64_t>(place.getOffset()), *size,
                       std::min(*elementAlignment, alignment),
                       static_cast<int64_t>(place.getFirst()),
                       static_cast<int64_t>(place.getLast())});
  }
  // Check in program order (nested places in a walk's pre-order) so that
  // diagnostics are deterministic.
  DenseMap<Operation *, unsigned> position;
  (*this)->getParentOp()->walk(
      [&](PlaceOp place) { position.try_emplace(place, position.size()); });
  llvm::sort(buffers, [&](const PlacedBuffer &a, const PlacedBuffer &b) {
    return position.lookup(a.op) < position.lookup(b.op);
  });

  // Use spans in the innermost block holding both places (a loop's body
  // for two buffers of the body), computed on demand once per buffer and
  // block.
  DenseMap<std::pair<unsigned, Block *>, std::pair<Operation *, Operation *>>
      spans;
  auto getSpan = [&](unsigned index, Block *block) {
    auto [it, inserted] = spans.try_emplace({index, block});
    if (inserted)
      it->second = getUseSpan(buffers[index].op, block);
    return it->second;
  };
  auto getCommonBlock = [](Operation *a, Operation *b) {
    Block *block = a->getBlock();
    while (!block->findAncestorOpInBlock(*b))
      block = block->getParentOp()->getBlock();
    return block;
  };

  for (auto [index, buffer] : llvm::enumerate(buffers)) {
    if (buffer.offset % buffer.alignment)
      return buffer.op.emitOpError("offset ")
             << buffer.offset << " is not a multiple of " << buffer.alignment
             << ", the alignment of " << buffer.op.getType().getElementType()
             << " in the arena";
    if (buffer.offset + buffer.size > arenaSize) {
      InFlightDiagnostic diag = buffer.op.emitOpError();
      describe(diag, buffer);
      diag << " ends at byte " << buffer.offset + buffer.size
           << ", past the end of the " << arenaSize << "-byte arena";
      return diag;
    }
    for (auto [otherIndex, other] :
         llvm::enumerate(ArrayRef(buffers).take_front(index))) {
      int64_t byteBegin = std::max(buffer.offset, other.offset);
      int64_t byteEnd =
          std::min(buffer.offset + buffer.size, other.offset + other.size);
      int64_t stepBegin = std::max(buffer.first, other.first);
      int64_t stepEnd = std::min(buffer.last, other.last);
      if (byteBegin >= byteEnd || takesOver(buffer, other) ||
          takesOver(other, buffer))
        continue;
      if (stepBegin > stepEnd) {
        // Disjoint live ranges may share bytes only if the IR agrees: every
        // use of the buffer live first precedes every use of the other.
        bool bufferFirst = buffer.last < other.first;
        PlacedBuffer earlier = bufferFirst ? buffer : other;
        PlacedBuffer later = bufferFirst ? other : buffer;
        Block *block = getCommonBlock(buffer.op, other.op);
        Operation *lastUse =
            getSpan(bufferFirst ? index : otherIndex, block).second;
        Operation *firstUse =
            getSpan(bufferFirst ? otherIndex : index, block).first;
        if (!lastUse || !firstUse || lastUse->isBeforeInBlock(firstUse))
          continue;
        InFlightDiagnostic diag = buffer.op.emitOpError();
        describe(diag, earlier);
        diag << " and ";
        describe(diag, later);
        diag << " share bytes [" << byteBegin << ", " << byteEnd
             << "), but the first is still used when the second is";
        diag.attachNote(lastUse->getLoc())
            << "last use of the buffer at offset " << earlier.offset;
        diag.attachNote(firstUse->getLoc())
            << "first use of the buffer at offset " << later.offset;
        return diag;
      }
      InFlightDiagnostic diag = buffer.op.emitOpError();
      describe(diag, buffer);
      diag << " overlaps ";
      describe(diag, other);
      diag << ": both use bytes [" << byteBegin << ", " << byteEnd
           << ") at steps [" << stepBegin << ", " << stepEnd << "]";
      diag.attachNote(other.op->getLoc()) << "the other buffer is placed here";
      return diag;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// PlaceOp
//===----------------------------------------------------------------------===//

Value PlaceOp::getViewSource() { return getArena(); }

std::optional<int64_t> PlaceOp::getSizeInBytes() {
  return getStaticSizeInBytes(cast<MemRefType>(getType()),
                              DataLayout::closest(*this));
}

LogicalResult PlaceOp::verify() {
  if (getFirst() > getLast())
    return emitOpError("live range [")
           << getFirst() << ", " << getLast() << "] ends before it starts";
  if (!getArena().getDefiningOp<ArenaOp>())
    return emitOpError("arena must be the result of a memplan.arena");
  auto type = cast<MemRefType>(getType());
  if (!type.getLayout().isIdentity())
    return emitOpError("result type ")
           << type << " must have the identity layout";
  if (type.getMemorySpace() !=
      cast<MemRefType>(getArena().getType()).getMemorySpace())
    return emitOpError("result type ")
           << type << " must be in the memory space of the arena";
  if (!getSizeInBytes())
    return emitOpError("element type ")
           << type.getElementType() << " has no fixed byte size";
  return success();
}

#define GET_OP_CLASSES
#include "MemOpt/Dialect/MemPlan/MemPlanOps.cpp.inc"
