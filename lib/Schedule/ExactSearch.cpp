//===- ExactSearch.cpp - Exact search of one segment ----------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The exact engine searches sets S of scheduled nodes. The bytes live after S
// depend only on S (SERENITY's observation). The search starts best first on
// the bottleneck cost f(S) = max(peak so far, admissible bound of the rest):
// the first complete order taken from the queue is optimal, and the largest
// f taken is a proven bound. Once it has spent about a thousand expansions
// above the bound it started from, it goes on in rounds: each asks, depth
// first, for an order that peaks below the incumbent (budget: the incumbent
// less one byte), expands a set at most once and drops any state whose f
// exceeds the budget. A round that finds an order starts the next from it;
// one that finds none proves the incumbent optimal. Because only orders
// within the budget count, a node that frees at least what it allocates
// runs at once whenever its step fits the budget, which merges far more
// states than best first can (its allowance is the level being proven).
// Provably safe chains are never split; idle nodes only run in piles before
// their targets; greedy completions and dives through the moves keep it
// anytime. The state budget stops the search deterministically; the clock is
// a safety stop. docs/Scheduling.md explains each piece and why it keeps
// optimality.
//
//===----------------------------------------------------------------------===//

#include "SearchProblem.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <queue>

using namespace llvm;
using namespace mlir::memopt::schedule;

namespace {

/// Exact search over sets of scheduled nodes of one SearchProblem.
class ExactSearch {
public:
  using Clock = std::chrono::steady_clock;

  ExactSearch(const SearchProblem &problem, Clock::time_point deadline,
              uint64_t maxStates, uint64_t bestFirstStates)
      : problem(problem), deadline(deadline), maxStates(maxStates),
        bestFirstStates(bestFirstStates), numWords(problem.numWords) {}

