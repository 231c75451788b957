//===- Problem.h - IR-free peak-memory scheduling problem -------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The input of the memory scheduler, free of IR: nodes (ops) with their
// predecessors, workspace and optional in-place input, and buffers (tensors)
// with their size, producer, readers and lifetime flags. Like CIRCT's
// scheduling problems, a Problem can check that it is well formed (check())
// and that an order solves it (verify()); the algorithms of Scheduler.h
// require a problem that passes check(). docs/MemoryModel.md states the
// model; StepModel.h evaluates it.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_SCHEDULE_PROBLEM_H
#define MEMOPT_SCHEDULE_PROBLEM_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace mlir {
namespace memopt {
namespace schedule {

/// Index of a node in a Problem.
using NodeId = unsigned;
/// Index of a buffer in a Problem.
using BufferId = unsigned;

/// An operation to order.
struct Node {
  /// Nodes that must run before this one; sorted, unique, smaller ids.
  llvm::SmallVector<NodeId, 4> preds;
  /// Buffers the node reads; sorted, unique. Each lists the node as reader.
  llvm::SmallVector<BufferId, 4> inputs;
  /// Buffers the node produces; each names the node as its producer or
  /// among its writers.
  llvm::SmallVector<BufferId, 1> outputs;
  /// Scratch bytes the node needs while it runs, counted at its step only.
  int64_t workspaceBytes = 0;
  /// If set, the step holds `inPlaceSaving` bytes less when this input dies
  /// at this node: output 0 is written over it (an in-place op), or the
  /// lowering frees it before allocating the rest. Returned and pinned
  /// buffers never die, so they never save. The problem's builder decides
  /// which inputs may be overwritten and what that saves.
  std::optional<BufferId> inPlaceInput;
  /// Bytes saved when `inPlaceInput` dies at this node: at most the input's
  /// bytes and what the step allocates (workspace and outputs; pinned
  /// outputs allocate nothing at the step, so they do not count, and
  /// multi-writer outputs may already be allocated, so they do not either).
  int64_t inPlaceSaving = 0;
  /// Name for diagnostics; may be empty.
  std::string name;
};

/// A tensor that occupies memory for part of the schedule.
struct Buffer {
  /// Size in bytes.
  int64_t bytes = 0;
  /// The producing node; std::nullopt for graph inputs, which exist before
  /// the first step.
  std::optional<NodeId> producer;
  /// Nodes that read the buffer; sorted, unique.
  llvm::SmallVector<NodeId, 4> readers;
  /// Returned: kept until the last step.
  bool isGraphOutput = false;
  /// Live for the whole call, from the first step to the last, wherever it
  /// is produced and read (caller-owned inputs and outputs).
  bool pinned = false;
  /// Name for diagnostics; may be empty.
  std::string name;
  /// Further nodes that write into the buffer besides `producer` (a concat
  /// whose operands are produced into their slices); sorted, unique, ids
  /// above the producer's, each listing the buffer among its outputs. A
  /// buffer with writers is allocated when the first of its producer and
  /// writers runs (whichever the order runs first) and freed after its last
  /// reader; the writers that run later allocate nothing for it. Some reader
  /// must depend on every writer unless the buffer is returned or pinned, so
  /// it is never freed before a writer runs.
  llvm::SmallVector<NodeId, 2> writers = {};

  /// Returns true if the buffer exists before the first step.
  bool isGraphInput() const { return !producer.has_value(); }
  /// Returns true if several nodes write into the buffer.
  bool hasWriters() const { return !writers.empty(); }
};

class Problem;

/// A problem with multi-writer buffers rewritten into one without them, with
/// the same optimum: each multi-writer buffer b gets an *allocation node*
/// that produces b (reading nothing, no workspace), ordered after every
/// common ancestor of b's writers and before each writer; the writers read b
/// instead of producing it. An order of the original problem maps to an
/// order of the expansion with the same steps plus one step per allocation
/// node, run just before b's first writer, that holds no more than that
/// writer's step (a writer's in-place saving never exceeds what it allocates
/// besides multi-writer buffers, Problem::check); an order of the expansion
/// maps back (allocation nodes dropped) to one whose peak is no higher,
/// since b is then allocated no earlier. So the minimum peaks agree, every
/// rule of the exact search (sound for any problem that passes check())
/// stays sound, and replays of the original go through the expansion: the
/// one step function stays the only one. Buffer ids are kept.
struct WriterExpansion {
  /// The expanded problem (no buffer with writers).
  std::unique_ptr<Problem> problem;
  /// The id in the expansion of every original node.
  llvm::SmallVector<NodeId> expandedId;
  /// The original id of every node of the expansion; -1 for allocation
  /// nodes.
  llvm::SmallVector<int> originalId;
  /// Per original node, the multi-writer buffers it writes, with the
  /// allocation node of each.
  llvm::SmallVector<llvm::SmallVector<std::pair<BufferId, NodeId>, 1>>
      writes;

