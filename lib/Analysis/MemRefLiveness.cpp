//===- MemRefLiveness.cpp - Liveness of buffers in bufferized IR ----------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Analysis/MemRefLiveness.h"
#include "MemOpt/Dialect/MemPlan/MemPlanDialect.h"

#include "MemOpt/Dialect/MemPlan/MemPlanOps.h"
#include "MemOpt/Utils/Attributes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::memopt;

/// Buffer ids of one value (a value may alias several buffers when an op
/// other than a view computes a memref from several of them).
using BufferIds = llvm::SmallVector<unsigned, 1>;

mlir::memopt::MemRefLiveness::MemRefLiveness(Operation *op) {
  valid = succeeded(analyze(op));
  if (!valid)
    return;
  liveBytes.assign(stepOps.size(), 0);
  for (const MemRefBuffer &buffer : buffers)
    for (unsigned step = buffer.first; step <= buffer.last; ++step)
      liveBytes[step] += buffer.sizeInBytes;
  for (auto [step, bytes] : llvm::enumerate(liveBytes)) {
    if (bytes > peakBytes) {
      peakBytes = bytes;
      peakStep = step;
    }
  }
}

/// Checks that \p alloc can be planned and returns its buffer, or emits an
/// error at it.
static FailureOr<MemRefBuffer> makeBuffer(Operation *alloc, unsigned step,
                                          const DataLayout &layout) {
  auto type = cast<MemRefType>(alloc->getResult(0).getType());
  if (!type.hasStaticShape())
    return alloc->emitError("cannot plan '")
           << alloc->getName() << "' with dynamic shape " << type;
  if (!type.getLayout().isIdentity())
    return alloc->emitError("cannot plan '")
           << alloc->getName() << "' with non-identity layout " << type;
  if (type.getMemorySpace())
    return alloc->emitError("cannot plan '")
           << alloc->getName() << "' in memory space " << type.getMemorySpace();
  std::optional<int64_t> size = memplan::getStaticSizeInBytes(type, layout);
  if (!size)
    return alloc->emitError("cannot plan '")
           << alloc->getName() << "': element type " << type.getElementType()
           << " has no fixed byte size";
  MemRefBuffer buffer;
  buffer.alloc = alloc;
  buffer.sizeInBytes = *size;
  buffer.first = buffer.last = step;
  // The caller writes every input in the arena before the call, so all of
  // them are live together at the first step, even an input no op reads.
  if (alloc->hasAttr(memplan::kInputAttrName))
    buffer.first = 0;
  if (auto align = alloc->getAttrOfType<IntegerAttr>("alignment"))
    buffer.requestedAlignment = align.getInt();
  return buffer;
}

LogicalResult mlir::memopt::MemRefLiveness::analyze(Operation *op) {
  auto func = dyn_cast<func::FuncOp>(op);
  if (!func)
    return op->emitError("memref liveness expects a 'func.func'");
  if (func.isExternal())
    return success();
  if (!func.getBody().hasOneBlock())
    return func.emitError("memref liveness expects a function with one block, "
                          "this one has ")
           << func.getBody().getBlocks().size();

  DataLayout layout = DataLayout::closest(op);
  llvm::DenseMap<Value, BufferIds> aliases;
  return analyzeBlock(func.getBody().front(), func, layout, aliases);
}

/// Returns true if \p op is a loop whose body allocates buffers itself (a
/// loop over patches, whose allocations `hoist-static-allocations` left in
/// its body).
static bool isPlannedLoop(Operation &op) {
  auto loop = dyn_cast<LoopLikeOpInterface>(op);
  return loop && op.getNumRegions() == 1 && op.getRegion(0).hasOneBlock() &&
         llvm::any_of(op.getRegion(0).front(), [](Operation &inner) {
           return isa<memref::AllocOp, memref::AllocaOp>(inner);
         });
}

