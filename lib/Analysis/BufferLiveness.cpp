//===- BufferLiveness.cpp - Activation liveness of a schedule -------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Replays the scheduler's step model (MemOpt/Schedule/StepModel.h) on the
// graph's scheduling problem, in O(nodes + edges) per order.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Analysis/BufferLiveness.h"

#include "MemOpt/Analysis/ScheduleProblemBuilder.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::memopt;

ScheduleLiveness BufferLiveness::evaluate(const DataflowGraph &graph,
                                          ArrayRef<NodeId> order) {
  assert(graph.isValidOrder(order) && "order is not a topological order");
  schedule::Evaluation evaluation =
      schedule::evaluate(buildScheduleProblem(graph), order);
  ScheduleLiveness result;
  result.order.assign(order.begin(), order.end());
  // Only the graph's buffers: not the pinned caller-owned bytes the problem
  // may add after them.
  result.intervals.assign(evaluation.intervals.begin(),
                          evaluation.intervals.begin() + graph.getNumBuffers());
  result.liveBytes = std::move(evaluation.liveBytes);
  result.peakBytes = evaluation.peakBytes;
  result.peakStep = evaluation.peakStep;
  return result;
}

int64_t BufferLiveness::evaluatePeak(const DataflowGraph &graph,
                                     ArrayRef<NodeId> order) {
  return schedule::evaluatePeak(buildScheduleProblem(graph), order);
}

SmallVector<BufferId> ScheduleLiveness::getLiveBuffers(unsigned step) const {
  SmallVector<BufferId> live;
  for (auto [id, interval] : llvm::enumerate(intervals))
    if (interval.first <= step && step <= interval.last)
      live.push_back(id);
  return live;
}

BufferLiveness::BufferLiveness(Operation *op)
    : BufferLiveness(op, CostModelOptions()) {}

BufferLiveness::BufferLiveness(Operation *op, const CostModelOptions &options) {
  auto func = cast<func::FuncOp>(op);
  FailureOr<DataflowGraph> built = DataflowGraph::build(func, options);
  if (failed(built))
    return;
  graph = std::move(*built);
  liveness = evaluate(*graph, graph->getProgramOrder());
}

void BufferLiveness::print(raw_ostream &os) const {
  if (!isValid()) {
    os << "invalid\n";
    return;
  }
  for (auto [id, interval] : llvm::enumerate(liveness.intervals))
    os << "buffer '" << graph->getBufferName(id) << "' "
       << graph->getBuffer(id).bytes << " bytes live [" << interval.first
       << ", " << interval.last << "]\n";
  for (auto [step, bytes] : llvm::enumerate(liveness.liveBytes))
    os << "step " << step << " '" << graph->getNodeName(liveness.order[step])
       << "' " << bytes << " bytes\n";
  os << "peak " << liveness.peakBytes << " bytes at step " << liveness.peakStep
     << "\n";
}

void BufferLiveness::dump() const { print(llvm::errs()); }
