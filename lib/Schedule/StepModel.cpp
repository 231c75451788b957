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

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace llvm;
using namespace mlir::memopt::schedule;

SegmentLayout::SegmentLayout(const Problem &problem)
    : SegmentLayout(problem, problem.getNumNodes()
                                 ? ArrayRef<NodeId>(NodeId(0))
                                 : ArrayRef<NodeId>()) {}

SegmentLayout::SegmentLayout(const Problem &problem, ArrayRef<NodeId> firsts)
    : begins(firsts.begin(), firsts.end()) {
  unsigned numNodes = problem.getNumNodes();
  begins.push_back(numNodes);
  unsigned numSegments = size();
  segmentOf.resize(numNodes);
  for (unsigned segment = 0; segment < numSegments; ++segment)
    for (NodeId node = getFirst(segment); node < getEnd(segment); ++node)
      segmentOf[node] = segment;
  touched.resize(numSegments);
  // Bytes added to the untouched bytes of segments [a, b) as +bytes at a and
  // -bytes at b; a segment that touches the buffer takes it back.
  SmallVector<int64_t> delta(numSegments + 1, 0);
  int64_t pinnedBytes = 0;
  for (auto [id, buffer] : llvm::enumerate(problem.getBuffers())) {
    if (buffer.pinned) {
      pinnedBytes += buffer.bytes;
      continue;
    }
    // Segments that read it, ascending and unique (readers are sorted).
    SmallVector<unsigned, 4> readSegments;
    for (NodeId reader : buffer.readers)
      if (readSegments.empty() || readSegments.back() != segmentOf[reader])
        readSegments.push_back(segmentOf[reader]);
    bool madeInside = buffer.producer.has_value();
    unsigned from = madeInside ? segmentOf[*buffer.producer] : 0;
    if (madeInside)
      touched[from].push_back(id);
    for (unsigned segment : readSegments)
      if (!madeInside || segment != from)
        touched[segment].push_back(id);
    if (!madeInside && readSegments.empty() && !buffer.isGraphOutput) {
      unusedInputBytes += buffer.bytes;
      continue;
    }
    // Live, untouched, in the segments after `from` (all of them for an
    // input) up to the last reader's, or to the end if returned.
    unsigned begin = madeInside ? from + 1 : 0;
    unsigned end = buffer.isGraphOutput ? numSegments
                   : readSegments.empty() ? begin
                                          : readSegments.back();
    if (begin >= end)
      continue;
    delta[begin] += buffer.bytes;
    delta[end] -= buffer.bytes;
    for (unsigned segment : readSegments)
      if (segment >= begin && segment < end) {
        delta[segment] -= buffer.bytes;
        delta[segment + 1] += buffer.bytes;
      }
  }
  untouchedBytes.resize(numSegments);
  int64_t running = 0;
  for (unsigned segment = 0; segment < numSegments; ++segment) {
    running += delta[segment];
    untouchedBytes[segment] = running + pinnedBytes;
  }
}

StepModel::StepModel(const Problem &problem)
    : StepModel(problem, SegmentLayout(problem), 0) {}