  /// Searches for an order better than \p incumbent (local ids, peak
  /// \p incumbentPeak), updating both when it finds one. Stops early once
  /// the incumbent is at most \p target, a bound known to hold elsewhere.
  SearchOutcome run(SmallVectorImpl<unsigned> &incumbent,
                    int64_t &incumbentPeak, int64_t target,
                    const std::function<void(const Progress &)> &onProgress,
                    uint64_t statesBefore);

private:
  /// How a round searches.
  enum class Round {
    /// Best first on f, with the proven level as the free-node rule's
    /// allowance: the first orders found are the best, and it proves the
    /// level as it rises.
    BestFirst,
    /// Under a budget, the incumbent's peak less one byte, which is also the
    /// allowance: more nodes run at once, but an order found may peak up to
    /// the budget; the round ends with the first order it finds.
    UnderBudget,
  };
  /// What a round established.
  struct RoundResult {
    /// The limit that stopped it, if any.
    StopReason stoppedBy = StopReason::None;
    /// Best first only: it handed over (bestFirstStates).
    bool switchToBudget = false;
  };
  /// Runs one round of kind \p round. Takes the orders it finds as the
  /// incumbent; the greedy completions and dives of the anytime search may
  /// also improve it. \p bound is the proven lower bound, which a best-first
  /// round raises as it goes. If no limit stopped it and it did not switch:
  /// best first, the incumbent is optimal or at most \p target; under a
  /// budget, either the incumbent improved or no order peaks below it.
  /// Counts its expansions in \p outcome.
  RoundResult search(Round round, SmallVectorImpl<unsigned> &incumbent,
                     int64_t &incumbentPeak, int64_t &bound, int64_t target,
                     const std::function<void(const Progress &)> &onProgress,
                     uint64_t statesBefore, SearchOutcome &outcome);
  /// A queue entry. Best first, ordered by f, then deepest first (on the
  /// level of the best order, that reaches a complete order soonest), then by
  /// insertion for determinism; under a budget, last in first out.
  struct Entry {
    int64_t f, peak;
    uint64_t sequence;
    uint32_t state;
    /// Nodes run, negated.
    int32_t negSize;
    /// True once f includes SearchProblem::dynamicBound.
    bool refined;
    bool operator>(const Entry &other) const {
      return std::tie(f, negSize, sequence) >
             std::tie(other.f, other.negSize, other.sequence);
    }
  };
  /// One stored search state.
  struct State {
    /// Peak so far and live bytes after the set.
    int64_t peak, mem;
    /// The state this one was reached from (itself for the root).
    uint32_t parent;
    /// Nodes run from the parent to here, in pathNodes.
    uint32_t pathBegin, pathLength;
    /// Number of scheduled nodes.
    uint32_t size;
    /// Hash of the set.
    uint64_t hash;
  };
  /// Returns the words of state \p index.
  Word *bits(uint32_t index) { return &stateBits[size_t(index) * numWords]; }
  const Word *bits(uint32_t index) const {
    return &stateBits[size_t(index) * numWords];
  }
  /// Returns the state index holding \p set, or kEmpty.
  uint32_t lookup(const Word *set, uint64_t hash) const;
  /// Inserts state \p index into the table.
  void insert(uint32_t index);
  /// Grows the table when it is more than half full.
  void maybeGrow();
  /// Runs dominated ready nodes after \p set: those whose step stays within
  /// \p allowance, a lower bound on the peak of every completion of \p set
  /// worth finding, and that free at least as many bytes as they allocate.
  /// Running such a node first only lowers the steps it jumps over, so it
  /// loses nothing. (A block of several ready nodes is not: its early frees
  /// may no longer lower the steps its last node jumps over;
  /// FreeBlockRuleIsSound.) \p candidates is the set of ready nodes
  /// (updated); only those in \p pending (scratch, cleared) are tested, and
  /// those a node run may have made free (wake). Applied nodes are appended
  /// to \p path, and \p peak and \p mem follow them.
  void applyFreeNodes(Word *set, uint32_t &size, int64_t allowance,
                      int64_t &peak, int64_t &mem, Word *candidates,
                      Word *pending, SmallVectorImpl<unsigned> &path) const;
  /// Applies one move of SearchProblem::getMoves to \p set (of \p size
  /// nodes, with \p peak so far and \p mem live bytes, all updated): the
  /// pile \p pile in id order, the target \p node with its forced chain,
  /// then the free nodes within max(\p allowance, the new peak, the static
  /// bound of the rest). \p ready holds the ready nodes of \p set. Appends
  /// the nodes run to \p path. Returns false if the move is not one (a pile
  /// node that does not idle, an idle target) or reaches \p cutoff.
  bool applyMove(Word *set, uint32_t &size, int64_t &peak, int64_t &mem,
                 const Word *pile, unsigned node, const Word *ready,
                 int64_t allowance, int64_t cutoff,
                 SmallVectorImpl<unsigned> &path) const;
  /// Completes state \p index by a dive through the search's own moves
  /// (idle piles, chains and free nodes): at each set, the move that adds
  /// the fewest live bytes, then has the smallest peak, then the smallest
  /// lower bound. Takes the result as the incumbent if it is better. Node
  /// by node, greedy completion runs the cheap steps (activations, idle
  /// nodes) first and piles their outputs up; by moves, an idle node only
  /// runs with its target.
  void tryDive(uint32_t index, SmallVectorImpl<unsigned> &incumbent,
               int64_t &incumbentPeak) const;
  /// Returns the order that reaches state \p index.
  SmallVector<unsigned> reconstruct(uint32_t index) const;
  /// Takes the order to state \p index followed by \p path, whose peak is
  /// \p peak, as the incumbent if it is better.
  void acceptCompletion(uint32_t index, ArrayRef<unsigned> path, int64_t peak,
                        SmallVectorImpl<unsigned> &incumbent,
                        int64_t &incumbentPeak) const;
  /// Completes state \p index greedily (smallest step, then smallest live
  /// bytes after it) and takes the result as the incumbent if it is better.
  void tryGreedyCompletion(uint32_t index, SmallVectorImpl<unsigned> &incumbent,
                           int64_t &incumbentPeak) const;

