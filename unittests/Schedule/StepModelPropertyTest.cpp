//===- StepModelPropertyTest.cpp - IR-free scheduling vs brute force ------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Random schedule::Problems with workspace, in-place inputs, pinned buffers,
// returned buffers, unused inputs and extra ordering edges, built without IR.
// The reference is a brute force written here from docs/MemoryModel.md in
// the interval form (a buffer is live from its producer's step to its last
// reader's; each step adds the node's workspace and subtracts an in-place
// saving), which never calls the StepModel. The step model's replay must
// match it step by step, and the exact scheduler must find the minimum over
// all topological orders.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Schedule/Scheduler.h"
#include "MemOpt/Schedule/StepModel.h"
// The internal bitset form of a segment, for the bounds' hand-checked cases.
#include "../../lib/Schedule/SearchProblem.h"

// rapidcheck/gtest.h needs gtest/gtest.h first.
#include "gtest/gtest.h"

#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <ostream>
#include <vector>

using namespace mlir::memopt::schedule;

namespace mlir {
namespace memopt {
namespace schedule {
/// Prints \p problem in counterexamples.
void showValue(const Problem &problem, std::ostream &os) {
  auto list = [&](llvm::ArrayRef<unsigned> ids) {
    os << "[";
    for (auto [index, id] : llvm::enumerate(ids))
      os << (index ? " " : "") << id;
    os << "]";
  };
  for (NodeId id = 0; id < problem.getNumNodes(); ++id) {
    const Node &node = problem.getNode(id);
    os << "\n  node " << id << ": preds ";
    list(node.preds);
    os << " inputs ";
    list(node.inputs);
    os << " outputs ";
    list(node.outputs);
    os << " workspace " << node.workspaceBytes;
    if (node.inPlaceInput)
      os << " in-place " << *node.inPlaceInput << " saving "
         << node.inPlaceSaving;
  }
  for (BufferId id = 0; id < problem.getNumBuffers(); ++id) {
    const Buffer &buffer = problem.getBuffer(id);
    os << "\n  buffer " << id << ": " << buffer.bytes << " bytes, producer ";
    if (buffer.producer)
      os << *buffer.producer;
    else
      os << "none";
    os << " readers ";
    list(buffer.readers);
    if (buffer.hasWriters()) {
      os << " writers ";
      list(buffer.writers);
    }
    os << (buffer.isGraphOutput ? " returned" : "")
       << (buffer.pinned ? " pinned" : "");
  }
}
} // namespace schedule
} // namespace memopt
} // namespace mlir

