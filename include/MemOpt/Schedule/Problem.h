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
  /// Buffers the node produces; each names the node as its producer.
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
  /// outputs allocate nothing at the step, so they do not count).
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

  /// Returns true if the buffer exists before the first step.
  bool isGraphInput() const { return !producer.has_value(); }
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
  /// producer; sizes not negative; an in-place input that is an input of its
  /// node, and a saving only with one, no larger than the input nor than the
  /// node's workspace and outputs. On failure, describes
  /// the first problem found in \p whyNot if given.
  llvm::LogicalResult check(std::string *whyNot = nullptr) const;

  /// Checks that \p order is a permutation of the nodes in which every node
  /// comes after its predecessors. On failure, describes why in \p whyNot if
  /// given.
  llvm::LogicalResult verify(llvm::ArrayRef<NodeId> order,
                             std::string *whyNot = nullptr) const;

private:
  llvm::SmallVector<Node> nodes;
  llvm::SmallVector<Buffer> buffers;
};

} // namespace schedule
} // namespace memopt
} // namespace mlir

#endif // MEMOPT_SCHEDULE_PROBLEM_H
