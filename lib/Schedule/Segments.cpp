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

#include <chrono>
#include <limits>
#include <memory>

using namespace llvm;
using namespace mlir::memopt::schedule;

SmallVector<NodeId>
mlir::memopt::schedule::findSegmentBegins(const Problem &problem) {
  // Node ids are topological, so a path from u to v only visits ids in
  // [u, v]. Hence every u < v is an ancestor of v iff each u < v has a
  // successor <= v (then, inductively, a path to v), and every w > v is a
  // descendant of v iff each w > v has a predecessor >= v. Such a v is
  // ordered against every other node: a cut.
  unsigned n = problem.getNumNodes();
  constexpr unsigned kNone = std::numeric_limits<unsigned>::max();
  SmallVector<unsigned> minSucc(n, kNone);
  for (NodeId node = 0; node < n; ++node)
    for (NodeId pred : problem.getNode(node).preds)
      minSucc[pred] = std::min<unsigned>(minSucc[pred], node);
  // allAbove[v]: every w > v has a predecessor >= v.
  SmallVector<bool> allAbove(n, true);
  int64_t minMaxPred = std::numeric_limits<int64_t>::max();
  for (NodeId node = n; node-- > 0;) {
    allAbove[node] = minMaxPred >= static_cast<int64_t>(node);
    ArrayRef<NodeId> preds = problem.getNode(node).preds;
    minMaxPred = std::min<int64_t>(minMaxPred,
                                   preds.empty() ? -1 : int64_t(preds.back()));
  }
  SmallVector<NodeId> begins;
  bool open = false;
  unsigned maxMinSucc = 0;
  for (NodeId node = 0; node < n; ++node) {
    bool isCut = (node == 0 || maxMinSucc <= node) && allAbove[node];
    maxMinSucc = std::max(maxMinSucc, minSucc[node]);
    if (!isCut) {
      if (!open)
        begins.push_back(node);
      open = true;
      continue;
    }
    begins.push_back(node);
    open = false;
  }
  return begins;
}

/// Returns, for every segment of \p layout, the restriction of \p order
/// (global ids) to it, as local ids.
static SmallVector<SmallVector<unsigned>>
restrictOrder(const SegmentLayout &layout, ArrayRef<NodeId> order) {
  SmallVector<SmallVector<unsigned>> local(layout.size());
  for (NodeId node : order) {
    unsigned segment = layout.segmentOf[node];
    local[segment].push_back(node - layout.getFirst(segment));
  }
  return local;
}

int64_t mlir::memopt::schedule::computeStaticBound(const Problem &problem) {
  SegmentLayout layout(problem, findSegmentBegins(problem));
  // Without nodes, the inputs (and caller-owned buffers) are all there is.
  int64_t bound = 0;
  if (layout.size() == 0) {
    StepModel empty(problem, layout, 0);
    return empty.initialMem + empty.unusedInputBytes;
  }
  // As the exact engine bounds them under the default node budget.
  for (unsigned segment = 0; segment < layout.size(); ++segment)
    bound = std::max(
        bound,
        SearchProblem(problem, layout, segment,
                      layout.getEnd(segment) - layout.getFirst(segment) <=
                              kDefaultMaxSearchNodes
                          ? SearchProblem::Bounds::Full
                          : SearchProblem::Bounds::Local)
            .globalBound);
  return bound;
}

Result mlir::memopt::schedule::scheduleExactly(const Problem &problem,
                                               const Limits &limits) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point deadline =
      limits.timeLimitMs
          ? limits.start.value_or(Clock::now()) +
                std::chrono::milliseconds(limits.timeLimitMs)
          : Clock::time_point::max();
  Result result;
  SegmentLayout layout(problem, findSegmentBegins(problem));
  if (layout.size() == 0) {
    StepModel empty(problem, layout, 0);
    result.lowerBound = empty.initialMem + empty.unusedInputBytes;
    return result;
  }
  // Every order runs the segments one after the other, so each is scheduled
  // on its own and the peak is the largest segment peak.
  SmallVector<SmallVector<NodeId>> heuristics = {problem.getInputOrder()};
  {
    SearchProblem whole(problem, SegmentLayout(problem), 0,
                        SearchProblem::Bounds::None);
    heuristics.push_back(greedyOrder(whole));
  }
  heuristics.push_back(kahnOrder(problem));
  heuristics.push_back(reversePostOrder(problem));
  SmallVector<SmallVector<SmallVector<unsigned>>> restricted;
  for (ArrayRef<NodeId> order : heuristics)
    restricted.push_back(restrictOrder(layout, order));
  heuristics.clear();

  struct Segment {
    std::unique_ptr<SearchProblem> problem;
    SmallVector<unsigned> order;
    int64_t peak;
  };
  SmallVector<Segment> segments;
  int64_t target = 0;
  for (unsigned index = 0; index < layout.size(); ++index) {
    Segment segment;
    // A segment over the node budget is not searched: its bound is only
    // reported, and the local one costs linear time.
    bool searchable = !limits.maxSearchNodes ||
                      layout.getEnd(index) - layout.getFirst(index) <=
                          limits.maxSearchNodes;
    segment.problem = std::make_unique<SearchProblem>(
        problem, layout, index,
        searchable ? SearchProblem::Bounds::Full
                   : SearchProblem::Bounds::Local);
    const SearchProblem &part = *segment.problem;
    // Incumbent: the best restriction of the whole-problem heuristics and
    // the greedy order of the segment, preferring the file order on ties.
    SmallVector<SmallVector<unsigned>> candidates;
    for (auto &perSegment : restricted)
      candidates.push_back(std::move(perSegment[index]));
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
  for (unsigned index : byPeak) {
    Segment &segment = segments[index];
    if (segment.peak <= target)
      continue;
    auto stop = [&](StopReason reason) {
      if (result.stoppedBy == StopReason::None)
        result.stoppedBy = reason;
      target = std::max(target, segment.problem->globalBound);
    };
    // The node budget: a search state of a huge segment costs too much.
    if (limits.maxSearchNodes &&
        segment.problem->numNodes > limits.maxSearchNodes) {
      stop(StopReason::Nodes);
      continue;
    }
    // Setting up may have used up the time already.
    if (Clock::now() >= deadline) {
      stop(StopReason::Clock);
      continue;
    }
    segment.problem->prepareSearch();
    SearchOutcome outcome = searchExact(
        *segment.problem, deadline, limits.maxStates, limits.bestFirstStates,
        segment.order, segment.peak, target, limits.onProgress,
        result.statesExplored);
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
