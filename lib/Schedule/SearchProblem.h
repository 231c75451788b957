//===- SearchProblem.h - Bitset form of a segment ---------------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Schedule. A SearchProblem is the StepModel of one segment
// plus what the search needs to go fast: node sets as 64-bit words, static
// bounds, forced chains and the moves of the idle-node rule. Its transition
// is StepModel::step with a bitset test for "last reader"; there is no other
// copy of the step rule. Also declares the algorithms each file defines.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_SCHEDULE_SEARCHPROBLEM_H
#define MEMOPT_LIB_SCHEDULE_SEARCHPROBLEM_H

#include "MemOpt/Schedule/Scheduler.h"
#include "MemOpt/Schedule/StepModel.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <vector>

namespace mlir {
namespace memopt {
namespace schedule {

/// A set of nodes as a fixed number of 64-bit words.
using Word = uint64_t;

/// Returns true if bit \p i of \p bits is set.
inline bool testBit(const Word *bits, unsigned i) {
  return (bits[i / 64] >> (i % 64)) & 1;
}
/// Sets bit \p i of \p bits.
inline void setBit(Word *bits, unsigned i) {
  bits[i / 64] |= Word(1) << (i % 64);
}

/// A contiguous part of the schedule: every order runs the nodes of segment
/// k before those of segment k + 1. Buffers made by earlier segments are
/// inputs of later ones; buffers read later are outputs.
class SearchProblem : public StepModel {
public:
  /// Builds the problem of segment \p segment of \p layout, a layout of
  /// \p problem: the lists, forced chains, static bounds and greedy
  /// completion, in time O((nodes + edges) * buffers / 64) and linear
  /// memory. \p bounds says which static bounds to compute. The search
  /// needs prepareSearch() first.
  enum class Bounds {
    /// None (for a greedy order alone): stepBound stays empty and
    /// globalBound 0.
    None,
    /// Each node's inputs, outputs and workspace and the buffers kept
    /// through the segment: O(nodes + edges), for a segment too large to
    /// search, whose bound is only reported.
    Local,
    /// Also the buffers made by an ancestor and read by a descendant:
    /// O((nodes + edges) * buffers / 64).
    Full,
  };
  SearchProblem(const Problem &problem, const SegmentLayout &layout,
                unsigned segment, Bounds bounds = Bounds::Full);

  /// Builds what only the search uses: the reader bitsets, ancestors,
  /// descendants and the per-node buffer sets of dynamicBound (memory
  /// quadratic in the segment), and raises each stepBound (and globalBound)
  /// to the charged bound of the node's step before any node runs
  /// (chargedExtra, rounded by roundUpStep; O(nodes * (nodes + edges))).
  /// Does nothing the second time.
  void prepareSearch();

  /// Returns true if every predecessor of \p node is in \p set. Needs
  /// prepareSearch().
  bool isReady(const Word *set, unsigned node) const {
    const Word *predBits = &predMask[size_t(node) * numWords];
    for (unsigned w = 0; w < numWords; ++w)
      if (predBits[w] & ~set[w])
        return false;
    return true;
  }

  /// Computes the bytes live at the step that runs \p node after \p set
  /// (whose live bytes are \p mem), and the live bytes after it: the step
  /// rule of StepModel, with "last reader" read off the bitsets.
  void transition(const Word *set, bool setIsEmpty, int64_t mem, unsigned node,
                  int64_t &atStep, int64_t &after) const {
    StepModel::step(
        node, setIsEmpty, mem,
        [&](unsigned buffer) { return isLastReader(set, node, buffer); },
        atStep, after);
  }

  /// Returns the peak of a complete \p order of local node ids.
  int64_t evaluate(llvm::ArrayRef<unsigned> order) const;

  /// Runs \p node after \p set (updating it, \p size and \p mem), then, if
  /// \p followChains, the chain of nodes forced after it. Appends the nodes
  /// to \p path and returns the largest step.
  int64_t runChain(Word *set, uint32_t &size, unsigned node, int64_t &mem,
                   llvm::SmallVectorImpl<unsigned> &path,
                   bool followChains) const {
    int64_t peak = 0;
    for (int next = node; next >= 0;
         next = followChains ? forcedNext[next] : -1) {
      int64_t atStep, after;
      transition(set, size == 0, mem, next, atStep, after);
      peak = std::max(peak, atStep);
      setBit(set, next);
      ++size;
      mem = after;
      path.push_back(next);
    }
    return peak;
  }

