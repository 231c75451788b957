//===- StepModel.h - The step rule of the memory model ----------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The one definition of how many bytes are live when a node runs. The exact
// search scores its moves with StepModel::step, and evaluate() replays an
// order with the same function, so the peak the scheduler proves and the
// liveness profile the reports show cannot disagree.
//
// The rule (docs/MemoryModel.md): before the first step, the graph inputs
// that some node reads, the kept inputs and the pinned buffers are live. The
// step that runs node v holds the bytes live before it, v's outputs and
// workspace; if v's in-place input dies at v, the step holds v's in-place
// saving less. The inputs nobody reads are live at the entry only: the first
// step holds at least the bytes before it and those inputs.
// After the step, the inputs whose last reader is v are freed (unless kept:
// returned, read by a later segment or pinned), and v's outputs that are read
// or kept stay live. Pinned buffers count at every step and never die.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_SCHEDULE_STEPMODEL_H
#define MEMOPT_SCHEDULE_STEPMODEL_H

#include "MemOpt/Schedule/Problem.h"

#include <algorithm>

namespace mlir {
namespace memopt {
namespace schedule {

/// The inclusive range of steps during which a buffer occupies memory.
struct LiveInterval {
  unsigned first = 0;
  unsigned last = 0;
};

/// The memory profile of one order of a Problem.
struct Evaluation {
  /// Live interval of each buffer, indexed by BufferId.
  llvm::SmallVector<LiveInterval> intervals;
  /// Bytes live at each step, indexed by step.
  llvm::SmallVector<int64_t> liveBytes;
  /// The largest entry of liveBytes (0 for an empty order).
  int64_t peakBytes = 0;
  /// The first step at which the peak is reached.
  unsigned peakStep = 0;
};

/// Replays \p order, which must pass problem.verify(), with StepModel::step.
Evaluation evaluate(const Problem &problem, llvm::ArrayRef<NodeId> order);
/// Returns the peak of \p order (as evaluate(), without the profile).
int64_t evaluatePeak(const Problem &problem, llvm::ArrayRef<NodeId> order);

/// Returns the first node of every segment of \p problem: maximal runs of
/// nodes between cut nodes (nodes that are an ancestor or a descendant of
/// every other node; each is a segment of its own), in id order. Every order
/// runs the segments one after the other. O(nodes + edges).
llvm::SmallVector<NodeId> findSegmentBegins(const Problem &problem);

/// How a Problem is cut into segments: runs of consecutive node ids that
/// every order schedules one after the other. Says, per segment, which
/// buffers it makes or reads and how many bytes stay live through it
/// untouched, so that building the StepModel of one segment costs time in
/// its own size, not in the whole problem's.
struct SegmentLayout {
  /// The layout of \p problem cut before each node of \p begins (ascending,
  /// starting with 0 when there are nodes).
  SegmentLayout(const Problem &problem, llvm::ArrayRef<NodeId> begins);
  /// The layout of \p problem as one segment.
  explicit SegmentLayout(const Problem &problem);

  /// Returns the number of segments.
  unsigned size() const { return begins.size() - 1; }
  /// Returns the nodes of segment \p segment: ids [first, last).
  NodeId getFirst(unsigned segment) const { return begins[segment]; }
  NodeId getEnd(unsigned segment) const { return begins[segment + 1]; }

