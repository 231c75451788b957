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

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/bit.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <queue>
#include <tuple>

using namespace llvm;
using namespace mlir::memopt::schedule;

SearchProblem::SearchProblem(const Problem &problem,
                             const SegmentLayout &layout, unsigned segment,
                             Bounds bounds)
    : StepModel(problem, layout, segment) {
  numWords = std::max(1u, (numNodes + 63) / 64);
  succs.resize(numNodes);
  preds.resize(numNodes);
  outputs.resize(numNodes);
  for (unsigned node = 0; node < numNodes; ++node)
    for (NodeId pred : problem.getNode(nodes[node]).preds)
      if (int local = getLocal(pred); local >= 0) {
        succs[local].push_back(node);
        preds[node].push_back(local);
      }
  readers.resize(buffers.size());
  for (auto [local, global] : llvm::enumerate(globalBuffers)) {
    for (NodeId reader : problem.getBuffer(global).readers)
      if (int localReader = getLocal(reader); localReader >= 0)
        readers[local].push_back(localReader);
    if (buffers[local].producer >= 0)
      outputs[buffers[local].producer].push_back(local);
  }

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
    if (llvm::any_of(outputs[node], [&](unsigned output) {
          return !readers[output].empty();
        }))
      setBit(canIdle.data(), node);
  }
  if (bounds != Bounds::None)
    computeStaticBounds(bounds == Bounds::Full);
}

void SearchProblem::prepareSearch() {
  if (searchReady)
    return;
  searchReady = true;
  predMask.assign(size_t(numNodes) * numWords, 0);
  for (unsigned node = 0; node < numNodes; ++node)
    for (unsigned pred : preds[node])
      setBit(&predMask[size_t(node) * numWords], pred);
  userMask.assign(buffers.size() * numWords, 0);
  for (auto [buffer, list] : llvm::enumerate(readers))
    for (unsigned reader : list)
      setBit(&userMask[buffer * numWords], reader);
  computeRelations();
  granularity = std::gcd(initialMem, pinnedBytes);
  for (const LocalBuffer &buffer : buffers)
    granularity = std::gcd(granularity, buffer.bytes);
  for (const LocalNode &info : localNodes)
    granularity = std::gcd(granularity, info.inPlaceSaving);
  // The charged bound of each node's step, with nothing run yet: it holds
  // in every order, so it tightens the static bound of every state.
  if (!stepBound.empty()) {
    SmallVector<Word> empty(numWords, 0);
    SmallVector<int64_t> charge(numNodes);
    for (unsigned node = 0; node < numNodes; ++node)
      stepBound[node] = std::max(
          stepBound[node],
          roundUpStep(node, liveAtStep(node, madeOutside.data()) +
                                chargedExtra(empty.data(), node,
                                             madeOutside.data(), charge)));
    for (unsigned node = 0; node < numNodes; ++node)
      globalBound = std::max(globalBound, stepBound[node]);
    llvm::sort(nodesByBound, [&](unsigned a, unsigned b) {
      return std::make_pair(-stepBound[a], a) <
             std::make_pair(-stepBound[b], b);
    });
  }
}