  /// Completes \p set (of \p size nodes; empty if null) memory-greedily:
  /// the ready node (with its forced chain if \p followChains) with the
  /// smallest step, then the smallest live bytes after it, then the
  /// smallest id. Appends the nodes to \p path and returns the peak, which
  /// starts at \p peak. Stops early once the peak reaches \p stopAt. Keeps
  /// the candidates in a heap and rescores one only when a buffer it reads
  /// loses readers to the point where it may die there, so a completion
  /// costs O((nodes + edges) log nodes) on graphs of few forced chains.
  int64_t completeGreedily(const Word *set, uint32_t size, int64_t mem,
                           int64_t peak, llvm::SmallVectorImpl<unsigned> &path,
                           bool followChains, int64_t stopAt) const;

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
  /// read, or that are kept, are all live at v's step; for the two nodes
  /// still to run with the largest static bounds, also their charged extra
  /// after \p set (chargedExtra), rounded up to a value their step can hold
  /// (roundUpStep). Returns the larger of that bound and
  /// \p floor; stops once the result reaches \p ceiling (the result is then
  /// a lower bound of at least \p ceiling). Nodes are tried by decreasing
  /// liveCap, and the first whose cap cannot raise the result ends the loop.
  int64_t dynamicBound(const Word *set, int64_t floor = 0,
                       int64_t ceiling =
                           std::numeric_limits<int64_t>::max()) const;


  /// Returns the local predecessors of \p node, ascending.
  llvm::ArrayRef<unsigned> getPreds(unsigned node) const { return preds[node]; }

  /// Returns true if \p node idles when it runs after \p set: it frees no
  /// input, has no workspace, every output outlives its step, and some node
  /// of the problem reads its outputs. See getMoves for the rule this enables.
  bool idles(const Word *set, unsigned node) const {
    if (!testBit(canIdle.data(), node))
      return false;
    for (unsigned input : localNodes[node].inputs)
      if (dies(set, node, input))
        return false;
    return true;
  }

  /// Returns true if the idle rule holds after a set that is empty iff
  /// \p setIsEmpty: always, except on the first step when it holds unused
  /// inputs (moving the first node later would move those bytes onto the
  /// step that replaces it).
  bool isIdleRuleOn(bool setIsEmpty) const {
    return !(setIsEmpty && unusedInputBytes);
  }

  /// Computes the moves of the search after \p set (whose ready nodes are
  /// \p ready): each is a pile of nodes (a node set, numWords words appended
  /// to \p piles) that must all idle when run in id order, then a target
  /// node (appended to \p targets) that must not idle.
  ///
  /// Idle nodes are best run late. Take an optimal completion of \p set and
  /// an idle node x in it: no input of x dies at x (so x gets no in-place
  /// saving), x has no workspace, and all its outputs stay live after it, so
  /// its step is the bytes before it plus out(x), its outputs. Its target z
  /// is the first later node that reads an output of x or that kills an
  /// input of x (is its last reader; a killer frees, so it does not idle).
  /// Move x to just before z:
  ///  - a node y that x jumps over reads no output of x, and is the last
  ///    reader of no input of x (it would be the target), so the inputs that
  ///    die at y are the same, and so is its in-place saving: its step and
  ///    the bytes after it lose exactly out(x);
  ///  - x still kills nothing: the last reader of each of its inputs is z or
  ///    later (a last reader between x and z would be the target), and it
  ///    still has no saving; its new step is the bytes before z, which
  ///    include out(x);
  ///  - z and every later node see the same set and bytes as before, and z's
  ///    step is at least the bytes before it, because a saving never
  ///    exceeds what the step allocates (StepModel clamps it).
  /// So no step grows, in-place savings included: the argument only needs
  /// that the set before a node decides its saving, and that no node whose
  /// set changes gains or loses a dying input. The one exception is the
  /// first step, which also holds the unused inputs (isIdleRuleOn).
  /// Doing this for every idle node, from the last to the first, gives an
  /// optimal completion in which idle nodes pile up before their targets.
  /// The outputs of a pile stay live through its target, whose step is at
  /// least every step of the pile, and no pile node kills an input (its last
  /// reader is the target or later), so the order within the pile does not
  /// matter. The completion starts with a pile and a target z that does not
  /// idle. The pile holds z's unscheduled ancestors and, for each input z
  /// kills, the input's other readers and their ancestors: one move per
  /// choice of killed inputs. After an empty set with unused inputs, every
  /// ready node is a move of its own.
  ///
  /// Reads the clock every 64 nodes and returns false, with the moves
  /// incomplete, once \p deadline has passed (the safety stop).
  bool getMoves(const Word *set, bool setIsEmpty, const Word *ready,
                llvm::SmallVectorImpl<Word> &piles,
                llvm::SmallVectorImpl<unsigned> &targets,
                std::chrono::steady_clock::time_point deadline =
                    std::chrono::steady_clock::time_point::max()) const;