namespace {

/// Generates a random well-formed problem of up to \p maxNodes nodes; with
/// \p writers, some nodes also write into a buffer made earlier (a concat's
/// operand produced into its slice), and each such buffer that is not
/// returned or pinned gets a reader that waits for all its writers.
rc::Gen<Problem> genProblem(int maxNodes, bool writers = false) {
  return rc::gen::exec([maxNodes, writers] {
    Problem problem;
    int numInputs = *rc::gen::inRange(0, 4);
    for (int i = 0; i < numInputs; ++i) {
      Buffer buffer;
      buffer.bytes = *rc::gen::inRange<int64_t>(0, 65);
      buffer.isGraphOutput = *rc::gen::inRange(0, 5) == 0;
      buffer.pinned = *rc::gen::inRange(0, 4) == 0;
      problem.addBuffer(buffer);
    }
    // Full size: rapidcheck would otherwise start with tiny problems.
    int numNodes = *rc::gen::resize(100, rc::gen::inRange(0, maxNodes + 1));
    for (int id = 0; id < numNodes; ++id) {
      Node node;
      // Inputs: a random subset of the buffers made so far.
      for (BufferId buffer = 0; buffer < problem.getNumBuffers(); ++buffer)
        if (*rc::gen::inRange(0, 3) == 0)
          node.inputs.push_back(buffer);
      // Ordering edges: the producers of the inputs, and some others.
      for (BufferId buffer : node.inputs)
        if (std::optional<NodeId> producer = problem.getBuffer(buffer).producer)
          node.preds.push_back(*producer);
      for (int pred = 0; pred < id; ++pred)
        if (*rc::gen::inRange(0, 6) == 0)
          node.preds.push_back(pred);
      llvm::sort(node.preds);
      node.preds.erase(std::unique(node.preds.begin(), node.preds.end()),
                       node.preds.end());
      node.workspaceBytes = *rc::gen::inRange<int64_t>(0, 3) * 8;
      int numOutputs = *rc::gen::inRange(0, 3);
      NodeId nodeId = problem.addNode(node);
      for (int i = 0; i < numOutputs; ++i) {
        Buffer buffer;
        buffer.bytes = *rc::gen::inRange<int64_t>(0, 65);
        buffer.producer = nodeId;
        buffer.isGraphOutput = *rc::gen::inRange(0, 4) == 0;
        buffer.pinned = *rc::gen::inRange(0, 5) == 0;
        problem.getNode(nodeId).outputs.push_back(
            problem.addBuffer(std::move(buffer)));
      }
      // Write into a buffer an earlier node made (not one this node reads,
      // and only once).
      if (writers && *rc::gen::inRange(0, 2) == 0) {
        llvm::SmallVector<BufferId> candidates;
        for (BufferId buffer = 0; buffer < problem.getNumBuffers(); ++buffer) {
          const Buffer &info = problem.getBuffer(buffer);
          if (info.producer && *info.producer < nodeId &&
              !llvm::is_contained(problem.getNode(nodeId).inputs, buffer) &&
              !llvm::is_contained(info.writers, nodeId))
            candidates.push_back(buffer);
        }
        if (!candidates.empty()) {
          BufferId shared =
              candidates[*rc::gen::inRange<size_t>(0, candidates.size())];
          problem.getBuffer(shared).writers.push_back(nodeId);
          problem.getNode(nodeId).outputs.push_back(shared);
        }
      }
      Node &added = problem.getNode(nodeId);
      if (!added.inputs.empty() && *rc::gen::inRange(0, 2) == 0) {
        added.inPlaceInput =
            added.inputs[*rc::gen::inRange<size_t>(0, added.inputs.size())];
        int64_t allocated = added.workspaceBytes;
        for (BufferId output : added.outputs)
          allocated += problem.getBuffer(output).bytes;
        added.inPlaceSaving = *rc::gen::inRange<int64_t>(
            0,
            std::min(allocated, problem.getBuffer(*added.inPlaceInput).bytes) +
                1);
      }
      for (BufferId buffer : added.inputs)
        problem.getBuffer(buffer).readers.push_back(nodeId);
    }
    if (!writers)
      return problem;
    // A saving never counts a multi-writer output (another writer may have
    // allocated it).
    for (NodeId id = 0; id < problem.getNumNodes(); ++id) {
      Node &node = problem.getNode(id);
      if (!node.inPlaceInput)
        continue;
      int64_t allocated = node.workspaceBytes;
      for (BufferId output : node.outputs)
        if (!problem.getBuffer(output).hasWriters())
          allocated += problem.getBuffer(output).bytes;
      node.inPlaceSaving = std::min(node.inPlaceSaving, allocated);
    }
    // The concat: a reader after every writer, unless kept to the end.
    for (BufferId id = 0, e = problem.getNumBuffers(); id < e; ++id) {
      Buffer &buffer = problem.getBuffer(id);
      if (!buffer.hasWriters() || buffer.isGraphOutput || buffer.pinned)
        continue;
      Node concat;
      concat.inputs.push_back(id);
      concat.preds.push_back(*buffer.producer);
      concat.preds.append(buffer.writers.begin(), buffer.writers.end());
      if (*rc::gen::inRange(0, 2) == 0) {
        Buffer result;
        result.bytes = *rc::gen::inRange<int64_t>(0, 65);
        result.producer = problem.getNumNodes();
        result.isGraphOutput = *rc::gen::inRange(0, 2) == 0;
        concat.outputs.push_back(problem.getNumBuffers());
        problem.addBuffer(std::move(result));
      }
      problem.getBuffer(id).readers.push_back(problem.addNode(concat));
    }
    return problem;
  });
}

/// Generates a random problem of up to \p maxNodes nodes shaped like the
/// lowering's int8 graphs, where in-place ops meet the idle-node rule of the
/// exact search: buffers with several readers, one output per node, and most
/// nodes overwriting an input in place (saving all of it, as an elementwise
/// op of one type does, or part of it), some with workspace. No pinned
/// buffers and few returned ones, so that inputs die and savings count.
rc::Gen<Problem> genInPlaceProblem(int maxNodes) {
  return rc::gen::exec([maxNodes] {
    Problem problem;
    int numInputs = *rc::gen::inRange(1, 3);
    for (int i = 0; i < numInputs; ++i) {
      Buffer buffer;
      buffer.bytes = *rc::gen::inRange<int64_t>(1, 5) * 16;
      problem.addBuffer(buffer);
    }
    int numNodes = *rc::gen::resize(100, rc::gen::inRange(1, maxNodes + 1));
    for (int id = 0; id < numNodes; ++id) {
      Node node;
      // One or two inputs among the buffers made so far, recent ones first.
      unsigned numBuffers = problem.getNumBuffers();
      int numNodeInputs = *rc::gen::inRange(1, 3);
      for (int i = 0; i < numNodeInputs; ++i) {
        unsigned back = *rc::gen::inRange(0u, std::min(numBuffers, 4u));
        node.inputs.push_back(numBuffers - 1 - back);
      }
      llvm::sort(node.inputs);
      node.inputs.erase(std::unique(node.inputs.begin(), node.inputs.end()),
                        node.inputs.end());
      for (BufferId buffer : node.inputs)
        if (std::optional<NodeId> producer = problem.getBuffer(buffer).producer)
          node.preds.push_back(*producer);
      llvm::sort(node.preds);
      node.preds.erase(std::unique(node.preds.begin(), node.preds.end()),
                       node.preds.end());
      node.workspaceBytes = *rc::gen::inRange(0, 4) == 0 ? 16 : 0;
      NodeId nodeId = problem.addNode(node);
      Buffer output;
      output.bytes = *rc::gen::inRange<int64_t>(1, 5) * 16;
      output.producer = nodeId;
      output.isGraphOutput = *rc::gen::inRange(0, 8) == 0;
      problem.getNode(nodeId).outputs.push_back(
          problem.addBuffer(std::move(output)));
      Node &added = problem.getNode(nodeId);
      if (*rc::gen::inRange(0, 4) != 0) {
        added.inPlaceInput =
            added.inputs[*rc::gen::inRange<size_t>(0, added.inputs.size())];
        int64_t most =
            std::min(added.workspaceBytes +
                         problem.getBuffer(added.outputs.front()).bytes,
                     problem.getBuffer(*added.inPlaceInput).bytes);
        added.inPlaceSaving = *rc::gen::inRange(0, 3) == 0
                                  ? *rc::gen::inRange<int64_t>(0, most + 1)
                                  : most;
      }
      for (BufferId buffer : added.inputs)
        problem.getBuffer(buffer).readers.push_back(nodeId);
    }
    // The last output is returned, as a model's is.
    problem.getBuffer(problem.getNumBuffers() - 1).isGraphOutput = true;
    return problem;
  });
}

/// Generates a problem for the bound properties: a random one or an
/// in-place-heavy one, half of the time with every buffer's bytes and every
/// saving multiplied by a factor of 8 to 64 and the workspace left as it is,
/// so the bytes live between steps have a granularity that workspace breaks
/// (docs/Scheduling.md, item 13).
rc::Gen<Problem> genBoundProblem(int maxNodes) {
  return rc::gen::exec([maxNodes] {
    Problem problem = *rc::gen::arbitrary<bool>() ? *genInPlaceProblem(maxNodes)
                                                  : *genProblem(maxNodes);
    if (*rc::gen::arbitrary<bool>())
      return problem;
    int64_t factor = *rc::gen::element<int64_t>(8, 16, 24, 64);
    for (BufferId id = 0; id < problem.getNumBuffers(); ++id)
      problem.getBuffer(id).bytes *= factor;
    for (NodeId id = 0; id < problem.getNumNodes(); ++id) {
      Node &node = problem.getNode(id);
      int64_t allocated = node.workspaceBytes;
      for (BufferId output : node.outputs)
        allocated += problem.getBuffer(output).bytes;
      node.inPlaceSaving = std::min(node.inPlaceSaving * factor, allocated);
    }
    return problem;
  });
}

/// The brute-force profile of \p order: bytes live at each step.
std::vector<int64_t> bruteForceSteps(const Problem &problem,
                                     const std::vector<NodeId> &order) {
  size_t n = order.size();
  if (n == 0)
    return {};
  std::vector<size_t> pos(problem.getNumNodes());
  for (size_t step = 0; step < n; ++step)
    pos[order[step]] = step;
  // Live interval of every buffer.
  std::vector<size_t> first(problem.getNumBuffers()),
      last(problem.getNumBuffers());
  for (BufferId b = 0; b < problem.getNumBuffers(); ++b) {
    const Buffer &buffer = problem.getBuffer(b);
    first[b] = buffer.producer && !buffer.pinned ? pos[*buffer.producer] : 0;
    // Several writers: allocated by the first to run.
    if (!buffer.pinned)
      for (NodeId writer : buffer.writers)
        first[b] = std::min(first[b], pos[writer]);
    last[b] = first[b];
    for (NodeId reader : buffer.readers)
      last[b] = std::max(last[b], pos[reader]);
    if (buffer.isGraphOutput || buffer.pinned)
      last[b] = n - 1;
  }
  // Unread, unkept inputs are live at the entry only, with the other
  // inputs and the pinned buffers; the first step holds at least the entry.
  auto isUnusedInput = [&](BufferId b) {
    const Buffer &buffer = problem.getBuffer(b);
    return !buffer.producer && buffer.readers.empty() &&
           !buffer.isGraphOutput && !buffer.pinned;
  };
  int64_t entry = 0;
  for (BufferId b = 0; b < problem.getNumBuffers(); ++b)
    if (!problem.getBuffer(b).producer || problem.getBuffer(b).pinned)
      entry += problem.getBuffer(b).bytes;
  std::vector<int64_t> live(n, 0);
  for (size_t step = 0; step < n; ++step) {
    for (BufferId b = 0; b < problem.getNumBuffers(); ++b)
      if (first[b] <= step && step <= last[b] && !isUnusedInput(b))
        live[step] += problem.getBuffer(b).bytes;
    const Node &node = problem.getNode(order[step]);
    live[step] += node.workspaceBytes;
    // The in-place saving counts when the input dies here, which a
    // returned or pinned buffer never does, and never exceeds what the step
    // allocates besides pinned outputs.
    if (node.inPlaceInput) {
      const Buffer &in = problem.getBuffer(*node.inPlaceInput);
      int64_t allocated = node.workspaceBytes;
      for (BufferId output : node.outputs)
        if (!problem.getBuffer(output).pinned &&
            problem.getBuffer(output).writers.empty())
          allocated += problem.getBuffer(output).bytes;
      if (!in.isGraphOutput && !in.pinned && last[*node.inPlaceInput] == step)
        live[step] -= std::min(node.inPlaceSaving, allocated);
    }
  }
  live[0] = std::max(live[0], entry);
  return live;
}

/// Returns the peak of the brute-force steps \p live of \p problem: their
/// largest entry, or, without nodes, every buffer (all are inputs or pinned:
/// in memory although no op runs).
int64_t peakOf(const Problem &problem, const std::vector<int64_t> &live) {
  if (!live.empty())
    return *std::max_element(live.begin(), live.end());
  int64_t bytes = 0;
  for (const Buffer &buffer : problem.getBuffers())
    bytes += buffer.bytes;
  return bytes;
}

/// Returns the brute-force peak of \p order.
int64_t bruteForcePeak(const Problem &problem,
                       const std::vector<NodeId> &order) {
  return peakOf(problem, bruteForceSteps(problem, order));
}

/// Returns the smallest brute-force peak over all topological orders.
int64_t bruteForceOptimum(const Problem &problem) {
  unsigned n = problem.getNumNodes();
  std::vector<NodeId> order;
  std::vector<bool> done(n, false);
  int64_t best = std::numeric_limits<int64_t>::max();
  std::function<void()> recurse = [&] {
    if (order.size() == n) {
      best = std::min(best, bruteForcePeak(problem, order));
      return;
    }
    for (NodeId node = 0; node < n; ++node) {
      if (done[node] || !llvm::all_of(problem.getNode(node).preds,
                                      [&](NodeId pred) { return done[pred]; }))
        continue;
      done[node] = true;
      order.push_back(node);
      recurse();
      order.pop_back();
      done[node] = false;
    }
  };
  recurse();
  return best;
}

/// Returns a random topological order of \p problem.
std::vector<NodeId> genOrder(const Problem &problem) {
  unsigned n = problem.getNumNodes();
  std::vector<NodeId> order;
  std::vector<bool> done(n, false);
  while (order.size() < n) {
    std::vector<NodeId> ready;
    for (NodeId node = 0; node < n; ++node)
      if (!done[node] && llvm::all_of(problem.getNode(node).preds,
                                      [&](NodeId pred) { return done[pred]; }))
        ready.push_back(node);
    NodeId next = ready[*rc::gen::inRange<size_t>(0, ready.size())];
    done[next] = true;
    order.push_back(next);
  }
  return order;
}

} // namespace

