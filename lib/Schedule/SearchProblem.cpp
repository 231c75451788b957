//===- SearchProblem.cpp - Bitset form of a segment for the search --------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Static bounds, forced chains, idle-node moves and greedy completion of one
// segment. Every step is scored by StepModel::step (through transition).
// docs/Scheduling.md explains each piece and why it keeps optimality.
//
//===----------------------------------------------------------------------===//

#include "SearchProblem.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/bit.h"

#include <algorithm>
#include <limits>

using namespace llvm;
using namespace mlir::memopt::schedule;

/// Returns true if \p a and \p b share a bit.
static bool intersects(const Word *a, const Word *b, unsigned numWords) {
  for (unsigned w = 0; w < numWords; ++w)
    if (a[w] & b[w])
      return true;
  return false;
}

SearchProblem::SearchProblem(const Problem &problem)
    : SearchProblem(problem, problem.getInputOrder(),
                    SmallVector<unsigned>(problem.getNumNodes(), 0), 0) {}

SearchProblem::SearchProblem(const Problem &problem, ArrayRef<NodeId> nodeIds,
                             ArrayRef<unsigned> segmentOf, unsigned segment)
    : StepModel(problem, nodeIds, segmentOf, segment) {
  numWords = std::max(1u, (numNodes + 63) / 64);
  predMask.assign(size_t(numNodes) * numWords, 0);
  succs.resize(numNodes);
  preds.resize(numNodes);
  for (unsigned node = 0; node < numNodes; ++node)
    for (NodeId pred : problem.getNode(nodes[node]).preds)
      if (localOf[pred] >= 0) {
        setBit(&predMask[node * numWords], localOf[pred]);
        succs[localOf[pred]].push_back(node);
        preds[node].push_back(localOf[pred]);
      }

  userMask.assign(buffers.size() * numWords, 0);
  for (auto [id, buffer] : llvm::enumerate(problem.getBuffers()))
    if (localBufferOf[id] >= 0)
      for (NodeId reader : buffer.readers)
        if (localOf[reader] >= 0)
          setBit(&userMask[localBufferOf[id] * numWords], localOf[reader]);

  computeBounds();
  computeChains();
  // A node may idle only if its step holds nothing beyond what stays live
  // after it: no workspace, and no output that nobody reads (such bytes
  // exist at its step only, so moving it next to its target could raise
  // the target's step).
  canIdle.assign(numWords, 0);
  for (unsigned node = 0; node < numNodes; ++node) {
    const LocalNode &info = localNodes[node];
    if (info.stepBytes != info.outputBytes ||
        info.keptBytes != info.outputBytes)
      continue;
    const Word *outputs = &outputsOf[node * numBufferWords];
    for (unsigned w = 0; w < numBufferWords; ++w)
      for (Word bits = outputs[w]; bits; bits &= bits - 1)
        if (llvm::any_of(
                ArrayRef<Word>(
                    &userMask[(w * 64 + llvm::countr_zero(bits)) * numWords],
                    numWords),
                [](Word word) { return word != 0; }))
          setBit(canIdle.data(), node);
  }
}

