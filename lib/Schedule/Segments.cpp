//===- Segments.cpp - Cut-node segmentation of the exact engine -----------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// A node ordered against every other node runs at the same step in every
// order, so the problem is cut there into segments that are searched one by
// one; the peak is the largest segment peak. Segments are searched from the
// highest heuristic peak down, and the largest proven segment optimum lets
// the others stop as soon as they reach it.
//
//===----------------------------------------------------------------------===//

#include "SearchProblem.h"

#include <limits>
#include <memory>

using namespace llvm;
using namespace mlir::memopt::schedule;

/// Returns the restriction of \p order (global ids) to \p problem, as local
/// ids.
static SmallVector<unsigned> restrictOrder(const SearchProblem &problem,
                                           ArrayRef<NodeId> order) {
  SmallVector<unsigned> local;
  for (NodeId node : order)
    if (problem.localOf[node] >= 0)
      local.push_back(problem.localOf[node]);
  return local;
}

/// Returns the segments of \p whole: maximal runs of nodes between cut nodes
/// (each cut node is a segment of its own), in schedule order.
SmallVector<SmallVector<NodeId>>
mlir::memopt::schedule::findSegments(const SearchProblem &whole) {
  SmallVector<SmallVector<NodeId>> segments(1);
  for (unsigned node = 0; node < whole.numNodes; ++node) {
    // Node ids are topological and a cut node is ordered against every
    // other node, so the nodes before it in id order are its ancestors.
    if (!whole.isCut(node)) {
      segments.back().push_back(node);
      continue;
    }
    if (!segments.back().empty())
      segments.emplace_back();
    segments.back().push_back(node);
    segments.emplace_back();
  }
  if (segments.back().empty())
    segments.pop_back();
  return segments;
}

Result mlir::memopt::schedule::scheduleExactly(const Problem &problem,
                                               const SearchProblem &whole,
                                               const Limits &limits) {
  Result result;
  // Every order runs the segments one after the other, so each is scheduled
  // on its own and the peak is the largest segment peak.
  SmallVector<SmallVector<NodeId>> heuristics = {
      problem.getInputOrder(), greedyOrder(whole), kahnOrder(problem),
      reversePostOrder(problem)};
  SmallVector<SmallVector<NodeId>> segmentNodes = findSegments(whole);
  SmallVector<unsigned> segmentOf(problem.getNumNodes());
  for (auto [index, nodes] : llvm::enumerate(segmentNodes))
    for (NodeId node : nodes)
      segmentOf[node] = index;

  struct Segment {
    std::unique_ptr<SearchProblem> problem;
    SmallVector<unsigned> order;
    int64_t peak;
  };
  SmallVector<Segment> segments;
  int64_t target = whole.globalBound;
  for (auto [index, nodes] : llvm::enumerate(segmentNodes)) {
    Segment segment;
    segment.problem =
        std::make_unique<SearchProblem>(problem, nodes, segmentOf, index);
    const SearchProblem &part = *segment.problem;
    // Incumbent: the best restriction of the whole-problem heuristics and
    // the greedy order of the segment, preferring the file order on ties.
    SmallVector<SmallVector<unsigned>> candidates;
    for (ArrayRef<NodeId> order : heuristics)
      candidates.push_back(restrictOrder(part, order));
    candidates.push_back(greedyOrder(part));
    segment.peak = std::numeric_limits<int64_t>::max();
    for (SmallVector<unsigned> &candidate : candidates) {
      int64_t peak = part.evaluate(candidate);
      if (peak < segment.peak) {
        segment.peak = peak;
        segment.order = std::move(candidate);
      }
    }
    target = std::max(target, part.globalBound);
    segments.push_back(std::move(segment));
  }

  // Search the segments with the highest incumbents first: they decide the
  // peak, and the bound they prove lets the others stop early.
  SmallVector<unsigned> byPeak;
  for (unsigned index = 0; index < segments.size(); ++index)
    byPeak.push_back(index);
  llvm::sort(byPeak, [&](unsigned a, unsigned b) {
    return std::make_pair(-segments[a].peak, a) <
           std::make_pair(-segments[b].peak, b);
  });
  using Clock = std::chrono::steady_clock;
  Clock::time_point deadline =
      limits.timeLimitMs
          ? Clock::now() + std::chrono::milliseconds(limits.timeLimitMs)
          : Clock::time_point::max();
  for (unsigned index : byPeak) {
    Segment &segment = segments[index];
    if (segment.peak <= target)
      continue;
    SearchOutcome outcome = searchExact(
        *segment.problem, deadline, limits.maxStates, segment.order,
        segment.peak, target, limits.onProgress, result.statesExplored);
    result.statesExplored += outcome.statesExplored;
    if (result.stoppedBy == StopReason::None)
      result.stoppedBy = outcome.stoppedBy;
    target = std::max(target, outcome.lowerBound);
  }
  result.limitReached = result.stoppedBy != StopReason::None;

  for (const Segment &segment : segments)
    for (unsigned local : segment.order)
      result.order.push_back(segment.problem->nodes[local]);
  result.lowerBound = target;
  return result;
}