  static constexpr uint32_t kEmpty = ~0u;

  const SearchProblem &problem;
  Clock::time_point deadline;
  uint64_t maxStates, bestFirstStates;
  unsigned numWords;
  std::vector<State> states;
  std::vector<Word> stateBits;
  std::vector<unsigned> pathNodes;
  std::vector<uint32_t> table;
  /// States stored by the earlier rounds: the state budget covers them all.
  uint64_t statesBeforeRound = 0;
  /// States whose dynamic bound was computed, and those it cut. After
  /// kBoundTrial tries, the bound is computed while it cuts at least one
  /// state in kBoundPayoff, and otherwise every kBoundRetry expansions.
  uint64_t boundTries = 0, boundCuts = 0;
  static constexpr uint64_t kBoundTrial = 256, kBoundPayoff = 64,
                            kBoundRetry = 32;
};

} // namespace

/// Returns the hash of a set of \p numWords words.
static uint64_t hashBits(const Word *set, unsigned numWords) {
  return llvm::xxh3_64bits(ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(set), numWords * sizeof(Word)));
}

uint32_t ExactSearch::lookup(const Word *set, uint64_t hash) const {
  size_t mask = table.size() - 1;
  for (size_t slot = hash & mask;; slot = (slot + 1) & mask) {
    uint32_t index = table[slot];
    if (index == kEmpty)
      return kEmpty;
    if (states[index].hash == hash &&
        std::equal(set, set + numWords, &stateBits[size_t(index) * numWords]))
      return index;
  }
}

void ExactSearch::insert(uint32_t index) {
  size_t mask = table.size() - 1;
  size_t slot = states[index].hash & mask;
  while (table[slot] != kEmpty)
    slot = (slot + 1) & mask;
  table[slot] = index;
}

void ExactSearch::maybeGrow() {
  if (states.size() * 2 < table.size())
    return;
  table.assign(table.size() * 2, kEmpty);
  for (uint32_t index = 0; index < states.size(); ++index)
    insert(index);
}

/// Marks the nodes of \p ran, just run after \p set, as run in
/// \p candidates (the ready nodes of \p problem), adds the successors they
/// made ready, and marks in \p pending the candidates that the run may have
/// made free: those it made ready and the other readers of its inputs (an
/// input may now die at them).
static void wake(const SearchProblem &problem, const Word *set,
                 ArrayRef<unsigned> ran, Word *candidates, Word *pending) {
  for (unsigned node : ran) {
    candidates[node / 64] &= ~(Word(1) << (node % 64));
    for (unsigned succ : problem.succs[node])
      if (!testBit(set, succ) && problem.isReady(set, succ)) {
        setBit(candidates, succ);
        setBit(pending, succ);
      }
    for (unsigned input : problem.localNodes[node].inputs)
      for (unsigned reader : problem.readers[input])
        if (testBit(candidates, reader))
          setBit(pending, reader);
  }
}

