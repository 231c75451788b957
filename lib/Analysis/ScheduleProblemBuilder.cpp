//===- ScheduleProblemBuilder.cpp - DataflowGraph to schedule::Problem ----===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Analysis/ScheduleProblemBuilder.h"

#include "MemOpt/Schedule/StepModel.h"

using namespace mlir;
using namespace mlir::memopt;

schedule::Problem
mlir::memopt::buildScheduleProblem(const DataflowGraph &graph,
                                   const ScheduleProblemOptions &options) {
  schedule::Problem problem;
  for (auto [id, node] : llvm::enumerate(graph.getNodes())) {
    schedule::Node info;
    info.preds.assign(node.preds.begin(), node.preds.end());
    info.inputs.assign(node.inputs.begin(), node.inputs.end());
    info.outputs.assign(node.outputs.begin(), node.outputs.end());
    info.workspaceBytes = node.workspaceBytes;
    info.inPlaceInput = node.inPlaceInput;
    info.inPlaceSaving = node.inPlaceSaving;
    if (options.withNames)
      info.name = graph.getNodeName(id);
    problem.addNode(std::move(info));
  }
  for (auto [id, buffer] : llvm::enumerate(graph.getBuffers())) {
    schedule::Buffer info;
    info.bytes = buffer.bytes;
    info.producer = buffer.producer;
    info.writers.assign(buffer.writers.begin(), buffer.writers.end());
    info.readers.assign(buffer.users.begin(), buffer.users.end());
    info.isGraphOutput = buffer.isGraphOutput;
    if (options.withNames)
      info.name = graph.getBufferName(id);
    problem.addBuffer(std::move(info));
  }
  if (int64_t pinned = graph.getPinnedBytes()) {
    schedule::Buffer callerIO;
    callerIO.bytes = pinned;
    callerIO.pinned = true;
    callerIO.name = "caller-owned inputs and outputs";
    problem.addBuffer(std::move(callerIO));
  }
  return problem;
}

ScheduleResult mlir::memopt::scheduleForMemory(const DataflowGraph &graph,
                                               ScheduleAlgorithm algorithm,
                                               const SchedulerLimits &limits) {
  return schedule::scheduleForMemory(buildScheduleProblem(graph), algorithm,
                                     limits);
}

int64_t mlir::memopt::evaluateSchedulePeak(const DataflowGraph &graph,
                                           ArrayRef<NodeId> order) {
  return schedule::evaluatePeak(buildScheduleProblem(graph), order);
}