//===----------------------------------------------------------------------===//
// Known answers
//===----------------------------------------------------------------------===//

namespace {
/// x (graph input, 100 B) -> a -> t (50 B) -> b -> y (returned, 30 B); b
/// may write y over t, saving 30 B.
Problem makeChain(bool pinIO, bool inPlace) {
  Problem problem;
  problem.addBuffer({100, std::nullopt, {0}, false, pinIO, "x"});
  problem.addBuffer({50, NodeId(0), {1}, false, false, "t"});
  problem.addBuffer({30, NodeId(1), {}, true, pinIO, "y"});
  Node a{{}, {0}, {1}, 0, std::nullopt, 0, "a"};
  Node b{{0}, {1}, {2}, 0, std::nullopt, 0, "b"};
  if (inPlace) {
    b.inPlaceInput = 1;
    b.inPlaceSaving = 30;
  }
  problem.addNode(a);
  problem.addNode(b);
  return problem;
}
} // namespace

TEST(StepModelTest, PinnedAndInPlaceChain) {
  // Step a: x + t = 150. Step b: t + y = 80 (x died at a).
  EXPECT_EQ(evaluate(makeChain(false, false), {0, 1}).liveBytes,
            (llvm::SmallVector<int64_t>{150, 80}));
  // y over the dying t saves 30: step b holds 50.
  EXPECT_EQ(evaluate(makeChain(false, true), {0, 1}).liveBytes,
            (llvm::SmallVector<int64_t>{150, 50}));
  // Pinned x and y live at both steps: 100 + 30 + t (50) = 180 each. y is
  // the caller's, so b allocates nothing at its step and cannot save 30 B
  // by writing y over t: 180 with or without the in-place rule.
  Evaluation pinned = evaluate(makeChain(true, true), {0, 1});
  EXPECT_EQ(pinned.liveBytes, (llvm::SmallVector<int64_t>{180, 180}));
  EXPECT_EQ(evaluate(makeChain(true, false), {0, 1}).liveBytes,
            (llvm::SmallVector<int64_t>{180, 180}));
  EXPECT_EQ(pinned.peakBytes, 180);
  EXPECT_EQ(pinned.peakStep, 0u);
  EXPECT_EQ(pinned.intervals[2].first, 0u);
  EXPECT_EQ(pinned.intervals[2].last, 1u);
}

// P makes nothing; A makes u (1 B, returned); B, after P, makes d (45 B,
// read by nobody) and t (23 B); C reads u and t. B's step always holds 68
// bytes, plus u if A ran before it: P A B C (the file order, Kahn's,
// reverse post-order's and greedy's) peaks at 1 + 45 + 23 = 69, P B A C at
// 68, the optimum. B frees nothing, but d lives at its step only, so B must
// not count as idle: the idle-node rule would then only try B right before
// C, after A, and prove 69. E, which does nothing, keeps C from being a cut
// node (so that A, B and C are searched together).
TEST(SchedulerTest, NodeWithADeadOutputDoesNotIdle) {
  Problem problem;
  problem.addBuffer({1, NodeId(1), {3}, true, false, "u"});
  problem.addBuffer({45, NodeId(2), {}, false, false, "d"});
  problem.addBuffer({23, NodeId(2), {3}, false, false, "t"});
  problem.addNode({{}, {}, {}, 0, std::nullopt, 0, "P"});
  problem.addNode({{}, {}, {0}, 0, std::nullopt, 0, "A"});
  problem.addNode({{0}, {}, {1, 2}, 0, std::nullopt, 0, "B"});
  problem.addNode({{1, 2}, {0, 2}, {}, 0, std::nullopt, 0, "C"});
  problem.addNode({{}, {}, {}, 0, std::nullopt, 0, "E"});
  std::string why;
  ASSERT_TRUE(succeeded(problem.check(&why))) << why;
  EXPECT_EQ(scheduleForMemory(problem, Algorithm::Input).peakBytes, 69);
  Result exact = scheduleForMemory(problem, Algorithm::Exact);
  EXPECT_EQ(exact.peakBytes, 68);
  EXPECT_EQ(exact.lowerBound, 68);
  EXPECT_TRUE(exact.optimal);
  EXPECT_EQ(evaluatePeak(problem, exact.order), 68);
}

// A node that overwrites a dying input in place frees bytes, so it must not
// idle (docs/Scheduling.md, item 9): found by
// StepModelProperty.ExactMatchesBruteForceInPlace against a rule that let a
// node idle while its in-place input dies. Input x (48 B) is read by A and
// B. A makes p (16 B, returned, read by D) over x in place (saving 16 B when
// x dies at A); B makes q (32 B) for C and D; C (after B) makes r (16 B,
// returned) over q in place (saving 16 B); D (after A and B) reads p and q
// and makes s (16 B, returned) with 16 B of workspace. The five orders:
//   A B C D: A 48+16 = 64, B 64+32 = 96 (x dies), C 64, D 48+16+16+16 = 96;
//   A B D C: B 96 again;
//   B A C D: B 48+32 = 80, A 80+16-16 = 80, C 48+16 = 64, D 64+32 = 96;
//   B A D C: B 80, A 80, D 48+16+16 = 80, C 64+16-16 = 64: peak 80;
//   B C A D: C 80+16 = 96.
// The optimum is 80, only with A right after B. Deferring A to its target D
// (as if it idled) keeps x live over C's step: 96.
TEST(SchedulerTest, InPlaceKillerDoesNotIdle) {
  Problem problem;
  problem.addBuffer({48, std::nullopt, {0, 1}, false, false, "x"});
  problem.addBuffer({16, NodeId(0), {3}, true, false, "p"});
  problem.addBuffer({32, NodeId(1), {2, 3}, false, false, "q"});
  problem.addBuffer({16, NodeId(2), {}, true, false, "r"});
  problem.addBuffer({16, NodeId(3), {}, true, false, "s"});
  problem.addNode({{}, {0}, {1}, 0, BufferId(0), 16, "A"});
  problem.addNode({{}, {0}, {2}, 0, std::nullopt, 0, "B"});
  problem.addNode({{1}, {2}, {3}, 0, BufferId(2), 16, "C"});
  problem.addNode({{0, 1}, {1, 2}, {4}, 16, std::nullopt, 0, "D"});
  std::string why;
  ASSERT_TRUE(succeeded(problem.check(&why))) << why;
  EXPECT_EQ(bruteForceOptimum(problem), 80);
  EXPECT_EQ(evaluatePeak(problem, {1, 0, 3, 2}), 80);
  EXPECT_EQ(evaluatePeak(problem, {1, 0, 2, 3}), 96);
  Result exact = scheduleForMemory(problem, Algorithm::Exact);
  EXPECT_EQ(exact.peakBytes, 80);
  EXPECT_EQ(exact.lowerBound, 80);
  EXPECT_TRUE(exact.optimal);
  EXPECT_EQ(exact.order, (llvm::SmallVector<NodeId>{1, 0, 3, 2}));
}