void ExactSearch::applyFreeNodes(Word *set, uint32_t &size, int64_t allowance,
                                 int64_t &peak, int64_t &mem, Word *candidates,
                                 Word *pending,
                                 SmallVectorImpl<unsigned> &path) const {
  SmallVector<Word, 4> scratch(numWords);
  // Candidates over the allowance are tested again when the live bytes drop;
  // a chain also depends on the inputs of its later nodes, so a chain head
  // that failed is tested again after every run.
  SmallVector<Word, 4> overAllowance(numWords, 0), chainHeads(numWords, 0);
  for (unsigned w = 0; w < numWords;) {
    if (!pending[w]) {
      ++w;
      continue;
    }
    unsigned node = w * 64 + llvm::countr_zero(pending[w]);
    pending[w] &= pending[w] - 1;
    if (!problem.mayFree[node] || !testBit(candidates, node))
      continue;
    // The chain's first step is one of its steps, and it holds at least
    // the bytes before it plus the node's step bytes less its saving;
    // a node without a chain is decided by it alone, without running it
    // on a copy.
    const SearchProblem::LocalNode &info = problem.localNodes[node];
    int64_t firstStep = mem + info.stepBytes - info.inPlaceSaving, firstAfter;
    if (firstStep <= allowance)
      problem.transition(set, size == 0, mem, node, firstStep, firstAfter);
    if (firstStep > allowance) {
      setBit(overAllowance.data(), node);
      continue;
    }
    int64_t memBefore = mem;
    size_t pathSize = path.size();
    if (problem.forcedNext[node] < 0) {
      if (firstAfter > mem)
        continue;
      setBit(set, node);
      ++size;
      peak = std::max(peak, firstStep);
      mem = firstAfter;
      path.push_back(node);
    } else {
      // Kept if the whole chain is free: no step above the allowance and no
      // more live bytes than before.
      std::copy(set, set + numWords, scratch.begin());
      uint32_t scratchSize = size;
      int64_t after = mem;
      int64_t step = problem.runChain(scratch.data(), scratchSize, node, after,
                                      path, /*followChains=*/true);
      if (step > allowance || after > mem) {
        path.resize(pathSize);
        setBit(chainHeads.data(), node);
        continue;
      }
      std::copy(scratch.begin(), scratch.end(), set);
      size = scratchSize;
      peak = std::max(peak, step);
      mem = after;
    }
    wake(problem, set, ArrayRef<unsigned>(path).drop_front(pathSize),
         candidates, pending);
    for (unsigned v = 0; v < numWords; ++v) {
      pending[v] |= chainHeads[v] | (mem < memBefore ? overAllowance[v] : 0);
      chainHeads[v] = 0;
      if (mem < memBefore)
        overAllowance[v] = 0;
    }
    w = 0;
  }
}

bool ExactSearch::applyMove(Word *set, uint32_t &size, int64_t &peak,
                            int64_t &mem, const Word *pile, unsigned node,
                            const Word *ready, int64_t allowance,
                            int64_t cutoff,
                            SmallVectorImpl<unsigned> &path) const {
  bool wasEmpty = size == 0;
  size_t pathStart = path.size();
  int64_t memBefore = mem;
  // The pile, in id order (a topological order), then the target with its
  // forced chain.
  for (unsigned w = 0; w < numWords; ++w)
    for (Word rest = pile[w]; rest; rest &= rest - 1) {
      unsigned pred = w * 64 + llvm::countr_zero(rest);
      if (!problem.idles(set, pred))
        return false;
      peak = std::max(peak, problem.runChain(set, size, pred, mem, path,
                                             /*followChains=*/false));
    }
  if (peak >= cutoff ||
      (problem.isIdleRuleOn(wasEmpty) && problem.idles(set, node)))
    return false;
  peak = std::max(peak, problem.runChain(set, size, node, mem, path,
                                         /*followChains=*/true));
  if (peak >= cutoff)
    return false;
  // The set before the move is closed under free nodes, and a node that
  // was not free there only becomes free if the move woke it or freed bytes.
  SmallVector<Word, 8> candidates(ready, ready + numWords);
  SmallVector<Word, 8> pending(numWords, 0);
  wake(problem, set, ArrayRef<unsigned>(path).drop_front(pathStart),
       candidates.data(), pending.data());
  if (mem < memBefore)
    std::copy(candidates.begin(), candidates.end(), pending.begin());
  applyFreeNodes(set, size,
                 std::max({peak, allowance, problem.remainingBound(set)}), peak,
                 mem, candidates.data(), pending.data(), path);
  return peak < cutoff;
}