void SearchProblem::computeChains() {
  forcedNext.assign(numNodes, -1);
  for (unsigned node = 0; node < numNodes; ++node) {
    // The single predecessor.
    if (preds[node].size() != 1)
      continue;
    unsigned pred = preds[node][0];
    // Its single output is read by `node` alone.
    if (outputs[pred].size() != 1)
      continue;
    unsigned output = outputs[pred][0];
    if (buffers[output].kept || !isOnlyReader(output, node))
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
  // The balance of the chain from u is u's own plus that of the chain from
  // forcedNext[u], a larger id: one pass from the last node down.
  mayFree.assign(numNodes, false);
  SmallVector<int64_t> balance(numNodes, 0);
  for (unsigned node = numNodes; node-- > 0;) {
    balance[node] = localNodes[node].keptBytes;
    for (unsigned input : localNodes[node].inputs)
      if (!buffers[input].kept)
        balance[node] -= buffers[input].bytes;
    if (forcedNext[node] >= 0)
      balance[node] += balance[forcedNext[node]];
    mayFree[node] = balance[node] <= 0;
  }
}

void SearchProblem::computeRelations() {
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

  // Per node: the buffers live at its step if they exist (read by it or a
  // descendant, kept, or its own outputs), and those that surely exist by
  // then (made before the problem, by an ancestor or by itself). One pass
  // over the edges each way.
  numBufferWords = std::max<unsigned>(1, (buffers.size() + 63) / 64);
  neededAt.assign(size_t(numNodes) * numBufferWords, 0);
  madeBefore.assign(size_t(numNodes) * numBufferWords, 0);
  madeOutside.assign(numBufferWords, 0);
  outputsOf.assign(size_t(numNodes) * numBufferWords, 0);
  for (unsigned node = 0; node < numNodes; ++node)
    for (unsigned output : outputs[node])
      setBit(&outputsOf[size_t(node) * numBufferWords], output);
  SmallVector<Word> kept(numBufferWords, 0);
  for (auto [id, buffer] : llvm::enumerate(buffers)) {
    if (buffer.producer < 0)
      setBit(madeOutside.data(), id);
    if (buffer.kept)
      setBit(kept.data(), id);
  }
  for (unsigned node = 0; node < numNodes; ++node) {
    Word *made = &madeBefore[size_t(node) * numBufferWords];
    for (unsigned w = 0; w < numBufferWords; ++w)
      made[w] |= madeOutside[w];
    for (unsigned output : outputs[node])
      setBit(made, output);
    for (unsigned pred : preds[node]) {
      const Word *predMade = &madeBefore[size_t(pred) * numBufferWords];
      for (unsigned w = 0; w < numBufferWords; ++w)
        made[w] |= predMade[w];
    }
  }
  // First the buffers read by each node or a descendant.
  for (unsigned node = numNodes; node-- > 0;) {
    Word *needed = &neededAt[size_t(node) * numBufferWords];
    for (unsigned input : localNodes[node].inputs)
      setBit(needed, input);
    for (unsigned succ : succs[node]) {
      const Word *succNeeded = &neededAt[size_t(succ) * numBufferWords];
      for (unsigned w = 0; w < numBufferWords; ++w)
        needed[w] |= succNeeded[w];
    }
  }
  for (unsigned node = 0; node < numNodes; ++node) {
    Word *needed = &neededAt[size_t(node) * numBufferWords];
    for (unsigned w = 0; w < numBufferWords; ++w)
      needed[w] |= kept[w];
    for (unsigned output : outputs[node])
      setBit(needed, output);
  }
  // liveAtStep in two parts: the bytes of the buffers needed at the step
  // that surely exist by then, and those that exist only if the set made
  // them (outputs of nodes unordered with the node), a mask that is
  // mostly empty.
  liveBase.assign(numNodes, 0);
  madeMask.assign(size_t(numNodes) * numBufferWords, 0);
  for (unsigned node = 0; node < numNodes; ++node) {
    int64_t bytes = pinnedBytes + localNodes[node].stepBytes -
                    localNodes[node].inPlaceSaving;
    for (unsigned w = 0; w < numBufferWords; ++w) {
      size_t at = size_t(node) * numBufferWords + w;
      // Its own outputs are in its step bytes already.
      Word needed = neededAt[at] & ~outputsOf[at];
      for (Word live = needed & madeBefore[at]; live; live &= live - 1)
        bytes += buffers[w * 64 + llvm::countr_zero(live)].bytes;
      madeMask[at] = needed & ~madeBefore[at];
    }
    liveBase[node] = bytes;
  }
  // liveAtStep with every buffer made bounds it from above.
  SmallVector<Word> all(numBufferWords, ~Word(0));
  liveCap.assign(numNodes, 0);
  nodesByCap.clear();
  for (unsigned node = 0; node < numNodes; ++node) {
    liveCap[node] = liveAtStep(node, all.data());
    nodesByCap.push_back(node);
  }
  llvm::sort(nodesByCap, [&](unsigned a, unsigned b) {
    return std::make_pair(-liveCap[a], a) < std::make_pair(-liveCap[b], b);
  });

}

void SearchProblem::computeStaticBounds(bool full) {
  // A buffer is live at v's step in every order if v reads or writes it, or
  // it is made before v (by an ancestor, or before the problem) and read
  // after v (by a descendant) or kept. The same sets as computeRelations,
  // one word of 64 buffers at a time, so memory stays linear: a pass over
  // the edges each way per word.
  stepBound.assign(numNodes, 0);
  for (unsigned node = 0; node < numNodes; ++node)
    stepBound[node] = pinnedBytes + localNodes[node].stepBytes -
                      localNodes[node].inPlaceSaving;
  // Local: the inputs of each node, and the buffers made before the
  // segment that it keeps, are live at its step in every order.
  unsigned numBlocks = full ? (buffers.size() + 63) / 64 : 0;
  if (!full) {
    int64_t keptOutside = 0;
    for (const LocalBuffer &buffer : buffers)
      if (buffer.producer < 0 && buffer.kept)
        keptOutside += buffer.bytes;
    for (unsigned node = 0; node < numNodes; ++node) {
      stepBound[node] += keptOutside;
      for (unsigned input : localNodes[node].inputs)
        if (buffers[input].producer >= 0 || !buffers[input].kept)
          stepBound[node] += buffers[input].bytes;
    }
  }
  SmallVector<Word> made(numNodes), needed(numNodes), own(numNodes);
  auto inBlock = [](unsigned buffer, unsigned block) {
    return buffer / 64 == block;
  };
  for (unsigned block = 0; block < numBlocks; ++block) {
    Word outside = 0, kept = 0;
    for (unsigned b = block * 64;
         b < std::min<size_t>(buffers.size(), (block + 1) * 64); ++b) {
      if (buffers[b].producer < 0)
        outside |= Word(1) << (b % 64);
      if (buffers[b].kept)
        kept |= Word(1) << (b % 64);
    }
    for (unsigned node = 0; node < numNodes; ++node) {
      own[node] = 0;
      for (unsigned output : outputs[node])
        if (inBlock(output, block))
          own[node] |= Word(1) << (output % 64);
      made[node] = outside | own[node];
      for (unsigned pred : preds[node])
        made[node] |= made[pred];
    }
    for (unsigned node = numNodes; node-- > 0;) {
      needed[node] = 0;
      for (unsigned input : localNodes[node].inputs)
        if (inBlock(input, block))
          needed[node] |= Word(1) << (input % 64);
      for (unsigned succ : succs[node])
        needed[node] |= needed[succ];
    }
    for (unsigned node = 0; node < numNodes; ++node)
      for (Word live = (needed[node] | kept) & made[node] & ~own[node]; live;
           live &= live - 1)
        stepBound[node] +=
            buffers[block * 64 + llvm::countr_zero(live)].bytes;
  }
  globalBound = initialMem + unusedInputBytes;
  for (unsigned node = 0; node < numNodes; ++node)
    globalBound = std::max(globalBound, stepBound[node]);
  nodesByBound.clear();
  for (unsigned node = 0; node < numNodes; ++node)
    nodesByBound.push_back(node);
  llvm::sort(nodesByBound, [&](unsigned a, unsigned b) {
    return std::make_pair(-stepBound[a], a) < std::make_pair(-stepBound[b], b);
  });
}

/// Most inputs a target may choose to kill in getMoves; beyond, the moves
/// would be too many.
static constexpr unsigned kMaxKillChoices = 6;
/// Most words of a node set for which getMoves unites rows of ancestors
/// rather than walking up the predecessors.
static constexpr unsigned kMaxWordsForRows = 8;

bool SearchProblem::getMoves(const Word *set, bool setIsEmpty,
                             const Word *ready, SmallVectorImpl<Word> &piles,
                             SmallVectorImpl<unsigned> &targets,
                             std::chrono::steady_clock::time_point deadline)
    const {
  piles.clear();
  targets.clear();
  bool idleRule = isIdleRuleOn(setIsEmpty);
  SmallVector<Word, 4> base(numWords), pile(numWords);
  SmallVector<SmallVector<Word, 4>, 4> choices;
  SmallVector<unsigned> walk;
  SmallVector<Word, 4> extra(numWords), others;
  // The nodes whose unscheduled ancestors can all idle, in one pass down the
  // ids (a topological order; the set is closed under predecessors).
  SmallVector<Word, 4> pileCanIdle(numWords, 0);
  for (unsigned node = 0; node < numNodes; ++node) {
    if ((node & 63) == 63 && std::chrono::steady_clock::now() >= deadline)
      return false;
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
    if (!llvm::all_of(preds[node], [&](unsigned pred) {
          return testBit(set, pred) || (testBit(canIdle.data(), pred) &&
                                        testBit(pileCanIdle.data(), pred));
        }))
      continue;
    setBit(pileCanIdle.data(), node);
    const Word *anc = &ancestors[node * numWords];
    const Word *desc = &descendants[node * numWords];
    for (unsigned w = 0; w < numWords; ++w)
      base[w] = anc[w] & ~set[w];
    // Inputs the node may kill that need more nodes in the pile: the other
    // readers still to run, with their unscheduled ancestors.
    choices.clear();
    for (unsigned input : localNodes[node].inputs) {
      if (buffers[input].kept)
        continue;
      const Word *users = &userMask[input * numWords];
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
      // Their unscheduled ancestors (the set is closed under predecessors).
      if (numWords <= kMaxWordsForRows) {
        // On a few words, uniting a row of ancestors per reader is cheapest.
        others.assign(extra.begin(), extra.end());
        for (unsigned w = 0; w < numWords; ++w)
          for (Word bits = others[w]; bits; bits &= bits - 1) {
            const Word *readerAnc =
                &ancestors[size_t(w * 64 + llvm::countr_zero(bits)) *
                           numWords];
            for (unsigned v = 0; v < numWords; ++v)
              extra[v] |= readerAnc[v] & ~set[v];
          }
      } else {
        // A walk up the predecessors that stops at nodes already in `extra`
        // or in the set, so it costs the nodes it adds, not a row of words
        // per reader.
        walk.clear();
        for (unsigned w = 0; w < numWords; ++w)
          for (Word bits = extra[w]; bits; bits &= bits - 1)
            walk.push_back(w * 64 + llvm::countr_zero(bits));
        while (!walk.empty()) {
          unsigned next = walk.pop_back_val();
          for (unsigned pred : preds[next])
            if (!testBit(set, pred) && !testBit(extra.data(), pred)) {
              setBit(extra.data(), pred);
              walk.push_back(pred);
            }
        }
      }
      if (llvm::any_of(llvm::zip_equal(extra, canIdle), [](auto pair) {
            return (std::get<0>(pair) & ~std::get<1>(pair)) != 0;
          }))
        continue;
      if (llvm::is_contained(choices, extra))
        continue;
      choices.push_back(extra);
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
      return true;
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
  return true;
}

int64_t SearchProblem::liveAtStep(unsigned node, const Word *made) const {
  int64_t bytes = liveBase[node];
  for (unsigned w = 0; w < numBufferWords; ++w)
    for (Word live = made[w] & madeMask[size_t(node) * numBufferWords + w];
         live; live &= live - 1)
      bytes += buffers[w * 64 + llvm::countr_zero(live)].bytes;
  return bytes;
}

int64_t SearchProblem::chargedExtra(const Word *set, unsigned node,
                                    const Word *made,
                                    SmallVectorImpl<int64_t> &charge) const {
  const Word *anc = &ancestors[size_t(node) * numWords];
  const Word *desc = &descendants[size_t(node) * numWords];
  const Word *needed = &neededAt[size_t(node) * numBufferWords];
  const Word *before = &madeBefore[size_t(node) * numBufferWords];
  // The share of a buffer's readers' charges: readers that may still run
  // before node (not in the set, not its ancestors) are unordered with it.
  auto chargeOfOutput = [&](unsigned output) -> int64_t {
    int64_t bytes = buffers[output].bytes;
    if (testBit(needed, output))
      return bytes;
    int64_t sum = 0;
    for (unsigned reader : readers[output]) {
      sum += charge[reader] / int64_t(localNodes[reader].inputs.size());
      if (sum >= bytes)
        return bytes;
    }
    return sum;
  };
  // The charge of an unordered node x (not in the set, neither an ancestor
  // nor a descendant of node): a lower bound on what x adds at node's step
  // if x runs before it. Its outputs that node or a descendant reads are
  // live there; any other output is either live there or all its readers
  // ran before node, which adds their charges (shared among their inputs).
  // Readers have larger ids: one pass down. Other nodes charge nothing.
  for (unsigned w = numWords; w-- > 0;) {
    Word others = ~set[w] & ~anc[w] & ~desc[w];
    if (w == node / 64)
      others &= ~(Word(1) << (node % 64));
    if (w == numWords - 1 && numNodes % 64)
      others &= (Word(1) << (numNodes % 64)) - 1;
    // Clear the words' charges first, then fill the others from the top.
    for (unsigned bit = 0; bit < 64 && w * 64 + bit < numNodes; ++bit)
      charge[w * 64 + bit] = 0;
    for (Word bits = others; bits;) {
      unsigned bit = 63 - llvm::countl_zero(bits);
      bits &= ~(Word(1) << bit);
      unsigned x = w * 64 + bit;
      int64_t sum = 0;
      for (unsigned output : outputs[x])
        sum += chargeOfOutput(output);
      charge[x] = sum;
    }
  }
  // Buffers made before node's step that nothing forces to live there.
  int64_t extra = 0;
  for (unsigned w = 0; w < numBufferWords; ++w)
    for (Word bits = (made[w] | before[w]) & ~needed[w]; bits;
         bits &= bits - 1)
      extra += chargeOfOutput(w * 64 + llvm::countr_zero(bits));
  return extra;
}

/// Nodes whose charged bound dynamicBound computes: more cut few states for
/// the time they take.
static constexpr unsigned kChargedNodes = 2;

int64_t SearchProblem::dynamicBound(const Word *set, int64_t floor,
                                    int64_t ceiling) const {
  SmallVector<Word, 4> made(madeOutside.begin(), madeOutside.end());
  for (unsigned w = 0; w < numWords; ++w)
    for (Word bits = set[w]; bits; bits &= bits - 1) {
      unsigned node = w * 64 + llvm::countr_zero(bits);
      for (unsigned b = 0; b < numBufferWords; ++b)
        made[b] |= outputsOf[size_t(node) * numBufferWords + b];
    }
  int64_t bound = floor;
  for (unsigned node : nodesByCap) {
    // No node from here on can raise the bound, or it is high enough.
    if (liveCap[node] <= bound || bound >= ceiling)
      break;
    if (!testBit(set, node))
      bound = std::max(bound, liveAtStep(node, made.data()));
  }
  // The charged bound after the set, for the few nodes still to run with
  // the largest static bounds: O(nodes + edges) each.
  SmallVector<int64_t, 256> charge(numNodes);
  unsigned charged = 0;
  for (unsigned node : nodesByBound) {
    if (charged == kChargedNodes || bound >= ceiling)
      break;
    if (testBit(set, node))
      continue;
    ++charged;
    bound = std::max(
        bound,
        roundUpStep(node, liveAtStep(node, made.data()) +
                              chargedExtra(set, node, made.data(), charge)));
  }
  return bound;
}

int64_t SearchProblem::evaluate(ArrayRef<unsigned> order) const {
  // Without ops, the inputs (and caller-owned buffers) are all there is.
  if (order.empty())
    return initialMem + unusedInputBytes;
  // Readers of each buffer still to run: the last one frees it.
  SmallVector<unsigned> remaining(buffers.size());
  for (auto [buffer, list] : llvm::enumerate(readers))
    remaining[buffer] = list.size();
  int64_t mem = initialMem, peak = 0;
  for (auto [index, node] : llvm::enumerate(order)) {
    int64_t step, after;
    StepModel::step(
        node, index == 0, mem,
        [&](unsigned buffer) { return remaining[buffer] == 1; }, step, after);
    for (unsigned input : localNodes[node].inputs)
      --remaining[input];
    peak = std::max(peak, step);
    mem = after;
  }
  return peak;
}

int64_t SearchProblem::completeGreedily(const Word *set, uint32_t size,
                                        int64_t mem, int64_t peak,
                                        SmallVectorImpl<unsigned> &path,
                                        bool followChains,
                                        int64_t stopAt) const {
  // What is run, the readers of each buffer still to run (and the xor of
  // their ids, which names the last one), and the predecessors of each node
  // still to run.
  SmallVector<bool> done(numNodes, false);
  if (set)
    for (unsigned node = 0; node < numNodes; ++node)
      done[node] = testBit(set, node);
  SmallVector<unsigned> remaining(buffers.size(), 0),
      remainingXor(buffers.size(), 0), missing(numNodes, 0);
  for (auto [buffer, list] : llvm::enumerate(readers))
    for (unsigned reader : list)
      if (!done[reader]) {
        ++remaining[buffer];
        remainingXor[buffer] ^= reader;
      }
  for (unsigned node = 0; node < numNodes; ++node)
    if (!done[node])
      for (unsigned pred : preds[node])
        missing[node] += !done[pred];

  // A candidate's score depends on which buffers die in its chain. Buffer b
  // dies at the last node of the chain that reads it iff the chain holds
  // all of b's remaining readers, so a score can only change when b's
  // remaining readers drop to as many as one forced chain holds.
  SmallVector<int> chainPrev(numNodes, -1);
  SmallVector<unsigned> mostOnAChain(buffers.size(), 1);
  if (followChains) {
    SmallVector<unsigned> chainOf(numNodes);
    for (unsigned node = 0; node < numNodes; ++node) {
      if (forcedNext[node] >= 0)
        chainPrev[forcedNext[node]] = node;
      chainOf[node] =
          chainPrev[node] >= 0 ? chainOf[chainPrev[node]] : node;
    }
    for (auto [buffer, list] : llvm::enumerate(readers)) {
      // Readers are ascending and a chain's ids too, but chains interleave.
      DenseMap<unsigned, unsigned> perChain;
      for (unsigned reader : list)
        mostOnAChain[buffer] =
            std::max(mostOnAChain[buffer], ++perChain[chainOf[reader]]);
    }
  }

  // The score of running `node` (and its chain) now, relative to the live
  // bytes before it: the largest step and the bytes after.
  auto score = [&](unsigned node) {
    int64_t largest = std::numeric_limits<int64_t>::min(), relative = 0;
    bool isFirst = size == 0;
    SmallVector<unsigned, 8> ran;
    for (int next = node; next >= 0;
         next = followChains ? forcedNext[next] : -1) {
      int64_t atStep, after;
      StepModel::step(
          next, isFirst, relative,
          [&](unsigned buffer) { return remaining[buffer] == 1; }, atStep,
          after);
      largest = std::max(largest, atStep);
      relative = after;
      isFirst = false;
      for (unsigned input : localNodes[next].inputs)
        --remaining[input];
      ran.push_back(next);
    }
    for (unsigned next : ran)
      for (unsigned input : localNodes[next].inputs)
        ++remaining[input];
    return std::make_pair(largest, relative);
  };

  // Candidates by (step, bytes after, id); an entry is stale once its node
  // is rescored (a newer version) or run.
  using Entry = std::tuple<int64_t, int64_t, unsigned, unsigned>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
  SmallVector<unsigned> version(numNodes, 0);
  auto rescore = [&](unsigned node) {
    if (done[node] || missing[node])
      return;
    auto [step, after] = score(node);
    heap.push({step, after, node, ++version[node]});
  };
  auto rescoreAll = [&]() {
    for (unsigned node = 0; node < numNodes; ++node)
      rescore(node);
  };
  rescoreAll();

  SmallVector<unsigned> dirty, newlyReady;
  while (size < numNodes && peak < stopAt) {
    assert(!heap.empty() && "no ready node in an incomplete order");
    auto [ignoredStep, ignoredAfter, best, entryVersion] = heap.top();
    heap.pop();
    if (done[best] || entryVersion != version[best])
      continue;
    bool wasFirst = size == 0;
    dirty.clear();
    newlyReady.clear();
    for (int next = best; next >= 0;
         next = followChains ? forcedNext[next] : -1) {
      int64_t atStep, after;
      StepModel::step(
          next, size == 0, mem,
          [&](unsigned buffer) { return remaining[buffer] == 1; }, atStep,
          after);
      peak = std::max(peak, atStep);
      mem = after;
      done[next] = true;
      ++size;
      path.push_back(next);
      for (unsigned input : localNodes[next].inputs) {
        --remaining[input];
        remainingXor[input] ^= next;
        if (remaining[input] && remaining[input] <= mostOnAChain[input])
          dirty.push_back(input);
      }
      for (unsigned succ : succs[next])
        if (--missing[succ] == 0)
          newlyReady.push_back(succ);
    }
    if (wasFirst) {
      // Every score so far counted the first step's unused inputs.
      rescoreAll();
      continue;
    }
    for (unsigned node : newlyReady)
      rescore(node);
    for (unsigned buffer : dirty) {
      auto rescoreChainOf = [&](unsigned reader) {
        // The ready node whose chain runs `reader`.
        unsigned head = reader;
        while (chainPrev[head] >= 0 && !done[chainPrev[head]])
          head = chainPrev[head];
        rescore(head);
      };
      if (remaining[buffer] == 1) {
        rescoreChainOf(remainingXor[buffer]);
        continue;
      }
      for (unsigned reader : readers[buffer])
        if (!done[reader])
          rescoreChainOf(reader);
    }
  }
  return peak;
}