void SearchProblem::computeChains() {
  forcedNext.assign(numNodes, -1);
  for (unsigned node = 0; node < numNodes; ++node) {
    // The single predecessor.
    int pred = -1;
    unsigned numPreds = 0;
    for (unsigned w = 0; w < numWords; ++w) {
      Word bits = predMask[node * numWords + w];
      numPreds += llvm::popcount(bits);
      if (bits)
        pred = w * 64 + llvm::countr_zero(bits);
    }
    if (numPreds != 1)
      continue;
    // Its single output is read by `node` alone.
    const Word *predOutputs = &outputsOf[pred * numBufferWords];
    unsigned numOutputs = 0, output = 0;
    for (unsigned w = 0; w < numBufferWords; ++w) {
      numOutputs += llvm::popcount(predOutputs[w]);
      if (predOutputs[w])
        output = w * 64 + llvm::countr_zero(predOutputs[w]);
    }
    if (numOutputs != 1 || buffers[output].kept || !isOnlyReader(output, node))
      continue;
    // Bytes: v allocates no more than o, nor than u's step frees for sure.
    const LocalNode &u = localNodes[pred];
    int64_t freedByU = 0;
    for (unsigned input : u.inputs)
      if (!buffers[input].kept && isOnlyReader(input, pred))
        freedByU += buffers[input].bytes;
    const LocalNode &v = localNodes[node];
    int64_t uWorkspace = u.stepBytes - u.outputBytes;
    if (v.outputBytes > buffers[output].bytes ||
        v.stepBytes > freedByU + uWorkspace - u.inPlaceSaving)
      continue;
    forcedNext[pred] = node;
  }

  // A chain can only be free if the bytes it keeps do not exceed the bytes
  // of the inputs it may free.
  mayFree.assign(numNodes, false);
  for (unsigned node = 0; node < numNodes; ++node) {
    int64_t balance = 0;
    for (int next = node; next >= 0; next = forcedNext[next]) {
      balance += localNodes[next].keptBytes;
      for (unsigned input : localNodes[next].inputs)
        if (!buffers[input].kept)
          balance -= buffers[input].bytes;
    }
    mayFree[node] = balance <= 0;
  }
}

void SearchProblem::computeBounds() {
  // Ancestors and descendants; local ids are a topological order.
  ancestors.assign(size_t(numNodes) * numWords, 0);
  descendants.assign(size_t(numNodes) * numWords, 0);
  for (unsigned node = 0; node < numNodes; ++node)
    for (unsigned succ : succs[node]) {
      for (unsigned w = 0; w < numWords; ++w)
        ancestors[succ * numWords + w] |= ancestors[node * numWords + w];
      setBit(&ancestors[succ * numWords], node);
    }
  for (unsigned node = numNodes; node-- > 0;)
    for (unsigned succ : succs[node]) {
      for (unsigned w = 0; w < numWords; ++w)
        descendants[node * numWords + w] |= descendants[succ * numWords + w];
      setBit(&descendants[node * numWords], succ);
    }

  // Per node: the buffers live at its step if they exist, and those that
  // surely exist by then.
  numBufferWords = std::max<unsigned>(1, (buffers.size() + 63) / 64);
  neededAt.assign(size_t(numNodes) * numBufferWords, 0);
  madeBefore.assign(size_t(numNodes) * numBufferWords, 0);
  outputsOf.assign(size_t(numNodes) * numBufferWords, 0);
  madeOutside.assign(numBufferWords, 0);
  for (auto [id, buffer] : llvm::enumerate(buffers)) {
    if (buffer.producer < 0)
      setBit(madeOutside.data(), id);
    else
      setBit(&outputsOf[buffer.producer * numBufferWords], id);
    for (unsigned node = 0; node < numNodes; ++node) {
      const Word *desc = &descendants[node * numWords];
      const Word *anc = &ancestors[node * numWords];
      bool needed = buffer.kept || buffer.producer == static_cast<int>(node) ||
                    testBit(&userMask[id * numWords], node) ||
                    intersects(&userMask[id * numWords], desc, numWords);
      bool made = buffer.producer < 0 ||
                  buffer.producer == static_cast<int>(node) ||
                  testBit(anc, buffer.producer);
      if (needed)
        setBit(&neededAt[node * numBufferWords], id);
      if (made)
        setBit(&madeBefore[node * numBufferWords], id);
    }
  }

  // A buffer is live at v's step in every order if v reads or writes it, or
  // it is made before v (by an ancestor, or before the problem) and read
  // after v (by a descendant) or kept.
  globalBound = initialMem + unusedInputBytes;
  for (unsigned node = 0; node < numNodes; ++node) {
    stepBound.push_back(liveAtStep(node, madeOutside.data()));
    globalBound = std::max(globalBound, stepBound.back());
  }
  for (unsigned node = 0; node < numNodes; ++node)
    nodesByBound.push_back(node);
  llvm::sort(nodesByBound, [&](unsigned a, unsigned b) {
    return std::make_pair(-stepBound[a], a) < std::make_pair(-stepBound[b], b);
  });
}

