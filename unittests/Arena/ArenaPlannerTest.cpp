//===- ArenaPlannerTest.cpp - Arena placement vs brute force --------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Every algorithm must produce a valid plan; `best` must sit between the
// liveness lower bound and greedy-by-size, and equal the optimum that an
// independent brute force (every aligned offset of every buffer) finds on
// tiny instances. Hand-made cases show greedy-by-size losing to the optimum,
// with the arithmetic in the comments. The MiniMalloc CSV reader must reject
// malformed files with the line at fault.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Arena/ArenaPlanner.h"

// The planner's internal exact search, tested on its own below.
#include "../../lib/Arena/ArenaSearch.h"

#include "llvm/Support/MathExtras.h"

// rapidcheck/gtest.h needs gtest/gtest.h first.
#include "gtest/gtest.h"

#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::memopt;

namespace {

/// Returns true if the lifetimes of \p a and \p b meet (zero sizes never
/// collide). Written here, not taken from the planner.
bool collide(const ArenaBuffer &a, const ArenaBuffer &b) {
  return a.size > 0 && b.size > 0 && a.start < b.end && b.start < a.end;
}

/// Returns true if buffers \p i and \p j are a direct overwrite pair, the
/// only buffers that may share bytes while both are alive.
bool directPair(const std::vector<ArenaBuffer> &buffers, size_t i, size_t j) {
  return buffers[i].overwrites == static_cast<int64_t>(j) ||
         buffers[j].overwrites == static_cast<int64_t>(i);
}

/// Brute force: the smallest arena over every assignment of aligned offsets
/// below the sum of aligned sizes. A buffer's alignment is its own, or
/// \p alignment if it has none; it occupies its size rounded up to it.
/// With overwrite pairs, a buffer paired with an earlier one has its offset
/// fixed by the pair's shift, direct pairs may share bytes, and the search
/// looks below the sum of aligned sizes, shifts and alignments (enough for
/// any valid instance); -1 means no placement exists.
int64_t bruteForceOptimum(const std::vector<ArenaBuffer> &buffers,
                          int64_t alignment) {
  auto alignOf = [&](const ArenaBuffer &b) {
    return b.alignment ? b.alignment : alignment;
  };
  auto bytesOf = [&](const ArenaBuffer &b) {
    return static_cast<int64_t>(llvm::alignTo(b.size, alignOf(b)));
  };
  bool hasPairs = false;
  int64_t best = 0, slack = 1;
  for (const ArenaBuffer &b : buffers) {
    best += bytesOf(b);
    slack += std::abs(b.overwriteShift) + alignOf(b);
    hasPairs |= b.overwrites >= 0;
  }
  // Without pairs the sum itself is a placement (one after another, the
  // largest alignment first); with pairs, find one.
  if (hasPairs)
    best += slack;
  bool found = !hasPairs;
  std::vector<int64_t> offsets(buffers.size(), 0);
  // Assigns buffer k given buffers [0, k), the current height `height`.
  auto assign = [&](auto &self, size_t k, int64_t height) -> void {
    if (height >= best)
      return;
    if (k == buffers.size()) {
      best = height;
      found = true;
      return;
    }
    const ArenaBuffer &buffer = buffers[k];
    int64_t aligned = bytesOf(buffer);
    auto tryOffset = [&](int64_t offset) {
      for (size_t j = 0; j < k; ++j)
        if (collide(buffer, buffers[j]) && !directPair(buffers, j, k) &&
            offset + aligned > offsets[j] &&
            offsets[j] + bytesOf(buffers[j]) > offset)
          return;
      offsets[k] = offset;
      self(self, k + 1, std::max(height, offset + aligned));
    };
    // Offsets fixed by pairs with earlier buffers (all must agree).
    std::optional<int64_t> fixed;
    bool consistent = true;
    auto fix = [&](int64_t offset) {
      consistent &= !fixed || *fixed == offset;
      fixed = offset;
    };
    if (buffer.overwrites >= 0 && static_cast<size_t>(buffer.overwrites) < k)
      fix(offsets[buffer.overwrites] + buffer.overwriteShift);
    for (size_t j = 0; j < k; ++j)
      if (buffers[j].overwrites == static_cast<int64_t>(k))
        fix(offsets[j] - buffers[j].overwriteShift);
    if (fixed) {
      if (consistent && *fixed >= 0 && *fixed % alignOf(buffer) == 0)
        tryOffset(*fixed);
      return;
    }
    for (int64_t offset = 0; offset + aligned < best;
         offset += alignOf(buffer))
      tryOffset(offset);
  };
  assign(assign, 0, 0);
  return found ? best : -1;
}

/// Independent check of a plan: offsets aligned (each buffer's own
/// alignment, else \p alignment), inside the arena, no two colliding
/// buffers share a byte unless they are a direct overwrite pair, and each
/// pair at its shift. Returns what is wrong, or "".
std::string planError(const std::vector<ArenaBuffer> &buffers,
                      const ArenaPlan &plan, int64_t alignment) {
  if (plan.offsets.size() != buffers.size())
    return "wrong number of offsets";
  for (size_t i = 0; i < buffers.size(); ++i) {
    const ArenaBuffer &b = buffers[i];
    int64_t align = b.alignment ? b.alignment : alignment;
    int64_t bytes = static_cast<int64_t>(llvm::alignTo(b.size, align));
    std::string name = "buffer " + std::to_string(i);
    if (plan.offsets[i] < 0 || plan.offsets[i] % align)
      return name + " misaligned";
    if (plan.offsets[i] + bytes > plan.arenaSize)
      return name + " outside the arena";
    if (b.overwrites >= 0 &&
        plan.offsets[i] != plan.offsets[b.overwrites] + b.overwriteShift)
      return name + " not at its shift";
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      const ArenaBuffer &c = buffers[j];
      int64_t cBytes = static_cast<int64_t>(
          llvm::alignTo(c.size, c.alignment ? c.alignment : alignment));
      if (collide(b, c) && !directPair(buffers, i, j) &&
          plan.offsets[i] < plan.offsets[j] + cBytes &&
          plan.offsets[j] < plan.offsets[i] + bytes)
        return name + " overlaps buffer " + std::to_string(j);
    }
  }
  return "";
}

/// Independent check of a plan (planError) that also asks isValidPlan.
void expectValid(const std::vector<ArenaBuffer> &buffers, const ArenaPlan &plan,
                 int64_t alignment) {
  EXPECT_EQ(plan.arenaSize % alignment, 0);
  EXPECT_EQ(planError(buffers, plan, alignment), "");
  EXPECT_TRUE(isValidPlan(buffers, plan, alignment));
}

/// Runs \p algorithm with \p alignment and \p capacity.
std::optional<ArenaPlan> plan(const std::vector<ArenaBuffer> &buffers,
                              PlacementAlgorithm algorithm,
                              int64_t alignment = 16, int64_t capacity = 0,
                              uint64_t timeLimitMs = 0) {
  PlacementOptions options;
  options.algorithm = algorithm;
  options.alignment = alignment;
  options.capacity = capacity;
  options.timeLimitMs = timeLimitMs;
  return planArena(buffers, options);
}

