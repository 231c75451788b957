//===- Writers.cpp - Multi-writer buffers by allocation nodes -------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Rewrites a Problem whose buffers have several writers into one without
// (Problem.h, WriterExpansion): every such buffer gets an allocation node
// that produces it just before its first writer, so the step model, the
// baselines and the exact search, with all its rules, see an ordinary
// problem with the same optimum.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Schedule/Problem.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace llvm;
using namespace mlir::memopt::schedule;

bool Problem::hasWriters() const {
  return llvm::any_of(buffers,
                      [](const Buffer &buffer) { return buffer.hasWriters(); });
}

/// Returns the ancestors of \p node in \p problem (not \p node itself).
static BitVector getAncestors(const Problem &problem, NodeId node) {
  BitVector seen(problem.getNumNodes());
  SmallVector<NodeId> stack(problem.getNode(node).preds.begin(),
                            problem.getNode(node).preds.end());
  for (NodeId pred : stack)
    seen.set(pred);
  while (!stack.empty())
    for (NodeId pred : problem.getNode(stack.pop_back_val()).preds)
      if (!seen.test(pred)) {
        seen.set(pred);
        stack.push_back(pred);
      }
  return seen;
}

WriterExpansion Problem::expandWriters() const {
  assert(succeeded(check()) && "ill-formed scheduling problem");
  unsigned numNodes = nodes.size();
  SmallVector<SmallVector<NodeId, 4>> succs = getSuccessors();

  // The allocation nodes, each placed right before its buffer's producer
  // (the writer with the smallest id), and their predecessors: the common
  // ancestors of the writers that have no successor among them.
  SmallVector<SmallVector<BufferId, 1>> allocatedBefore(numNodes);
  SmallVector<SmallVector<NodeId>> allocPreds(buffers.size());
  for (auto [id, buffer] : llvm::enumerate(buffers)) {
    if (!buffer.hasWriters())
      continue;
    allocatedBefore[*buffer.producer].push_back(id);
    BitVector common = getAncestors(*this, *buffer.producer);
    for (NodeId writer : buffer.writers)
      common &= getAncestors(*this, writer);
    for (unsigned node : common.set_bits())
      if (llvm::none_of(succs[node],
                        [&](NodeId succ) { return common.test(succ); }))
        allocPreds[id].push_back(node);
  }

  WriterExpansion result;
  result.expandedId.resize(numNodes);
  result.writes.resize(numNodes);
  SmallVector<NodeId> allocNodeOf(buffers.size(), ~0u);
  for (NodeId node = 0; node < numNodes; ++node) {
    for (BufferId buffer : allocatedBefore[node]) {
      allocNodeOf[buffer] = result.originalId.size();
      result.originalId.push_back(-1);
    }
    result.expandedId[node] = result.originalId.size();
    result.originalId.push_back(node);
  }

  auto problem = std::make_unique<Problem>();
  for (int original : result.originalId) {
    Node node;
    if (original < 0) {
      problem->addNode(std::move(node));
      continue;
    }
    const Node &from = nodes[original];
    node = from;
    for (NodeId &pred : node.preds)
      pred = result.expandedId[pred];
    node.outputs.clear();
    for (BufferId output : from.outputs) {
      if (!buffers[output].hasWriters()) {
        node.outputs.push_back(output);
        continue;
      }
      // A writer reads the buffer its allocation node made.
      result.writes[original].push_back({output, allocNodeOf[output]});
      node.inputs.push_back(output);
      node.preds.push_back(allocNodeOf[output]);
    }
    llvm::sort(node.inputs);
    node.inputs.erase(std::unique(node.inputs.begin(), node.inputs.end()),
                      node.inputs.end());
    llvm::sort(node.preds);
    node.preds.erase(std::unique(node.preds.begin(), node.preds.end()),
                     node.preds.end());
    problem->addNode(std::move(node));
  }
  for (auto [id, from] : llvm::enumerate(buffers)) {
    Buffer buffer = from;
    buffer.writers.clear();
    for (NodeId &reader : buffer.readers)
      reader = result.expandedId[reader];
    if (!from.hasWriters()) {
      if (buffer.producer)
        buffer.producer = result.expandedId[*buffer.producer];
      problem->addBuffer(std::move(buffer));
      continue;
    }
    NodeId alloc = allocNodeOf[id];
    buffer.producer = alloc;
    buffer.readers.push_back(result.expandedId[*from.producer]);
    for (NodeId writer : from.writers)
      buffer.readers.push_back(result.expandedId[writer]);
    llvm::sort(buffer.readers);
    buffer.readers.erase(
        std::unique(buffer.readers.begin(), buffer.readers.end()),
        buffer.readers.end());
    Node &allocNode = problem->getNode(alloc);
    allocNode.outputs.push_back(id);
    for (NodeId pred : allocPreds[id])
      allocNode.preds.push_back(result.expandedId[pred]);
    allocNode.name = "alloc " + getBufferName(id);
    problem->addBuffer(std::move(buffer));
  }
  assert(succeeded(problem->check()) && "ill-formed writer expansion");
  result.problem = std::move(problem);
  return result;
}

SmallVector<NodeId> WriterExpansion::toExpanded(ArrayRef<NodeId> order) const {
  SmallVector<NodeId> expanded;
  expanded.reserve(originalId.size());
  BitVector allocated(problem->getNumBuffers());
  for (NodeId node : order) {
    for (auto [buffer, alloc] : writes[node])
      if (!allocated.test(buffer)) {
        allocated.set(buffer);
        expanded.push_back(alloc);
      }
    expanded.push_back(expandedId[node]);
  }
  return expanded;
}

SmallVector<NodeId> WriterExpansion::toOriginal(ArrayRef<NodeId> order) const {
  SmallVector<NodeId> original;
  original.reserve(expandedId.size());
  for (NodeId node : order)
    if (originalId[node] >= 0)
      original.push_back(originalId[node]);
  return original;
}
