//===- MemoryScheduler.cpp - Peak-memory ordering of a dataflow graph -----===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The exact engine searches sets S of scheduled nodes. The bytes live after S
// depend only on S (SERENITY's observation), so one best partial schedule per
// set suffices. The graph is first cut at nodes ordered against all others
// into segments that are solved one by one. Each search is best-first on the
// bottleneck cost f(S) = max(peak so far, admissible bound of the rest), so
// the first complete schedule taken from the queue is optimal, and when a
// limit stops it the smallest f left is a proven lower bound. Upper bounds
// from heuristics prune; a dominance rule runs memory-neutral nodes at once;
// provably safe chains are never split; greedy completions keep it anytime.
// docs/Scheduling.md explains each piece and why it keeps optimality.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Schedule/Scheduler.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <chrono>
#include <queue>

using namespace mlir;
using namespace mlir::memopt;

std::optional<ScheduleAlgorithm>
mlir::memopt::parseScheduleAlgorithm(StringRef name) {
  return llvm::StringSwitch<std::optional<ScheduleAlgorithm>>(name)
      .Case("exact", ScheduleAlgorithm::Exact)
      .Case("input", ScheduleAlgorithm::Input)
      .Case("kahn", ScheduleAlgorithm::Kahn)
      .Case("rpo", ScheduleAlgorithm::ReversePostOrder)
      .Case("greedy", ScheduleAlgorithm::Greedy)
      .Default(std::nullopt);
}

/// A set of nodes as a fixed number of 64-bit words.
using Word = uint64_t;

/// Returns true if bit \p i of \p bits is set.
static bool testBit(const Word *bits, unsigned i) {
  return (bits[i / 64] >> (i % 64)) & 1;
}
/// Sets bit \p i of \p bits.
static void setBit(Word *bits, unsigned i) {
  bits[i / 64] |= Word(1) << (i % 64);
}
/// Returns true if \p a and \p b share a bit.
static bool intersects(const Word *a, const Word *b, unsigned numWords) {
  for (unsigned w = 0; w < numWords; ++w)
    if (a[w] & b[w])
      return true;
  return false;
}

namespace {

/// A contiguous part of the schedule: every order runs the nodes of segment
/// k before those of segment k + 1. Buffers made by earlier segments are
/// inputs of later ones; buffers read later are outputs.
class Problem {
public:
  /// Builds the problem of the nodes \p nodes (ascending ids) of \p graph,
  /// where \p segmentOf gives the segment of every node and \p segment is the
  /// one of \p nodes.
  Problem(const DataflowGraph &graph, ArrayRef<NodeId> nodes,
          ArrayRef<unsigned> segmentOf, unsigned segment);

  /// Returns true if every predecessor of \p node is in \p set.
  bool isReady(const Word *set, unsigned node) const {
    const Word *preds = &predMask[node * numWords];
    for (unsigned w = 0; w < numWords; ++w)
      if (preds[w] & ~set[w])
        return false;
    return true;
  }

  /// Computes the bytes live at the step that runs \p node after \p set
  /// (whose live bytes are \p mem), and the live bytes after it.
  void transition(const Word *set, bool setIsEmpty, int64_t mem, unsigned node,
                  int64_t &step, int64_t &after) const;

  /// Returns the peak of a complete \p order of local node ids.
  int64_t evaluate(ArrayRef<unsigned> order) const;

  /// Runs \p node after \p set (updating it, \p size and \p mem), then, if
  /// \p followChains, the chain of nodes forced after it. Appends the nodes
  /// to \p path and returns the largest step.
  int64_t runChain(Word *set, uint32_t &size, unsigned node, int64_t &mem,
                   SmallVectorImpl<unsigned> &path, bool followChains) const;

  /// Completes \p set memory-greedily: the ready node with the smallest step,
  /// then the smallest live bytes after it, then the smallest id. Appends
  /// the nodes to \p path and returns the peak, which starts at \p peak.
  /// Stops early once the peak reaches \p stopAt.
  int64_t completeGreedily(Word *set, uint32_t size, int64_t mem, int64_t peak,
                           SmallVectorImpl<unsigned> &path, bool followChains,
                           int64_t stopAt) const;

  /// Returns the static lower bound of the steps of nodes not in \p set.
  int64_t remainingBound(const Word *set) const {
    for (unsigned node : nodesByBound)
      if (!testBit(set, node))
        return stepBound[node];
    return 0;
  }

  /// Returns a lower bound on the peak of every completion of \p set: for
  /// each node v still to run, the buffers already made (by \p set, or
  /// before the problem) or made by v's ancestors that v or its descendants
  /// read, or that are kept, are all live at v's step.
  int64_t dynamicBound(const Word *set) const;

  /// Returns true if every node outside \p node's ancestors and descendants
  /// is \p node itself: every order runs \p node at the same step.
  bool isCut(unsigned node) const;

