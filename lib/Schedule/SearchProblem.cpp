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