/// Generates up to \p maxCount buffers with sizes in [0, maxSize] and
/// lifetimes inside [0, maxStep] (some empty).
std::vector<ArenaBuffer> genBuffers(int maxCount, int64_t maxSize,
                                    int64_t maxStep) {
  int count = *rc::gen::inRange(0, maxCount + 1);
  std::vector<ArenaBuffer> buffers;
  for (int i = 0; i < count; ++i) {
    ArenaBuffer b;
    b.size = *rc::gen::inRange<int64_t>(0, maxSize + 1);
    b.start = *rc::gen::inRange<int64_t>(0, maxStep);
    b.end = *rc::gen::inRange<int64_t>(b.start, maxStep + 1);
    buffers.push_back(b);
  }
  return buffers;
}

constexpr PlacementAlgorithm allAlgorithms[] = {
    PlacementAlgorithm::NoReuse, PlacementAlgorithm::GreedyBySize,
    PlacementAlgorithm::Best};


/// Generates 1 to 6 buffers with sizes of 1 to 4 units of \p unit bytes,
/// lifetimes inside [0, 5] (with \p mixedAlignments, each its own alignment
/// of 1 to 8 bytes or none), and up to 2 overwrite pairs: B overwrites A,
/// starting while A is alive, at -4 to 4 times the larger of the two
/// alignments (\p alignment for buffers without one). No buffer overwrites,
/// or is overwritten by, two; no cycle.
std::vector<ArenaBuffer> genPairedBuffers(int64_t unit, int64_t alignment,
                                          bool mixedAlignments) {
  int count = *rc::gen::element(1, 2, 3, 4, 5, 6);
  std::vector<ArenaBuffer> buffers;
  for (int i = 0; i < count; ++i) {
    ArenaBuffer b;
    b.size = *rc::gen::inRange<int64_t>(1, 4 * unit + 1);
    b.start = *rc::gen::inRange<int64_t>(0, 5);
    b.end = *rc::gen::inRange<int64_t>(b.start, 6);
    if (mixedAlignments)
      b.alignment = *rc::gen::element<int64_t>(0, 1, 2, 4, 8);
    buffers.push_back(b);
  }
  int pairs = *rc::gen::element(0, 1, 2, 2);
  for (int p = 0; p < pairs; ++p) {
    // Every (A, B) that may still be linked: A has a lifetime to start in,
    // nothing overwrites A yet, B overwrites nothing yet, and following the
    // links from A does not come back to B.
    std::vector<std::pair<int, int>> candidates;
    for (int a = 0; a < count; ++a)
      for (int b = 0; b < count; ++b) {
        bool taken = llvm::any_of(
            buffers, [&](const ArenaBuffer &c) { return c.overwrites == a; });
        bool cycle = false;
        for (int64_t id = a; id >= 0 && !cycle; id = buffers[id].overwrites)
          cycle = id == b;
        if (a != b && buffers[a].start < buffers[a].end &&
            buffers[b].overwrites < 0 && !taken && !cycle)
          candidates.push_back({a, b});
      }
    if (candidates.empty())
      break;
    auto [a, b] = *rc::gen::elementOf(candidates);
    ArenaBuffer &victim = buffers[a], &writer = buffers[b];
    writer.start = *rc::gen::inRange<int64_t>(victim.start, victim.end);
    writer.end = *rc::gen::inRange<int64_t>(writer.start + 1, 6);
    int64_t align =
        std::max(victim.alignment ? victim.alignment : alignment,
                 writer.alignment ? writer.alignment : alignment);
    writer.overwrites = a;
    writer.overwriteShift = align * *rc::gen::inRange<int64_t>(-4, 5);
  }
  return buffers;
}

/// Checks every algorithm on \p buffers with overwrite pairs against the
/// brute force: valid plans, at or above the optimum and the lower bound,
/// `best` at the optimum whenever it claims to be minimal. Pairs that
/// validateOverwrites rejects must be exactly those without any placement.
void checkPairs(const std::vector<ArenaBuffer> &buffers, int64_t alignment) {
  llvm::Error error = validateOverwrites(buffers, alignment);
  bool valid = !error;
  llvm::consumeError(std::move(error));
  if (!valid) {
    // Rejected pairs have no placement even without the other buffers
    // (which keeps the exhaustive brute force small).
    std::vector<ArenaBuffer> paired;
    std::vector<int64_t> index(buffers.size(), -1);
    for (auto [i, b] : llvm::enumerate(buffers))
      if (b.overwrites >= 0 ||
          llvm::any_of(buffers, [&, i = i](const ArenaBuffer &c) {
            return c.overwrites == static_cast<int64_t>(i);
          })) {
        index[i] = paired.size();
        paired.push_back(b);
      }
    for (ArenaBuffer &b : paired)
      if (b.overwrites >= 0)
        b.overwrites = index[b.overwrites];
    RC_ASSERT(bruteForceOptimum(paired, alignment) == -1);
    return;
  }
  int64_t optimum = bruteForceOptimum(buffers, alignment);
  RC_ASSERT(optimum >= 0);
  int64_t lower = getLivenessLowerBound(buffers, alignment);
  RC_ASSERT(lower <= optimum);
  std::optional<ArenaPlan> greedy, best;
  for (PlacementAlgorithm algorithm : allAlgorithms) {
    std::optional<ArenaPlan> p = plan(buffers, algorithm, alignment);
    RC_ASSERT(p.has_value());
    RC_ASSERT(planError(buffers, *p, alignment) == "");
    RC_ASSERT(isValidPlan(buffers, *p, alignment));
    RC_ASSERT(p->arenaSize >= optimum);
    if (algorithm == PlacementAlgorithm::GreedyBySize)
      greedy = p;
    if (algorithm == PlacementAlgorithm::Best)
      best = p;
  }
  RC_ASSERT(best->arenaSize <= greedy->arenaSize);
  // A plan at the bound is minimal; one claimed minimal is the optimum.
  if (best->arenaSize == lower)
    RC_ASSERT(best->provenMinimal);
  if (best->provenMinimal)
    RC_ASSERT(best->arenaSize == optimum);
  // Pairs that share exactly their bytes (shift 0, the same footprint and
  // alignment) and whose lifetimes meet or touch are one rectangle to the
  // exact search, which is complete on these sizes; other pairs it does not
  // know.
  bool allExact = llvm::all_of(buffers, [&](const ArenaBuffer &b) {
    if (b.overwrites < 0)
      return true;
    const ArenaBuffer &over = buffers[b.overwrites];
    return b.overwriteShift == 0 && b.size > 0 && b.start <= over.end &&
           over.start <= b.end &&
           getFootprint(b, alignment) == getFootprint(over, alignment) &&
           getAlignment(b, alignment) == getAlignment(over, alignment);
  });
  if (allExact)
    RC_ASSERT(best->provenMinimal);
  // The same plan again; a capacity fits it exactly, nothing fits below the
  // bound.
  std::optional<ArenaPlan> again =
      plan(buffers, PlacementAlgorithm::Best, alignment);
  RC_ASSERT(again && again->offsets == best->offsets);
  RC_ASSERT(
      plan(buffers, PlacementAlgorithm::Best, alignment, best->arenaSize));
  if (lower > 1)
    RC_ASSERT(
        !plan(buffers, PlacementAlgorithm::Best, alignment, lower - 1));
}

} // namespace

