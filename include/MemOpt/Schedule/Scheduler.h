//===- Scheduler.h - Peak-memory ordering of a Problem ----------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Orders the nodes of a Problem to minimize the peak of live bytes under the
// step model (StepModel.h). The exact engine (ExactSearch.cpp) searches sets
// of scheduled nodes best first on a bottleneck cost, then in rounds that
// each look depth first for an order below the incumbent, with admissible
// lower bounds and dominance rules; the problem is first cut into segments
// (Segments.cpp).
// Baseline orders (file order, Kahn, reverse post-order, greedy;
// Baselines.cpp) are available for comparison. docs/Scheduling.md explains
// each piece.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_SCHEDULE_SCHEDULER_H
#define MEMOPT_SCHEDULE_SCHEDULER_H

#include "MemOpt/Schedule/Defaults.h"
#include "MemOpt/Schedule/Problem.h"
#include "llvm/ADT/StringRef.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

namespace mlir {
namespace memopt {
namespace schedule {

/// How to order the nodes.
enum class Algorithm {
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
std::optional<Algorithm> parseAlgorithm(llvm::StringRef name);

/// Limits of the exact search. The state budget makes the search
/// deterministic; the clock is only a safety stop.
/// Where the exact search stands, for progress displays (Limits::onProgress).
struct Progress {
  /// States expanded so far, over all segments.
  uint64_t statesExplored = 0;
  /// Peak of the best order found for the segment being searched, and the
  /// lower bound proven for it so far.
  int64_t segmentPeak = 0, segmentBound = 0;
};

struct Limits {
  Limits() = default;
  Limits(uint64_t timeLimitMs, uint64_t maxStates)
      : timeLimitMs(timeLimitMs), maxStates(maxStates) {}

  /// Wall-clock safety stop in milliseconds, counted from `start`; 0 means
  /// none. It bounds the whole call (segmentation, heuristics and search).
  uint64_t timeLimitMs = kDefaultTimeLimitMs;
  /// When the time limit started; unset: when scheduleForMemory is called.
  /// A pass sets it to its own start so that the limit also covers building
  /// the problem.
  std::optional<std::chrono::steady_clock::time_point> start;
  /// Largest number of distinct search states kept; 0 means none.
  uint64_t maxStates = kDefaultMaxStates;
  /// Largest segment the exact search takes on, in nodes; a larger one keeps
  /// its best heuristic order. 0 means none. Deterministic, like maxStates.
  uint64_t maxSearchNodes = kDefaultMaxSearchNodes;
  /// Expansions the exact search spends best first above the bound it
  /// started from before it searches in rounds under a budget; 0: rounds
  /// under a budget from the start. Deterministic; the result is optimal
  /// either way, only the time differs.
  uint64_t bestFirstStates = kDefaultBestFirstStates;
  /// If set, called every 1024 expansions of the exact search. It only
  /// observes: the search and its result do not depend on it.
  std::function<void(const Progress &)> onProgress;
};

/// What stopped the exact search before it finished its proof.
enum class StopReason {
  /// Nothing: the search finished (or did not run).
  None,
  /// The state budget (Limits::maxStates); deterministic.
  States,
  /// The node budget (Limits::maxSearchNodes): a segment too large to
  /// search; deterministic.
  Nodes,
  /// The wall clock (Limits::timeLimitMs); depends on the machine.
  Clock,
};

/// Returns "none", "states", "nodes" or "clock".
llvm::StringRef stringifyStopReason(StopReason reason);

/// The outcome of scheduling one problem.
struct Result {
  /// The order of nodes; a valid topological order.
  llvm::SmallVector<NodeId> order;
  /// Peak bytes of `order`.
  int64_t peakBytes = 0;
  /// Peak bytes of the file order.
  int64_t inputPeakBytes = 0;
  /// A proven lower bound on the peak of every valid order.
  int64_t lowerBound = 0;
  /// True if peakBytes == lowerBound, i.e. the order is proven optimal.
  bool optimal = false;
  /// True if the exact search stopped at a limit (stoppedBy != None).
  bool limitReached = false;
  /// Which limit stopped the exact search first, if any.
  StopReason stoppedBy = StopReason::None;
  /// Search states expanded.
  uint64_t statesExplored = 0;
};

/// Orders the nodes of \p problem, which must pass problem.check(), with
/// \p algorithm. Baselines return their own order even when it is worse than
/// the file order; the exact engine never returns an order worse than the
/// file order or the greedy one.
Result scheduleForMemory(const Problem &problem, Algorithm algorithm,
                         const Limits &limits = {});

} // namespace schedule
} // namespace memopt
} // namespace mlir

#endif // MEMOPT_SCHEDULE_SCHEDULER_H