StepModel::StepModel(const Problem &problem, const SegmentLayout &layout,
                     unsigned segment) {
  assert(!problem.hasWriters() &&
         "multi-writer buffers go through Problem::expandWriters");
  if (segment >= layout.size()) {
    // No nodes: every input is unused, every caller-owned buffer pinned.
    unusedInputBytes = layout.unusedInputBytes;
    for (const Buffer &buffer : problem.getBuffers())
      if (buffer.pinned || (buffer.isGraphInput() && buffer.isGraphOutput))
        pinnedBytes += buffer.bytes;
    initialMem = pinnedBytes;
    return;
  }
  firstNode = layout.getFirst(segment);
  numNodes = layout.getEnd(segment) - firstNode;
  for (NodeId node = firstNode; node < firstNode + numNodes; ++node)
    nodes.push_back(node);
  ArrayRef<unsigned> segmentOf = layout.segmentOf;

  // Classify the buffers the segment makes or reads; the others are live
  // through it untouched (layout.untouchedBytes) or dead.
  pinnedBytes = layout.untouchedBytes[segment];
  if (segment == 0)
    unusedInputBytes = layout.unusedInputBytes;
  DenseMap<BufferId, unsigned> localBufferOf;
  for (BufferId id : layout.touched[segment]) {
    const Buffer &buffer = problem.getBuffer(id);
    bool readLater = !buffer.readers.empty() &&
                     segmentOf[buffer.readers.back()] > segment;
    bool kept = buffer.isGraphOutput || readLater;
    bool madeHere = buffer.producer && segmentOf[*buffer.producer] == segment;
    localBufferOf[id] = buffers.size();
    globalBuffers.push_back(id);
    buffers.push_back(
        {buffer.bytes, madeHere ? getLocal(*buffer.producer) : -1, kept});
    if (!madeHere)
      initialMem += buffer.bytes;
  }
  initialMem += pinnedBytes;
  auto lookup = [&](BufferId id) {
    auto it = localBufferOf.find(id);
    return it == localBufferOf.end() ? -1 : static_cast<int>(it->second);
  };

  localNodes.resize(numNodes);
  for (unsigned node = 0; node < numNodes; ++node) {
    const Node &info = problem.getNode(nodes[node]);
    LocalNode &local = localNodes[node];
    local.stepBytes = info.workspaceBytes;
    for (BufferId input : info.inputs)
      if (int localInput = lookup(input); localInput >= 0)
        local.inputs.push_back(localInput);
    for (BufferId output : info.outputs) {
      int localOutput = lookup(output);
      if (localOutput < 0)
        continue; // Pinned.
      const LocalBuffer &buffer = buffers[localOutput];
      local.outputBytes += buffer.bytes;
      if (buffer.kept || !problem.getBuffer(output).readers.empty())
        local.keptBytes += buffer.bytes;
    }
    local.stepBytes += local.outputBytes;
    // The saving needs an input that may die in the segment: not pinned, not
    // returned and not read by a later segment.
    if (!info.inPlaceInput)
      continue;
    int localInput = lookup(*info.inPlaceInput);
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
    unsigned node = model.getLocal(global);
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

/// Replays \p order of \p problem, which has multi-writer buffers, through
/// its expansion (Problem.h, WriterExpansion): the same steps, less the
/// allocation nodes' own. Those hold no more than the writer after them.
/// When an allocation node runs first, the entry bytes (with the inputs
/// nobody reads) that the first step holds at least are on its step; the
/// first node's step holds them instead.
static std::pair<int64_t, unsigned>
replayWriters(const Problem &problem, ArrayRef<NodeId> order,
              SmallVectorImpl<int64_t> *liveBytes) {
  WriterExpansion expansion = problem.expandWriters();
  StepModel model(*expansion.problem);
  SmallVector<NodeId> expanded = expansion.toExpanded(order);
  SmallVector<int64_t> expandedBytes;
  replay(model, expanded, &expandedBytes);
  SmallVector<int64_t> steps;
  for (auto [index, node] : llvm::enumerate(expanded))
    if (expansion.originalId[node] >= 0)
      steps.push_back(expandedBytes[index]);
  if (!expanded.empty() && expansion.originalId[expanded.front()] < 0)
    steps.front() = std::max(steps.front(),
                             model.initialMem + model.unusedInputBytes);
  int64_t peak = 0;
  unsigned peakStep = 0;
  for (auto [index, bytes] : llvm::enumerate(steps))
    if (bytes > peak) {
      peak = bytes;
      peakStep = index;
    }
  if (liveBytes)
    liveBytes->append(steps.begin(), steps.end());
  return {peak, peakStep};
}

Evaluation mlir::memopt::schedule::evaluate(const Problem &problem,
                                            ArrayRef<NodeId> order) {
  assert(succeeded(problem.verify(order)) && "not a valid order");
  Evaluation result;
  if (problem.hasWriters()) {
    std::tie(result.peakBytes, result.peakStep) =
        replayWriters(problem, order, &result.liveBytes);
  } else {
    StepModel model(problem);
    std::tie(result.peakBytes, result.peakStep) =
        replay(model, order, &result.liveBytes);
  }

  // Lifetimes: from the producer's step (graph inputs and pinned buffers:
  // the first step; multi-writer buffers: the first writer's) to the last
  // reader's (returned and pinned buffers: the last step).
  SmallVector<unsigned> position(problem.getNumNodes());
  for (auto [step, node] : llvm::enumerate(order))
    position[node] = step;
  unsigned lastStep = order.empty() ? 0 : order.size() - 1;
  result.intervals.reserve(problem.getNumBuffers());
  for (const Buffer &buffer : problem.getBuffers()) {
    unsigned first =
        buffer.producer && !buffer.pinned ? position[*buffer.producer] : 0;
    if (!buffer.pinned)
      for (NodeId writer : buffer.writers)
        first = std::min(first, position[writer]);
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
  if (problem.hasWriters())
    return replayWriters(problem, order, nullptr).first;
  return replay(StepModel(problem), order, nullptr).first;
}