  /// The nodes that may idle: no workspace, no output that dies at once
  /// (unread and not kept), and outputs that some node of the problem
  /// reads.
  llvm::SmallVector<Word> canIdle;

  unsigned numWords = 0;
  /// Local successors and predecessors of each node.
  llvm::SmallVector<llvm::SmallVector<unsigned, 4>> succs, preds;
  /// Local readers of each local buffer, ascending; local outputs of each
  /// node (pinned ones left out).
  llvm::SmallVector<llvm::SmallVector<unsigned, 2>> readers, outputs;
  /// True once prepareSearch() ran.
  bool searchReady = false;
  /// Static lower bound of each node's step, and of the whole problem.
  llvm::SmallVector<int64_t> stepBound;
  int64_t globalBound = 0;
  /// Nodes by decreasing stepBound.
  llvm::SmallVector<unsigned> nodesByBound;
  /// For node u, a node v that can always run right after u without raising
  /// the peak (see computeChains), or -1.
  llvm::SmallVector<int> forcedNext;
  /// False for nodes whose chain always allocates more than it can free:
  /// they never qualify for the dominance rule.
  llvm::SmallVector<bool> mayFree;

private:
  /// Returns true if no reader of \p buffer other than \p node is outside
  /// \p set: \p node is its last reader.
  bool isLastReader(const Word *set, unsigned node, unsigned buffer) const {
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
  /// Returns true if \p buffer dies when \p node runs after \p set.
  bool dies(const Word *set, unsigned node, unsigned buffer) const {
    return !buffers[buffer].kept && isLastReader(set, node, buffer);
  }
  /// Returns true if \p node is the only reader of \p buffer.
  bool isOnlyReader(unsigned buffer, unsigned node) const {
    return readers[buffer].size() == 1 && readers[buffer][0] == node;
  }
  /// Returns the bytes live at \p node's step in every order in which the
  /// buffers of \p made exist before it: those it or a descendant reads or
  /// that are kept, made by \p made, by an ancestor or before the problem,
  /// plus its own step bytes.
  int64_t liveAtStep(unsigned node, const Word *made) const;
  /// Returns a lower bound on the bytes live at \p node's step, after
  /// \p set (whose made buffers, with those made before the problem, are
  /// \p made), beyond those liveAtStep counts: the charged bound
  /// (docs/Scheduling.md, item 11). A buffer made before the step that
  /// neither \p node nor a descendant reads is either live there or all its
  /// readers ran before; a node x unordered with \p node that runs before
  /// it leaves its outputs live there, or all their readers ran before too.
  /// The charge of x is what that costs at least: per output, its bytes if
  /// \p node or a descendant reads it, else the least of its bytes and the
  /// charges of its readers, each divided by the reader's number of inputs
  /// (so a reader's charge is spent once). The extra is, over the buffers
  /// made before the step that nothing forces, the least of the buffer's
  /// bytes and its readers' shares. O(nodes + edges). \p charge is scratch
  /// of numNodes entries.
  int64_t chargedExtra(const Word *set, unsigned node, const Word *made,
                       llvm::SmallVectorImpl<int64_t> &charge) const;
  /// Returns the least value of at least \p bytes that \p node's step can
  /// hold, not counting the entry bytes of the first step: the bytes live
  /// before a step are a multiple of `granularity`, and so is a saving, so
  /// the step is congruent to the node's step bytes modulo it
  /// (docs/Scheduling.md, item 13).
  int64_t roundUpStep(unsigned node, int64_t bytes) const {
    if (granularity <= 1)
      return bytes;
    int64_t gap = (localNodes[node].stepBytes - bytes) % granularity;
    return bytes + (gap < 0 ? gap + granularity : gap);
  }
  /// Computes ancestors, descendants and the per-node buffer sets.
  void computeRelations();
  /// Computes stepBound, globalBound and nodesByBound; with \p full, the
  /// buffers made by ancestors and read by descendants count too.
  void computeStaticBounds(bool full);
  /// Finds chains u -> v along which v can always follow u at once: v's only
  /// predecessor is u, v is the only reader of u's single output o, v adds
  /// no more bytes than o holds, and v's step adds no more than u's step
  /// frees. Moving v up to u then lowers every step it jumps over by
  /// bytes(o) - bytes(v's outputs), and v's new step is at most u's.
  void computeChains();

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
  /// Per node, the bytes live at its step in every order (its step bytes
  /// and the needed buffers made before it for sure), and, over buffers,
  /// the needed buffers that only the set can have made: liveAtStep is
  /// liveBase plus the bytes of made & madeMask.
  llvm::SmallVector<int64_t> liveBase;
  std::vector<Word> madeMask;
  /// Per node, the most liveAtStep can give whatever is made: its step
  /// bytes and every buffer needed at its step. Nodes by decreasing cap.
  llvm::SmallVector<int64_t> liveCap;
  llvm::SmallVector<unsigned> nodesByCap;
  /// Buffers made before the problem.
  llvm::SmallVector<Word> madeOutside;
  /// The greatest common divisor of the bytes of every buffer, the bytes
  /// live before the first step and every in-place saving (0 if all are 0):
  /// the bytes live between two steps are a multiple of it.
  int64_t granularity = 0;
};

//===----------------------------------------------------------------------===//
// The algorithms, one file each
//===----------------------------------------------------------------------===//

/// Breadth-first topological order (Baselines.cpp).
llvm::SmallVector<NodeId> kahnOrder(const Problem &problem);
/// Reverse post-order of a depth-first search from the sources
/// (Baselines.cpp).
llvm::SmallVector<NodeId> reversePostOrder(const Problem &problem);
/// Memory-greedy order of \p problem, as local ids (Baselines.cpp).
llvm::SmallVector<NodeId> greedyOrder(const SearchProblem &problem);

/// What one exact search established (ExactSearch.cpp).
struct SearchOutcome {
  /// A proven lower bound on the peak of every order of the problem, or the
  /// target if the incumbent reached it.
  int64_t lowerBound = 0;
  /// The limit that stopped the search, if any.
  StopReason stoppedBy = StopReason::None;
  /// States expanded.
  uint64_t statesExplored = 0;
};

/// Searches \p problem for an order better than \p incumbent (local ids,
/// peak \p incumbentPeak), updating both when it finds one. Stops early once
/// the incumbent is at most \p target, a bound known to hold elsewhere; stops
/// with a proven bound when \p maxStates states are stored (0: no budget)
/// or, as a safety stop, at \p deadline; searches best first until it has
/// spent \p bestFirstStates expansions above the bound it started from (0:
/// not at all), then in rounds under a budget; calls \p onProgress, if set,
/// every 1024 expansions with \p statesBefore added to its state count
/// (ExactSearch.cpp).
SearchOutcome
searchExact(const SearchProblem &problem,
            std::chrono::steady_clock::time_point deadline, uint64_t maxStates,
            uint64_t bestFirstStates,
            llvm::SmallVectorImpl<unsigned> &incumbent, int64_t &incumbentPeak,
            int64_t target,
            const std::function<void(const Progress &)> &onProgress,
            uint64_t statesBefore);

/// Returns the static lower bound of \p problem: the largest static bound
/// of its segments (Segments.cpp).
int64_t computeStaticBound(const Problem &problem);

/// The exact engine: cuts \p problem into segments, searches each and joins
/// their orders (Segments.cpp). The limits bound the whole call.
Result scheduleExactly(const Problem &problem, const Limits &limits);

} // namespace schedule
} // namespace memopt
} // namespace mlir

#endif // MEMOPT_LIB_SCHEDULE_SEARCHPROBLEM_H