TEST(ProblemTest, CheckRejectsIllFormedProblems) {
  std::string why;
  EXPECT_TRUE(succeeded(makeChain(false, true).check(&why))) << why;

  Problem badInPlace = makeChain(false, false);
  badInPlace.getNode(1).inPlaceInput = 0; // x is not an input of b.
  EXPECT_TRUE(failed(badInPlace.check(&why)));
  EXPECT_EQ(why, "the in-place input of 'b' is not one of its inputs");

  Problem savingAlone = makeChain(false, false);
  savingAlone.getNode(1).inPlaceSaving = 8;
  EXPECT_TRUE(failed(savingAlone.check(&why)));
  EXPECT_EQ(why, "'b' saves 8 bytes in place but has no in-place input");

  Problem savingTooLarge = makeChain(false, true);
  savingTooLarge.getNode(1).inPlaceSaving = 40; // b allocates y, 30 B.
  EXPECT_TRUE(failed(savingTooLarge.check(&why)));
  EXPECT_EQ(why, "'b' saves 40 bytes in place, more than its in-place input "
                 "holds (50) or its step allocates (30)");

  Problem cycle = makeChain(false, false);
  cycle.getNode(0).preds.push_back(1); // a after b after a.
  EXPECT_TRUE(failed(cycle.check(&why)));
  EXPECT_EQ(why, "'a' has predecessor 'b' with an id not smaller than its "
                 "own; node ids must be a topological order (which also "
                 "rules out cycles)");

  Problem unordered = makeChain(false, false);
  unordered.getNode(1).preds.clear(); // b reads t without waiting for a.
  EXPECT_TRUE(failed(unordered.check(&why)));
  EXPECT_EQ(why, "'b' reads 't' but does not depend on its producer 'a'");

  Problem missingReader = makeChain(false, false);
  missingReader.getBuffer(1).readers.clear();
  EXPECT_TRUE(failed(missingReader.check(&why)));
  EXPECT_EQ(why, "'b' reads 't', which does not list it as a reader");

  Problem outOfRange = makeChain(false, false);
  outOfRange.getNode(1).outputs.push_back(7);
  EXPECT_TRUE(failed(outOfRange.check(&why)));
  EXPECT_EQ(why, "'b' produces unknown buffer 7, which does not name it as "
                 "its producer");
}

namespace {
/// A concat whose two operands are produced into their slices. Input x
/// (32 B) is read by A and B. A writes its operand into C (64 B, the concat's
/// buffer: producer A, writer W); B makes t (48 B) for W, which writes the
/// other operand into C; K reads C and makes y (16 B, returned). With
/// \p unusedInput, an input u (72 B) that nobody reads is live at the entry
/// only.
Problem makeConcatInPlace(bool unusedInput) {
  Problem problem;
  problem.addBuffer({32, std::nullopt, {0, 1}, false, false, "x"});
  Buffer concat{64, NodeId(0), {3}, false, false, "C"};
  concat.writers = {2};
  problem.addBuffer(concat);
  problem.addBuffer({48, NodeId(1), {2}, false, false, "t"});
  problem.addBuffer({16, NodeId(3), {}, true, false, "y"});
  if (unusedInput)
    problem.addBuffer({72, std::nullopt, {}, false, false, "u"});
  problem.addNode({{}, {0}, {1}, 0, std::nullopt, 0, "A"});
  problem.addNode({{}, {0}, {2}, 0, std::nullopt, 0, "B"});
  problem.addNode({{1}, {2}, {1}, 0, std::nullopt, 0, "W"});
  problem.addNode({{0, 2}, {1}, {3}, 0, std::nullopt, 0, "K"});
  return problem;
}
} // namespace

TEST(StepModelTest, MultiWriterBufferIsAllocatedByItsFirstWriter) {
  std::string why;
  ASSERT_TRUE(succeeded(makeConcatInPlace(false).check(&why))) << why;
  // A B W K: A allocates C: x + C = 96 (x still read by B); B: 96 + t = 144,
  // x dies (112 after); W writes into C, allocated already: 112, t dies (64
  // after); K: C + y = 80.
  Evaluation first = evaluate(makeConcatInPlace(false), {0, 1, 2, 3});
  EXPECT_EQ(first.liveBytes, (llvm::SmallVector<int64_t>{96, 144, 112, 80}));
  EXPECT_EQ(first.intervals[1].first, 0u);
  EXPECT_EQ(first.intervals[1].last, 3u);
  // B W A K: B: x + t = 80; W allocates C: 144, t dies (96 after); A writes
  // into C: 96, x dies (64 after); K: 80.
  Evaluation later = evaluate(makeConcatInPlace(false), {1, 2, 0, 3});
  EXPECT_EQ(later.liveBytes, (llvm::SmallVector<int64_t>{80, 144, 96, 80}));
  EXPECT_EQ(later.intervals[1].first, 1u);
  EXPECT_EQ(later.intervals[1].last, 3u);
  EXPECT_EQ(later.peakStep, 1u);
  // The unused input u (72 B) is live at the entry with x: 104 B, which the
  // first step holds at least, also when that step's node allocates C:
  // A B W K holds max(96, 104) = 104 there, B W A K max(80, 104) = 104.
  EXPECT_EQ(evaluate(makeConcatInPlace(true), {0, 1, 2, 3}).liveBytes,
            (llvm::SmallVector<int64_t>{104, 144, 112, 80}));
  EXPECT_EQ(evaluate(makeConcatInPlace(true), {1, 2, 0, 3}).liveBytes,
            (llvm::SmallVector<int64_t>{104, 144, 96, 80}));
  // Every order holds x, t and C together at some step: 144 is the optimum
  // (the three orders A B W K, B A W K, B W A K all peak there).
  Result exact = scheduleForMemory(makeConcatInPlace(false), Algorithm::Exact);
  EXPECT_EQ(exact.peakBytes, 144);
  EXPECT_TRUE(exact.optimal);
  EXPECT_TRUE(succeeded(makeConcatInPlace(false).verify(exact.order)));
}

// The expansion: an allocation node (id 0) before A, C's producer, with no
// predecessor (A and W have no common ancestor); it produces C, which A and
// W now read, and both wait for it.
TEST(ProblemTest, WriterExpansion) {
  WriterExpansion expansion = makeConcatInPlace(false).expandWriters();
  const Problem &expanded = *expansion.problem;
  ASSERT_EQ(expanded.getNumNodes(), 5u);
  EXPECT_EQ(expansion.expandedId, (llvm::SmallVector<NodeId>{1, 2, 3, 4}));
  EXPECT_EQ(expanded.getBuffer(1).producer, std::optional<NodeId>(0));
  EXPECT_EQ(expanded.getBuffer(1).readers,
            (llvm::SmallVector<NodeId, 4>{1, 3, 4}));
  EXPECT_TRUE(expanded.getBuffer(1).writers.empty());
  EXPECT_EQ(expanded.getNode(3).preds, (llvm::SmallVector<NodeId, 4>{0, 2}));
  EXPECT_EQ(expansion.toExpanded({1, 2, 0, 3}),
            (llvm::SmallVector<NodeId>{2, 0, 3, 1, 4}));
  EXPECT_EQ(expansion.toOriginal({2, 0, 3, 1, 4}),
            (llvm::SmallVector<NodeId>{1, 2, 0, 3}));
}

TEST(ProblemTest, CheckRejectsIllFormedWriters) {
  std::string why;
  Problem notAnOutput = makeConcatInPlace(false);
  notAnOutput.getNode(2).outputs.clear();
  EXPECT_TRUE(failed(notAnOutput.check(&why)));
  EXPECT_EQ(why, "'C' names 'W' as a writer, but it is not one of its outputs");

  Problem belowProducer = makeConcatInPlace(false);
  belowProducer.getBuffer(1).writers = {0};
  EXPECT_TRUE(failed(belowProducer.check(&why)));
  EXPECT_EQ(why, "the writers of 'C' are not sorted, unique, known and above "
                 "its producer");

  // K no longer waits for W: C could be freed before W writes.
  Problem freedEarly = makeConcatInPlace(false);
  freedEarly.getNode(3).preds = {0};
  EXPECT_TRUE(failed(freedEarly.check(&why)));
  EXPECT_EQ(why, "no reader of 'C' depends on every one of its writers, so it "
                 "could be freed before one of them writes");
  // Returned, it is never freed.
  freedEarly.getBuffer(1).isGraphOutput = true;
  EXPECT_TRUE(succeeded(freedEarly.check(&why))) << why;

  // W's step may allocate nothing (C may be there already): it cannot save
  // t's bytes by writing over t.
  Problem saving = makeConcatInPlace(false);
  saving.getNode(2).inPlaceInput = 2;
  saving.getNode(2).inPlaceSaving = 16;
  EXPECT_TRUE(failed(saving.check(&why)));
  EXPECT_EQ(why, "'W' saves 16 bytes in place, more than its in-place input "
                 "holds (48) or its step allocates (0)");
}