void ExactSearch::tryDive(uint32_t index, SmallVectorImpl<unsigned> &incumbent,
                          int64_t &incumbentPeak) const {
  const State &state = states[index];
  unsigned n = problem.numNodes;
  SmallVector<Word, 8> set(bits(index), bits(index) + numWords);
  SmallVector<Word, 8> ready(numWords), child(numWords), best(numWords);
  SmallVector<Word> piles;
  SmallVector<unsigned> targets, path, childPath, bestPath;
  uint32_t size = state.size;
  int64_t peak = state.peak, mem = state.mem;
  while (size < n) {
    // A dive of a large segment is long: it stops at the safety stop too.
    if (Clock::now() >= deadline)
      return;
    std::fill(ready.begin(), ready.end(), 0);
    for (unsigned node = 0; node < n; ++node)
      if (!testBit(set.data(), node) && problem.isReady(set.data(), node))
        setBit(ready.data(), node);
    if (!problem.getMoves(set.data(), size == 0, ready.data(), piles, targets,
                          deadline))
      return;
    bool found = false;
    std::tuple<int64_t, int64_t, int64_t> bestKey;
    uint32_t bestSize = 0;
    int64_t bestPeak = 0, bestMem = 0;
    for (auto [move, node] : llvm::enumerate(targets)) {
      std::copy(set.begin(), set.end(), child.begin());
      uint32_t childSize = size;
      int64_t childPeak = peak, childMem = mem;
      childPath.clear();
      if (!applyMove(child.data(), childSize, childPeak, childMem,
                     &piles[move * numWords], node, ready.data(), peak,
                     incumbentPeak, childPath))
        continue;
      int64_t bound = childSize == n
                          ? childPeak
                          : std::max({childPeak, childMem,
                                      problem.dynamicBound(child.data())});
      // Fewest bytes added, then the smallest peak, then the bound.
      auto key = std::make_tuple(childMem - mem, childPeak, bound);
      if (found && key >= bestKey)
        continue;
      found = true;
      bestKey = key;
      std::copy(child.begin(), child.end(), best.begin());
      bestPath.assign(childPath.begin(), childPath.end());
      bestSize = childSize;
      bestPeak = childPeak;
      bestMem = childMem;
    }
    if (!found)
      return;
    std::copy(best.begin(), best.end(), set.begin());
    path.append(bestPath.begin(), bestPath.end());
    size = bestSize;
    peak = bestPeak;
    mem = bestMem;
  }
  acceptCompletion(index, path, peak, incumbent, incumbentPeak);
}

void ExactSearch::acceptCompletion(uint32_t index, ArrayRef<unsigned> path,
                                   int64_t peak,
                                   SmallVectorImpl<unsigned> &incumbent,
                                   int64_t &incumbentPeak) const {
  if (peak >= incumbentPeak)
    return;
  SmallVector<unsigned> order = reconstruct(index);
  order.append(path.begin(), path.end());
  incumbent.assign(order.begin(), order.end());
  incumbentPeak = peak;
}

SmallVector<unsigned> ExactSearch::reconstruct(uint32_t index) const {
  SmallVector<unsigned> order;
  while (true) {
    const State &state = states[index];
    for (uint32_t i = state.pathLength; i-- > 0;)
      order.push_back(pathNodes[state.pathBegin + i]);
    if (state.parent == index)
      break;
    index = state.parent;
  }
  std::reverse(order.begin(), order.end());
  return order;
}

void ExactSearch::tryGreedyCompletion(uint32_t index,
                                      SmallVectorImpl<unsigned> &incumbent,
                                      int64_t &incumbentPeak) const {
  const State &state = states[index];
  const Word *bits = &stateBits[size_t(index) * numWords];
  SmallVector<Word, 4> set(bits, bits + numWords);
  SmallVector<unsigned> path;
  int64_t peak =
      problem.completeGreedily(set.data(), state.size, state.mem, state.peak,
                               path, /*followChains=*/true, incumbentPeak);
  acceptCompletion(index, path, peak, incumbent, incumbentPeak);
}

