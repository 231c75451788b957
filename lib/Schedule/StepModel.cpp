//===- StepModel.cpp - The step rule of the memory model ------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Classifies the buffers of a segment for the step rule, and replays orders
// with it.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Schedule/StepModel.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace llvm;
using namespace mlir::memopt::schedule;

StepModel::StepModel(const Problem &problem)
    : StepModel(problem, problem.getInputOrder(),
                SmallVector<unsigned>(problem.getNumNodes(), 0), 0) {}

StepModel::StepModel(const Problem &problem, ArrayRef<NodeId> nodeIds,
                     ArrayRef<unsigned> segmentOf, unsigned segment)
    : nodes(nodeIds.begin(), nodeIds.end()) {
  numNodes = nodes.size();
  localOf.assign(problem.getNumNodes(), -1);
  for (auto [local, global] : llvm::enumerate(nodes))
    localOf[global] = local;

  // Classify every buffer relative to this segment.
  localBufferOf.assign(problem.getNumBuffers(), -1);
  for (auto [id, buffer] : llvm::enumerate(problem.getBuffers())) {
    if (buffer.pinned) {
      pinnedBytes += buffer.bytes;
      continue;
    }
    unsigned producerSegment =
        buffer.producer ? segmentOf[*buffer.producer] : 0;
    if (buffer.producer && producerSegment > segment)
      continue;
    bool readHere = false, readLater = false;
    for (NodeId reader : buffer.readers) {
      readHere |= segmentOf[reader] == segment;
      readLater |= segmentOf[reader] > segment;
    }
    bool kept = buffer.isGraphOutput || readLater;
    bool madeHere = buffer.producer && producerSegment == segment;
    if (!madeHere && !readHere) {
      if (buffer.producer || segment != 0 || kept) {
        // Live through the whole segment, or dead before it.
        if (kept)
          pinnedBytes += buffer.bytes;
        continue;
      }
      unusedInputBytes += buffer.bytes;
      continue;
    }
    localBufferOf[id] = buffers.size();
    buffers.push_back(
        {buffer.bytes, madeHere ? localOf[*buffer.producer] : -1, kept});
    if (!madeHere)
      initialMem += buffer.bytes;
  }
  initialMem += pinnedBytes;

  localNodes.resize(numNodes);
  for (unsigned node = 0; node < numNodes; ++node) {
    const Node &info = problem.getNode(nodes[node]);
    LocalNode &local = localNodes[node];
    local.stepBytes = info.workspaceBytes;
    for (BufferId input : info.inputs)
      if (localBufferOf[input] >= 0)
        local.inputs.push_back(localBufferOf[input]);
    for (BufferId output : info.outputs) {
      if (localBufferOf[output] < 0)
        continue; // Pinned.
      const LocalBuffer &buffer = buffers[localBufferOf[output]];
      local.outputBytes += buffer.bytes;
      if (buffer.kept || !problem.getBuffer(output).readers.empty())
        local.keptBytes += buffer.bytes;
    }
    local.stepBytes += local.outputBytes;
    // The saving needs an input that may die in the segment: not pinned, not
    // returned and not read by a later segment.
    if (!info.inPlaceInput)
      continue;
    int localInput = localBufferOf[*info.inPlaceInput];
    if (localInput < 0 || buffers[localInput].kept)
      continue;
    local.inPlaceInput = localInput;
    // Never more than the step allocates (pinned outputs allocate nothing
    // here), so no step holds less than the bytes live before it.
    local.inPlaceSaving = std::min(info.inPlaceSaving, local.stepBytes);
  }
}

/// Replays \p order on the whole-problem \p model; appends the bytes of every
/// step to \p liveBytes if given, and returns the peak and its first step.
static std::pair<int64_t, unsigned>
replay(const StepModel &model, ArrayRef<NodeId> order,
       SmallVectorImpl<int64_t> *liveBytes) {
  // Readers of each local buffer still to run.
  SmallVector<unsigned> remaining(model.buffers.size(), 0);
  for (const StepModel::LocalNode &node : model.localNodes)
    for (unsigned input : node.inputs)
      ++remaining[input];
  // Without ops, the inputs and pinned buffers are all there is.
  int64_t mem = model.initialMem,
          peak = order.empty() ? mem + model.unusedInputBytes : 0;
  unsigned peakStep = 0;
  for (auto [index, global] : llvm::enumerate(order)) {
    unsigned node = model.localOf[global];
    int64_t step, after;
    model.step(
        node, index == 0, mem,
        [&](unsigned buffer) { return remaining[buffer] == 1; }, step, after);
    for (unsigned input : model.localNodes[node].inputs)
      --remaining[input];
    if (liveBytes)
      liveBytes->push_back(step);
    if (step > peak) {
      peak = step;
      peakStep = index;
    }
    mem = after;
  }
  return {peak, peakStep};
}

Evaluation mlir::memopt::schedule::evaluate(const Problem &problem,
                                            ArrayRef<NodeId> order) {
  assert(succeeded(problem.verify(order)) && "not a valid order");
  Evaluation result;
  StepModel model(problem);
  std::tie(result.peakBytes, result.peakStep) =
      replay(model, order, &result.liveBytes);

  // Lifetimes: from the producer's step (graph inputs and pinned buffers:
  // the first step) to the last reader's (returned and pinned buffers: the
  // last step).
  SmallVector<unsigned> position(problem.getNumNodes());
  for (auto [step, node] : llvm::enumerate(order))
    position[node] = step;
  unsigned lastStep = order.empty() ? 0 : order.size() - 1;
  result.intervals.reserve(problem.getNumBuffers());
  for (const Buffer &buffer : problem.getBuffers()) {
    unsigned first =
        buffer.producer && !buffer.pinned ? position[*buffer.producer] : 0;
    unsigned last = first;
    for (NodeId reader : buffer.readers)
      last = std::max(last, position[reader]);
    if (buffer.isGraphOutput || buffer.pinned)
      last = lastStep;
    result.intervals.push_back({first, last});
  }
  return result;
}

int64_t mlir::memopt::schedule::evaluatePeak(const Problem &problem,
                                             ArrayRef<NodeId> order) {
  return replay(StepModel(problem), order, nullptr).first;
}