TEST(ProblemTest, VerifyRejectsInvalidOrders) {
  Problem problem = makeChain(false, false);
  std::string why;
  EXPECT_TRUE(succeeded(problem.verify({0, 1}, &why)));
  EXPECT_TRUE(failed(problem.verify({1, 0}, &why)));
  EXPECT_EQ(why, "'b' runs at step 0 before its predecessor 'a'");
  EXPECT_TRUE(failed(problem.verify({0, 0}, &why)));
  EXPECT_EQ(why, "'a' runs twice");
  EXPECT_TRUE(failed(problem.verify({0}, &why)));
  EXPECT_TRUE(failed(problem.verify({0, 5}, &why)));
}

//===----------------------------------------------------------------------===//
// Properties
//===----------------------------------------------------------------------===//

RC_GTEST_PROP(StepModelProperty, ReplayMatchesBruteForce, ()) {
  Problem problem = *genProblem(/*maxNodes=*/10);
  std::string why;
  RC_ASSERT(succeeded(problem.check(&why)));
  std::vector<NodeId> order = genOrder(problem);
  RC_ASSERT(succeeded(problem.verify(order)));
  std::vector<int64_t> expected = bruteForceSteps(problem, order);
  Evaluation evaluation = evaluate(problem, order);
  RC_ASSERT(std::vector<int64_t>(evaluation.liveBytes.begin(),
                                 evaluation.liveBytes.end()) == expected);
  int64_t peak = peakOf(problem, expected);
  RC_ASSERT(evaluation.peakBytes == peak);
  RC_ASSERT(evaluatePeak(problem, order) == peak);
  if (!expected.empty())
    RC_ASSERT(expected[evaluation.peakStep] == peak);
}

/// Schedules \p problem exactly and checks that the order is valid, peaks
/// at the brute-force \p optimum (replayed by the brute force) and is
/// proven optimal, both as the search runs by default (best first on these
/// small problems) and in rounds under a budget from the start
/// (docs/Scheduling.md, item 3); returns the default result for further
/// checks.
static Result checkExactIsOptimal(const Problem &problem, int64_t optimum) {
  Limits underBudget;
  underBudget.bestFirstStates = 0;
  Result exact = scheduleForMemory(problem, Algorithm::Exact);
  for (const Result &result :
       {exact, scheduleForMemory(problem, Algorithm::Exact, underBudget)}) {
    RC_ASSERT(succeeded(problem.verify(result.order)));
    std::vector<NodeId> order(result.order.begin(), result.order.end());
    RC_ASSERT(bruteForcePeak(problem, order) == optimum);
    RC_ASSERT(result.peakBytes == optimum);
    RC_ASSERT(result.lowerBound == optimum);
    RC_ASSERT(result.optimal);
  }
  return exact;
}

RC_GTEST_PROP(StepModelProperty, ExactMatchesBruteForce, ()) {
  Problem problem = *genProblem(/*maxNodes=*/8);
  RC_TAG(problem.getNumNodes());
  int64_t optimum = bruteForceOptimum(problem);

  Result exact = checkExactIsOptimal(problem, optimum);
  RC_ASSERT(exact.stoppedBy == StopReason::None);
  RC_ASSERT(!exact.limitReached);
  RC_ASSERT(exact.peakBytes <= exact.inputPeakBytes);
  llvm::SmallVector<NodeId> input = problem.getInputOrder();
  RC_ASSERT(
      exact.inputPeakBytes ==
      bruteForcePeak(problem, std::vector<NodeId>(input.begin(), input.end())));

  for (Algorithm algorithm : {Algorithm::Input, Algorithm::Kahn,
                              Algorithm::ReversePostOrder, Algorithm::Greedy}) {
    Result result = scheduleForMemory(problem, algorithm);
    RC_ASSERT(succeeded(problem.verify(result.order)));
    std::vector<NodeId> baseline(result.order.begin(), result.order.end());
    RC_ASSERT(result.peakBytes == bruteForcePeak(problem, baseline));
    RC_ASSERT(result.peakBytes >= optimum);
    RC_ASSERT(result.lowerBound <= optimum);
  }
}

// The idle-node rule of the exact search holds with in-place savings
// (docs/Scheduling.md, item 9): on in-place-heavy problems the exact order
// is the brute-force optimum. A rule that let a node idle while its in-place
// input dies (an unsound extension) fails here within a few hundred cases.
RC_GTEST_PROP(StepModelProperty, ExactMatchesBruteForceInPlace, ()) {
  Problem problem = *genInPlaceProblem(/*maxNodes=*/9);
  std::string why;
  RC_ASSERT(succeeded(problem.check(&why)));
  checkExactIsOptimal(problem, bruteForceOptimum(problem));
}

// The bounds rounded to the values a step can hold (docs/Scheduling.md,
// item 13) keep the exact order optimal, also where workspace breaks the
// granularity of the buffers.
RC_GTEST_PROP(StepModelProperty, ExactMatchesBruteForceWithGranularity, ()) {
  Problem problem = *genBoundProblem(/*maxNodes=*/8);
  std::string why;
  RC_ASSERT(succeeded(problem.check(&why)));
  checkExactIsOptimal(problem, bruteForceOptimum(problem));
}

RC_GTEST_PROP(StepModelProperty, ReplayMatchesBruteForceWithWriters, ()) {
  Problem problem = *genProblem(/*maxNodes=*/10, /*writers=*/true);
  std::string why;
  RC_ASSERT(succeeded(problem.check(&why)));
  std::vector<NodeId> order = genOrder(problem);
  std::vector<int64_t> expected = bruteForceSteps(problem, order);
  Evaluation evaluation = evaluate(problem, order);
  RC_ASSERT(std::vector<int64_t>(evaluation.liveBytes.begin(),
                                 evaluation.liveBytes.end()) == expected);
  int64_t peak = peakOf(problem, expected);
  RC_ASSERT(evaluation.peakBytes == peak);
  RC_ASSERT(evaluatePeak(problem, order) == peak);
  if (!expected.empty())
    RC_ASSERT(expected[evaluation.peakStep] == peak);
}

// Multi-writer buffers (in-place concats) through the writer expansion:
// every rule of the exact search runs on the expansion, and the exact order
// is the brute-force optimum of the problem itself.
RC_GTEST_PROP(StepModelProperty, ExactMatchesBruteForceWithWriters, ()) {
  Problem problem = *genProblem(/*maxNodes=*/8, /*writers=*/true);
  RC_TAG(problem.hasWriters());
  int64_t optimum = bruteForceOptimum(problem);
  Result exact = checkExactIsOptimal(problem, optimum);
  RC_ASSERT(exact.peakBytes <= exact.inputPeakBytes);
  for (Algorithm algorithm : {Algorithm::Input, Algorithm::Kahn,
                              Algorithm::ReversePostOrder, Algorithm::Greedy}) {
    Result result = scheduleForMemory(problem, algorithm);
    RC_ASSERT(succeeded(problem.verify(result.order)));
    std::vector<NodeId> baseline(result.order.begin(), result.order.end());
    RC_ASSERT(result.peakBytes == bruteForcePeak(problem, baseline));
    RC_ASSERT(result.lowerBound <= optimum);
  }
}

RC_GTEST_PROP(StepModelProperty, StateBudgetIsSoundAndDeterministic, ()) {
  Problem problem = *genProblem(/*maxNodes=*/8);
  int64_t optimum = bruteForceOptimum(problem);
  Limits limits;
  limits.maxStates = *rc::gen::inRange<uint64_t>(1, 8);
  limits.timeLimitMs = 0; // No clock: only the budget may stop the search.
  // Best first, or in rounds under a budget from the start (a stop inside a
  // round reports the bound proven before it).
  limits.bestFirstStates = *rc::gen::element<uint64_t>(0, 1024);
  Result result = scheduleForMemory(problem, Algorithm::Exact, limits);
  RC_ASSERT(succeeded(problem.verify(result.order)));
  RC_ASSERT(result.lowerBound <= optimum);
  RC_ASSERT(optimum <= result.peakBytes);
  RC_ASSERT(result.peakBytes <= result.inputPeakBytes);
  RC_ASSERT(result.stoppedBy != StopReason::Clock);
  RC_ASSERT(result.limitReached == (result.stoppedBy == StopReason::States));
  RC_ASSERT(result.optimal ==
            (result.peakBytes == optimum && result.lowerBound == optimum));

  // The same budget gives the same answer.
  Result again = scheduleForMemory(problem, Algorithm::Exact, limits);
  RC_ASSERT(again.order == result.order);
  RC_ASSERT(again.lowerBound == result.lowerBound);
  RC_ASSERT(again.statesExplored == result.statesExplored);
  RC_ASSERT(again.stoppedBy == result.stoppedBy);
}