SearchOutcome
ExactSearch::run(SmallVectorImpl<unsigned> &incumbent, int64_t &incumbentPeak,
                 int64_t target,
                 const std::function<void(const Progress &)> &onProgress,
                 uint64_t statesBefore) {
  SearchOutcome outcome;
  // A proven bound: no order peaks below it.
  int64_t bound = std::max(problem.globalBound, target);
  // First best-first on f, as long as it looks for an order at the proven
  // bound or proves little; then in rounds under a budget (item 3 of
  // docs/Scheduling.md).
  Round round = bestFirstStates ? Round::BestFirst : Round::UnderBudget;
  while (incumbentPeak > bound) {
    int64_t before = incumbentPeak;
    RoundResult result = search(round, incumbent, incumbentPeak, bound,
                                target, onProgress, statesBefore, outcome);
    if (result.stoppedBy != StopReason::None) {
      outcome.stoppedBy = result.stoppedBy;
      outcome.lowerBound = bound;
      return outcome;
    }
    if (result.switchToBudget) {
      round = Round::UnderBudget;
      continue;
    }
    // Best first ends with a proof; a round under a budget either finds an
    // order below the incumbent or proves there is none.
    if (round == Round::BestFirst || incumbentPeak == before)
      bound = std::max(bound, incumbentPeak);
  }
  // Either the incumbent reached the target (and only the static bound is
  // known), or it reached the proven bound, so it is optimal.
  outcome.lowerBound =
      incumbentPeak <= target ? problem.globalBound : incumbentPeak;
  return outcome;
}