namespace {
/// Maximum flow on a small graph (Dinic's algorithm), for the cut bounds.
class MaxFlow {
public:
  static constexpr int64_t kInfinity = std::numeric_limits<int64_t>::max() / 4;

  explicit MaxFlow(unsigned numVertices) : first(numVertices, -1) {}

  /// Adds an edge \p from -> \p to of \p capacity.
  void addEdge(unsigned from, unsigned to, int64_t capacity) {
    edges.push_back({to, first[from], capacity});
    first[from] = edges.size() - 1;
    edges.push_back({from, first[to], 0});
    first[to] = edges.size() - 1;
  }

  /// Returns the value of a maximum flow from \p source to \p sink: the
  /// capacity of a minimum cut.
  int64_t run(unsigned source, unsigned sink) {
    int64_t flow = 0;
    while (buildLevels(source, sink)) {
      current.assign(first.begin(), first.end());
      while (int64_t pushed = push(source, sink, kInfinity))
        flow += pushed;
    }
    return flow;
  }

private:
  struct Edge {
    unsigned to;
    int next;
    int64_t capacity;
  };

  bool buildLevels(unsigned source, unsigned sink) {
    level.assign(first.size(), -1);
    level[source] = 0;
    SmallVector<unsigned> queue = {source};
    for (size_t head = 0; head < queue.size(); ++head)
      for (int e = first[queue[head]]; e >= 0; e = edges[e].next)
        if (edges[e].capacity > 0 && level[edges[e].to] < 0) {
          level[edges[e].to] = level[queue[head]] + 1;
          queue.push_back(edges[e].to);
        }
    return level[sink] >= 0;
  }

  int64_t push(unsigned vertex, unsigned sink, int64_t amount) {
    if (vertex == sink)
      return amount;
    for (int &e = current[vertex]; e >= 0; e = edges[e].next) {
      Edge &edge = edges[e];
      if (edge.capacity <= 0 || level[edge.to] != level[vertex] + 1)
        continue;
      if (int64_t pushed =
              push(edge.to, sink, std::min(amount, edge.capacity))) {
        edge.capacity -= pushed;
        edges[e ^ 1].capacity += pushed;
        return pushed;
      }
    }
    return 0;
  }

  SmallVector<int> first, current, level;
  SmallVector<Edge> edges;
};
} // namespace

int64_t SearchProblem::cutBound(unsigned node) const {
  // Vertices: the nodes, one per buffer, the source (the side of D) and the
  // sink (the nodes after D). A buffer made in D (or before the problem)
  // that a node after D reads is live after D: its vertex is then on the
  // sink side, and the edge of its bytes from its producer (or the source)
  // into it is cut; infinite edges from the vertex to its readers put it on
  // the sink side as soon as one reader is. A kept buffer made in D is live:
  // an edge of its bytes from its producer to the sink. Infinite edges from
  // a node to its predecessors keep D closed, and from the source to the
  // node's ancestors and from the node and its descendants to the sink fix
  // those. A buffer nobody reads is live at its producer's step only.
  unsigned source = numNodes + buffers.size(), sink = source + 1;
  int64_t bytes = pinnedBytes;
  MaxFlow flow(sink + 1);
  for (unsigned other = 0; other < numNodes; ++other)
    for (unsigned pred : preds[other])
      flow.addEdge(other, pred, MaxFlow::kInfinity);
  for (auto [id, buffer] : llvm::enumerate(buffers)) {
    unsigned from = buffer.producer < 0 ? source : buffer.producer;
    if (buffer.kept) {
      if (buffer.producer < 0)
        bytes += buffer.bytes;
      else
        flow.addEdge(from, sink, buffer.bytes);
      continue;
    }
    unsigned vertex = numNodes + id;
    bool isRead = false;
    const Word *users = &userMask[id * numWords];
    for (unsigned w = 0; w < numWords; ++w)
      for (Word bits = users[w]; bits; bits &= bits - 1) {
        isRead = true;
        flow.addEdge(vertex, w * 64 + llvm::countr_zero(bits),
                     MaxFlow::kInfinity);
      }
    if (isRead)
      flow.addEdge(from, vertex, buffer.bytes);
  }
  const Word *anc = &ancestors[node * numWords];
  const Word *desc = &descendants[node * numWords];
  for (unsigned other = 0; other < numNodes; ++other) {
    if (testBit(anc, other))
      flow.addEdge(source, other, MaxFlow::kInfinity);
    else if (other == node || testBit(desc, other))
      flow.addEdge(other, sink, MaxFlow::kInfinity);
  }
  return bytes + flow.run(source, sink) + localNodes[node].stepBytes -
         localNodes[node].inPlaceSaving;
}