LogicalResult mlir::memopt::MemRefLiveness::analyzeBlock(
    Block &block, func::FuncOp func, const DataLayout &layout,
    llvm::DenseMap<Value, BufferIds> &aliases) {
  for (Operation &top : block) {
    auto step = static_cast<unsigned>(stepOps.size());
    stepOps.push_back(&top);

    // A loop over patches: the steps of its body between a step for its
    // start and one for its end. Its body's buffers are placed once for
    // every iteration; a buffer from before the loop that the body uses
    // stays live until the loop ends.
    if (isPlannedLoop(top)) {
      auto outer = static_cast<unsigned>(buffers.size());
      if (failed(analyzeBlock(top.getRegion(0).front(), func, layout, aliases)))
        return failure();
      auto end = static_cast<unsigned>(stepOps.size());
      stepOps.push_back(&top);
      for (unsigned id = 0; id < outer; ++id)
        if (buffers[id].last >= step)
          buffers[id].last = end;
      for (Value result : top.getResults())
        if (isa<BaseMemRefType>(result.getType()))
          return top.emitError("cannot plan a loop whose body allocates "
                               "buffers and that returns a memref");
      continue;
    }

    // A register accumulator (memplan-plan-arena) is no arena buffer.
    if (isa<memref::AllocaOp>(top) && top.hasAttr(kRegisterAccumulatorName))
      continue;
    if (isa<memref::AllocOp, memref::AllocaOp>(top)) {
      FailureOr<MemRefBuffer> buffer = makeBuffer(&top, step, layout);
      if (failed(buffer))
        return failure();
      aliases[top.getResult(0)] = {static_cast<unsigned>(buffers.size())};
      buffers.push_back(std::move(*buffer));
      continue;
    }

    // Every buffer any op in `top` (itself or nested) reads through one of its
    // aliases is used at this step.
    llvm::SetVector<unsigned> used;
    WalkResult walk = top.walk([&](Operation *nested) {
      if (nested != &top && isa<memref::AllocOp, memref::AllocaOp>(nested)) {
        nested->emitError("cannot plan '")
            << nested->getName() << "' inside a region of '" << top.getName()
            << "': allocations must be at the top level of the function";
        return WalkResult::interrupt();
      }
      bool isDealloc = isa<memref::DeallocOp>(nested);
      auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
      for (Value operand : nested->getOperands()) {
        auto it = aliases.find(operand);
        if (it == aliases.end())
          continue;
        if (isDealloc) {
          for (unsigned id : it->second)
            buffers[id].deallocs.push_back(nested);
          continue;
        }
        if (effects && effects.getEffectOnValue<MemoryEffects::Free>(operand)) {
          nested->emitError("'")
              << nested->getName()
              << "' frees a planned buffer; only 'memref.dealloc' can be "
                 "removed by the plan";
          return WalkResult::interrupt();
        }
        used.insert(it->second.begin(), it->second.end());
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();

    if (isa<func::ReturnOp>(top) &&
        func->hasAttr(memplan::kIOInArenaAttrName)) {
      // Outputs in the arena: each returned buffer lives until the return.
      for (Value operand : top.getOperands()) {
        auto it = aliases.find(operand);
        returnedBuffers.push_back(
            it != aliases.end() && it->second.size() == 1
                ? std::optional<unsigned>(it->second.front())
                : std::nullopt);
      }
    } else if (isa<func::ReturnOp>(top) && !used.empty()) {
      InFlightDiagnostic diag = buffers[used.front()].alloc->emitError(
          "cannot plan a buffer the function returns; run "
          "buffer-results-to-out-params first");
      diag.attachNote(top.getLoc()) << "returned here";
      return diag;
    }
    for (unsigned id : used)
      buffers[id].last = step;

    // Results that are memrefs computed from buffers alias them: a view
    // aliases its source, any other op conservatively every buffer it used.
    auto view = dyn_cast<ViewLikeOpInterface>(top);
    for (Value result : top.getResults()) {
      if (!isa<BaseMemRefType>(result.getType()))
        continue;
      BufferIds ids;
      if (view && view.getViewDest() == result) {
        auto it = aliases.find(view.getViewSource());
        if (it != aliases.end())
          ids = it->second;
      } else {
        ids.assign(used.begin(), used.end());
      }
      if (!ids.empty())
        aliases[result] = std::move(ids);
    }
  }
  return success();
}

void mlir::memopt::MemRefLiveness::print(llvm::raw_ostream &os) const {
  for (auto [id, buffer] : llvm::enumerate(buffers)) {
    os << "buffer " << id << " " << buffer.alloc->getName() << " "
       << buffer.alloc->getResult(0).getType() << " " << buffer.sizeInBytes
       << " bytes live [" << buffer.first << ", " << buffer.last << "]";
    if (!buffer.deallocs.empty())
      os << ", " << buffer.deallocs.size() << " dealloc";
    os << "\n";
  }
  for (auto [step, bytes] : llvm::enumerate(liveBytes))
    os << "step " << step << " " << stepOps[step]->getName() << " " << bytes
       << " bytes\n";
  os << "peak " << peakBytes << " bytes at step " << peakStep << "\n";
}

void mlir::memopt::MemRefLiveness::dump() const { print(llvm::errs()); }