// Found by StepModelProperty (about once in 100,000 problems): the
// free-block rule the exact search once had (docs/Scheduling.md, item 10)
// was not sound, and is gone. Inputs x (59 B) and w (26 B); a reads x and w and
// makes r (36 B, returned); b reads x and w; c (after a and b) reads r; d
// (after b) reads x and makes s (1 B, returned); e (after a, b, d) reads r and
// s and makes u (13 B, returned); f (after a, b, c, d) reads r and s and makes
// v (16 B, returned) and a dead 56 B buffer. Order a b c d f e peaks at a's
// step, 59 + 26 + 36 = 121 (f: 36 + 1 + 16 + 56 = 109; e: 36 + 1 + 16 + 13
// = 66). After b, the block {a, d, e} frees x and w and keeps r, s and u
// (85 -> 50 bytes), so the rule runs it at once; but e then runs before f,
// whose step becomes 36 + 1 + 13 + 16 + 56 = 122, and the search proves 122.
// Moving e over f adds u to f's step, and nothing the block frees was still
// live there.
TEST(SchedulerTest, FreeBlockRuleIsSound) {
  Problem problem;
  auto buffer = [&](int64_t bytes, std::optional<NodeId> producer,
                    llvm::SmallVector<NodeId, 4> readers, bool returned) {
    Buffer info;
    info.bytes = bytes;
    info.producer = producer;
    info.readers = readers;
    info.isGraphOutput = returned;
    problem.addBuffer(info);
  };
  buffer(59, std::nullopt, {0, 1, 3}, false); // 0: x
  buffer(26, std::nullopt, {0, 1}, false);    // 1: w
  buffer(36, NodeId(0), {2, 4, 5}, true);     // 2: r
  buffer(1, NodeId(3), {4, 5}, true);         // 3: s
  buffer(13, NodeId(4), {}, true);            // 4: u
  buffer(16, NodeId(5), {}, true);            // 5: v
  buffer(56, NodeId(5), {}, false);           // 6: dead
  auto node = [&](llvm::SmallVector<NodeId, 4> preds,
                  llvm::SmallVector<BufferId, 4> inputs,
                  llvm::SmallVector<BufferId, 1> outputs) {
    Node info;
    info.preds = preds;
    info.inputs = inputs;
    info.outputs = outputs;
    problem.addNode(info);
  };
  node({}, {0, 1}, {2});              // a
  node({}, {0, 1}, {});               // b
  node({0, 1}, {2}, {});              // c
  node({1}, {0}, {3});                // d
  node({0, 1, 3}, {2, 3}, {4});       // e
  node({0, 1, 2, 3}, {2, 3}, {5, 6}); // f
  std::string why;
  ASSERT_TRUE(succeeded(problem.check(&why))) << why;
  EXPECT_EQ(bruteForceOptimum(problem), 121);
  EXPECT_EQ(evaluatePeak(problem, {0, 1, 2, 3, 5, 4}), 121);
  EXPECT_EQ(scheduleForMemory(problem, Algorithm::Exact).peakBytes, 121);
}

//===----------------------------------------------------------------------===//
// Segments and the greedy order at scale
//===----------------------------------------------------------------------===//

namespace {
/// Returns, by brute force, the first node of every segment of \p problem:
/// a node related (ancestor or descendant, by a transitive closure) to every
/// other node is a cut and a segment of its own; the runs between cuts are
/// the other segments.
std::vector<NodeId> bruteForceSegmentBegins(const Problem &problem) {
  unsigned n = problem.getNumNodes();
  std::vector<std::vector<bool>> reaches(n, std::vector<bool>(n, false));
  for (NodeId node = 0; node < n; ++node)
    for (NodeId pred : problem.getNode(node).preds) {
      reaches[pred][node] = true;
      for (NodeId above = 0; above < n; ++above)
        if (reaches[above][pred])
          reaches[above][node] = true;
    }
  std::vector<NodeId> begins;
  bool previousIsCut = true;
  for (NodeId node = 0; node < n; ++node) {
    bool isCut = true;
    for (NodeId other = 0; other < n; ++other)
      if (other != node && !reaches[other][node] && !reaches[node][other])
        isCut = false;
    if (isCut || previousIsCut)
      begins.push_back(node);
    previousIsCut = isCut;
  }
  return begins;
}

/// Returns the memory-greedy order of \p problem by direct simulation,
/// without the step model: keep the set of live buffers; at each step run
/// the ready node with the smallest step (live bytes, plus its outputs and
/// workspace, less its in-place saving if its input dies), then the
/// smallest live bytes after it, then the smallest id.
std::vector<NodeId> naiveGreedyOrder(const Problem &problem) {
  unsigned n = problem.getNumNodes();
  std::vector<bool> done(n, false), live(problem.getNumBuffers(), false);
  std::vector<unsigned> readersLeft(problem.getNumBuffers());
  for (BufferId b = 0; b < problem.getNumBuffers(); ++b) {
    const Buffer &buffer = problem.getBuffer(b);
    readersLeft[b] = buffer.readers.size();
    // Inputs and pinned buffers exist before the first step.
    live[b] = buffer.pinned || !buffer.producer;
  }
  auto keeps = [&](BufferId b) {
    const Buffer &buffer = problem.getBuffer(b);
    return buffer.pinned || buffer.isGraphOutput;
  };
  std::vector<NodeId> order;
  while (order.size() < n) {
    int best = -1;
    int64_t bestStep = 0, bestAfter = 0;
    for (NodeId node = 0; node < n; ++node) {
      const Node &info = problem.getNode(node);
      if (done[node] || !llvm::all_of(info.preds,
                                      [&](NodeId pred) { return done[pred]; }))
        continue;
      int64_t before = 0;
      for (BufferId b = 0; b < problem.getNumBuffers(); ++b)
        if (live[b])
          before += problem.getBuffer(b).bytes;
      int64_t step = before + info.workspaceBytes, after = before;
      int64_t allocated = info.workspaceBytes;
      for (BufferId output : info.outputs) {
        const Buffer &buffer = problem.getBuffer(output);
        if (buffer.pinned)
          continue; // Live already.
        step += buffer.bytes;
        allocated += buffer.bytes;
        if (!buffer.readers.empty() || buffer.isGraphOutput)
          after += buffer.bytes;
      }
      for (BufferId input : info.inputs)
        if (readersLeft[input] == 1 && !keeps(input)) {
          after -= problem.getBuffer(input).bytes;
          if (info.inPlaceInput == input)
            step -= std::min(info.inPlaceSaving, allocated);
        }
      // Unread, unkept inputs are live at the entry only: the first step
      // holds at least the bytes before it.
      if (order.empty()) {
        for (BufferId b = 0; b < problem.getNumBuffers(); ++b) {
          const Buffer &buffer = problem.getBuffer(b);
          if (!buffer.producer && buffer.readers.empty() && !keeps(b)) {
            after -= buffer.bytes;
            step -= buffer.bytes;
          }
        }
        step = std::max(step, before);
      }
      if (best < 0 || std::tie(step, after) < std::tie(bestStep, bestAfter)) {
        best = node;
        bestStep = step;
        bestAfter = after;
      }
    }
    const Node &info = problem.getNode(best);
    if (order.empty())
      for (BufferId b = 0; b < problem.getNumBuffers(); ++b) {
        const Buffer &buffer = problem.getBuffer(b);
        if (!buffer.producer && buffer.readers.empty() && !keeps(b))
          live[b] = false;
      }
    for (BufferId input : info.inputs)
      if (--readersLeft[input] == 0 && !keeps(input))
        live[input] = false;
    for (BufferId output : info.outputs) {
      const Buffer &buffer = problem.getBuffer(output);
      live[output] =
          buffer.pinned || !buffer.readers.empty() || buffer.isGraphOutput;
    }
    done[best] = true;
    order.push_back(best);
  }
  return order;
}

/// Returns a problem shaped like the scale benchmark's graphs, with random
/// sizes: a fan-out of \p width branches of one input, each a forced chain
/// of \p depth nodes, summed by a chain of adds; with \p ladder, rungs of a
/// residual ladder follow.
Problem makeFanOut(unsigned width, unsigned depth, bool ladder,
                   const std::vector<int64_t> &sizes) {
  Problem problem;
  size_t next = 0;
  auto size = [&] { return sizes[next++ % sizes.size()]; };
  auto addNode = [&](llvm::SmallVector<BufferId, 4> inputs) {
    Node node;
    llvm::sort(inputs);
    node.inputs.assign(inputs.begin(), inputs.end());
    for (BufferId input : inputs)
      if (std::optional<NodeId> producer = problem.getBuffer(input).producer)
        node.preds.push_back(*producer);
    llvm::sort(node.preds);
    node.preds.erase(std::unique(node.preds.begin(), node.preds.end()),
                     node.preds.end());
    NodeId id = problem.addNode(node);
    for (BufferId input : inputs)
      problem.getBuffer(input).readers.push_back(id);
    Buffer output;
    output.bytes = size();
    output.producer = id;
    BufferId made = problem.addBuffer(output);
    problem.getNode(id).outputs.push_back(made);
    return made;
  };
  Buffer input;
  input.bytes = size();
  BufferId source = problem.addBuffer(input);
  std::vector<BufferId> branches;
  for (unsigned b = 0; b < width; ++b) {
    BufferId value = addNode({source});
    for (unsigned d = 1; d < depth; ++d)
      value = addNode({value});
    branches.push_back(value);
  }
  BufferId sum = branches[0];
  for (unsigned b = 1; b < width; ++b)
    sum = addNode({sum, branches[b]});
  if (ladder)
    for (unsigned r = 0; r < width; ++r)
      sum = addNode({sum, addNode({sum})});
  problem.getBuffer(sum).isGraphOutput = true;
  return problem;
}
} // namespace

