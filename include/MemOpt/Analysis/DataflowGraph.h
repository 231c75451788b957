//===- DataflowGraph.h - Activation dataflow graph of a function -*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Turns the body of a `func.func` (one block of tensor ops, TOSA first) into a
// compact graph that schedulers and the liveness analysis can search without
// touching IR. Nodes are the ops that compute activations; buffers are the
// activation tensors they produce. Weights (constant-like ops and everything
// computed only from constants) are left out. View-like ops produce no buffer:
// their result aliases the buffer they view, so their users extend that
// buffer's life.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_DATAFLOWGRAPH_H
#define MEMOPT_ANALYSIS_DATAFLOWGRAPH_H

#include "MemOpt/CostModel/CostModel.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir {
namespace func {
class FuncOp;
} // namespace func

namespace memopt {

/// Index of a node in a DataflowGraph.
using NodeId = unsigned;
/// Index of a buffer in a DataflowGraph.
using BufferId = unsigned;

/// An activation buffer: a tensor produced by a node or passed in as a
/// function argument, together with every view of it.
struct Buffer {
  /// The SSA value that defines the buffer: an op result or a block argument.
  Value value;
  /// Size in bytes: elements x element width rounded up to whole bytes.
  int64_t bytes = 0;
  /// The producing node; std::nullopt for graph inputs (function arguments).
  std::optional<NodeId> producer;
  /// Nodes that read the buffer directly or through a view; sorted, unique.
  SmallVector<NodeId, 4> users;
  /// True if the buffer (or a view of it) is returned by the function.
  bool isGraphOutput = false;
  /// Further nodes that write into the buffer besides `producer`; sorted,
  /// unique. A concat's buffer (`value` is the concat's result) whose
  /// operands are produced into their slices (getInPlaceConcat): the
  /// producer is the first such operand's node, the writers the others and
  /// the concat itself if it copies an operand. It is allocated by the first
  /// writer to run (schedule::Buffer::writers).
  SmallVector<NodeId, 2> writers;
  /// The alignment of the buffer's offset in the arena, or 0 for the arena's
  /// (CostModelOptions::alignment). A graph input or output held in the
  /// arena, and a buffer its producers write over on the way, take their
  /// element's (alignArenaIO, getArenaAlignment).
  int64_t alignment = 0;

  /// Returns true if the buffer is a function argument.
  bool isGraphInput() const { return !producer.has_value(); }
};

/// An op that computes activations, or a view-like op over one.
struct Node {
  /// The operation in the function body.
  Operation *op = nullptr;
  /// Buffers read by the node (through views resolved); sorted, unique.
  SmallVector<BufferId, 4> inputs;
  /// Buffers the node defines, or writes into (a concat's buffer). Empty for
  /// view-like nodes.
  SmallVector<BufferId, 1> outputs;
  /// Nodes that must run before this one; sorted, unique.
  SmallVector<NodeId, 4> preds;
  /// Nodes that must run after this one; sorted, unique.
  SmallVector<NodeId, 4> succs;
  /// Ops fused into this one by the lowering (an int8 accumulator computed
  /// inside its rescale's loop); they run right before `op`.
  SmallVector<Operation *, 1> fusedOps;
  /// Scratch bytes the node needs while it runs (0 unless the cost model sets
  /// it). Counted only at the node's own step.
  int64_t workspaceBytes = 0;
  /// If set, the step saves `inPlaceSaving` bytes when this input dies at
  /// this node: output 0 is written over it (an in-place op), or the
  /// lowering frees it before allocating the rest. Set by the cost model
  /// (CostModel.h), and for the producer of the partial in an accumulating
  /// add (`tosa.add` marked `memopt.accumulate`, see DataflowGraph.cpp).
  std::optional<BufferId> inPlaceInput;
  /// Bytes saved when `inPlaceInput` dies at this node.
  int64_t inPlaceSaving = 0;
  /// True for view-like ops (reshape, expand/collapse_shape, cast).
  bool isView = false;
};

/// The activation dataflow graph of one function body. Node ids follow the
/// order of the ops in the block, so the identity order is the program order.
class DataflowGraph {
public:
  /// Builds the graph of \p func. Emits an error at the offending location and
  /// returns failure if the body cannot be modelled: several blocks, non-tensor
  /// shaped arguments, dynamic or unranked shapes, ops with regions, or
  /// unknown ops producing tensors. \p func must have a body.
  static FailureOr<DataflowGraph> build(func::FuncOp func,
                                        const CostModelOptions &options = {});

