//===- BufferLiveness.cpp - Activation liveness of a schedule -------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Evaluates the canonical memory model in O(nodes + edges) per order with a
// difference array over steps.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Analysis/BufferLiveness.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::memopt;

/// Returns the peak of a graph without nodes: its inputs and the
/// caller-owned bytes.
static int64_t getEmptyPeak(const DataflowGraph &graph) {
  int64_t bytes = graph.getPinnedBytes();
  for (const Buffer &buffer : graph.getBuffers())
    bytes += buffer.bytes;
  return bytes;
}

/// Computes the live interval of every buffer of \p graph under \p order.
static void computeIntervals(const DataflowGraph &graph, ArrayRef<NodeId> order,
                             SmallVectorImpl<LiveInterval> &intervals) {
  SmallVector<unsigned> position(graph.getNumNodes());
  for (auto [step, node] : llvm::enumerate(order))
    position[node] = step;
  unsigned lastStep = order.empty() ? 0 : order.size() - 1;
  intervals.assign(graph.getNumBuffers(), LiveInterval());
  for (auto [id, buffer] : llvm::enumerate(graph.getBuffers())) {
    unsigned first = buffer.producer ? position[*buffer.producer] : 0;
    unsigned last = first;
    for (NodeId user : buffer.users)
      last = std::max(last, position[user]);
    if (buffer.isGraphOutput)
      last = lastStep;
    intervals[id] = {first, last};
  }
}

/// Fills \p liveBytes with the bytes live at each step of \p order, given the
/// buffer \p intervals.
static void computeLiveBytes(const DataflowGraph &graph, ArrayRef<NodeId> order,
                             ArrayRef<LiveInterval> intervals,
                             SmallVectorImpl<int64_t> &liveBytes) {
  liveBytes.clear();
  if (order.empty())
    return;
  liveBytes.assign(order.size() + 1, 0);
  // Caller-owned inputs and outputs are live for the whole call.
  liveBytes[0] += graph.getPinnedBytes();
  for (auto [id, buffer] : llvm::enumerate(graph.getBuffers())) {
    liveBytes[intervals[id].first] += buffer.bytes;
    liveBytes[intervals[id].last + 1] -= buffer.bytes;
  }
  // Node-local adjustments: workspace, and outputs written over a dying
  // input.
  for (auto [step, nodeId] : llvm::enumerate(order)) {
    const Node &node = graph.getNode(nodeId);
    int64_t delta = node.workspaceBytes;
    if (node.inPlaceInput) {
      BufferId input = *node.inPlaceInput;
      if (!graph.getBuffer(input).isGraphOutput &&
          intervals[input].last == step)
        delta -= node.inPlaceSaving;
    }
    liveBytes[step] += delta;
    liveBytes[step + 1] -= delta;
  }
  for (size_t step = 1, e = liveBytes.size(); step < e; ++step)
    liveBytes[step] += liveBytes[step - 1];
  liveBytes.pop_back();
}

ScheduleLiveness BufferLiveness::evaluate(const DataflowGraph &graph,
                                          ArrayRef<NodeId> order) {
  assert(graph.isValidOrder(order) && "order is not a topological order");
  ScheduleLiveness result;
  result.order.assign(order.begin(), order.end());
  computeIntervals(graph, order, result.intervals);
  computeLiveBytes(graph, order, result.intervals, result.liveBytes);
  if (order.empty())
    result.peakBytes = getEmptyPeak(graph);
  for (auto [step, bytes] : llvm::enumerate(result.liveBytes)) {
    if (bytes > result.peakBytes) {
      result.peakBytes = bytes;
      result.peakStep = step;
    }
  }
  return result;
}

int64_t BufferLiveness::evaluatePeak(const DataflowGraph &graph,
                                     ArrayRef<NodeId> order) {
  SmallVector<LiveInterval> intervals;
  SmallVector<int64_t> liveBytes;
  computeIntervals(graph, order, intervals);
  computeLiveBytes(graph, order, intervals, liveBytes);
  int64_t peak = order.empty() ? getEmptyPeak(graph) : 0;
  for (int64_t bytes : liveBytes)
    peak = std::max(peak, bytes);
  return peak;
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

BufferLiveness::BufferLiveness(Operation *op,
                               const CostModelOptions &options) {
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