// The linear cut test (a node is a cut iff every smaller id has a successor
// at or below it and every larger id a predecessor at or above it) finds the
// segments the transitive closure finds.
RC_GTEST_PROP(SegmentProperty, SegmentBeginsMatchBruteForce, ()) {
  Problem problem = *genProblem(/*maxNodes=*/14);
  llvm::SmallVector<NodeId> begins = findSegmentBegins(problem);
  RC_ASSERT(std::vector<NodeId>(begins.begin(), begins.end()) ==
            bruteForceSegmentBegins(problem));
}

// The step models of the segments, built from the layout in time of their
// own size, replay every order to the brute-force profile: their steps,
// one segment after the other, are the steps of the whole.
RC_GTEST_PROP(SegmentProperty, SegmentModelsReplayTheWhole, ()) {
  Problem problem = *genProblem(/*maxNodes=*/14);
  std::vector<NodeId> order = genOrder(problem);
  std::vector<int64_t> expected = bruteForceSteps(problem, order);
  SegmentLayout layout(problem, findSegmentBegins(problem));
  std::vector<int64_t> steps;
  for (unsigned segment = 0; segment < layout.size(); ++segment) {
    StepModel model(problem, layout, segment);
    std::vector<unsigned> remaining(model.buffers.size(), 0);
    for (const StepModel::LocalNode &node : model.localNodes)
      for (unsigned input : node.inputs)
        ++remaining[input];
    int64_t mem = model.initialMem;
    bool isFirst = true;
    // Every order runs the segments in turn, so the order's nodes of this
    // segment are consecutive.
    for (NodeId global : order) {
      int local = model.getLocal(global);
      if (local < 0)
        continue;
      int64_t atStep, after;
      model.step(
          local, isFirst, mem,
          [&](unsigned buffer) { return remaining[buffer] == 1; }, atStep,
          after);
      for (unsigned input : model.localNodes[local].inputs)
        --remaining[input];
      steps.push_back(atStep);
      mem = after;
      isFirst = false;
    }
  }
  RC_ASSERT(steps == expected);
}

// The heap-based greedy order is the greedy order of the definition.
RC_GTEST_PROP(SegmentProperty, GreedyMatchesNaiveGreedy, ()) {
  Problem problem = *rc::gen::oneOf(genProblem(/*maxNodes=*/16),
                                    genInPlaceProblem(/*maxNodes=*/16));
  Result greedy = scheduleForMemory(problem, Algorithm::Greedy);
  RC_ASSERT(std::vector<NodeId>(greedy.order.begin(), greedy.order.end()) ==
            naiveGreedyOrder(problem));
}

// Fan-outs of forced chains and residual ladders, a few hundred nodes: the
// exact engine returns a valid order no worse than the greedy one and proves
// a bound no larger than its peak; the greedy order is the naive one.
RC_GTEST_PROP(SegmentProperty, LargeFanOutsAndLadders, ()) {
  unsigned width = *rc::gen::inRange(1u, 40u);
  unsigned depth = *rc::gen::inRange(1u, 5u);
  bool ladder = *rc::gen::arbitrary<bool>();
  std::vector<int64_t> sizes =
      *rc::gen::container<std::vector<int64_t>>(
          5, rc::gen::inRange<int64_t>(1, 5));
  for (int64_t &size : sizes)
    size *= 16;
  Problem problem = makeFanOut(width, depth, ladder, sizes);
  RC_ASSERT(succeeded(problem.check()));
  Result greedy = scheduleForMemory(problem, Algorithm::Greedy);
  RC_ASSERT(std::vector<NodeId>(greedy.order.begin(), greedy.order.end()) ==
            naiveGreedyOrder(problem));
  Limits limits;
  limits.timeLimitMs = 0;
  limits.maxStates = 20000;
  Result exact = scheduleForMemory(problem, Algorithm::Exact, limits);
  RC_ASSERT(succeeded(problem.verify(exact.order)));
  std::vector<NodeId> order(exact.order.begin(), exact.order.end());
  RC_ASSERT(exact.peakBytes == bruteForcePeak(problem, order));
  RC_ASSERT(exact.peakBytes <= greedy.peakBytes);
  RC_ASSERT(exact.peakBytes <= exact.inputPeakBytes);
  RC_ASSERT(exact.lowerBound <= exact.peakBytes);
}

// The node budget keeps a segment larger than it out of the search: the
// order is the best heuristic one, valid and no worse than the input, and
// the result says which limit stopped it. Deterministic.
RC_GTEST_PROP(SegmentProperty, NodeBudgetIsSoundAndDeterministic, ()) {
  Problem problem = *genProblem(/*maxNodes=*/10);
  int64_t optimum = bruteForceOptimum(problem);
  Limits limits;
  limits.timeLimitMs = 0;
  limits.maxSearchNodes = *rc::gen::inRange<uint64_t>(1, 4);
  Result result = scheduleForMemory(problem, Algorithm::Exact, limits);
  RC_ASSERT(succeeded(problem.verify(result.order)));
  RC_ASSERT(result.lowerBound <= optimum);
  RC_ASSERT(optimum <= result.peakBytes);
  RC_ASSERT(result.peakBytes <= result.inputPeakBytes);
  RC_ASSERT(result.stoppedBy != StopReason::Clock);
  RC_ASSERT(result.limitReached == (result.stoppedBy != StopReason::None));
  if (result.stoppedBy == StopReason::None)
    RC_ASSERT(result.optimal);
  Result again = scheduleForMemory(problem, Algorithm::Exact, limits);
  RC_ASSERT(again.order == result.order);
  RC_ASSERT(again.stoppedBy == result.stoppedBy);
}

// A time limit used up before the search (1 ms on a problem whose set-up
// alone takes longer is not reliable, so: a start 1 s in the past) stops
// every search before it begins; the order is still valid and no worse than
// the input order, and the result says the clock stopped it.
TEST(SegmentTest, ExpiredClockStillGivesAValidOrder) {
  // 3 branches of depth 2: the file order runs all branches first.
  Problem problem = makeFanOut(3, 2, false, {16, 32, 48});
  Limits limits;
  limits.timeLimitMs = 1;
  limits.start = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  Result result = scheduleForMemory(problem, Algorithm::Exact, limits);
  ASSERT_TRUE(succeeded(problem.verify(result.order)));
  EXPECT_LE(result.peakBytes, result.inputPeakBytes);
  Result unlimited = scheduleForMemory(problem, Algorithm::Exact);
  EXPECT_LE(result.lowerBound, unlimited.peakBytes);
  if (!result.optimal)
    EXPECT_EQ(result.stoppedBy, StopReason::Clock);
}