//===----------------------------------------------------------------------===//
// Properties on random instances
//===----------------------------------------------------------------------===//

RC_GTEST_PROP(ArenaPlannerProperty, EveryPlanIsValidAndBounded, ()) {
  std::vector<ArenaBuffer> buffers = genBuffers(30, 200, 24);
  int64_t alignment = *rc::gen::element<int64_t>(1, 4, 16);
  int64_t lower = getLivenessLowerBound(buffers, alignment);
  std::optional<ArenaPlan> greedy =
      plan(buffers, PlacementAlgorithm::GreedyBySize, alignment);
  // A generous limit: it only matters on pathological draws.
  std::optional<ArenaPlan> best =
      plan(buffers, PlacementAlgorithm::Best, alignment, 0, 2000);
  RC_ASSERT(greedy && best);
  for (PlacementAlgorithm algorithm : allAlgorithms) {
    std::optional<ArenaPlan> p = plan(buffers, algorithm, alignment, 0, 2000);
    RC_ASSERT(p.has_value());
    RC_ASSERT(isValidPlan(buffers, *p, alignment));
    RC_ASSERT(p->arenaSize >= lower);
  }
  RC_ASSERT(lower <= best->arenaSize);
  RC_ASSERT(best->arenaSize <= greedy->arenaSize);
  if (best->arenaSize == lower)
    RC_ASSERT(best->provenMinimal);
}

RC_GTEST_PROP(ArenaPlannerProperty, BestEqualsBruteForceOptimum, ()) {
  // Sizes of up to 5 alignment units keep the enumeration small.
  int64_t alignment = *rc::gen::element<int64_t>(1, 8, 16);
  std::vector<ArenaBuffer> buffers = genBuffers(6, 5 * alignment, 6);
  int64_t optimum = bruteForceOptimum(buffers, alignment);
  std::optional<ArenaPlan> best =
      plan(buffers, PlacementAlgorithm::Best, alignment);
  RC_ASSERT(best.has_value());
  RC_ASSERT(isValidPlan(buffers, *best, alignment));
  RC_ASSERT(best->arenaSize == optimum);
  RC_ASSERT(best->provenMinimal);
  // With a capacity, `best` fits exactly when the optimum does.
  std::optional<ArenaPlan> fitted =
      plan(buffers, PlacementAlgorithm::Best, alignment, optimum);
  RC_ASSERT(fitted.has_value());
  RC_ASSERT(fitted->arenaSize <= optimum);
  RC_ASSERT(isValidPlan(buffers, *fitted, alignment));
  // (A capacity of 0 means none.)
  if (optimum > alignment)
    RC_ASSERT(
        !plan(buffers, PlacementAlgorithm::Best, alignment, optimum - alignment)
             .has_value());
}

RC_GTEST_PROP(ArenaPlannerProperty, SearchDecidesLikeBruteForce, ()) {
  // The exact search alone (no heuristics in front of it): it must find a
  // placement at the brute-force optimum and prove that one unit less fails.
  std::vector<ArenaBuffer> buffers = genBuffers(7, 5, 6);
  llvm::SmallVector<int64_t> sizes, starts, ends;
  std::vector<ArenaBuffer> kept;
  for (const ArenaBuffer &b : buffers)
    if (b.size > 0 && b.start < b.end) {
      kept.push_back(b);
      sizes.push_back(b.size);
      starts.push_back(b.start);
      ends.push_back(b.end);
    }
  int64_t optimum = bruteForceOptimum(kept, 1);
  llvm::SmallVector<int64_t> aligns(sizes.size(), 1);
  detail::PackingSearch search(sizes, aligns, starts, ends);
  detail::SearchResult found = search.solve(optimum, 0, std::nullopt);
  RC_ASSERT(found.status == detail::SearchStatus::Found);
  ArenaPlan plan;
  plan.offsets = found.offsets;
  plan.arenaSize = optimum;
  RC_ASSERT(isValidPlan(kept, plan, 1));
  if (optimum > 0)
    RC_ASSERT(search.solve(optimum - 1, 0, std::nullopt).status ==
              detail::SearchStatus::Infeasible);
}

RC_GTEST_PROP(ArenaPlannerProperty, MixedAlignmentsMatchBruteForce, ()) {
  // Each buffer with its own alignment (1 to 8 bytes, or none: the default
  // 4): `best` reaches the brute-force optimum and proves it, the other
  // algorithms stay valid, and the bound holds.
  std::vector<ArenaBuffer> buffers = genBuffers(6, 12, 6);
  for (ArenaBuffer &b : buffers)
    b.alignment = *rc::gen::element<int64_t>(0, 1, 2, 4, 8);
  int64_t optimum = bruteForceOptimum(buffers, 4);
  int64_t lower = getLivenessLowerBound(buffers, 4);
  RC_ASSERT(lower <= optimum);
  for (PlacementAlgorithm algorithm : allAlgorithms) {
    std::optional<ArenaPlan> p = plan(buffers, algorithm, 4);
    RC_ASSERT(p.has_value());
    RC_ASSERT(isValidPlan(buffers, *p, 4));
    RC_ASSERT(p->arenaSize >= optimum);
    if (algorithm == PlacementAlgorithm::Best) {
      RC_ASSERT(p->arenaSize == optimum);
      RC_ASSERT(p->provenMinimal);
    }
  }
  // With the optimum as capacity `best` fits; one byte less, nothing does.
  RC_ASSERT(plan(buffers, PlacementAlgorithm::Best, 4, optimum).has_value());
  if (optimum > 1)
    RC_ASSERT(
        !plan(buffers, PlacementAlgorithm::Best, 4, optimum - 1).has_value());
}

