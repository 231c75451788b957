//===- MemPlanPlanArena.cpp - memplan-plan-arena pass ---------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Plans one static arena per bufferized function: liveness of every buffer
// (MemRefLiveness), placement (ArenaPlanner), and the plan written as memplan
// IR in place of the allocations. The accumulator of one output element of a
// fused fully connected layer (`memopt.register_accumulator`) is not an
// arena buffer: it becomes a `memref.alloca`, which LLVM keeps in a register.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Conversion/Passes.h"

#include "MemOpt/Conversion/LocationMarks.h"

#include "MemOpt/Analysis/MemRefLiveness.h"
#include "MemOpt/Arena/ArenaPlanner.h"
#include "MemOpt/CostModel/CostModel.h"
#include "MemOpt/Dialect/MemPlan/MemPlanDialect.h"
#include "MemOpt/Dialect/MemPlan/MemPlanOps.h"
#include "MemOpt/Utils/Attributes.h"
#include "MemOpt/Utils/StorageSize.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_MEMPLANPLANARENAPASS
#include "MemOpt/Conversion/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

namespace {
/// Replaces the allocations of a function with a placement in one arena.
struct MemPlanPlanArenaPass
    : memopt::impl::MemPlanPlanArenaPassBase<MemPlanPlanArenaPass> {
  using MemPlanPlanArenaPassBase::MemPlanPlanArenaPassBase;

  void runOnOperation() override;
};
} // namespace

/// Returns the step at which the live footprints of \p buffers peak (the
/// first one) and those bytes.
static std::pair<unsigned, int64_t>
getAlignedPeak(ArrayRef<ArenaBuffer> buffers, unsigned numSteps,
               int64_t alignment) {
  SmallVector<int64_t> live(numSteps, 0);
  for (const ArenaBuffer &buffer : buffers)
    for (int64_t step = buffer.start; step < buffer.end; ++step)
      live[step] += getFootprint(buffer, alignment);
  unsigned peakStep = 0;
  for (unsigned step = 0; step < numSteps; ++step)
    if (live[step] > live[peakStep])
      peakStep = step;
  return {peakStep, numSteps ? live[peakStep] : 0};
}

/// Replaces each allocation at the top level of \p func that
/// `fuse-rescale-accumulators` marked as the accumulator of a block of output
/// elements (kRegisterAccumulatorName, on its location) with a
/// `memref.alloca` carrying the attribute of that name: a stack slot of at
/// most 16 bytes that the plan leaves out and LLVM keeps in registers where
/// it can. The accumulators of one type share one slot: each is used only
/// inside the loop of its layer, which writes it before reading it.
static void promoteRegisterAccumulators(func::FuncOp func) {
  SmallVector<memref::AllocOp> marked;
  for (auto alloc : func.getBody().front().getOps<memref::AllocOp>())
    if (hasLocationMark(alloc, kRegisterAccumulatorName) &&
        alloc.getType().hasStaticShape())
      marked.push_back(alloc);
  llvm::DenseMap<Type, Value> slots;
  for (memref::AllocOp alloc : marked) {
    Value &slot = slots[alloc.getType()];
    if (!slot) {
      // The element's natural alignment: a larger one would realign the
      // stack.
      OpBuilder builder(alloc);
      auto alloca = memref::AllocaOp::create(builder, alloc.getLoc(),
                                             alloc.getType(), IntegerAttr());
      alloca->setAttr(kRegisterAccumulatorName, builder.getUnitAttr());
      slot = alloca.getResult();
    }
    alloc.replaceAllUsesWith(slot);
    alloc.erase();
  }
}