// The charged bound (docs/Scheduling.md, item 11). P makes p (10 B, read by
// V) and s (10 B, read by Q); Q makes q (10 B) and V makes w (10 B), both
// read by Z, which makes z (1 B, returned). By hand, the two orders:
//   P Q V Z: P 20, Q p+s+q = 30 (s dies), V p+q+w = 30, Z q+w+z = 21;
//   P V Q Z: V p+s+w = 30 (p dies), Q s+w+q = 30, Z 21.
// Both peak at 30. The plain static bound sees at V only p and w (20): s is
// read by Q, which is unordered with V. But s is either live at V's step,
// or Q ran before V, and then q, read by V's descendant Z, is live there:
// 10 more bytes either way, so V's step holds at least 30 in every order
// (and Q's likewise, through p and w). The plain bound of the problem is
// Z's step, 21.
TEST(SchedulerTest, ChargedBoundSeesUnorderedNodes) {
  Problem problem;
  problem.addBuffer({10, NodeId(0), {2}, false, false, "p"});
  problem.addBuffer({10, NodeId(0), {1}, false, false, "s"});
  problem.addBuffer({10, NodeId(1), {3}, false, false, "q"});
  problem.addBuffer({10, NodeId(2), {3}, false, false, "w"});
  problem.addBuffer({1, NodeId(3), {}, true, false, "z"});
  problem.addNode({{}, {}, {0, 1}, 0, std::nullopt, 0, "P"});
  problem.addNode({{0}, {1}, {2}, 0, std::nullopt, 0, "Q"});
  problem.addNode({{0}, {0}, {3}, 0, std::nullopt, 0, "V"});
  problem.addNode({{1, 2}, {2, 3}, {4}, 0, std::nullopt, 0, "Z"});
  std::string why;
  ASSERT_TRUE(succeeded(problem.check(&why))) << why;
  EXPECT_EQ(evaluatePeak(problem, {0, 1, 2, 3}), 30);
  EXPECT_EQ(evaluatePeak(problem, {0, 2, 1, 3}), 30);
  EXPECT_EQ(bruteForceOptimum(problem), 30);

  SegmentLayout whole(problem);
  SearchProblem search(problem, whole, 0);
  EXPECT_EQ(search.globalBound, 21);
  EXPECT_EQ(search.stepBound[2], 20);
  search.prepareSearch();
  EXPECT_EQ(search.stepBound[1], 30);
  EXPECT_EQ(search.stepBound[2], 30);
  EXPECT_EQ(search.globalBound, 30);

  Result exact = scheduleForMemory(problem, Algorithm::Exact);
  EXPECT_EQ(exact.peakBytes, 30);
  EXPECT_EQ(exact.lowerBound, 30);
  EXPECT_TRUE(exact.optimal);
}

// P makes p, s and t (10 bytes each); Q reads all three and makes q, which
// Z reads; V reads p and makes w, which Z reads. V's charged bound counts
// p and w (20) and, for s and t, a third each of Q's charge (q, 10 bytes,
// read by V's descendant Z): 3 + 3, so 26. Every buffer has a multiple of
// 10 bytes and V has no workspace, so V's step holds a multiple of 10: at
// least 30, which it holds when Q runs first (p, q, w). Without the
// rounding the bound is 26.
TEST(SchedulerTest, BoundsRoundUpToTheBytesAStepCanHold) {
  Problem problem;
  problem.addBuffer({10, NodeId(0), {1, 2}, false, false, "p"});
  problem.addBuffer({10, NodeId(0), {1}, false, false, "s"});
  problem.addBuffer({10, NodeId(0), {1}, false, false, "t"});
  problem.addBuffer({10, NodeId(1), {3}, false, false, "q"});
  problem.addBuffer({10, NodeId(2), {3}, false, false, "w"});
  problem.addBuffer({10, NodeId(3), {}, true, false, "z"});
  problem.addNode({{}, {}, {0, 1, 2}, 0, std::nullopt, 0, "P"});
  problem.addNode({{0}, {0, 1, 2}, {3}, 0, std::nullopt, 0, "Q"});
  problem.addNode({{0}, {0}, {4}, 0, std::nullopt, 0, "V"});
  problem.addNode({{1, 2}, {3, 4}, {5}, 0, std::nullopt, 0, "Z"});
  std::string why;
  ASSERT_TRUE(succeeded(problem.check(&why))) << why;
  EXPECT_EQ(evaluate(problem, {0, 1, 2, 3}).liveBytes[2], 30);
  EXPECT_EQ(evaluate(problem, {0, 2, 1, 3}).liveBytes[1], 40);

  SegmentLayout whole(problem);
  SearchProblem search(problem, whole, 0);
  EXPECT_EQ(search.stepBound[2], 20);
  search.prepareSearch();
  EXPECT_EQ(search.stepBound[2], 30);
}

// Every node's static bound, charged bound included and rounded to the
// values its step can take (docs/Scheduling.md, items 11 and 13), is at most
// the node's step in every order: the brute force replays every topological
// order in the interval form of the model.
RC_GTEST_PROP(StepModelProperty, StepBoundsAreAdmissible, ()) {
  Problem problem = *genBoundProblem(/*maxNodes=*/8);
  unsigned n = problem.getNumNodes();
  RC_PRE(n > 0u);
  SegmentLayout whole(problem);
  SearchProblem search(problem, whole, 0);
  search.prepareSearch();
  // The smallest step of each node over all orders.
  std::vector<int64_t> least(n, std::numeric_limits<int64_t>::max());
  std::vector<NodeId> order;
  std::vector<bool> done(n, false);
  std::function<void()> recurse = [&] {
    if (order.size() == n) {
      std::vector<int64_t> steps = bruteForceSteps(problem, order);
      for (unsigned step = 0; step < n; ++step)
        least[order[step]] = std::min(least[order[step]], steps[step]);
      return;
    }
    for (NodeId node = 0; node < n; ++node) {
      if (done[node] || !llvm::all_of(problem.getNode(node).preds,
                                      [&](NodeId pred) { return done[pred]; }))
        continue;
      done[node] = true;
      order.push_back(node);
      recurse();
      order.pop_back();
      done[node] = false;
    }
  };
  recurse();
  for (NodeId node = 0; node < n; ++node)
    RC_ASSERT(search.stepBound[node] <= least[node]);
  RC_ASSERT(search.globalBound <= bruteForceOptimum(problem));
}

// The dynamic bound after a set, with the charged extra of the nodes with
// the largest static bounds, rounded to the values their steps can take
// (docs/Scheduling.md, items 11 and 13), is at most the
// peak of the steps after the set in every completion of it.
RC_GTEST_PROP(StepModelProperty, DynamicBoundIsAdmissible, ()) {
  Problem problem = *genBoundProblem(/*maxNodes=*/8);
  unsigned n = problem.getNumNodes();
  RC_PRE(n > 0u);
  SegmentLayout whole(problem);
  SearchProblem search(problem, whole, 0);
  search.prepareSearch();
  // A set: a prefix of a random order, with at least one node left.
  std::vector<NodeId> order = genOrder(problem);
  size_t prefix = *rc::gen::inRange<size_t>(0, n);
  order.resize(prefix);
  std::vector<Word> set(search.numWords, 0);
  std::vector<bool> done(n, false);
  for (NodeId node : order) {
    setBit(set.data(), node);
    done[node] = true;
  }
  // The least peak of the steps after the set over all completions.
  int64_t least = std::numeric_limits<int64_t>::max();
  std::function<void()> recurse = [&] {
    if (order.size() == n) {
      std::vector<int64_t> steps = bruteForceSteps(problem, order);
      least = std::min(least, *std::max_element(steps.begin() + prefix,
                                                steps.end()));
      return;
    }
    for (NodeId node = 0; node < n; ++node) {
      if (done[node] || !llvm::all_of(problem.getNode(node).preds,
                                      [&](NodeId pred) { return done[pred]; }))
        continue;
      done[node] = true;
      order.push_back(node);
      recurse();
      order.pop_back();
      done[node] = false;
    }
  };
  recurse();
  RC_ASSERT(search.dynamicBound(set.data()) <= least);
}
