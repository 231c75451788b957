//===- Baselines.cpp - File order, Kahn, RPO and greedy orders ------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The baseline orders the exact engine starts from and the reports compare
// against.
//
//===----------------------------------------------------------------------===//

#include "SearchProblem.h"

#include <algorithm>
#include <limits>

using namespace llvm;
using namespace mlir::memopt::schedule;

SmallVector<NodeId> mlir::memopt::schedule::kahnOrder(const Problem &problem) {
  unsigned n = problem.getNumNodes();
  SmallVector<SmallVector<NodeId, 4>> succs = problem.getSuccessors();
  SmallVector<unsigned> indegree(n);
  SmallVector<NodeId> order;
  for (NodeId node = 0; node < n; ++node) {
    indegree[node] = problem.getNode(node).preds.size();
    if (indegree[node] == 0)
      order.push_back(node);
  }
  for (size_t head = 0; head < order.size(); ++head)
    for (NodeId succ : succs[order[head]])
      if (--indegree[succ] == 0)
        order.push_back(succ);
  return order;
}

SmallVector<NodeId>
mlir::memopt::schedule::reversePostOrder(const Problem &problem) {
  unsigned n = problem.getNumNodes();
  SmallVector<SmallVector<NodeId, 4>> succs = problem.getSuccessors();
  SmallVector<bool> visited(n, false);
  SmallVector<NodeId> postOrder;
  // Iterative DFS: (node, next successor index).
  SmallVector<std::pair<NodeId, unsigned>> stack;
  for (NodeId root = 0; root < n; ++root) {
    if (visited[root] || !problem.getNode(root).preds.empty())
      continue;
    visited[root] = true;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      auto &[node, next] = stack.back();
      ArrayRef<NodeId> nodeSuccs = succs[node];
      if (next < nodeSuccs.size()) {
        NodeId succ = nodeSuccs[next++];
        if (!visited[succ]) {
          visited[succ] = true;
          stack.push_back({succ, 0});
        }
        continue;
      }
      postOrder.push_back(node);
      stack.pop_back();
    }
  }
  std::reverse(postOrder.begin(), postOrder.end());
  return postOrder;
}

/// Memory-greedy order: the ready node with the smallest step, then the
/// smallest live bytes after it, then the smallest id.
SmallVector<NodeId>
mlir::memopt::schedule::greedyOrder(const SearchProblem &problem) {
  SmallVector<unsigned> order;
  problem.completeGreedily(/*set=*/nullptr, 0, problem.initialMem, 0, order,
                           /*followChains=*/false,
                           std::numeric_limits<int64_t>::max());
  return SmallVector<NodeId>(order.begin(), order.end());
}
