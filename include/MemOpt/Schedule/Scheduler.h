//===- MemoryScheduler.h - Peak-memory ordering of a dataflow graph -*- C++
//-*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Orders the nodes of a DataflowGraph to minimize the peak of live activation
// bytes under the canonical memory model (docs/MemoryModel.md). The exact
// engine is a best-first (A*) search over sets of scheduled nodes with a
// bottleneck cost, admissible lower bounds, pruning by the best heuristic
// schedule, and a dominance rule that runs memory-neutral nodes at once.
// Baseline orders (file order, Kahn, reverse post-order, greedy) are
// available for comparison. Works on the graph alone; never touches IR.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_SCHEDULE_SCHEDULER_H
#define MEMOPT_SCHEDULE_SCHEDULER_H

#include "MemOpt/Analysis/DataflowGraph.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir {
namespace memopt {

/// Names of the certificate attributes memory-schedule records on a function
/// and memory-report reads.
constexpr llvm::StringLiteral kPeakBytesAttrName = "memopt.peak_bytes";
constexpr llvm::StringLiteral kLowerBoundAttrName = "memopt.lower_bound";
constexpr llvm::StringLiteral kOptimalAttrName = "memopt.optimal";
constexpr llvm::StringLiteral kScheduleTimeAttrName = "memopt.schedule_time_ms";

/// How to order the nodes.
enum class ScheduleAlgorithm {
  /// Optimal order with a proof, within the limits.
  Exact,
  /// Keep the file order (what TFLite runs).
  Input,
  /// Breadth-first topological order (Kahn's algorithm).
  Kahn,
  /// Reverse post-order of a depth-first search.
  ReversePostOrder,
  /// Memory-greedy: run the ready node with the smallest step, then the
  /// smallest memory after it.
  Greedy,
};

/// Parses an `algorithm=` option value; std::nullopt if unknown.
std::optional<ScheduleAlgorithm> parseScheduleAlgorithm(StringRef name);

/// Limits of the exact search.
struct SchedulerLimits {
  /// Wall-clock limit of the search in milliseconds; 0 means none.
  uint64_t timeLimitMs = 10000;
  /// Largest number of distinct search states kept; 0 means none.
  uint64_t maxStates = 4000000;
};

/// The outcome of scheduling one graph.
struct ScheduleResult {
  /// The order of nodes; a valid topological order.
  SmallVector<NodeId> order;
  /// Peak bytes of `order`.
  int64_t peakBytes = 0;
  /// Peak bytes of the file order.
  int64_t inputPeakBytes = 0;
  /// A proven lower bound on the peak of every valid order.
  int64_t lowerBound = 0;
  /// True if peakBytes == lowerBound, i.e. the order is proven optimal.
  bool optimal = false;
  /// True if the exact search stopped at a limit.
  bool limitReached = false;
  /// Search states expanded.
  uint64_t statesExplored = 0;
};

/// Orders the nodes of \p graph with \p algorithm. Baselines return their
/// own order even when it is worse than the file order; the exact engine
/// never returns an order worse than the file order or the greedy one.
ScheduleResult scheduleForMemory(const DataflowGraph &graph,
                                 ScheduleAlgorithm algorithm,
                                 const SchedulerLimits &limits = {});

/// Returns the peak of \p order under the scheduler's step model; equals
/// BufferLiveness::evaluatePeak (exposed for tests).
int64_t evaluateSchedulePeak(const DataflowGraph &graph,
                             ArrayRef<NodeId> order);

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_SCHEDULE_SCHEDULER_H