RC_GTEST_PROP(ArenaPlannerProperty, SearchWithAlignmentsDecidesLikeBruteForce,
              ()) {
  // The exact search alone, in units of 1 byte with alignments of 1 to 8.
  std::vector<ArenaBuffer> buffers = genBuffers(6, 12, 6);
  llvm::SmallVector<int64_t> sizes, aligns, starts, ends;
  std::vector<ArenaBuffer> kept;
  for (ArenaBuffer b : buffers)
    if (b.size > 0 && b.start < b.end) {
      b.alignment = *rc::gen::element<int64_t>(1, 2, 4, 8);
      kept.push_back(b);
      sizes.push_back(static_cast<int64_t>(llvm::alignTo(b.size, b.alignment)));
      aligns.push_back(b.alignment);
      starts.push_back(b.start);
      ends.push_back(b.end);
    }
  int64_t optimum = bruteForceOptimum(kept, 1);
  detail::PackingSearch search(sizes, aligns, starts, ends);
  detail::SearchResult found = search.solve(optimum, 0, std::nullopt);
  RC_ASSERT(found.status == detail::SearchStatus::Found);
  ArenaPlan plan;
  plan.offsets = found.offsets;
  plan.arenaSize = optimum;
  RC_ASSERT(isValidPlan(kept, plan, 1));
  if (optimum > 0)
    RC_ASSERT(search.solve(optimum - 1, 0, std::nullopt).status ==
              detail::SearchStatus::Infeasible);
}

RC_GTEST_PROP(ArenaPlannerProperty, CapacityIsRespected, ()) {
  std::vector<ArenaBuffer> buffers = genBuffers(20, 100, 12);
  int64_t alignment = 16;
  int64_t capacity = *rc::gen::inRange<int64_t>(0, 1200);
  int64_t lower = getLivenessLowerBound(buffers, alignment);
  for (PlacementAlgorithm algorithm : allAlgorithms) {
    std::optional<ArenaPlan> p =
        plan(buffers, algorithm, alignment, capacity, 2000);
    if (capacity && p)
      RC_ASSERT(p->arenaSize <= capacity);
    if (p)
      RC_ASSERT(isValidPlan(buffers, *p, alignment));
    // Nothing fits below the lower bound.
    if (capacity && capacity < lower)
      RC_ASSERT(!p.has_value());
  }
  // `best` fits whenever greedy-by-size does.
  if (plan(buffers, PlacementAlgorithm::GreedyBySize, alignment, capacity))
    RC_ASSERT(plan(buffers, PlacementAlgorithm::Best, alignment, capacity, 2000)
                  .has_value());
}

// A capacity never costs bytes: with room to spare, `best` finds an arena no
// larger than without a capacity (it used to keep the first plan that fit).
RC_GTEST_PROP(ArenaPlannerProperty, CapacityNeverCostsBytes, ()) {
  std::vector<ArenaBuffer> buffers = genBuffers(20, 100, 12);
  std::optional<ArenaPlan> unbounded = plan(buffers, PlacementAlgorithm::Best);
  RC_ASSERT(unbounded.has_value());
  int64_t capacity = unbounded->arenaSize + *rc::gen::inRange<int64_t>(0, 4096);
  std::optional<ArenaPlan> bounded =
      plan(buffers, PlacementAlgorithm::Best, 16, capacity);
  RC_ASSERT(bounded.has_value());
  RC_ASSERT(bounded->arenaSize <= unbounded->arenaSize);
}

RC_GTEST_PROP(ArenaPlannerProperty, BestIsDeterministic, ()) {
  std::vector<ArenaBuffer> buffers = genBuffers(30, 200, 24);
  std::optional<ArenaPlan> first = plan(buffers, PlacementAlgorithm::Best);
  std::optional<ArenaPlan> second = plan(buffers, PlacementAlgorithm::Best);
  RC_ASSERT(first && second);
  RC_ASSERT(first->offsets == second->offsets);
  RC_ASSERT(first->arenaSize == second->arenaSize);
}

RC_GTEST_PROP(ArenaPlannerProperty, OverwritePairsMatchBruteForce, ()) {
  int64_t alignment = *rc::gen::element<int64_t>(1, 16);
  checkPairs(genPairedBuffers(alignment, alignment, false), alignment);
}

RC_GTEST_PROP(ArenaPlannerProperty, OverwritePairsWithMixedAlignments, ()) {
  // Alignments of 1 to 8 bytes (or the default 4): a group whose shifts do
  // not line its members up with their alignments has no placement, and
  // validateOverwrites must say so.
  checkPairs(genPairedBuffers(2, 4, true), 4);
}

//===----------------------------------------------------------------------===//
// Hand-made cases
//===----------------------------------------------------------------------===//

TEST(ArenaPlannerTest, GreedyBySizeLosesToOptimum) {
  // Units of 16 bytes: A = 2 units alive [0,1), B = 2 units [0,3),
  // D = 2 units [3,4), C = 1 unit [2,4).
  // Lower bound: at step 0, A + B = 4 units (steps 1-3 hold 2, 3, 3): 64 B.
  // Greedy-by-size takes A, B, D (2 units, input order), then C:
  //   A at 0; B is alive with A, so at 2 (bytes [32,64));
  //   D meets neither A nor B (B ends at 3), so at 0;
  //   C is alive with B (step 2) and D (step 3): [0,32) and [32,64) are
  //   taken, so C lands at 64 and the arena is 80 B.
  // Optimum: B at 0, A at 32, D at 0 (B is dead by step 3), C at 32
  // (it meets B at step 2, D at step 3, never A): 64 B, the lower bound.
  std::vector<ArenaBuffer> buffers = {
      {32, 0, 1}, {32, 0, 3}, {32, 3, 4}, {16, 2, 4}};
  EXPECT_EQ(getLivenessLowerBound(buffers, 16), 64);
  std::optional<ArenaPlan> greedy =
      plan(buffers, PlacementAlgorithm::GreedyBySize);
  ASSERT_TRUE(greedy);
  expectValid(buffers, *greedy, 16);
  EXPECT_EQ(greedy->arenaSize, 80);
  EXPECT_EQ(greedy->offsets, (llvm::SmallVector<int64_t>{0, 32, 0, 64}));
  std::optional<ArenaPlan> best = plan(buffers, PlacementAlgorithm::Best);
  ASSERT_TRUE(best);
  expectValid(buffers, *best, 16);
  EXPECT_EQ(best->arenaSize, 64);
  EXPECT_TRUE(best->provenMinimal);
  // A 64-byte capacity: greedy-by-size fails, best fits.
  EXPECT_FALSE(plan(buffers, PlacementAlgorithm::GreedyBySize, 16, 64));
  EXPECT_TRUE(plan(buffers, PlacementAlgorithm::Best, 16, 64));
  EXPECT_FALSE(plan(buffers, PlacementAlgorithm::Best, 16, 63));
}