  /// The cost model the graph was built with.
  const CostModelOptions &getCostModel() const { return costModel; }
  /// Bytes live for the whole call outside the graph's buffers: the
  /// caller-owned inputs and outputs under `io=caller` (0 otherwise).
  int64_t getPinnedBytes() const { return pinnedBytes; }

  /// All nodes, indexed by NodeId.
  ArrayRef<Node> getNodes() const { return nodes; }
  /// All buffers, indexed by BufferId.
  ArrayRef<Buffer> getBuffers() const { return buffers; }
  /// Mutable node access, for cost models that attach workspace or in-place
  /// rules.
  Node &getNode(NodeId id) { return nodes[id]; }
  const Node &getNode(NodeId id) const { return nodes[id]; }
  const Buffer &getBuffer(BufferId id) const { return buffers[id]; }
  size_t getNumNodes() const { return nodes.size(); }
  size_t getNumBuffers() const { return buffers.size(); }

  /// Returns the node of \p op, or std::nullopt if \p op is not a node
  /// (a weight, the terminator, or an op outside the graph).
  std::optional<NodeId> lookupNode(Operation *op) const;
  /// Returns the buffer that \p value lives in (resolving views), or
  /// std::nullopt if \p value is not an activation.
  std::optional<BufferId> lookupBuffer(Value value) const;

  /// Returns the program order: the nodes as they appear in the block.
  SmallVector<NodeId> getProgramOrder() const;
  /// Returns true if \p order is a permutation of all nodes in which every
  /// node comes after its predecessors.
  bool isValidOrder(ArrayRef<NodeId> order) const;

  /// Returns a readable name of \p node: its location label if it is a
  /// NameLoc, otherwise the op name and node id.
  std::string getNodeName(NodeId node) const;
  /// Returns a readable name of \p buffer: the producer's name, or the
  /// argument number of a graph input.
  std::string getBufferName(BufferId buffer) const;

  /// Prints nodes and buffers, one per line.
  void print(raw_ostream &os) const;
  void dump() const;

private:
  /// Nodes in block order.
  SmallVector<Node> nodes;
  /// Buffers: graph inputs first, then node outputs in block order.
  SmallVector<Buffer> buffers;
  /// Node of each op in the graph.
  DenseMap<Operation *, NodeId> nodeOfOp;
  /// Buffer each activation value lives in, views resolved.
  DenseMap<Value, BufferId> bufferOfValue;
  /// The cost model of the graph.
  CostModelOptions costModel;
  /// Caller-owned bytes live for the whole call.
  int64_t pinnedBytes = 0;

  friend class DataflowGraphBuilder;
};

/// Returns the size in bytes of a statically shaped tensor of \p type under
/// the default data layout (MemOpt/Utils/StorageSize.h): elements x element
/// size rounded up to its alignment (i1 and i4 take one byte, i24 four).
/// Returns failure for unranked or dynamic shapes, element types without a
/// fixed size, and sizes that overflow int64_t.
FailureOr<int64_t> getTensorSizeInBytes(Type type);

/// Returns a short label for \p loc: the name of a NameLoc, `file:line:col`
/// for a file location, the first known part of a fused location, and
/// `unknown` otherwise.
std::string getLocationLabel(Location loc);

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_ANALYSIS_DATAFLOWGRAPH_H
