//===- BufferLiveness.h - Activation liveness of a schedule -----*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Evaluates the memory model on a DataflowGraph for a given order of its
// nodes: the live interval of every buffer, the bytes live at every step, and
// the peak. It replays the scheduler's step model (MemOpt/Schedule/
// StepModel.h) on the graph's scheduling problem, so the profile it shows is
// the one the scheduler optimizes.
//
// The canonical model: a buffer occupies its bytes from the step its producer
// runs (graph inputs: from step 0) until the step of its last user (graph
// outputs: until the last step). The working set of a step holds the inputs
// and outputs of the node run there, its workspace, less an in-place saving.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_BUFFERLIVENESS_H
#define MEMOPT_ANALYSIS_BUFFERLIVENESS_H

#include "MemOpt/Analysis/DataflowGraph.h"
#include "MemOpt/Schedule/StepModel.h"

namespace mlir {
namespace memopt {

/// The inclusive range of steps during which a buffer occupies memory.
using LiveInterval = schedule::LiveInterval;

/// The memory profile of one order of a DataflowGraph.
struct ScheduleLiveness {
  /// The evaluated order of nodes.
  SmallVector<NodeId> order;
  /// Live interval of each buffer, indexed by BufferId.
  SmallVector<LiveInterval> intervals;
  /// Bytes live at each step, indexed by step.
  SmallVector<int64_t> liveBytes;
  /// The largest entry of liveBytes (0 for an empty graph).
  int64_t peakBytes = 0;
  /// The first step at which the peak is reached.
  unsigned peakStep = 0;

  /// Returns the buffers live at \p step, in BufferId order.
  SmallVector<BufferId> getLiveBuffers(unsigned step) const;
};

/// Buffer-liveness analysis of a `func.func`: its DataflowGraph and the memory
/// profile of the order in which its ops appear. Passes get it with
/// `getAnalysis<BufferLiveness>()`; construction emits a diagnostic if the
/// function cannot be modelled, in which case isValid() is false.
class BufferLiveness {
public:
  /// Analyzes \p op, which must be a `func.func` with a body, under the
  /// canonical model.
  explicit BufferLiveness(Operation *op);
  /// Analyzes \p op under the cost model \p options.
  BufferLiveness(Operation *op, const CostModelOptions &options);

  /// Returns false if the function could not be modelled.
  bool isValid() const { return graph.has_value(); }
  /// The dataflow graph; requires isValid().
  const DataflowGraph &getGraph() const { return *graph; }
  /// The memory profile of the program order; requires isValid().
  const ScheduleLiveness &getProgramLiveness() const { return liveness; }

  /// Evaluates \p order, which must satisfy graph.isValidOrder(order).
  static ScheduleLiveness evaluate(const DataflowGraph &graph,
                                   ArrayRef<NodeId> order);
  /// Returns the peak of \p order without building the full profile; \p order
  /// must satisfy graph.isValidOrder(order).
  static int64_t evaluatePeak(const DataflowGraph &graph,
                              ArrayRef<NodeId> order);

  /// Prints intervals and per-step bytes of the program order.
  void print(raw_ostream &os) const;
  void dump() const;

private:
  /// The graph, absent if the function could not be modelled.
  std::optional<DataflowGraph> graph;
  /// The profile of the program order.
  ScheduleLiveness liveness;
};

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_ANALYSIS_BUFFERLIVENESS_H