TEST(ArenaPlannerTest, GreedyBySizeLosesOnAChain) {
  // Bytes, alignment 1: P = 2 alive [0,2), Q = 3 [3,4), R = 2 [1,3),
  // S = 2 [2,4). Lower bound: steps 0..3 hold 2, 4, 4, 5 -> 5.
  // Greedy-by-size: Q (3) at 0; then P, R, S (2, input order): P at 0;
  // R meets P -> 2; S meets Q at step 3 ([0,3)) and R at step 2 ([2,4)),
  // so S goes to 4 and the arena is 6.
  // Optimum 5: R at 0, P at 2, S at 3, Q at 0 (Q meets only S).
  std::vector<ArenaBuffer> buffers = {
      {2, 0, 2}, {3, 3, 4}, {2, 1, 3}, {2, 2, 4}};
  EXPECT_EQ(getLivenessLowerBound(buffers, 1), 5);
  std::optional<ArenaPlan> greedy =
      plan(buffers, PlacementAlgorithm::GreedyBySize, 1);
  ASSERT_TRUE(greedy);
  EXPECT_EQ(greedy->arenaSize, 6);
  std::optional<ArenaPlan> best = plan(buffers, PlacementAlgorithm::Best, 1);
  ASSERT_TRUE(best);
  expectValid(buffers, *best, 1);
  EXPECT_EQ(best->arenaSize, 5);
}

TEST(ArenaPlannerTest, AlignmentIsRespected) {
  // 10-, 20- and 5-byte buffers all alive together with alignment 16 take
  // 16 + 32 + 16 = 64 bytes; each offset is a multiple of 16.
  std::vector<ArenaBuffer> buffers = {{10, 0, 3}, {20, 0, 3}, {5, 1, 2}};
  EXPECT_EQ(getLivenessLowerBound(buffers, 16), 64);
  for (PlacementAlgorithm algorithm : allAlgorithms) {
    std::optional<ArenaPlan> p = plan(buffers, algorithm);
    ASSERT_TRUE(p);
    expectValid(buffers, *p, 16);
    EXPECT_EQ(p->arenaSize, 64);
  }
  // With alignment 1 the same buffers need 35 bytes.
  std::optional<ArenaPlan> packed = plan(buffers, PlacementAlgorithm::Best, 1);
  ASSERT_TRUE(packed);
  expectValid(buffers, *packed, 1);
  EXPECT_EQ(packed->arenaSize, 35);
}

TEST(ArenaPlannerTest, MixedAlignments) {
  // micro_speech's peak under io=arena: a 4000-byte activation, an 80-byte
  // window and a 32-byte accumulator (16-byte aligned, 4112 bytes) and the
  // 1960-byte int8 input (alignment 1), all alive together: 4112 + 1960 =
  // 6072 bytes. With the input's slot aligned to 16 too (1968 bytes) it was
  // 6080.
  std::vector<ArenaBuffer> buffers = {
      {1960, 0, 3, 1}, {4000, 1, 4, 16}, {80, 1, 2, 16}, {32, 1, 2, 16}};
  EXPECT_EQ(getLivenessLowerBound(buffers, 16), 6072);
  std::optional<ArenaPlan> best = plan(buffers, PlacementAlgorithm::Best);
  ASSERT_TRUE(best);
  EXPECT_TRUE(isValidPlan(buffers, *best, 16));
  EXPECT_EQ(best->arenaSize, 6072);
  EXPECT_TRUE(best->provenMinimal);
  // The 16-byte aligned buffers stack from 0 (4112 bytes): the input starts
  // at byte 4112, a multiple of 16 and so of 1.
  EXPECT_EQ(best->offsets[0], 4112);
  for (unsigned i = 1; i < 4; ++i)
    EXPECT_EQ(best->offsets[i] % 16, 0);
  std::vector<ArenaBuffer> uniform = buffers;
  uniform[0].alignment = 0;
  EXPECT_EQ(getLivenessLowerBound(uniform, 16), 6080);

  // No reuse in input order: a 1-byte buffer (alignment 1) at 0, a 4-byte
  // one (alignment 4) at 4 after 3 bytes of padding, and a 2-byte one
  // (alignment 2) at 8: 10 bytes. `best` reaches the bound, 4 + 2 + 1 = 7
  // bytes (the 4-byte buffer at 0, the 2-byte at 4, the 1-byte at 6).
  std::vector<ArenaBuffer> three = {{1, 0, 1, 1}, {4, 0, 1, 4}, {2, 0, 1, 2}};
  std::optional<ArenaPlan> noReuse = plan(three, PlacementAlgorithm::NoReuse);
  ASSERT_TRUE(noReuse);
  EXPECT_EQ(noReuse->offsets, (llvm::SmallVector<int64_t>{0, 4, 8}));
  EXPECT_EQ(noReuse->arenaSize, 10);
  std::optional<ArenaPlan> packed = plan(three, PlacementAlgorithm::Best);
  ASSERT_TRUE(packed);
  EXPECT_TRUE(isValidPlan(three, *packed, 16));
  EXPECT_EQ(packed->arenaSize, 7);
  EXPECT_TRUE(packed->provenMinimal);

  // Padding the bound cannot see. A (1 byte, alignment 2: 2 bytes) lives in
  // [0, 3), B (1 byte, alignment 4: 4 bytes) in [1, 2), C (2 bytes,
  // alignment 2) and D (3 bytes, alignment 1) in [2, 3). Step 1 holds A and
  // B (6 bytes), step 2 A, C and D (7 bytes): the bound is 7. In 7 bytes B
  // must be at 0 (at 4 it would end at 8), so A is at 4 (its only even
  // offset clear of B), and at step 2 C and D need 5 bytes of [0, 4) and
  // [6, 7): D's 3 contiguous bytes leave no even pair for C. 8 bytes do:
  // A at 6, B at 0, C at 0, D at 2.
  std::vector<ArenaBuffer> gap = {
      {1, 0, 3, 2}, {1, 1, 2, 4}, {2, 2, 3, 2}, {3, 2, 3, 1}};
  EXPECT_EQ(getLivenessLowerBound(gap, 16), 7);
  std::optional<ArenaPlan> gapPlan = plan(gap, PlacementAlgorithm::Best);
  ASSERT_TRUE(gapPlan);
  EXPECT_TRUE(isValidPlan(gap, *gapPlan, 16));
  EXPECT_EQ(gapPlan->arenaSize, 8);
  EXPECT_TRUE(gapPlan->provenMinimal);
  ArenaPlan handPlan;
  handPlan.offsets = {6, 0, 0, 2};
  handPlan.arenaSize = 8;
  EXPECT_TRUE(isValidPlan(gap, handPlan, 16));
  handPlan.offsets = {5, 0, 0, 2}; // A at an odd offset
  EXPECT_FALSE(isValidPlan(gap, handPlan, 16));
  EXPECT_FALSE(plan(gap, PlacementAlgorithm::Best, 16, 7));
}