  /// Maps an order of the original problem to one of the expansion: each
  /// allocation node runs right before the first writer of its buffer.
  llvm::SmallVector<NodeId> toExpanded(llvm::ArrayRef<NodeId> order) const;
  /// Maps an order of the expansion back (allocation nodes dropped).
  llvm::SmallVector<NodeId> toOriginal(llvm::ArrayRef<NodeId> order) const;
};

/// A peak-memory scheduling problem: find a topological order of the nodes
/// with the smallest peak of live bytes. Node ids are a topological order
/// (every predecessor has a smaller id), so the identity order is valid and
/// stands for the file order.
class Problem {
public:
  /// Appends \p node and returns its id.
  NodeId addNode(Node node);
  /// Appends \p buffer and returns its id.
  BufferId addBuffer(Buffer buffer);

  llvm::ArrayRef<Node> getNodes() const { return nodes; }
  llvm::ArrayRef<Buffer> getBuffers() const { return buffers; }
  const Node &getNode(NodeId id) const { return nodes[id]; }
  const Buffer &getBuffer(BufferId id) const { return buffers[id]; }
  Node &getNode(NodeId id) { return nodes[id]; }
  Buffer &getBuffer(BufferId id) { return buffers[id]; }
  unsigned getNumNodes() const { return nodes.size(); }
  unsigned getNumBuffers() const { return buffers.size(); }

  /// Returns the successors of every node (the inverse of the predecessor
  /// lists), each sorted.
  llvm::SmallVector<llvm::SmallVector<NodeId, 4>> getSuccessors() const;

  /// Returns the identity order 0, 1, ..., n - 1 (the file order).
  llvm::SmallVector<NodeId> getInputOrder() const;

  /// Returns the name of \p node, or "node <id>" if it has none.
  std::string getNodeName(NodeId node) const;
  /// Returns the name of \p buffer, or "buffer <id>" if it has none.
  std::string getBufferName(BufferId buffer) const;

  /// Checks that the problem is well formed: ids in range; predecessor,
  /// input and reader lists sorted and unique; predecessors with smaller ids
  /// (so the graph is acyclic); producers and outputs, readers and inputs
  /// agreeing; every reader of a produced buffer a descendant of its
  /// producer or of one of its writers;
  /// producer; sizes not negative; an in-place input that is an input of its
  /// node, and a saving only with one, no larger than the input nor than the
  /// node's workspace and outputs (multi-writer outputs left out); writers
  /// sorted, unique, above the producer, listing the buffer as an output,
  /// and, unless the buffer is returned or pinned, a reader depending on
  /// every writer. On failure, describes
  /// the first problem found in \p whyNot if given.
  llvm::LogicalResult check(std::string *whyNot = nullptr) const;

  /// Checks that \p order is a permutation of the nodes in which every node
  /// comes after its predecessors. On failure, describes why in \p whyNot if
  /// given.
  llvm::LogicalResult verify(llvm::ArrayRef<NodeId> order,
                             std::string *whyNot = nullptr) const;

  /// Returns true if some buffer has several writers.
  bool hasWriters() const;
  /// Returns the expansion of this problem (which must pass check()) into
  /// one without multi-writer buffers; see WriterExpansion.
  WriterExpansion expandWriters() const;

private:
  llvm::SmallVector<Node> nodes;
  llvm::SmallVector<Buffer> buffers;
};

} // namespace schedule
} // namespace memopt
} // namespace mlir

#endif // MEMOPT_SCHEDULE_PROBLEM_H