void SearchProblem::computeCutBounds() {
  for (unsigned node = 0; node < numNodes; ++node) {
    stepBound[node] = std::max(stepBound[node], cutBound(node));
    globalBound = std::max(globalBound, stepBound[node]);
  }
  llvm::sort(nodesByBound, [&](unsigned a, unsigned b) {
    return std::make_pair(-stepBound[a], a) < std::make_pair(-stepBound[b], b);
  });
}

bool SearchProblem::isCut(unsigned node) const {
  unsigned related = 1;
  for (unsigned w = 0; w < numWords; ++w)
    related += llvm::popcount(ancestors[node * numWords + w]) +
               llvm::popcount(descendants[node * numWords + w]);
  return related == numNodes;
}

/// Most inputs a target may choose to kill in getMoves; beyond, the moves
/// would be too many.
static constexpr unsigned kMaxKillChoices = 6;

void SearchProblem::getMoves(const Word *set, bool setIsEmpty,
                             const Word *ready, SmallVectorImpl<Word> &piles,
                             SmallVectorImpl<unsigned> &targets) const {
  piles.clear();
  targets.clear();
  bool idleRule = isIdleRuleOn(setIsEmpty);
  SmallVector<Word, 4> base(numWords), pile(numWords);
  SmallVector<SmallVector<Word, 4>, 4> choices;
  for (unsigned node = 0; node < numNodes; ++node) {
    if (testBit(set, node))
      continue;
    bool isReady = testBit(ready, node);
    if (!idleRule) {
      if (isReady) {
        piles.append(numWords, 0);
        targets.push_back(node);
      }
      continue;
    }
    const Word *anc = &ancestors[node * numWords];
    const Word *desc = &descendants[node * numWords];
    bool pileCanIdle = true;
    for (unsigned w = 0; w < numWords; ++w) {
      base[w] = anc[w] & ~set[w];
      pileCanIdle &= !(base[w] & ~canIdle[w]);
    }
    if (!pileCanIdle)
      continue;
    // Inputs the node may kill that need more nodes in the pile: the other
    // readers still to run, with their unscheduled ancestors.
    choices.clear();
    for (unsigned input : localNodes[node].inputs) {
      if (buffers[input].kept)
        continue;
      const Word *users = &userMask[input * numWords];
      SmallVector<Word, 4> extra(numWords, 0);
      bool needsMore = false, possible = true;
      for (unsigned w = 0; w < numWords; ++w) {
        Word others = users[w] & ~set[w];
        if (w == node / 64)
          others &= ~(Word(1) << (node % 64));
        possible &= !(others & desc[w]);
        needsMore |= (others & ~base[w]) != 0;
        extra[w] = others;
      }
      if (!possible || !needsMore)
        continue;
      for (unsigned w = 0; w < numWords; ++w)
        for (Word bits = extra[w]; bits; bits &= bits - 1) {
          const Word *readerAnc =
              &ancestors[(w * 64 + llvm::countr_zero(bits)) * numWords];
          for (unsigned v = 0; v < numWords; ++v)
            extra[v] |= readerAnc[v] & ~set[v];
        }
      if (llvm::any_of(llvm::zip_equal(extra, canIdle), [](auto pair) {
            return (std::get<0>(pair) & ~std::get<1>(pair)) != 0;
          }))
        continue;
      if (llvm::is_contained(choices, extra))
        continue;
      choices.push_back(std::move(extra));
    }
    // Too many choices: every ready node is a move of its own instead.
    if (choices.size() > kMaxKillChoices) {
      piles.clear();
      targets.clear();
      for (unsigned other = 0; other < numNodes; ++other)
        if (testBit(ready, other)) {
          piles.append(numWords, 0);
          targets.push_back(other);
        }
      return;
    }
    for (unsigned mask = 0; mask < (1u << choices.size()); ++mask) {
      std::copy(base.begin(), base.end(), pile.begin());
      for (auto [index, extra] : llvm::enumerate(choices))
        if (mask & (1u << index))
          for (unsigned w = 0; w < numWords; ++w)
            pile[w] |= extra[w];
      piles.append(pile.begin(), pile.end());
      targets.push_back(node);
    }
  }
}