TEST(ArenaPlannerTest, EdgeCases) {
  // No buffers: an empty arena.
  for (PlacementAlgorithm algorithm : allAlgorithms) {
    std::optional<ArenaPlan> p = plan({}, algorithm);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->arenaSize, 0);
    EXPECT_TRUE(p->offsets.empty());
  }
  EXPECT_EQ(getLivenessLowerBound({}, 16), 0);
  // One buffer: at 0, its size rounded up to the alignment.
  for (PlacementAlgorithm algorithm : allAlgorithms) {
    std::optional<ArenaPlan> p = plan({{100, 3, 7}}, algorithm);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->offsets, (llvm::SmallVector<int64_t>{0}));
    EXPECT_EQ(p->arenaSize, 112);
  }
  // Zero-size buffers take no room. An empty lifetime [5,5) collides with
  // the buffers alive before and after step 5 (isValidPlan's rule): here the
  // 48-byte one alive [0,10), not the 16-byte one alive [1,4). So the 48-,
  // 32- and 16-byte buffers need 48 + 32 = 80 bytes, while the lower bound,
  // which counts no buffer at an empty lifetime, is 48 + 16 = 64.
  std::vector<ArenaBuffer> buffers = {
      {0, 0, 10}, {48, 0, 10}, {0, 2, 3}, {32, 5, 5}, {16, 1, 4}};
  EXPECT_EQ(getLivenessLowerBound(buffers, 16), 64);
  std::optional<ArenaPlan> best = plan(buffers, PlacementAlgorithm::Best);
  ASSERT_TRUE(best);
  expectValid(buffers, *best, 16);
  EXPECT_EQ(best->arenaSize, 80);
  EXPECT_TRUE(best->provenMinimal);
  std::optional<ArenaPlan> greedy =
      plan(buffers, PlacementAlgorithm::GreedyBySize);
  ASSERT_TRUE(greedy);
  expectValid(buffers, *greedy, 16);
  // Two empty lifetimes at the same step do not collide with each other.
  // E [2,2) (64 B) is inside F [1,4) (32 B): they need 96 B together. G and
  // H, both [5,5) (32 and 64 B), collide only with I [3,6) (16 B): G and H
  // share [0,64) and I goes at 80, so 96 B is the optimum.
  std::vector<ArenaBuffer> empties = {
      {64, 2, 2}, {32, 1, 4}, {32, 5, 5}, {64, 5, 5}, {16, 3, 6}};
  std::optional<ArenaPlan> packed = plan(empties, PlacementAlgorithm::Best);
  ASSERT_TRUE(packed);
  expectValid(empties, *packed, 16);
  EXPECT_EQ(packed->arenaSize, 96);
  // Capacity below one buffer: nothing fits.
  EXPECT_FALSE(plan({{100, 0, 1}}, PlacementAlgorithm::Best, 16, 96));
  EXPECT_TRUE(plan({{100, 0, 1}}, PlacementAlgorithm::Best, 16, 112));
}

TEST(ArenaPlannerTest, SearchStopsAtItsNodeLimit) {
  // Three buffers alive together (2 + 2 + 1 = 5 units) need at least one
  // node per buffer, so a one-node limit proves nothing either way.
  detail::PackingSearch search({2, 2, 1}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1});
  EXPECT_EQ(search.solve(5, 1, std::nullopt).status,
            detail::SearchStatus::OutOfNodes);
  EXPECT_EQ(search.solve(5, 0, std::nullopt).status,
            detail::SearchStatus::Found);
  EXPECT_EQ(search.solve(4, 0, std::nullopt).status,
            detail::SearchStatus::Infeasible);
}

/// 300 buffers of 16 to 1024 bytes with lifetimes of 1 to 40 steps in
/// [0, 240), from a fixed linear congruential sequence: an instance the
/// `best` search does not finish quickly.
static std::vector<ArenaBuffer> getThreeHundredBuffers() {
  std::vector<ArenaBuffer> buffers;
  uint64_t state = 12345;
  auto next = [&](uint64_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int64_t>((state >> 33) % bound);
  };
  for (int i = 0; i < 300; ++i) {
    int64_t start = next(200);
    buffers.push_back({16 * (1 + next(64)), start, start + 1 + next(40)});
  }
  return buffers;
}

TEST(ArenaPlannerTest, TimeLimitKeepsAValidPlan) {
  // 300 buffers with a 1 ms limit: whatever the search reaches, the plan is
  // valid and no worse than greedy-by-size.
  std::vector<ArenaBuffer> buffers = getThreeHundredBuffers();
  std::optional<ArenaPlan> greedy =
      plan(buffers, PlacementAlgorithm::GreedyBySize);
  std::optional<ArenaPlan> best =
      plan(buffers, PlacementAlgorithm::Best, 16, 0, /*timeLimitMs=*/1);
  ASSERT_TRUE(greedy && best);
  expectValid(buffers, *best, 16);
  EXPECT_LE(best->arenaSize, greedy->arenaSize);
  EXPECT_GE(best->arenaSize, getLivenessLowerBound(buffers, 16));
}

TEST(ArenaPlannerTest, NodeBudgetEndsTheSearchWithoutAClock) {
  // The instance of TimeLimitKeepsAValidPlan, with no clock: the node budget
  // alone ends the search, so two runs give the same plan and neither says
  // the clock stopped it. A budget below the first round's (20000 + 100 per
  // buffer) searches nothing and keeps the best heuristic plan, which the
  // searched plan can only improve.
  std::vector<ArenaBuffer> buffers = getThreeHundredBuffers();
  PlacementOptions options;
  options.timeLimitMs = 0;
  options.maxSearchNodes = 400000;
  std::optional<ArenaPlan> first = planArena(buffers, options);
  std::optional<ArenaPlan> second = planArena(buffers, options);
  ASSERT_TRUE(first && second);
  expectValid(buffers, *first, 16);
  EXPECT_EQ(first->offsets, second->offsets);
  EXPECT_FALSE(first->stoppedOnClock);
  options.maxSearchNodes = 1;
  std::optional<ArenaPlan> heuristic = planArena(buffers, options);
  ASSERT_TRUE(heuristic);
  expectValid(buffers, *heuristic, 16);
  EXPECT_FALSE(heuristic->stoppedOnClock);
  EXPECT_LE(first->arenaSize, heuristic->arenaSize);
  // A capacity of the arena the budgeted search reached fits with the same
  // budget: by the capacity search, or, if that runs out of nodes, by the
  // minimizing search after it.
  options.maxSearchNodes = 400000;
  options.capacity = first->arenaSize;
  std::optional<ArenaPlan> fitted = planArena(buffers, options);
  ASSERT_TRUE(fitted);
  expectValid(buffers, *fitted, 16);
  EXPECT_LE(fitted->arenaSize, first->arenaSize);
}

//===----------------------------------------------------------------------===//
// Overwrite pairs
//===----------------------------------------------------------------------===//

/// Returns validateOverwrites' message for \p buffers, or "" if it accepts.
static std::string overwriteError(const std::vector<ArenaBuffer> &buffers,
                                  int64_t alignment) {
  llvm::Error error = validateOverwrites(buffers, alignment);
  return error ? llvm::toString(std::move(error)) : "";
}