/// Makes the output of every convolution that the lowering computes over its
/// dying input (memopt::getOverwrite) overwrite the input's buffer in
/// \p problem. The top-level op whose location records the overwrite bound
/// (getOverwriteMark: the fused pixel loop) reads the input, which dies
/// there and which nothing in the loop writes, and writes the output, which
/// outlives it (its padded window and accumulator die with the loop). The
/// output is placed at the aligned bound from the input, the shift the model
/// counted. Fails with a diagnostic at the loop if the IR does not have that
/// form: the model counted the bytes the pair shares.
static LogicalResult addOverwritePairs(const MemRefLiveness &liveness,
                                       MutableArrayRef<ArenaBuffer> problem,
                                       int64_t alignment) {
  ArrayRef<MemRefBuffer> buffers = liveness.getBuffers();
  llvm::DenseMap<Value, unsigned> bufferOfAlloc;
  for (auto [index, buffer] : llvm::enumerate(buffers))
    bufferOfAlloc[buffer.alloc->getResult(0)] = index;
  // Each marked location must have a pixel loop (one per patch in a patched
  // prefix): other top-level ops may carry it (the constants its lowering
  // made) without touching a buffer.
  llvm::MapVector<Location, bool> paired;
  for (auto [index, op] : llvm::enumerate(liveness.getStepOps())) {
    unsigned step = index;
    std::optional<int64_t> bound = getOverwriteMark(op);
    if (!bound || isa<memref::AllocOp>(op))
      continue;
    llvm::SmallSetVector<unsigned, 4> read, written;
    bool writesCaller = false;
    op->walk([&](linalg::LinalgOp linalgOp) {
      for (OpOperand &operand : linalgOp->getOpOperands()) {
        Value root = operand.get();
        if (auto memref = dyn_cast<MemrefValue>(root))
          root = memref::skipViewLikeOps(memref);
        auto it = bufferOfAlloc.find(root);
        writesCaller |= linalgOp.isDpsInit(&operand) && isa<BlockArgument>(root);
        if (it == bufferOfAlloc.end())
          continue;
        if (linalgOp.isDpsInit(&operand))
          written.insert(it->second);
        else
          read.insert(it->second);
      }
    });
    bool &found = paired[op->getLoc()];
    if (read.empty() && written.empty())
      continue;
    found = true;
    auto inputs = llvm::to_vector(llvm::make_filter_range(read, [&](unsigned id) {
      return !written.contains(id) && buffers[id].last == step;
    }));
    auto outputs =
        llvm::to_vector(llvm::make_filter_range(written, [&](unsigned id) {
          return buffers[id].last > step;
        }));
    // Under io=caller the output may be the caller's buffer (an output
    // computed over it on the way): it shares no arena bytes with the input,
    // and the model counted none (DataflowGraph).
    if (outputs.empty() && writesCaller)
      continue;
    if (inputs.size() != 1 || outputs.size() != 1 || *bound > 0)
      return op->emitError(
          "internal error: a convolution marked to overwrite its dying input "
          "does not read one buffer that dies here and write one that "
          "outlives it");
    ArenaBuffer &output = problem[outputs.front()];
    output.overwrites = inputs.front();
    output.overwriteShift = alignOverwriteShift(*bound, alignment);
  }
  for (auto [loc, found] : paired)
    if (!found)
      return emitError(loc, "internal error: no loop of a convolution marked "
                            "to overwrite its dying input reads or writes "
                            "a buffer");
  return success();
}

void MemPlanPlanArenaPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal())
    return;
  // Plain copies of the options: diagnostics stream integers, not options.
  const int64_t alignment = this->alignment;
  const int64_t capacity = this->capacity;

  std::optional<PlacementAlgorithm> parsed = parsePlacementAlgorithm(algorithm);
  if (!parsed) {
    func.emitError("unknown placement algorithm '")
        << algorithm << "'; expected best, greedy-by-size or no-reuse";
    return signalPassFailure();
  }
  if (alignment <= 0 ||
      !llvm::isPowerOf2_64(static_cast<uint64_t>(alignment))) {
    func.emitError("alignment ") << alignment << " is not a power of two";
    return signalPassFailure();
  }
  if (capacity < 0) {
    func.emitError("capacity ") << capacity << " is negative";
    return signalPassFailure();
  }
  const unsigned indexBitwidth = this->indexBitwidth;
  if (indexBitwidth < 8 || indexBitwidth > 64) {
    func.emitError("index-bitwidth ")
        << indexBitwidth << " is not between 8 and 64";
    return signalPassFailure();
  }
  if (func->hasAttr(memplan::kArenaSizeAttrName) ||
      func.walk([](memplan::ArenaOp) { return WalkResult::interrupt(); })
          .wasInterrupted()) {
    func.emitError("function is already planned");
    return signalPassFailure();
  }

  promoteRegisterAccumulators(func);
  auto &liveness = getAnalysis<MemRefLiveness>();
  if (!liveness.isValid())
    return signalPassFailure();
  ArrayRef<MemRefBuffer> buffers = liveness.getBuffers();

  // The buffers of the graph's inputs and outputs in the arena take their
  // element's alignment, every other buffer the arena's (the byte rule of
  // the model, getArenaAlignment).
  bool ioInArena = func->hasAttr(memplan::kIOInArenaAttrName);
  llvm::DenseSet<unsigned> ioBuffers;
  if (ioInArena) {
    for (auto [index, buffer] : llvm::enumerate(buffers))
      if (buffer.alloc->hasAttr(memplan::kInputAttrName))
        ioBuffers.insert(index);
    for (std::optional<unsigned> returned : liveness.getReturnedBuffers())
      if (returned)
        ioBuffers.insert(*returned);
  }
  DataLayout layout = DataLayout::closest(func);
  SmallVector<ArenaBuffer> problem;
  for (auto [index, buffer] : llvm::enumerate(buffers)) {
    Type elementType =
        cast<MemRefType>(buffer.alloc->getResult(0).getType()).getElementType();
    int64_t bufferAlignment = getArenaAlignment(
        getElementStorageAlignment(elementType, layout).value_or(1),
        ioBuffers.contains(index), alignment);
    if (strictAlignment && buffer.requestedAlignment > bufferAlignment) {
      buffer.alloc->emitError("allocation asks for alignment ")
          << buffer.requestedAlignment << ", more than its alignment "
          << bufferAlignment << " in the arena";
      return signalPassFailure();
    }
    problem.push_back(
        {buffer.sizeInBytes, buffer.first, buffer.last + 1, bufferAlignment});
  }
  if (failed(addOverwritePairs(liveness, problem, alignment)))
    return signalPassFailure();
  if (llvm::Error error = validateOverwrites(problem, alignment)) {
    func.emitError("internal error: invalid overwrite pairs: ")
        << llvm::toString(std::move(error));
    return signalPassFailure();
  }
  int64_t lowerBound = getLivenessLowerBound(problem, alignment);

  // The capacity is the device's SRAM: the caller's input and output
  // buffers (memref arguments) take their share of it.
  int64_t callerBytes = 0;
  for (Type type : func.getArgumentTypes())
    if (auto memref = dyn_cast<MemRefType>(type))
      callerBytes +=
          memplan::getStaticSizeInBytes(memref, DataLayout::closest(func))
              .value_or(0);
  PlacementOptions options;
  options.algorithm = *parsed;
  options.alignment = alignment;
  options.capacity =
      capacity ? std::max<int64_t>(capacity - callerBytes, 1) : 0;
  options.maxSearchNodes = maxSearchNodes;
  options.timeLimitMs = timeLimitMs;
  std::optional<ArenaPlan> plan = planArena(problem, options);
  if (!plan) {
    options.capacity = 0;
    std::optional<ArenaPlan> unbounded = planArena(problem, options);
    auto [peakStep, peakBytes] = getAlignedPeak(
        problem, static_cast<unsigned>(liveness.getStepOps().size()),
        alignment);
    InFlightDiagnostic diag =
        liveness.getStepOps()[peakStep]->emitError("the arena needs ");
    if (unbounded)
      diag << unbounded->arenaSize;
    else
      diag << "more";
    diag << " bytes";
    if (callerBytes)
      diag << " plus " << callerBytes << " bytes of caller-owned buffers";
    diag << ", more than the capacity of " << capacity
         << " bytes; the live bytes peak here at " << peakBytes
         << " (liveness lower bound " << lowerBound << " bytes)";
    return signalPassFailure();
  }
  if (plan->stoppedOnClock)
    mlir::emitWarning(func.getLoc(),
                      "the arena placement stopped on its time limit of ")
        << static_cast<uint64_t>(timeLimitMs)
        << " ms before its node budget: the plan is valid, but a less busy "
           "machine may find a smaller one (raise time-limit-ms, or lower "
           "max-search-nodes for a plan that does not depend on the clock)";
  // The lowering's index (the target's pointer width) is signed: an offset
  // at or past 2^(bits - 1) would wrap to a negative one there.
  const int64_t indexLimit =
      static_cast<int64_t>(llvm::maxIntN(static_cast<int64_t>(indexBitwidth)));
  if (plan->arenaSize > indexLimit) {
    func.emitError("the arena needs ")
        << plan->arenaSize << " bytes, over the limit of " << indexLimit
        << " bytes of the target's " << indexBitwidth
        << "-bit pointers (its offsets would wrap)";
    return signalPassFailure();
  }
  if (!isValidPlan(problem, *plan, alignment)) {
    func.emitError("internal error: the '")
        << algorithm << "' placement overlaps live buffers";
    return signalPassFailure();
  }

  // Offsets of the inputs and outputs that live in the arena.
  MLIRContext *ctx = &getContext();
  OpBuilder builder(ctx);
  if (func->hasAttr(memplan::kIOInArenaAttrName)) {
    SmallVector<int64_t> inputOffsets(func.getNumArguments());
    for (auto [buffer, offset] : llvm::zip_equal(buffers, plan->offsets))
      if (auto input = buffer.alloc->getAttrOfType<IntegerAttr>(
              memplan::kInputAttrName)) {
        if (inputOffsets.size() <= input.getUInt())
          inputOffsets.resize(input.getUInt() + 1);
        inputOffsets[input.getUInt()] = offset;
      }
    SmallVector<int64_t> outputOffsets;
    Operation *ret = func.getBody().front().getTerminator();
    for (auto [index, buffer] :
         llvm::enumerate(liveness.getReturnedBuffers())) {
      // The output must be the buffer itself or a reshape of it.
      Value value = ret->getOperand(index);
      while (Operation *def = value.getDefiningOp()) {
        if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp,
                 memref::CastOp>(def))
          break;
        value = def->getOperand(0);
      }
      if (!buffer || value != buffers[*buffer].alloc->getResult(0)) {
        ret->emitOpError("output #")
            << index
            << " is not a whole buffer of the function, so it cannot be "
               "placed in the arena (use io=caller)";
        return signalPassFailure();
      }
      outputOffsets.push_back(plan->offsets[*buffer]);
    }
    func->setAttr(memplan::kInputOffsetsAttrName,
                  builder.getDenseI64ArrayAttr(inputOffsets));
    func->setAttr(memplan::kOutputOffsetsAttrName,
                  builder.getDenseI64ArrayAttr(outputOffsets));
  }

  // Write the plan as IR.
  if (!buffers.empty()) {
    Block &entry = func.getBody().front();
    builder.setInsertionPointToStart(&entry);
    auto arenaType =
        MemRefType::get({plan->arenaSize}, IntegerType::get(ctx, 8));
    Value arena = memplan::ArenaOp::create(builder, func.getLoc(), arenaType,
                                           builder.getI64IntegerAttr(alignment))
                      .getArena();
    llvm::SetVector<Operation *> deallocs;
    for (auto [index, buffer] : llvm::enumerate(buffers)) {
      int64_t offset = plan->offsets[index];
      deallocs.insert(buffer.deallocs.begin(), buffer.deallocs.end());
      Operation *alloc = buffer.alloc;
      builder.setInsertionPoint(alloc);
      auto place = memplan::PlaceOp::create(
          builder, alloc->getLoc(), alloc->getResult(0).getType(), arena,
          builder.getI64IntegerAttr(offset),
          builder.getI64IntegerAttr(buffer.first),
          builder.getI64IntegerAttr(buffer.last));
      if (int64_t overwritten = problem[index].overwrites; overwritten >= 0)
        place->setAttr(memplan::kOverwritesAttrName,
                       builder.getI64IntegerAttr(plan->offsets[overwritten]));
      alloc->getResult(0).replaceAllUsesWith(place.getResult());
    }
    for (Operation *dealloc : deallocs)
      dealloc->erase();
    for (const MemRefBuffer &buffer : buffers)
      buffer.alloc->erase();
  }
  func->setAttr(memplan::kArenaSizeAttrName,
                builder.getI64IntegerAttr(plan->arenaSize));
  func->setAttr(memplan::kArenaAlignmentAttrName,
                builder.getI64IntegerAttr(alignment));
  func->setAttr(memplan::kLowerBoundAttrName,
                builder.getI64IntegerAttr(lowerBound));
}