int64_t SearchProblem::liveAtStep(unsigned node, const Word *made) const {
  int64_t bytes =
      pinnedBytes + localNodes[node].stepBytes - localNodes[node].inPlaceSaving;
  for (unsigned w = 0; w < numBufferWords; ++w) {
    Word live = neededAt[node * numBufferWords + w] &
                (made[w] | madeBefore[node * numBufferWords + w]) &
                ~outputsOf[node * numBufferWords + w];
    for (; live; live &= live - 1)
      bytes += buffers[w * 64 + llvm::countr_zero(live)].bytes;
  }
  return bytes;
}

int64_t SearchProblem::dynamicBound(const Word *set) const {
  SmallVector<Word, 4> made(madeOutside.begin(), madeOutside.end());
  for (unsigned node = 0; node < numNodes; ++node)
    if (testBit(set, node))
      for (unsigned w = 0; w < numBufferWords; ++w)
        made[w] |= outputsOf[node * numBufferWords + w];
  int64_t bound = 0;
  for (unsigned node = 0; node < numNodes; ++node)
    if (!testBit(set, node))
      bound = std::max(bound, liveAtStep(node, made.data()));
  return bound;
}

int64_t SearchProblem::evaluate(ArrayRef<unsigned> order) const {
  // Without ops, the inputs (and caller-owned buffers) are all there is.
  if (order.empty())
    return initialMem + unusedInputBytes;
  SmallVector<Word> set(numWords, 0);
  int64_t mem = initialMem, peak = 0;
  for (auto [index, node] : llvm::enumerate(order)) {
    int64_t step, after;
    transition(set.data(), index == 0, mem, node, step, after);
    peak = std::max(peak, step);
    mem = after;
    setBit(set.data(), node);
  }
  return peak;
}

int64_t SearchProblem::completeGreedily(Word *set, uint32_t size, int64_t mem,
                                        int64_t peak,
                                        SmallVectorImpl<unsigned> &path,
                                        bool followChains,
                                        int64_t stopAt) const {
  SmallVector<Word, 4> scratch(numWords);
  SmallVector<unsigned> chain;
  while (size < numNodes && peak < stopAt) {
    int best = -1;
    int64_t bestStep = 0, bestAfter = 0;
    for (unsigned node = 0; node < numNodes; ++node) {
      if (testBit(set, node) || !isReady(set, node))
        continue;
      std::copy(set, set + numWords, scratch.begin());
      uint32_t scratchSize = size;
      int64_t after = mem;
      chain.clear();
      int64_t step = runChain(scratch.data(), scratchSize, node, after, chain,
                              followChains);
      if (best < 0 || std::tie(step, after) < std::tie(bestStep, bestAfter)) {
        best = node;
        bestStep = step;
        bestAfter = after;
      }
    }
    peak = std::max(peak, runChain(set, size, best, mem, path, followChains));
  }
  return peak;
}