  /// Returns the local predecessors of \p node, ascending.
  ArrayRef<unsigned> getPreds(unsigned node) const { return preds[node]; }

  /// Returns the ancestors of \p node as a node set.
  const Word *getAncestors(unsigned node) const {
    return &ancestors[node * numWords];
  }

  /// Returns true if \p node idles when it runs after \p set: it frees no
  /// input, has no workspace, and some node of the problem reads its
  /// outputs. See ExactSearch::run for the rule this enables.
  bool idles(const Word *set, unsigned node) const;

  /// Returns true if the idle rule holds after a set that is empty iff
  /// \p setIsEmpty: no node overwrites an input in place, and the first
  /// step holds no unused inputs.
  bool isIdleRuleOn(bool setIsEmpty) const {
    return !hasInPlace && !(setIsEmpty && unusedInputBytes);
  }

  /// Computes the moves of the search after \p set (whose ready nodes are
  /// \p ready): each is a pile of nodes (a node set, numWords words appended
  /// to \p piles) that must all idle when run in id order, then a target
  /// node (appended to \p targets) that must not idle.
  ///
  /// Idle nodes are best run late. Take an optimal completion and move each
  /// idle node x, from the last to the first, to just before its target: the
  /// first later node that reads x's outputs or that is the last other
  /// reader of one of x's inputs (a killer, which does not idle). The steps
  /// x jumps over lose x's outputs, x's new step holds no more than its
  /// target's, and no other node changes status. Idle nodes with the same
  /// target pile up before it; the outputs of a pile stay live through its
  /// target, whose step is at least every step of the pile, so the order
  /// within the pile does not matter. The completion now starts with a pile
  /// and a target z that does not idle. The pile holds z's unscheduled
  /// ancestors and, for each input z kills, the input's other readers and
  /// their ancestors: one move per choice of killed inputs. With in-place
  /// savings or unused inputs on the first step the argument fails, and
  /// every ready node is a move of its own.
  void getMoves(const Word *set, bool setIsEmpty, const Word *ready,
                SmallVectorImpl<Word> &piles,
                SmallVectorImpl<unsigned> &targets) const;

  /// True if some node may overwrite an input in place.
  bool hasInPlace = false;
  /// The nodes that may idle: no workspace, and outputs that some node of
  /// the problem reads.
  SmallVector<Word> canIdle;

  /// The global ids of the nodes; local id i is `nodes[i]`.
  SmallVector<NodeId> nodes;
  /// The local id of every node of the graph, or -1 outside the problem.
  SmallVector<int> localOf;
  unsigned numNodes = 0;
  unsigned numWords = 0;
  /// Local successors and predecessors of each node.
  SmallVector<SmallVector<unsigned, 4>> succs, preds;
  /// Live bytes before the first step: inputs still to be read or kept.
  int64_t initialMem = 0;
  /// Inputs nobody reads: live at the first step only.
  int64_t unusedInputBytes = 0;
  /// Static lower bound of each node's step, and of the whole problem.
  SmallVector<int64_t> stepBound;
  int64_t globalBound = 0;
  /// Nodes by decreasing stepBound.
  SmallVector<unsigned> nodesByBound;
  /// For node u, a node v that can always run right after u without raising
  /// the peak (see computeChains), or -1.
  SmallVector<int> forcedNext;
  /// False for nodes whose chain always allocates more than it can free:
  /// they never qualify for the dominance rule.
  SmallVector<bool> mayFree;

private:
  /// A buffer as this problem sees it.
  struct LocalBuffer {
    int64_t bytes;
    /// Local producer, or -1 for buffers made before the problem.
    int producer;
    /// Never dies within the problem (returned, or read later).
    bool kept;
    /// An input of the graph: never overwritten in place.
    bool isGraphInput;
  };
  /// A node as this problem sees it.
  struct LocalNode {
    SmallVector<unsigned, 4> inputs;
    /// Bytes added at its step (outputs and workspace), of its outputs, and
    /// of the outputs that stay live after it.
    int64_t stepBytes = 0, outputBytes = 0, keptBytes = 0;
    /// Local in-place input and its saving, if any.
    int inPlaceInput = -1;
    int64_t inPlaceSaving = 0;
  };