/// Expects every algorithm to place \p buffers in \p arena bytes, and `best`
/// to prove it.
static void expectArena(const std::vector<ArenaBuffer> &buffers,
                        int64_t alignment, int64_t arena) {
  EXPECT_EQ(overwriteError(buffers, alignment), "");
  EXPECT_EQ(bruteForceOptimum(buffers, alignment), arena);
  for (PlacementAlgorithm algorithm : allAlgorithms) {
    std::optional<ArenaPlan> p = plan(buffers, algorithm, alignment);
    ASSERT_TRUE(p);
    expectValid(buffers, *p, alignment);
    EXPECT_EQ(p->arenaSize, arena);
    if (algorithm == PlacementAlgorithm::Best)
      EXPECT_TRUE(p->provenMinimal);
  }
}

/// Expects validateOverwrites to reject \p buffers (alignment 1) with
/// \p message, the brute force to find no placement, and isValidPlan to
/// reject the plan at \p offsets (which keeps every pair at its shift).
static void expectNoPlan(const std::vector<ArenaBuffer> &buffers,
                         llvm::StringRef message,
                         llvm::ArrayRef<int64_t> offsets) {
  EXPECT_EQ(overwriteError(buffers, 1), message);
  EXPECT_EQ(bruteForceOptimum(buffers, 1), -1);
  ArenaPlan hand;
  hand.offsets.assign(offsets.begin(), offsets.end());
  hand.arenaSize = 64;
  EXPECT_FALSE(isValidPlan(buffers, hand, 1));
}

TEST(ArenaPlannerTest, OverwriteExpandingConvolution) {
  // Bytes, alignment 1: a 1x1 convolution reads A (8 bytes, [0,2)) pixel by
  // pixel and writes B (16 bytes, [1,3)) 8 bytes below it: B at A - 8.
  // Step 1 holds both: 8 + 16 bytes, of which [A, A + 8) is shared, so 16.
  // The group spans B's 16 bytes (A is its upper half): A at 8, B at 0.
  // Without the pair the two would need 24 bytes.
  std::vector<ArenaBuffer> buffers = {{8, 0, 2}, {16, 1, 3, 0, 0, -8}};
  EXPECT_EQ(getLivenessLowerBound(buffers, 1), 16);
  expectArena(buffers, 1, 16);
  for (PlacementAlgorithm algorithm : allAlgorithms)
    EXPECT_EQ(plan(buffers, algorithm, 1)->offsets,
              (llvm::SmallVector<int64_t>{8, 0}));
  std::vector<ArenaBuffer> unpaired = {{8, 0, 2}, {16, 1, 3}};
  EXPECT_EQ(getLivenessLowerBound(unpaired, 1), 24);
}

TEST(ArenaPlannerTest, OverwriteShrinkingConvolution) {
  // A (16 bytes, [0,2)) is overwritten by B (8 bytes, [1,3)) at shift 0:
  // step 1 holds 16 + 8 - 8 shared = 16 bytes, and B sits at A's offset.
  std::vector<ArenaBuffer> buffers = {{16, 0, 2}, {8, 1, 3, 0, 0, 0}};
  EXPECT_EQ(getLivenessLowerBound(buffers, 1), 16);
  expectArena(buffers, 1, 16);
  std::optional<ArenaPlan> best = plan(buffers, PlacementAlgorithm::Best, 1);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->offsets[1], best->offsets[0]);
  // At shift 12, B is [A + 12, A + 20): they share 4 bytes (16 + 8 - 4 =
  // 20 at step 1), and the group spans 20 bytes.
  buffers[1].overwriteShift = 12;
  EXPECT_EQ(getLivenessLowerBound(buffers, 1), 20);
  expectArena(buffers, 1, 20);
}

TEST(ArenaPlannerTest, OverwritePairBesideAnotherBuffer) {
  // Alignment 16: the shrinking pair (A 16 bytes [0,2), B 8 -> 16 bytes
  // [1,3), shift 0) and C (32 bytes) alive throughout. Every step holds the
  // pair's 16 bytes and C's 32: 48 = 16 + 32.
  std::vector<ArenaBuffer> buffers = {
      {16, 0, 2}, {8, 1, 3, 0, 0, 0}, {32, 0, 3}};
  EXPECT_EQ(getLivenessLowerBound(buffers, 16), 48);
  expectArena(buffers, 16, 48);
  // Greedy-by-size takes C (32 bytes) first, at 0, then the pair with A (16)
  // at the lowest base clear of C: 32. No reuse takes the pair, then C.
  EXPECT_EQ(plan(buffers, PlacementAlgorithm::GreedyBySize)->offsets,
            (llvm::SmallVector<int64_t>{32, 32, 0}));
  EXPECT_EQ(plan(buffers, PlacementAlgorithm::NoReuse)->offsets,
            (llvm::SmallVector<int64_t>{0, 0, 16}));

  // isValidPlan checks the shift and exempts only the direct pair.
  ArenaPlan hand;
  hand.arenaSize = 48;
  hand.offsets = {0, 0, 16};
  EXPECT_TRUE(isValidPlan(buffers, hand, 16));
  EXPECT_EQ(planError(buffers, hand, 16), "");
  hand.arenaSize = 64;
  hand.offsets = {0, 16, 32}; // no overlap, but B is not at A + 0
  EXPECT_FALSE(isValidPlan(buffers, hand, 16));
  EXPECT_NE(planError(buffers, hand, 16), "");
  hand.arenaSize = 48;
  hand.offsets = {16, 16, 0}; // C [0,32) overlaps A and B [16,32)
  EXPECT_FALSE(isValidPlan(buffers, hand, 16));
  EXPECT_NE(planError(buffers, hand, 16), "");
}

TEST(ArenaPlannerTest, OverwriteChain) {
  // Bytes, alignment 1: A (8, [0,2)) <- B (8, [1,3), shift -4) <- C (8,
  // [2,4), shift -4), and D (4 bytes, [0,1)). Relative to C: C at 0, B at
  // 4, A at 8, so the group spans 16 bytes. A and C are never alive
  // together, so they may share nothing at no cost. Steps: 0 holds A + D =
  // 12, 1 holds A + B - 4 shared = 12, 2 holds B + C - 4 = 12, 3 holds 8:
  // the group's span, 16, is the bound. D fits below A at step 0 ([0, 8) is
  // free then): 16 bytes.
  std::vector<ArenaBuffer> buffers = {
      {8, 0, 2}, {8, 1, 3, 0, 0, -4}, {8, 2, 4, 0, 1, -4}, {4, 0, 1}};
  EXPECT_EQ(getLivenessLowerBound(buffers, 1), 16);
  EXPECT_EQ(overwriteError(buffers, 1), "");
  EXPECT_EQ(bruteForceOptimum(buffers, 1), 16);
  std::optional<ArenaPlan> greedy =
      plan(buffers, PlacementAlgorithm::GreedyBySize, 1);
  ASSERT_TRUE(greedy);
  expectValid(buffers, *greedy, 1);
  EXPECT_EQ(greedy->offsets, (llvm::SmallVector<int64_t>{8, 4, 0, 0}));
  EXPECT_EQ(greedy->arenaSize, 16);
  std::optional<ArenaPlan> best = plan(buffers, PlacementAlgorithm::Best, 1);
  ASSERT_TRUE(best);
  expectValid(buffers, *best, 1);
  EXPECT_EQ(best->arenaSize, 16);
  EXPECT_TRUE(best->provenMinimal);
  // No reuse: the group's 16 bytes, then D.
  std::optional<ArenaPlan> noReuse =
      plan(buffers, PlacementAlgorithm::NoReuse, 1);
  ASSERT_TRUE(noReuse);
  expectValid(buffers, *noReuse, 1);
  EXPECT_EQ(noReuse->offsets, (llvm::SmallVector<int64_t>{8, 4, 0, 16}));
  // A capacity below the span fits nothing.
  EXPECT_FALSE(plan(buffers, PlacementAlgorithm::Best, 1, 15));

  // With C at B + 4 (so at A) and alive from step 1, A and C, not a direct
  // pair, share bytes while both are alive: no plan exists.
  buffers[2].overwriteShift = 4;
  buffers[2].start = 1;
  expectNoPlan(buffers,
               "buffers 0 and 2, linked by overwrite pairs but not a direct "
               "pair, share bytes while both are alive",
               {4, 0, 4, 12});
}

