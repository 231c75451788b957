//===- MemorySchedule.cpp - memory-schedule pass --------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// A thin adapter around the IR-free scheduling library (MemOpt/Schedule):
// builds the function's scheduling problem, checks it, solves it, verifies
// the order, applies it to the IR and records the certificate (peak, lower
// bound, optimality, time).
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Transforms/Passes.h"

#include "MemOpt/Analysis/BufferLiveness.h"
#include "MemOpt/Analysis/ScheduleProblemBuilder.h"
#include "MemOpt/Arena/ArenaPlanner.h"
#include "MemOpt/Transforms/ScheduleAttributes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

#include <chrono>

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_MEMORYSCHEDULEPASS
#include "MemOpt/Transforms/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

/// Moves the ops of \p func into \p order. Each weight (an op outside the
/// graph) moves just before the first node that needs it, keeping weights in
/// their original relative order; weights no node uses stay before the
/// terminator.
static void applyOrder(func::FuncOp func, const DataflowGraph &graph,
                       ArrayRef<NodeId> order) {
  Block &block = func.getBody().front();
  Operation *terminator = block.getTerminator();
  llvm::SetVector<Operation *> sequence;
  // Adds \p op after the weights it depends on.
  std::function<void(Operation *)> addWithWeights = [&](Operation *op) {
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && def->getBlock() == &block && !graph.lookupNode(def) &&
          !sequence.contains(def))
        addWithWeights(def);
    }
    sequence.insert(op);
  };
  for (NodeId node : order) {
    for (Operation *fused : graph.getNode(node).fusedOps)
      addWithWeights(fused);
    addWithWeights(graph.getNode(node).op);
  }
  SmallVector<Operation *> rest;
  for (Operation &op : block.without_terminator())
    if (!sequence.contains(&op))
      rest.push_back(&op);
  for (Operation *op : rest)
    addWithWeights(op);
  for (Operation *op : sequence)
    op->moveBefore(terminator);
}

/// Returns "a (12 bytes), b (4 bytes)" for the buffers live at \p step.
static std::string describeLive(const DataflowGraph &graph,
                                const ScheduleLiveness &liveness,
                                unsigned step) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(liveness.getLiveBuffers(step), os, [&](BufferId b) {
    os << "'" << graph.getBufferName(b) << "' (" << graph.getBuffer(b).bytes
       << " bytes)";
  });
  if (int64_t pinned = graph.getPinnedBytes())
    os << ", and the caller's inputs and outputs (" << pinned << " bytes)";
  return text;
}

namespace {
/// Returns true if the arena planner places the buffers of \p graph, live as
/// in \p liveness, in the bytes live at their peak step (getLiveBytesPeak):
/// then the model's peak is the plan's. Outputs written over their inputs at
/// a shift (getOverwrite) fix their offsets relative to each other, a shape
/// the step sums do not see: a chain of them may span more bytes than any
/// step holds, and then this fails.
static bool isPlaceable(const DataflowGraph &graph,
                        const ScheduleLiveness &liveness) {
  const CostModelOptions &options = graph.getCostModel();
  SmallVector<ArenaBuffer> buffers;
  SmallVector<int64_t> index(graph.getNumBuffers(), -1);
  for (BufferId id = 0; id < graph.getNumBuffers(); ++id) {
    const Buffer &buffer = graph.getBuffer(id);
    bool isIO = buffer.isGraphInput() || buffer.isGraphOutput;
    if (!buffer.bytes || (isIO && options.io == IOPlacement::Caller))
      continue;
    index[id] = static_cast<int64_t>(buffers.size());
    buffers.push_back({buffer.bytes, liveness.intervals[id].first,
                       liveness.intervals[id].last + 1, buffer.alignment});
  }
  for (auto [step, nodeId] : llvm::enumerate(liveness.order)) {
    const Node &node = graph.getNode(nodeId);
    auto at = static_cast<int64_t>(step);
    if (node.workspaceBytes)
      buffers.push_back({node.workspaceBytes, at, at + 1, 0});
    if (!node.inPlaceInput || node.outputs.size() != 1 ||
        index[*node.inPlaceInput] < 0 || index[node.outputs.front()] < 0)
      continue;
    // The lowering writes the output over its input: at the shift of an
    // overwrite, or into exactly its bytes (an in-place elementwise op or
    // depthwise convolution: one buffer in the lowering, so that the pairs
    // chain through it as the planned buffers do).
    ArenaBuffer &output = buffers[index[node.outputs.front()]];
    const ArenaBuffer &input = buffers[index[*node.inPlaceInput]];
    if (std::optional<Overwrite> overwrite =
            getOverwrite(node.op, options.io)) {
      output.overwriteShift =
          alignOverwriteShift(overwrite->bound, options.alignment);
    } else if (output.size != input.size ||
               node.inPlaceSaving != input.size) {
      continue;
    }
    output.overwrites = index[*node.inPlaceInput];
  }
  if (llvm::Error error = validateOverwrites(buffers, options.alignment)) {
    llvm::consumeError(std::move(error));
    return false;
  }
  PlacementOptions placement;
  placement.alignment = options.alignment;
  std::optional<ArenaPlan> plan = planArena(buffers, placement);
  return plan &&
         plan->arenaSize == getLiveBytesPeak(buffers, options.alignment);
}

/// Reorders ops to minimize peak activation memory.
struct MemorySchedulePass
    : public memopt::impl::MemorySchedulePassBase<MemorySchedulePass> {
  using MemorySchedulePassBase::MemorySchedulePassBase;

  void runOnOperation() override;

  /// The memory model the options select.
  CostModelOptions getCostModelOptions() const {
    return {model, io, alignment};
  }
};
} // namespace