  /// Returns true if \p buffer dies when \p node runs after \p set.
  bool dies(const Word *set, unsigned node, unsigned buffer) const {
    if (buffers[buffer].kept)
      return false;
    const Word *users = &userMask[buffer * numWords];
    for (unsigned w = 0; w < numWords; ++w) {
      Word rest = users[w] & ~set[w];
      if (w == node / 64)
        rest &= ~(Word(1) << (node % 64));
      if (rest)
        return false;
    }
    return true;
  }
  /// Returns true if \p node is the only reader of \p buffer.
  bool isOnlyReader(unsigned buffer, unsigned node) const {
    const Word *users = &userMask[buffer * numWords];
    for (unsigned w = 0; w < numWords; ++w)
      if (users[w] != (w == node / 64 ? Word(1) << (node % 64) : 0))
        return false;
    return true;
  }
  /// Returns the bytes live at \p node's step in every order in which the
  /// buffers of \p made exist before it: those it or a descendant reads or
  /// that are kept, made by \p made, by an ancestor or before the problem,
  /// plus its own step bytes.
  int64_t liveAtStep(unsigned node, const Word *made) const;
  /// Computes ancestors, descendants and the static bounds.
  void computeBounds();
  /// Finds chains u -> v along which v can always follow u at once: v's only
  /// predecessor is u, v is the only reader of u's single output o, v adds
  /// no more bytes than o holds, and v's step adds no more than u's step
  /// frees. Moving v up to u then lowers every step it jumps over by
  /// bytes(o) - bytes(v's outputs), and v's new step is at most u's.
  void computeChains();

  SmallVector<LocalBuffer> buffers;
  SmallVector<LocalNode> localNodes;
  /// Predecessors of each node; readers of each buffer.
  std::vector<Word> predMask, userMask;
  /// Ancestors and descendants of each node.
  std::vector<Word> ancestors, descendants;
  /// Words of a buffer set.
  unsigned numBufferWords = 0;
  /// Per node, over buffers: those live at its step if already made (read by
  /// it or a descendant, kept, or its own outputs), and those surely made
  /// before its step (by an ancestor, by itself, or before the problem).
  std::vector<Word> neededAt, madeBefore;
  /// Per node, over buffers: its outputs.
  std::vector<Word> outputsOf;
  /// Buffers made before the problem.
  SmallVector<Word> madeOutside;
  /// Bytes made before the problem and kept through it untouched.
  int64_t pinnedBytes = 0;
};

} // namespace