ExactSearch::RoundResult
ExactSearch::search(Round round, SmallVectorImpl<unsigned> &incumbent,
                    int64_t &incumbentPeak, int64_t &bound, int64_t target,
                    const std::function<void(const Progress &)> &onProgress,
                    uint64_t statesBefore, SearchOutcome &outcome) {
  bool bestFirst = round == Round::BestFirst;
  unsigned n = problem.numNodes;
  statesBeforeRound += states.size();
  states.clear();
  stateBits.clear();
  pathNodes.clear();
  table.assign(1024, kEmpty);
  RoundResult result;
  // Orders peaking above the budget are not worth finding. Under a budget it
  // stays, and the round ends when it finds an order within it; best first,
  // it follows the incumbent.
  int64_t budget = incumbentPeak - 1;
  // Best first: the bound it started from, and the expansions when the
  // bound first rose above it.
  int64_t initialBound = bound;
  uint64_t firstRise = 0;
  // The free-node rule's allowance: under a budget, the budget (an order
  // within it stays within it); best first, the proven level (the largest f
  // taken from the queue: an optimal order does not peak below it).
  auto allowance = [&]() { return bestFirst ? bound : budget; };

  // Ready nodes of a set.
  auto readyNodes = [&](const Word *set, SmallVectorImpl<unsigned> &ready) {
    ready.clear();
    for (unsigned node = 0; node < n; ++node)
      if (!testBit(set, node) && problem.isReady(set, node))
        ready.push_back(node);
  };

  // The root, after the nodes that are free from the start.
  SmallVector<Word> set(numWords, 0);
  SmallVector<unsigned> path, ready;
  SmallVector<Word> candidates(numWords);
  uint32_t size = 0;
  int64_t mem = problem.initialMem;
  int64_t rootPeak = 0;
  readyNodes(set.data(), ready);
  for (unsigned node : ready)
    setBit(candidates.data(), node);
  SmallVector<Word> pending(candidates);
  applyFreeNodes(set.data(), size,
                 std::max(problem.remainingBound(set.data()), allowance()),
                 rootPeak, mem, candidates.data(), pending.data(), path);
  states.push_back({rootPeak, mem, 0, 0, (uint32_t)path.size(), size,
                    hashBits(set.data(), numWords)});
  stateBits.insert(stateBits.end(), set.begin(), set.end());
  pathNodes.insert(pathNodes.end(), path.begin(), path.end());
  insert(0);
  if (size == n) {
    // Every node was free: the order is within the allowance.
    acceptCompletion(0, {}, rootPeak, incumbent, incumbentPeak);
    return result;
  }

  // Best first: smallest f first, then deepest first, so the first orders
  // found are the best. Under a budget any order within it answers the
  // question: depth first, the child with the fewest live bytes (then the
  // smallest f) first.
  auto popsAfter = [bestFirst](const Entry &a, const Entry &b) {
    return bestFirst ? a > b : a.sequence < b.sequence;
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(popsAfter)> queue(
      popsAfter);
  // Under a budget, the children of one expansion: (live bytes after, f,
  // state).
  SmallVector<std::tuple<int64_t, int64_t, uint32_t>> children;
  uint64_t sequence = 0;
  queue.push({rootPeak, rootPeak, sequence++, 0, -int32_t(size), false});
  SmallVector<Word> child(numWords), readyMask(numWords), parent(numWords);
  SmallVector<Word> piles;
  SmallVector<unsigned> moveTargets;
  while (!queue.empty()) {
    Entry entry = queue.top();
    if (entry.f > budget)
      break; // Nothing left is within the budget.
    queue.pop();
    if (bestFirst && entry.f > bound) {
      if (bound == initialBound)
        firstRise = outcome.statesExplored;
      bound = entry.f;
    }
    State state = states[entry.state];
    if (entry.peak != state.peak)
      continue; // Superseded by a better path to the same set.
    // Anytime: now and then, complete the state greedily to improve the
    // incumbent while the proof goes on.
    if ((outcome.statesExplored & 1023) == 0) {
      tryGreedyCompletion(entry.state, incumbent, incumbentPeak);
      // Dives cost more than a greedy completion: only once the search
      // has shown it is not easy.
      if (outcome.statesExplored)
        tryDive(entry.state, incumbent, incumbentPeak);
      if (incumbentPeak <= (bestFirst ? target : budget))
        return result;
      if (bestFirst) {
        budget = incumbentPeak - 1;
        if (entry.f > budget)
          break;
      }
      if (onProgress)
        onProgress(
            {statesBefore + outcome.statesExplored, incumbentPeak, bound});
    }
    // The state budget decides; the clock, read at every state (a few tens
    // of nanoseconds, against microseconds to milliseconds of expansion), is
    // only a safety stop.
    bool outOfStates =
        maxStates && statesBeforeRound + states.size() >= maxStates;
    ++outcome.statesExplored;
    bool outOfTime = Clock::now() >= deadline;
    if (outOfStates || outOfTime) {
      result.stoppedBy = outOfStates ? StopReason::States : StopReason::Clock;
      return result;
    }
    // Best first proves one level after another, which rounds under a
    // budget do faster when there are many: it hands over once it has spent
    // bestFirstStates expansions above the bound it started from. (While
    // it looks for an order at that bound, it finds one as soon as any.)
    if (bestFirst && bound > initialBound &&
        outcome.statesExplored - firstRise >= bestFirstStates) {
      result.switchToBudget = true;
      return result;
    }

    readyNodes(bits(entry.state), ready);
    std::fill(readyMask.begin(), readyMask.end(), 0);
    for (unsigned node : ready)
      setBit(readyMask.data(), node);
    // Tighten f once per state: the next step holds the live bytes and the
    // cheapest ready node's step, and the dynamic bound holds for every
    // completion. The bound costs about as much as an expansion on large
    // segments, so once it has cut almost nothing it is only tried now and
    // then (counted in expansions: deterministic).
    if (!entry.refined &&
        (boundTries < kBoundTrial || boundCuts * kBoundPayoff >= boundTries ||
         outcome.statesExplored % kBoundRetry == 0)) {
      ++boundTries;
      int64_t nextStep = std::numeric_limits<int64_t>::max();
      for (unsigned node : ready) {
        int64_t step, after;
        problem.transition(bits(entry.state), state.size == 0, state.mem,
                           node, step, after);
        nextStep = std::min(nextStep, step);
      }
      int64_t refined = problem.dynamicBound(
          bits(entry.state), std::max(entry.f, nextStep), incumbentPeak);
      if (refined > (bestFirst ? entry.f : budget)) {
        // Best first, the state goes back to its place in the queue.
        ++boundCuts;
        if (bestFirst)
          queue.push({refined, entry.peak, sequence++, entry.state,
                      entry.negSize, true});
        continue;
      }
    }
    // A copy: adding states may move stateBits.
    parent.assign(bits(entry.state), bits(entry.state) + numWords);
    const Word *parentBits = parent.data();
    // One expansion of a large segment is long: the safety stop is read
    // while moves are made and at every move, so it is never overshot by
    // more than one move.
    if (!problem.getMoves(parentBits, state.size == 0, readyMask.data(), piles,
                          moveTargets, deadline)) {
      result.stoppedBy = StopReason::Clock;
      return result;
    }
    bool largeSegment = problem.numNodes > 512;
    children.clear();
    for (auto [move, node] : llvm::enumerate(moveTargets)) {
      if ((largeSegment || (move & 63) == 63) && Clock::now() >= deadline) {
        result.stoppedBy = StopReason::Clock;
        return result;
      }
      std::copy(parentBits, parentBits + numWords, child.begin());
      uint32_t childSize = state.size;
      int64_t after = state.mem;
      path.clear();
      int64_t peak = state.peak;
      // Every completion of the child completes the parent, so entry.f
      // bounds it too.
      if (!applyMove(child.data(), childSize, peak, after,
                     &piles[move * numWords], node, readyMask.data(),
                     std::max(entry.f, allowance()), budget + 1, path))
        continue;
      if (childSize == n) {
        // A complete order within the budget.
        acceptCompletion(entry.state, path, peak, incumbent, incumbentPeak);
        if (!bestFirst || incumbentPeak <= target)
          return result;
        budget = incumbentPeak - 1;
        continue;
      }
      int64_t f = std::max({peak, after, problem.remainingBound(child.data())});
      if (f > budget)
        continue;
      uint64_t hash = hashBits(child.data(), numWords);
      uint32_t existing = lookup(child.data(), hash);
      // A set reached again: under a budget, every path within it is as
      // good; best first, a smaller peak only helps if the stored one is
      // above the proven level, since no completion of the set peaks below
      // it (item 12).
      if (existing != kEmpty &&
          (!bestFirst ||
           std::max(states[existing].peak, bound) <= std::max(peak, bound)))
        continue;
      uint32_t pathBegin = pathNodes.size();
      pathNodes.insert(pathNodes.end(), path.begin(), path.end());
      State childState{
          peak,      after, entry.state, pathBegin, (uint32_t)path.size(),
          childSize, hash};
      uint32_t index = existing;
      if (existing == kEmpty) {
        index = states.size();
        states.push_back(childState);
        stateBits.insert(stateBits.end(), child.begin(), child.end());
        insert(index);
        maybeGrow();
      } else {
        states[existing] = childState;
      }
      if (bestFirst)
        queue.push({f, peak, sequence++, index, -int32_t(childSize), false});
      else
        children.emplace_back(after, f, index);
    }
    llvm::sort(children, std::greater<>());
    for (auto [after, f, index] : children)
      queue.push({f, states[index].peak, sequence++, index,
                  -int32_t(states[index].size), false});
  }
  // Nothing left within the budget: best first, the incumbent is optimal;
  // under a budget, no order is within it.
  return result;
}

SearchOutcome mlir::memopt::schedule::searchExact(
    const SearchProblem &problem,
    std::chrono::steady_clock::time_point deadline, uint64_t maxStates,
    uint64_t bestFirstStates, SmallVectorImpl<unsigned> &incumbent, int64_t &incumbentPeak,
    int64_t target, const std::function<void(const Progress &)> &onProgress,
    uint64_t statesBefore) {
  assert(problem.searchReady && "prepareSearch() has not run");
  ExactSearch search(problem, deadline, maxStates, bestFirstStates);
  return search.run(incumbent, incumbentPeak, target, onProgress, statesBefore);
}