void MemorySchedulePass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal())
    return markAllAnalysesPreserved();
  std::optional<ScheduleAlgorithm> kind = parseScheduleAlgorithm(algorithm);
  if (!kind) {
    emitError(func.getLoc(), "memory-schedule: unknown algorithm '")
        << static_cast<std::string>(algorithm)
        << "'; expected exact, input, kahn, rpo or greedy";
    return signalPassFailure();
  }
  if (budget < 0) {
    emitError(func.getLoc(), "memory-schedule: budget must be a byte count >= "
                             "0 (0: no budget), got ")
        << static_cast<int64_t>(budget);
    return signalPassFailure();
  }
  int64_t budgetBytes = budget;
  // The time limit covers the whole pass, building the graph included.
  auto start = std::chrono::steady_clock::now();
  std::unique_ptr<BufferLiveness> analysis;
  schedule::Problem problem;
  schedule::Result result;
  std::string whyNot;

  schedule::Limits limits{timeLimitMs, maxStates};
  limits.start = start;
  limits.maxSearchNodes = maxSearchNodes;
  limits.bestFirstStates = bestFirstStates;
  if (progressMs) {
    // Progress goes to the diagnostics only; the search does not see it.
    auto lastReport = start;
    limits.onProgress =
        [&, lastReport](const schedule::Progress &progress) mutable {
          auto now = std::chrono::steady_clock::now();
          if (now - lastReport < std::chrono::milliseconds(progressMs))
            return;
          lastReport = now;
          emitRemark(func.getLoc())
              << "memory-schedule progress of @" << func.getSymName() << ": "
              << progress.statesExplored << " states, segment best "
              << progress.segmentPeak << " bytes, bound "
              << progress.segmentBound << " bytes (gap "
              << progress.segmentPeak - progress.segmentBound << " bytes)";
        };
  }
  // Builds the model of the function as its attributes stand and schedules
  // it into `analysis`, `problem` and `result`.
  auto solve = [&]() -> LogicalResult {
    analysis = std::make_unique<BufferLiveness>(func, getCostModelOptions());
    if (!analysis->isValid())
      return failure();
    problem = buildScheduleProblem(analysis->getGraph(),
                                   ScheduleProblemOptions{/*withNames=*/true});
    if (failed(problem.check(&whyNot)))
      return emitError(func.getLoc(),
                       "memory-schedule: ill-formed scheduling problem: ")
             << whyNot;
    result = schedule::scheduleForMemory(problem, *kind, limits);
    // A heuristic never makes things worse than the input.
    if (*kind == ScheduleAlgorithm::Greedy &&
        result.peakBytes > result.inputPeakBytes) {
      result.order = problem.getInputOrder();
      result.peakBytes = result.inputPeakBytes;
      result.optimal = result.peakBytes == result.lowerBound;
    }
    if (failed(problem.verify(result.order, &whyNot)))
      return emitError(func.getLoc(), "memory-schedule: the scheduler "
                                      "returned an invalid order for @")
             << func.getSymName() << ": " << whyNot;
    return success();
  };
  if (failed(solve()))
    return signalPassFailure();
  // An output written over its input at a shift (getOverwriteCandidate) is
  // enabled at the op where the schedule peaks, one at a time, while the
  // peak falls and the planner places the model's buffers at it.
  while (getCostModelOptions().kind == MemoryModelKind::Lowering &&
         !result.order.empty()) {
    const DataflowGraph &graph = analysis->getGraph();
    ScheduleLiveness liveness = BufferLiveness::evaluate(graph, result.order);
    Operation *peakOp = graph.getNode(result.order[liveness.peakStep]).op;
    std::optional<Overwrite> candidate = getOverwriteCandidate(peakOp, io);
    if (!candidate || candidate->exact ||
        peakOp->hasAttr(kOverwriteShiftedAttrName))
      break;
    // The model and schedule without the mark, kept to restore.
    std::unique_ptr<BufferLiveness> lastAnalysis = std::move(analysis);
    schedule::Problem lastProblem = std::move(problem);
    schedule::Result lastResult = std::move(result);
    peakOp->setAttr(kOverwriteShiftedAttrName, UnitAttr::get(&getContext()));
    if (failed(solve()))
      return signalPassFailure();
    // Kept if the peak falls, the schedule stays as proven as it was, no
    // clock stopped it (the output must not depend on the machine's speed),
    // and the planner places it.
    if (result.peakBytes < lastResult.peakBytes &&
        (result.optimal || !lastResult.optimal) &&
        result.stoppedBy != schedule::StopReason::Clock &&
        isPlaceable(analysis->getGraph(),
                    BufferLiveness::evaluate(analysis->getGraph(),
                                             result.order)))
      continue;
    peakOp->removeAttr(kOverwriteShiftedAttrName);
    analysis = std::move(lastAnalysis);
    problem = std::move(lastProblem);
    result = std::move(lastResult);
    break;
  }
  const DataflowGraph &graph = analysis->getGraph();
  int64_t elapsedMs = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now() - start)
                          .count();

  peakBefore += result.inputPeakBytes;
  peakAfter += result.peakBytes;
  statesExplored += result.statesExplored;
  scheduleTimeMs += elapsedMs;
  provenOptimal += result.optimal;

  if (printStatistics)
    emitRemark(func.getLoc())
        << "memory-schedule statistics of @" << func.getSymName()
        << ": peak before " << result.inputPeakBytes << " bytes, after "
        << result.peakBytes << " bytes, lower bound " << result.lowerBound
        << " bytes, " << (result.optimal ? "proven optimal" : "not proven")
        << ", " << result.statesExplored << " states explored, " << elapsedMs
        << " ms";

  if (result.limitReached) {
    int64_t gap = result.peakBytes - result.lowerBound;
    emitRemark(func.getLoc())
        << "memory-schedule: search of @" << func.getSymName()
        << " stopped at its limit; best order peaks at " << result.peakBytes
        << " bytes, proven lower bound " << result.lowerBound << " bytes (gap "
        << gap << " bytes); "
        << (result.stoppedBy == schedule::StopReason::States
                ? "stopped by the state budget (max-states)"
            : result.stoppedBy == schedule::StopReason::Nodes
                ? "a segment has more ops than the search takes on "
                  "(max-search-nodes), so it keeps its best heuristic order"
                : "stopped by the clock, a safety stop that depends on the "
                  "machine (time-limit-ms); use max-states for a "
                  "reproducible result")
        << "; the order is valid and peaks no higher than the input order";
  }

  if (budgetBytes > 0 && result.peakBytes > budgetBytes) {
    ScheduleLiveness liveness = BufferLiveness::evaluate(graph, result.order);
    Operation *peakOp = graph.getNode(result.order[liveness.peakStep]).op;
    InFlightDiagnostic diag = peakOp->emitError();
    if (result.optimal)
      diag << "the optimal order peaks at " << result.peakBytes
           << " bytes, over the budget of " << budgetBytes << " bytes";
    else if (result.lowerBound > budgetBytes)
      diag << "no order fits the budget of " << budgetBytes
           << " bytes: every order needs at least " << result.lowerBound
           << " bytes (the best found peaks at " << result.peakBytes << ")";
    else
      diag << "the best order found peaks at " << result.peakBytes
           << " bytes, over the budget of " << budgetBytes
           << " bytes; the search could not finish (proven lower bound "
           << result.lowerBound << " bytes), so an order that fits may exist";
    diag << "; live at this op: "
         << describeLive(graph, liveness, liveness.peakStep);
    return signalPassFailure();
  }

  bool reordered = ArrayRef<NodeId>(result.order) !=
                   ArrayRef<NodeId>(graph.getProgramOrder());
  if (reordered)
    applyOrder(func, graph, result.order);

  Builder builder(&getContext());
  func->setAttr(kPeakBytesAttrName,
                builder.getI64IntegerAttr(result.peakBytes));
  func->setAttr(kLowerBoundAttrName,
                builder.getI64IntegerAttr(result.lowerBound));
  func->setAttr(kOptimalAttrName, builder.getBoolAttr(result.optimal));
  if (recordTime)
    func->setAttr(kScheduleTimeAttrName, builder.getI64IntegerAttr(elapsedMs));
  if (result.stoppedBy != schedule::StopReason::None)
    func->setAttr(
        kScheduleStoppedByAttrName,
        builder.getStringAttr(schedule::stringifyStopReason(result.stoppedBy)));
  if (!reordered)
    markAllAnalysesPreserved();
}