TEST(ArenaPlannerTest, OverwriteErrors) {
  EXPECT_EQ(overwriteError({{8, 0, 1, 0, 5, 0}, {8, 0, 1}}, 1),
            "buffer 0 overwrites buffer 5, which does not exist (2 buffers)");
  EXPECT_EQ(overwriteError({{8, 0, 1, 0, 0, 0}}, 1),
            "buffer 0 overwrites itself");
  EXPECT_EQ(overwriteError({{0, 0, 1}, {8, 0, 1, 0, 0, 0}}, 1),
            "buffer 1 overwrites buffer 0, but one of them has size 0");
  EXPECT_EQ(overwriteError({{16, 0, 2}, {16, 1, 3, 0, 0, 8}}, 16),
            "buffer 1 overwrites buffer 0 at shift 8, not a multiple of both "
            "alignments (16 and 16)");
  EXPECT_EQ(
      overwriteError({{8, 0, 2}, {8, 1, 3, 0, 0, 0}, {8, 1, 3, 0, 0, 8}}, 1),
      "buffers 1 and 2 both overwrite buffer 0");
  EXPECT_EQ(overwriteError({{8, 0, 2, 0, 1, 0}, {8, 1, 3, 0, 0, 0}}, 1),
            "the overwrite pairs form a cycle through buffer 0");
  // Each shift is a multiple of its pair's alignments, but A (alignment 8)
  // and D (alignment 8) end up 8 + 2 + 8 = 18 bytes apart through B
  // (alignment 1) and C (alignment 2): no base aligns both.
  std::vector<ArenaBuffer> misaligned = {{8, 0, 1, 8},
                                         {1, 0, 1, 1, 0, 8},
                                         {2, 0, 1, 2, 1, 2},
                                         {8, 0, 1, 8, 2, 8}};
  expectNoPlan(misaligned,
               "buffer 3 cannot be aligned at its offset relative to the "
               "buffers it is linked to by overwrite pairs",
               {0, 8, 10, 18});
  // Padding before a group: A (16 bytes, alignment 16, [0,2)) <- B (1
  // byte, [1,3), shift 0) <- C (1 byte, [2,4), shift -1). Relative to C, A
  // and B are at 1, so C must sit at 15 mod 16 for A to be aligned: C at
  // 15, A and B at 16, and 15 + 17 = 32 bytes, though no step holds more
  // than 16 bytes.
  std::vector<ArenaBuffer> phased = {
      {16, 0, 2, 16}, {1, 1, 3, 1, 0, 0}, {1, 2, 4, 1, 1, -1}};
  EXPECT_EQ(getLivenessLowerBound(phased, 1), 32);
  expectArena(phased, 1, 32);
  EXPECT_EQ(plan(phased, PlacementAlgorithm::Best, 1)->offsets,
            (llvm::SmallVector<int64_t>{16, 16, 15}));
  expectArena(phased, 1, 32);
}

TEST(ArenaPlannerTest, ParseAlgorithmNames) {
  EXPECT_EQ(parsePlacementAlgorithm("no-reuse"), PlacementAlgorithm::NoReuse);
  EXPECT_EQ(parsePlacementAlgorithm("greedy-by-size"),
            PlacementAlgorithm::GreedyBySize);
  EXPECT_EQ(parsePlacementAlgorithm("best"), PlacementAlgorithm::Best);
  EXPECT_FALSE(parsePlacementAlgorithm("fastest"));
}

//===----------------------------------------------------------------------===//
// MiniMalloc CSV reader
//===----------------------------------------------------------------------===//

/// Returns the error message of parsing \p text, or "" if it parses.
static std::string csvError(llvm::StringRef text) {
  llvm::Expected<llvm::SmallVector<ArenaBuffer>> buffers =
      parseArenaBuffersCsv(text);
  if (buffers)
    return "";
  return llvm::toString(buffers.takeError());
}

TEST(ArenaCsvTest, ReadsBuffers) {
  llvm::Expected<llvm::SmallVector<ArenaBuffer>> buffers =
      parseArenaBuffersCsv("id,lower,upper,size\r\n0,0,10,64\r\n"
                           "3,5,7,16\n\n");
  ASSERT_TRUE(static_cast<bool>(buffers)) << toString(buffers.takeError());
  ASSERT_EQ(buffers->size(), 2u);
  EXPECT_EQ((*buffers)[0].size, 64);
  EXPECT_EQ((*buffers)[0].start, 0);
  EXPECT_EQ((*buffers)[0].end, 10);
  EXPECT_EQ((*buffers)[1].size, 16);
  EXPECT_EQ((*buffers)[1].start, 5);
  EXPECT_EQ((*buffers)[1].end, 7);
}

TEST(ArenaCsvTest, RejectsMalformedFiles) {
  EXPECT_EQ(csvError(""), "line 1: expected the header 'id,lower,upper,size'");
  EXPECT_EQ(csvError("id,start,end,size\n0,0,1,1\n"),
            "line 1: expected the header 'id,lower,upper,size'");
  EXPECT_EQ(csvError("id,lower,upper,size\n0,0,1\n"),
            "line 2: expected 4 fields (id,lower,upper,size), got 3");
  EXPECT_EQ(csvError("id,lower,upper,size\n0,0,1,1\n1,0,x,1\n"),
            "line 3: 'upper' is not a non-negative integer: 'x'");
  EXPECT_EQ(csvError("id,lower,upper,size\n0,0,1,-4\n"),
            "line 2: 'size' is not a non-negative integer: '-4'");
  EXPECT_EQ(csvError("id,lower,upper,size\n0,0,1,4\n0,2,3,4\n"),
            "line 3: duplicate id 0 (first on line 2)");
  EXPECT_EQ(csvError("id,lower,upper,size\n0,5,3,4\n"),
            "line 2: lower 5 is above upper 3");
}
