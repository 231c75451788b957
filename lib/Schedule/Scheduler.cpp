//===- Scheduler.cpp - Entry point of the memory scheduler ----------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Dispatches to the baselines (Baselines.cpp) or the exact engine
// (Segments.cpp, ExactSearch.cpp) and scores the chosen order with the step
// model.
//
//===----------------------------------------------------------------------===//

#include "SearchProblem.h"

#include "llvm/ADT/StringSwitch.h"

#include <algorithm>

using namespace llvm;
using namespace mlir::memopt::schedule;

std::optional<Algorithm>
mlir::memopt::schedule::parseAlgorithm(StringRef name) {
  return llvm::StringSwitch<std::optional<Algorithm>>(name)
      .Case("exact", Algorithm::Exact)
      .Case("input", Algorithm::Input)
      .Case("kahn", Algorithm::Kahn)
      .Case("rpo", Algorithm::ReversePostOrder)
      .Case("greedy", Algorithm::Greedy)
      .Default(std::nullopt);
}

StringRef mlir::memopt::schedule::stringifyStopReason(StopReason reason) {
  switch (reason) {
  case StopReason::None:
    return "none";
  case StopReason::States:
    return "states";
  case StopReason::Nodes:
    return "nodes";
  case StopReason::Clock:
    return "clock";
  }
  llvm_unreachable("unknown stop reason");
}

Result mlir::memopt::schedule::scheduleForMemory(const Problem &problem,
                                                 Algorithm algorithm,
                                                 const Limits &limits) {
  assert(succeeded(problem.check()) && "ill-formed scheduling problem");
  if (problem.hasWriters()) {
    // Multi-writer buffers: schedule the expansion, whose optimum is the
    // problem's (Problem.h, WriterExpansion), and score the order on the
    // problem itself. An allocation node that runs first holds the entry
    // bytes (the inputs nobody reads included) that its writer's step would
    // hold at least, and no more than that writer's step, so the peaks agree.
    WriterExpansion expansion = problem.expandWriters();
    Result result = scheduleForMemory(*expansion.problem, algorithm, limits);
    result.order = expansion.toOriginal(result.order);
    result.inputPeakBytes = evaluatePeak(problem, problem.getInputOrder());
    result.peakBytes = evaluatePeak(problem, result.order);
    result.lowerBound = std::min(result.lowerBound, result.peakBytes);
    result.optimal = result.peakBytes == result.lowerBound;
    return result;
  }
  SmallVector<NodeId> input = problem.getInputOrder();
  Result result;
  switch (algorithm) {
  case Algorithm::Input:
    result.order = input;
    break;
  case Algorithm::Kahn:
    result.order = kahnOrder(problem);
    break;
  case Algorithm::ReversePostOrder:
    result.order = reversePostOrder(problem);
    break;
  case Algorithm::Greedy:
    result.order =
        greedyOrder(SearchProblem(problem, SegmentLayout(problem), 0,
                                  SearchProblem::Bounds::None));
    break;
  case Algorithm::Exact:
    result = scheduleExactly(problem, limits);
    break;
  }
  if (algorithm != Algorithm::Exact)
    result.lowerBound = computeStaticBound(problem);
  // Replays: O(nodes + edges) each.
  result.inputPeakBytes = evaluatePeak(problem, input);
  result.peakBytes = evaluatePeak(problem, result.order);
  result.lowerBound = std::min(result.lowerBound, result.peakBytes);
  result.optimal = result.peakBytes == result.lowerBound;
  return result;
}
