//===- ScheduleProblemBuilder.h - Graph to scheduling problem -*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The adapter between the IR and the IR-free scheduling library: turns a
// DataflowGraph into a schedule::Problem with the same node and buffer ids,
// copying sizes, readers, workspace and in-place savings; the graph's
// caller-owned bytes (io=caller) become one more, pinned, buffer after the
// graph's. Also offers the scheduler on graphs (scheduleForMemory), for
// passes and tools that hold a graph.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_SCHEDULEPROBLEMBUILDER_H
#define MEMOPT_ANALYSIS_SCHEDULEPROBLEMBUILDER_H

#include "MemOpt/Analysis/DataflowGraph.h"
#include "MemOpt/Schedule/Scheduler.h"

namespace mlir {
namespace memopt {

using ScheduleAlgorithm = schedule::Algorithm;
using SchedulerLimits = schedule::Limits;
using ScheduleResult = schedule::Result;

/// How to build a schedule::Problem from a graph.
struct ScheduleProblemOptions {
  /// Copy node and buffer names (for diagnostics; costs a string each).
  bool withNames = false;
};

/// Returns the scheduling problem of \p graph: node i is graph node i and
/// buffer b is graph buffer b. If the graph has caller-owned bytes
/// (DataflowGraph::getPinnedBytes), they are one pinned buffer with id
/// graph.getNumBuffers(), made and read by no node.
schedule::Problem
buildScheduleProblem(const DataflowGraph &graph,
                     const ScheduleProblemOptions &options = {});

/// Parses an `algorithm=` option value; std::nullopt if unknown.
inline std::optional<ScheduleAlgorithm> parseScheduleAlgorithm(StringRef name) {
  return schedule::parseAlgorithm(name);
}

/// Schedules the problem of \p graph (see schedule::scheduleForMemory); the
/// order holds graph node ids.
ScheduleResult scheduleForMemory(const DataflowGraph &graph,
                                 ScheduleAlgorithm algorithm,
                                 const SchedulerLimits &limits = {});

/// Returns the peak of \p order under the step model; the same as
/// BufferLiveness::evaluatePeak.
int64_t evaluateSchedulePeak(const DataflowGraph &graph,
                             ArrayRef<NodeId> order);

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_ANALYSIS_SCHEDULEPROBLEMBUILDER_H