Problem::Problem(const DataflowGraph &graph, ArrayRef<NodeId> nodeIds,
                 ArrayRef<unsigned> segmentOf, unsigned segment)
    : nodes(nodeIds.begin(), nodeIds.end()) {
  numNodes = nodes.size();
  numWords = std::max(1u, (numNodes + 63) / 64);
  localOf.assign(graph.getNumNodes(), -1);
  for (auto [local, global] : llvm::enumerate(nodes))
    localOf[global] = local;
  predMask.assign(size_t(numNodes) * numWords, 0);
  succs.resize(numNodes);
  preds.resize(numNodes);
  for (unsigned node = 0; node < numNodes; ++node)
    for (NodeId pred : graph.getNode(nodes[node]).preds)
      if (localOf[pred] >= 0) {
        setBit(&predMask[node * numWords], localOf[pred]);
        succs[localOf[pred]].push_back(node);
        preds[node].push_back(localOf[pred]);
      }

  // Classify every buffer relative to this segment.
  SmallVector<int> localBuffer(graph.getNumBuffers(), -1);
  for (BufferId id = 0, e = graph.getNumBuffers(); id < e; ++id) {
    const Buffer &buffer = graph.getBuffer(id);
    unsigned producerSegment =
        buffer.producer ? segmentOf[*buffer.producer] : 0;
    if (buffer.producer && producerSegment > segment)
      continue;
    bool readHere = false, readLater = false;
    for (NodeId user : buffer.users) {
      readHere |= segmentOf[user] == segment;
      readLater |= segmentOf[user] > segment;
    }
    bool kept = buffer.isGraphOutput || readLater;
    bool madeHere = buffer.producer && producerSegment == segment;
    if (!madeHere && !readHere) {
      if (buffer.producer || segment != 0 || kept) {
        // Live through the whole segment, or dead before it.
        if (kept)
          pinnedBytes += buffer.bytes;
        continue;
      }
      unusedInputBytes += buffer.bytes;
      continue;
    }
    localBuffer[id] = buffers.size();
    buffers.push_back({buffer.bytes, madeHere ? localOf[*buffer.producer] : -1,
                       kept, buffer.isGraphInput()});
    if (!madeHere)
      initialMem += buffer.bytes;
  }
  initialMem += pinnedBytes;

  userMask.assign(buffers.size() * numWords, 0);
  for (BufferId id = 0, e = graph.getNumBuffers(); id < e; ++id)
    if (localBuffer[id] >= 0)
      for (NodeId user : graph.getBuffer(id).users)
        if (localOf[user] >= 0)
          setBit(&userMask[localBuffer[id] * numWords], localOf[user]);

  localNodes.resize(numNodes);
  for (unsigned node = 0; node < numNodes; ++node) {
    const Node &info = graph.getNode(nodes[node]);
    LocalNode &local = localNodes[node];
    local.stepBytes = info.workspaceBytes;
    for (BufferId input : info.inputs)
      local.inputs.push_back(localBuffer[input]);
    for (BufferId output : info.outputs) {
      const LocalBuffer &buffer = buffers[localBuffer[output]];
      local.outputBytes += buffer.bytes;
      if (buffer.kept || !graph.getBuffer(output).users.empty())
        local.keptBytes += buffer.bytes;
    }
    local.stepBytes += local.outputBytes;
    if (info.inPlaceInput && !info.outputs.empty()) {
      local.inPlaceInput = localBuffer[*info.inPlaceInput];
      hasInPlace = true;
      local.inPlaceSaving =
          std::min(graph.getBuffer(*info.inPlaceInput).bytes,
                   graph.getBuffer(info.outputs.front()).bytes);
    }
  }
  computeBounds();
  computeChains();
  canIdle.assign(numWords, 0);
  for (unsigned node = 0; node < numNodes; ++node) {
    const LocalNode &info = localNodes[node];
    if (info.stepBytes != info.outputBytes)
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

void Problem::computeChains() {
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

void Problem::computeBounds() {
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

bool Problem::isCut(unsigned node) const {
  unsigned related = 1;
  for (unsigned w = 0; w < numWords; ++w)
    related += llvm::popcount(ancestors[node * numWords + w]) +
               llvm::popcount(descendants[node * numWords + w]);
  return related == numNodes;
}

bool Problem::idles(const Word *set, unsigned node) const {
  if (!testBit(canIdle.data(), node))
    return false;
  for (unsigned input : localNodes[node].inputs)
    if (dies(set, node, input))
      return false;
  return true;
}

/// Most inputs a target may choose to kill in getMoves; beyond, the moves
/// would be too many.
static constexpr unsigned kMaxKillChoices = 6;

void Problem::getMoves(const Word *set, bool setIsEmpty, const Word *ready,
                       SmallVectorImpl<Word> &piles,
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

int64_t Problem::liveAtStep(unsigned node, const Word *made) const {
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

int64_t Problem::dynamicBound(const Word *set) const {
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

void Problem::transition(const Word *set, bool setIsEmpty, int64_t mem,
                         unsigned node, int64_t &step, int64_t &after) const {
  const LocalNode &info = localNodes[node];
  step = mem + info.stepBytes + (setIsEmpty ? unusedInputBytes : 0);
  after = mem + info.keptBytes;
  for (unsigned input : info.inputs) {
    if (!dies(set, node, input))
      continue;
    after -= buffers[input].bytes;
    if (static_cast<int>(input) == info.inPlaceInput &&
        !buffers[input].isGraphInput)
      step -= info.inPlaceSaving;
  }
}

int64_t Problem::evaluate(ArrayRef<unsigned> order) const {
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

int64_t Problem::runChain(Word *set, uint32_t &size, unsigned node,
                          int64_t &mem, SmallVectorImpl<unsigned> &path,
                          bool followChains) const {
  int64_t peak = 0;
  for (int next = node; next >= 0;
       next = followChains ? forcedNext[next] : -1) {
    int64_t step, after;
    transition(set, size == 0, mem, next, step, after);
    peak = std::max(peak, step);
    setBit(set, next);
    ++size;
    mem = after;
    path.push_back(next);
  }
  return peak;
}

int64_t Problem::completeGreedily(Word *set, uint32_t size, int64_t mem,
                                  int64_t peak, SmallVectorImpl<unsigned> &path,
                                  bool followChains, int64_t stopAt) const {
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

/// Returns the problem of the whole graph.
static Problem makeWholeProblem(const DataflowGraph &graph) {
  SmallVector<unsigned> segmentOf(graph.getNumNodes(), 0);
  return Problem(graph, graph.getProgramOrder(), segmentOf, 0);
}

int64_t mlir::memopt::evaluateSchedulePeak(const DataflowGraph &graph,
                                           ArrayRef<NodeId> order) {
  return makeWholeProblem(graph).evaluate(order);
}

//===----------------------------------------------------------------------===//
// Baselines
//===----------------------------------------------------------------------===//

/// Breadth-first topological order.
static SmallVector<NodeId> kahnOrder(const DataflowGraph &graph) {
  unsigned n = graph.getNumNodes();
  SmallVector<unsigned> indegree(n);
  SmallVector<NodeId> order;
  for (NodeId node = 0; node < n; ++node) {
    indegree[node] = graph.getNode(node).preds.size();
    if (indegree[node] == 0)
      order.push_back(node);
  }
  for (size_t head = 0; head < order.size(); ++head)
    for (NodeId succ : graph.getNode(order[head]).succs)
      if (--indegree[succ] == 0)
        order.push_back(succ);
  return order;
}

/// Reverse post-order of a depth-first search from the sources.
static SmallVector<NodeId> reversePostOrder(const DataflowGraph &graph) {
  unsigned n = graph.getNumNodes();
  SmallVector<bool> visited(n, false);
  SmallVector<NodeId> postOrder;
  // Iterative DFS: (node, next successor index).
  SmallVector<std::pair<NodeId, unsigned>> stack;
  for (NodeId root = 0; root < n; ++root) {
    if (visited[root] || !graph.getNode(root).preds.empty())
      continue;
    visited[root] = true;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      auto &[node, next] = stack.back();
      ArrayRef<NodeId> succs = graph.getNode(node).succs;
      if (next < succs.size()) {
        NodeId succ = succs[next++];
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
static SmallVector<NodeId> greedyOrder(const Problem &problem) {
  SmallVector<Word> set(problem.numWords, 0);
  SmallVector<unsigned> order;
  problem.completeGreedily(set.data(), 0, problem.initialMem, 0, order,
                           /*followChains=*/false,
                           std::numeric_limits<int64_t>::max());
  return SmallVector<NodeId>(order.begin(), order.end());
}

//===----------------------------------------------------------------------===//
// Exact search
//===----------------------------------------------------------------------===//

namespace {

/// What one exact search established.
struct SearchOutcome {
  /// A proven lower bound on the peak of every order of the problem, or the
  /// target if the incumbent reached it.
  int64_t lowerBound = 0;
  /// True if a limit stopped the search.
  bool limitReached = false;
  /// States expanded.
  uint64_t statesExplored = 0;
};

/// Best-first search over sets of scheduled nodes of one Problem.
class ExactSearch {
public:
  using Clock = std::chrono::steady_clock;

  ExactSearch(const Problem &problem, Clock::time_point deadline,
              uint64_t maxStates)
      : problem(problem), deadline(deadline), maxStates(maxStates),
        numWords(problem.numWords) {}

  /// Searches for an order better than \p incumbent (local ids, peak
  /// \p incumbentPeak), updating both when it finds one. Stops early once
  /// the incumbent is at most \p target, a bound known to hold elsewhere.
  SearchOutcome run(SmallVectorImpl<unsigned> &incumbent,
                    int64_t &incumbentPeak, int64_t target);

private:
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
  /// A queue entry; ordered by f, then by insertion for determinism.
  struct Entry {
    int64_t f, peak;
    uint64_t sequence;
    uint32_t state;
    /// True once f includes Problem::dynamicBound.
    bool refined;
    bool operator>(const Entry &other) const {
      return std::tie(f, sequence) > std::tie(other.f, other.sequence);
    }
  };

  /// Returns the words of state \p index.
  Word *bits(uint32_t index) { return &stateBits[size_t(index) * numWords]; }
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
  /// loses nothing. The same holds for a block: a node with its unscheduled
  /// predecessors, all ready. \p candidates is the set of ready nodes
  /// (updated);
  /// applied nodes are appended to \p path, and \p peak and \p mem follow
  /// them.
  void applyFreeNodes(Word *set, uint32_t &size, int64_t allowance,
                      int64_t &peak, int64_t &mem, Word *candidates,
                      SmallVectorImpl<unsigned> &path) const;
  /// Returns the order that reaches state \p index.
  SmallVector<unsigned> reconstruct(uint32_t index) const;
  /// Completes state \p index greedily (smallest step, then smallest live
  /// bytes after it) and takes the result as the incumbent if it is better.
  void tryGreedyCompletion(uint32_t index, SmallVectorImpl<unsigned> &incumbent,
                           int64_t &incumbentPeak) const;

  static constexpr uint32_t kEmpty = ~0u;

  const Problem &problem;
  Clock::time_point deadline;
  uint64_t maxStates;
  unsigned numWords;
  std::vector<State> states;
  std::vector<Word> stateBits;
  std::vector<unsigned> pathNodes;
  std::vector<uint32_t> table;
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

/// Marks the nodes of \p ran as run in \p candidates (the ready nodes of
/// \p problem after \p set) and adds the successors they made ready.
static void updateReady(const Problem &problem, const Word *set,
                        ArrayRef<unsigned> ran, Word *candidates) {
  for (unsigned node : ran) {
    candidates[node / 64] &= ~(Word(1) << (node % 64));
    for (unsigned succ : problem.succs[node])
      if (!testBit(set, succ) && problem.isReady(set, succ))
        setBit(candidates, succ);
  }
}

void ExactSearch::applyFreeNodes(Word *set, uint32_t &size, int64_t allowance,
                                 int64_t &peak, int64_t &mem, Word *candidates,
                                 SmallVectorImpl<unsigned> &path) const {
  SmallVector<Word, 4> scratch(numWords);
  // Keeps the nodes run on `scratch` since `pathSize` if they are free: no
  // step above the allowance and no more live bytes than before.
  auto commit = [&](int64_t step, int64_t after, uint32_t scratchSize,
                    size_t pathSize) {
    if (step > allowance || after > mem) {
      path.resize(pathSize);
      return false;
    }
    std::copy(scratch.begin(), scratch.end(), set);
    size = scratchSize;
    peak = std::max(peak, step);
    mem = after;
    updateReady(problem, set, ArrayRef<unsigned>(path).drop_front(pathSize),
                candidates);
    return true;
  };

  SmallVector<unsigned, 8> block;
  bool changed = true;
  while (changed) {
    changed = false;
    for (unsigned w = 0; w < numWords; ++w)
      for (Word bits = candidates[w]; bits; bits &= bits - 1) {
        unsigned node = w * 64 + llvm::countr_zero(bits);
        if (!problem.mayFree[node])
          continue;
        std::copy(set, set + numWords, scratch.begin());
        uint32_t scratchSize = size;
        int64_t after = mem;
        size_t pathSize = path.size();
        int64_t step = problem.runChain(scratch.data(), scratchSize, node,
                                        after, path, /*followChains=*/true);
        changed |= commit(step, after, scratchSize, pathSize);
      }
    if (changed)
      continue;
    // Blocks: the unscheduled predecessors of a node z, all ready, then z.
    // A block that frees at least as much as it allocates is free too:
    // moved to the front, every step it jumps over gains at most the bytes
    // the block leaves live and loses the bytes it frees. (An accumulator
    // fused into its rescale is such a block: neither half is free alone.)
    for (unsigned w = 0; w < numWords && !changed; ++w) {
      for (Word bits = candidates[w]; bits && !changed; bits &= bits - 1) {
        unsigned first = w * 64 + llvm::countr_zero(bits);
        for (unsigned target : problem.succs[first]) {
          if (testBit(set, target))
            continue;
          // Its unscheduled predecessors must all be ready; `first` must be
          // the lowest of them so that each block is tried once.
          block.clear();
          bool valid = true;
          for (unsigned pred : problem.getPreds(target))
            if (!testBit(set, pred)) {
              valid &= testBit(candidates, pred) && pred >= first;
              block.push_back(pred);
            }
          if (!valid || block.empty())
            continue;
          std::copy(set, set + numWords, scratch.begin());
          uint32_t scratchSize = size;
          int64_t after = mem, step = 0;
          size_t pathSize = path.size();
          for (unsigned pred : block)
            step = std::max(step, problem.runChain(scratch.data(), scratchSize,
                                                   pred, after, path,
                                                   /*followChains=*/false));
          step = std::max(step, problem.runChain(scratch.data(), scratchSize,
                                                 target, after, path,
                                                 /*followChains=*/true));
          if (commit(step, after, scratchSize, pathSize)) {
            changed = true;
            break;
          }
        }
      }
    }
  }
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
  if (peak >= incumbentPeak)
    return;
  SmallVector<unsigned> order = reconstruct(index);
  order.append(path.begin(), path.end());
  incumbent.assign(order.begin(), order.end());
  incumbentPeak = peak;
}

SearchOutcome ExactSearch::run(SmallVectorImpl<unsigned> &incumbent,
                               int64_t &incumbentPeak, int64_t target) {
  SearchOutcome outcome;
  unsigned n = problem.numNodes;
  table.assign(1024, kEmpty);

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
  applyFreeNodes(set.data(), size,
                 std::max(problem.remainingBound(set.data()), target), rootPeak,
                 mem, candidates.data(), path);
  states.push_back({rootPeak, mem, 0, 0, (uint32_t)path.size(), size,
                    hashBits(set.data(), numWords)});
  stateBits.insert(stateBits.end(), set.begin(), set.end());
  pathNodes.insert(pathNodes.end(), path.begin(), path.end());
  insert(0);
  if (size == n) {
    // Every node was free: the order reaches the static bound or the target.
    if (rootPeak < incumbentPeak) {
      incumbent.assign(path.begin(), path.end());
      incumbentPeak = rootPeak;
    }
    outcome.lowerBound = problem.globalBound;
    return outcome;
  }

  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  uint64_t sequence = 0;
  queue.push({rootPeak, rootPeak, sequence++, 0, false});
  SmallVector<Word> child(numWords), readyMask(numWords), parent(numWords);
  SmallVector<Word> piles;
  SmallVector<unsigned> moveTargets;
  while (!queue.empty() && incumbentPeak > target) {
    Entry entry = queue.top();
    if (entry.f >= incumbentPeak)
      break; // Nothing left can beat the incumbent.
    queue.pop();
    State state = states[entry.state];
    if (entry.peak != state.peak)
      continue; // Superseded by a better path to the same set.
    // Anytime: now and then, complete the best state greedily to improve the
    // incumbent while the proof goes on.
    if ((outcome.statesExplored & 1023) == 0) {
      tryGreedyCompletion(entry.state, incumbent, incumbentPeak);
      if (incumbentPeak <= target || entry.f >= incumbentPeak)
        break;
    }
    bool outOfTime =
        (++outcome.statesExplored & 15) == 0 && Clock::now() >= deadline;
    if (outOfTime || (maxStates && states.size() >= maxStates)) {
      // f is admissible and no entry has a smaller f: no order beats it.
      outcome.limitReached = true;
      outcome.lowerBound = std::max(problem.globalBound, entry.f);
      return outcome;
    }

    readyNodes(bits(entry.state), ready);
    std::fill(readyMask.begin(), readyMask.end(), 0);
    for (unsigned node : ready)
      setBit(readyMask.data(), node);
    if (!entry.refined) {
      // Tighten f lazily, once per state that reaches the top: the next step
      // holds the live bytes and the cheapest ready node's step.
      int64_t nextStep = std::numeric_limits<int64_t>::max();
      for (unsigned node : ready) {
        int64_t step, after;
        problem.transition(bits(entry.state), state.size == 0, state.mem, node,
                           step, after);
        nextStep = std::min(nextStep, step);
      }
      int64_t refined = std::max(
          {entry.f, nextStep, problem.dynamicBound(bits(entry.state))});
      if (refined > entry.f) {
        queue.push({refined, entry.peak, sequence++, entry.state, true});
        continue;
      }
    }
    // A copy: adding states may move stateBits.
    parent.assign(bits(entry.state), bits(entry.state) + numWords);
    const Word *parentBits = parent.data();
    problem.getMoves(parentBits, state.size == 0, readyMask.data(), piles,
                     moveTargets);
    for (auto [move, node] : llvm::enumerate(moveTargets)) {
      std::copy(parentBits, parentBits + numWords, child.begin());
      uint32_t childSize = state.size;
      int64_t after = state.mem;
      path.clear();
      int64_t peak = state.peak;
      // The pile, in id order (a topological order), then the target with
      // its forced chain.
      const Word *pile = &piles[move * numWords];
      bool valid = true;
      for (unsigned w = 0; w < numWords && valid; ++w)
        for (Word rest = pile[w]; rest; rest &= rest - 1) {
          unsigned pred = w * 64 + llvm::countr_zero(rest);
          if (!problem.idles(child.data(), pred)) {
            valid = false;
            break;
          }
          peak = std::max(peak, problem.runChain(child.data(), childSize, pred,
                                                 after, path,
                                                 /*followChains=*/false));
        }
      if (!valid || peak >= incumbentPeak ||
          (problem.isIdleRuleOn(state.size == 0) &&
           problem.idles(child.data(), node)))
        continue;
      peak =
          std::max(peak, problem.runChain(child.data(), childSize, node, after,
                                          path, /*followChains=*/true));
      if (peak >= incumbentPeak)
        continue;
      std::copy(readyMask.begin(), readyMask.end(), candidates.begin());
      updateReady(problem, child.data(), path, candidates.data());
      // Every completion of the child completes the parent, so entry.f
      // bounds it too.
      int64_t allowance = std::max(
          {peak, entry.f, problem.remainingBound(child.data()), target});
      applyFreeNodes(child.data(), childSize, allowance, peak, after,
                     candidates.data(), path);
      if (peak >= incumbentPeak)
        continue;

      if (childSize == n) {
        // A complete order better than the incumbent.
        SmallVector<unsigned> order = reconstruct(entry.state);
        order.append(path.begin(), path.end());
        incumbent.assign(order.begin(), order.end());
        incumbentPeak = peak;
        if (incumbentPeak <= target)
          break;
        continue;
      }
      int64_t f = std::max({peak, after, problem.remainingBound(child.data())});
      if (f >= incumbentPeak)
        continue;
      uint64_t hash = hashBits(child.data(), numWords);
      uint32_t existing = lookup(child.data(), hash);
      if (existing != kEmpty && states[existing].peak <= peak)
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
      queue.push({f, peak, sequence++, index, false});
    }
  }
  // Either the incumbent reached the target (and only the static bound is
  // known), or nothing left in the queue can beat it, so it is optimal.
  outcome.lowerBound =
      incumbentPeak <= target ? problem.globalBound : incumbentPeak;
  return outcome;
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

/// Returns the restriction of \p order (global ids) to \p problem, as local
/// ids.
static SmallVector<unsigned> restrictOrder(const Problem &problem,
                                           ArrayRef<NodeId> order) {
  SmallVector<unsigned> local;
  for (NodeId node : order)
    if (problem.localOf[node] >= 0)
      local.push_back(problem.localOf[node]);
  return local;
}

/// Returns the segments of \p whole: maximal runs of nodes between cut nodes
/// (each cut node is a segment of its own), in schedule order.
static SmallVector<SmallVector<NodeId>> findSegments(const Problem &whole) {
  SmallVector<SmallVector<NodeId>> segments(1);
  for (unsigned node = 0; node < whole.numNodes; ++node) {
    // Node ids are topological and a cut node is ordered against every
    // other node, so the nodes before it in id order are its ancestors.
    if (!whole.isCut(node)) {
      segments.back().push_back(node);
      continue;
    }
    if (!segments.back().empty())
      segments.emplace_back();
    segments.back().push_back(node);
    segments.emplace_back();
  }
  if (segments.back().empty())
    segments.pop_back();
  return segments;
}

ScheduleResult mlir::memopt::scheduleForMemory(const DataflowGraph &graph,
                                               ScheduleAlgorithm algorithm,
                                               const SchedulerLimits &limits) {
  Problem whole = makeWholeProblem(graph);
  ScheduleResult result;
  SmallVector<NodeId> input = graph.getProgramOrder();
  result.inputPeakBytes = whole.evaluate(input);
  result.lowerBound = whole.globalBound;

  auto finish = [&](ArrayRef<NodeId> order) {
    result.order.assign(order.begin(), order.end());
    result.peakBytes = whole.evaluate(result.order);
    result.lowerBound = std::min(result.lowerBound, result.peakBytes);
    result.optimal = result.peakBytes == result.lowerBound;
    return result;
  };
  switch (algorithm) {
  case ScheduleAlgorithm::Input:
    return finish(input);
  case ScheduleAlgorithm::Kahn:
    return finish(kahnOrder(graph));
  case ScheduleAlgorithm::ReversePostOrder:
    return finish(reversePostOrder(graph));
  case ScheduleAlgorithm::Greedy:
    return finish(greedyOrder(whole));
  case ScheduleAlgorithm::Exact:
    break;
  }

  // Every order runs the segments one after the other, so each is scheduled
  // on its own and the peak is the largest segment peak.
  SmallVector<SmallVector<NodeId>> heuristics = {
      input, greedyOrder(whole), kahnOrder(graph), reversePostOrder(graph)};
  SmallVector<SmallVector<NodeId>> segmentNodes = findSegments(whole);
  SmallVector<unsigned> segmentOf(graph.getNumNodes());
  for (auto [index, nodes] : llvm::enumerate(segmentNodes))
    for (NodeId node : nodes)
      segmentOf[node] = index;

  struct Segment {
    std::unique_ptr<Problem> problem;
    SmallVector<unsigned> order;
    int64_t peak;
  };
  SmallVector<Segment> segments;
  int64_t target = whole.globalBound;
  for (auto [index, nodes] : llvm::enumerate(segmentNodes)) {
    Segment segment;
    segment.problem = std::make_unique<Problem>(graph, nodes, segmentOf, index);
    const Problem &problem = *segment.problem;
    // Incumbent: the best restriction of the whole-graph heuristics and the
    // greedy order of the segment, preferring the file order on ties.
    SmallVector<SmallVector<unsigned>> candidates;
    for (ArrayRef<NodeId> order : heuristics)
      candidates.push_back(restrictOrder(problem, order));
    candidates.push_back(greedyOrder(problem));
    segment.peak = std::numeric_limits<int64_t>::max();
    for (SmallVector<unsigned> &candidate : candidates) {
      int64_t peak = problem.evaluate(candidate);
      if (peak < segment.peak) {
        segment.peak = peak;
        segment.order = std::move(candidate);
      }
    }
    target = std::max(target, problem.globalBound);
    segments.push_back(std::move(segment));
  }

  // Search the segments with the highest incumbents first: they decide the
  // peak, and the bound they prove lets the others stop early.
  SmallVector<unsigned> byPeak;
  for (unsigned index = 0; index < segments.size(); ++index)
    byPeak.push_back(index);
  llvm::sort(byPeak, [&](unsigned a, unsigned b) {
    return std::make_pair(-segments[a].peak, a) <
           std::make_pair(-segments[b].peak, b);
  });
  using Clock = std::chrono::steady_clock;
  Clock::time_point deadline =
      limits.timeLimitMs
          ? Clock::now() + std::chrono::milliseconds(limits.timeLimitMs)
          : Clock::time_point::max();
  for (unsigned index : byPeak) {
    Segment &segment = segments[index];
    if (segment.peak <= target)
      continue;
    ExactSearch search(*segment.problem, deadline, limits.maxStates);
    SearchOutcome outcome = search.run(segment.order, segment.peak, target);
    result.statesExplored += outcome.statesExplored;
    result.limitReached |= outcome.limitReached;
    target = std::max(target, outcome.lowerBound);
  }

  SmallVector<NodeId> order;
  for (const Segment &segment : segments)
    for (unsigned local : segment.order)
      order.push_back(segment.problem->nodes[local]);
  result.lowerBound = target;
  return finish(order);
}