  /// The first node of every segment, then the number of nodes.
  llvm::SmallVector<NodeId> begins;
  /// The segment of every node.
  llvm::SmallVector<unsigned> segmentOf;
  /// Per segment, the buffers it makes or reads (pinned buffers left out),
  /// ascending.
  llvm::SmallVector<llvm::SmallVector<BufferId, 4>> touched;
  /// Per segment, the bytes live through it without being made or read
  /// there: pinned buffers, and buffers made before it that a later segment
  /// reads or that are returned.
  llvm::SmallVector<int64_t> untouchedBytes;
  /// Graph inputs that nobody reads and nobody keeps: live at the first step
  /// of the first segment only.
  int64_t unusedInputBytes = 0;
};

/// The step rule applied to the nodes of one segment of a Problem: a run of
/// nodes that every order schedules after the nodes of earlier segments and
/// before those of later ones (the whole problem is one segment). Buffers
/// made by earlier segments are inputs of the segment; buffers read by later
/// segments are kept. Local node ids index `nodes`; local buffer ids index
/// `buffers`.
class StepModel {
public:
  /// A buffer the segment makes or reads.
  struct LocalBuffer {
    int64_t bytes;
    /// Local producer, or -1 for buffers made before the segment.
    int producer;
    /// Never dies within the segment (returned, or read later).
    bool kept;
  };
  /// What a node adds and may free at its step.
  struct LocalNode {
    /// Local input buffers (pinned buffers left out), ascending.
    llvm::SmallVector<unsigned, 4> inputs;
    /// Bytes added at its step (outputs and workspace), of its outputs, and
    /// of the outputs that stay live after it.
    int64_t stepBytes = 0, outputBytes = 0, keptBytes = 0;
    /// Local in-place input and its saving, or -1 and 0.
    int inPlaceInput = -1;
    int64_t inPlaceSaving = 0;
  };

  /// The model of the whole of \p problem.
  explicit StepModel(const Problem &problem);
  /// The model of segment \p segment of \p layout, a layout of
  /// \p problem; costs time in the segment's nodes and buffers only.
  StepModel(const Problem &problem, const SegmentLayout &layout,
            unsigned segment);

  /// THE step rule: computes \p atStep, the bytes live at the step that
  /// runs local node \p node when \p mem bytes are live before it, and
  /// \p afterStep, the bytes live after it. \p isFirst says whether this is the
  /// first step of the segment. \p isLastReader(b) must say whether \p node is
  /// the last node of the segment to read local buffer b (no other reader of b
  /// is still to run).
  template <typename IsLastReader>
  void step(unsigned node, bool isFirst, int64_t mem,
            IsLastReader &&isLastReader, int64_t &atStep,
            int64_t &afterStep) const {
    const LocalNode &info = localNodes[node];
    atStep = mem + info.stepBytes;
    afterStep = mem + info.keptBytes;
    for (unsigned input : info.inputs) {
      if (buffers[input].kept || !isLastReader(input))
        continue;
      afterStep -= buffers[input].bytes;
      if (static_cast<int>(input) == info.inPlaceInput)
        atStep -= info.inPlaceSaving;
    }
    // The inputs nobody reads are live at the entry only, with the others:
    // the first node's buffers may reuse their bytes.
    if (isFirst)
      atStep = std::max(atStep, mem + unusedInputBytes);
  }

  /// Returns the local id of node \p global, or -1 outside the segment.
  int getLocal(NodeId global) const {
    return global >= firstNode && global < firstNode + numNodes
               ? static_cast<int>(global - firstNode)
               : -1;
  }

  /// The global ids of the nodes, consecutive; local id i is `nodes[i]`.
  llvm::SmallVector<NodeId> nodes;
  /// The global id of local node 0.
  NodeId firstNode = 0;
  /// The global id of every local buffer.
  llvm::SmallVector<BufferId> globalBuffers;
  unsigned numNodes = 0;
  llvm::SmallVector<LocalBuffer> buffers;
  llvm::SmallVector<LocalNode> localNodes;
  /// Live bytes before the first step: inputs still to be read or kept, and
  /// pinned bytes.
  int64_t initialMem = 0;
  /// Inputs nobody reads: live at the first step only.
  int64_t unusedInputBytes = 0;
  /// Bytes live through the whole segment untouched: pinned buffers, and
  /// buffers made before the segment that only later segments read or that
  /// are returned.
  int64_t pinnedBytes = 0;
};

} // namespace schedule
} // namespace memopt
} // namespace mlir

#endif // MEMOPT_SCHEDULE_STEPMODEL_H
