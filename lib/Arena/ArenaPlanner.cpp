//===- ArenaPlanner.cpp - Static placement of buffers in one arena --------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The placement algorithms: no reuse, TFLite Micro's greedy-by-size, and
// `best`, which runs a portfolio of greedy placements and then the exact
// search of ArenaSearch.cpp toward the liveness lower bound (or the
// capacity). Also the lower bound, the plan check and the MiniMalloc CSV
// reader. docs/ArenaPlanning.md describes the algorithms.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Arena/ArenaPlanner.h"

#include "ArenaSearch.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::memopt;

std::optional<PlacementAlgorithm>
mlir::memopt::parsePlacementAlgorithm(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<PlacementAlgorithm>>(name)
      .Case("no-reuse", PlacementAlgorithm::NoReuse)
      .Case("greedy-by-size", PlacementAlgorithm::GreedyBySize)
      .Case("best", PlacementAlgorithm::Best)
      .Default(std::nullopt);
}

int64_t mlir::memopt::getFootprint(const ArenaBuffer &buffer,
                                   int64_t defaultAlignment) {
  return static_cast<int64_t>(
      llvm::alignTo(buffer.size, getAlignment(buffer, defaultAlignment)));
}

/// Returns true if the lifetimes [a.start, a.end) and [b.start, b.end) meet.
static bool livesOverlap(const ArenaBuffer &a, const ArenaBuffer &b) {
  return a.start < b.end && b.start < a.end;
}

/// Returns the index of the buffer that buffer `id` overwrites, or -1 if it
/// overwrites none (or names no other buffer).
static int64_t getOverwritten(llvm::ArrayRef<ArenaBuffer> buffers,
                              unsigned id) {
  int64_t target = buffers[id].overwrites;
  return target >= 0 && target < static_cast<int64_t>(buffers.size()) &&
                 target != static_cast<int64_t>(id)
             ? target
             : -1;
}

/// Returns true if buffers `a` and `b` are a direct overwrite pair.
static bool isDirectPair(llvm::ArrayRef<ArenaBuffer> buffers, unsigned a,
                         unsigned b) {
  return getOverwritten(buffers, a) == b || getOverwritten(buffers, b) == a;
}

namespace {

/// Buffers linked by overwrite pairs, placed as one block: member k sits at
/// the group's base + rels[k]. The base is >= 0 and congruent to `phase`
/// modulo `align`, which puts every member at a multiple of its alignment.
/// In bytes, or in the units of a UnitProblem.
struct OverwriteGroup {
  llvm::SmallVector<unsigned> members;
  /// Offsets relative to the base (the lowest is 0) and footprints.
  llvm::SmallVector<int64_t> rels, footprints;
  /// The largest alignment among the members.
  int64_t align = 1;
  int64_t phase = 0;
  /// Bytes from the base to the top of the highest member.
  int64_t span = 0;
};

} // namespace

/// Returns the groups of overwrite pairs in `buffers`, each in chain order
/// from the buffer that overwrites none, in the order of those buffers; fills
/// `groupOf` with the group of each buffer, or -1 for a buffer in no pair.
/// Links that break ArenaBuffer's preconditions (a second buffer overwriting
/// the same one, a cycle) are left out rather than looped over.
static llvm::SmallVector<OverwriteGroup>
collectGroups(llvm::ArrayRef<ArenaBuffer> buffers, int64_t alignment,
              llvm::SmallVectorImpl<int64_t> &groupOf) {
  unsigned n = buffers.size();
  llvm::SmallVector<int64_t> overwrittenBy(n, -1);
  for (unsigned id = 0; id < n; ++id) {
    int64_t target = getOverwritten(buffers, id);
    if (target >= 0 && overwrittenBy[target] < 0)
      overwrittenBy[target] = id;
  }
  groupOf.assign(n, -1);
  llvm::SmallVector<OverwriteGroup> groups;
  for (unsigned head = 0; head < n; ++head) {
    int64_t target = getOverwritten(buffers, head);
    if (overwrittenBy[head] < 0 ||
        (target >= 0 && overwrittenBy[target] == head))
      continue;
    OverwriteGroup group;
    int64_t rel = 0;
    for (int64_t id = head; id >= 0 && group.members.size() < n;
         id = overwrittenBy[id]) {
      if (id != head)
        rel += buffers[id].overwriteShift;
      group.members.push_back(id);
      group.rels.push_back(rel);
      group.footprints.push_back(getFootprint(buffers[id], alignment));
      groupOf[id] = groups.size();
    }
    int64_t lowest = *llvm::min_element(group.rels);
    int64_t anchor = 0;
    for (auto [k, id] : llvm::enumerate(group.members)) {
      group.rels[k] -= lowest;
      group.span = std::max(group.span, group.rels[k] + group.footprints[k]);
      int64_t align = getAlignment(buffers[id], alignment);
      if (align > group.align) {
        group.align = align;
        anchor = group.rels[k];
      }
    }
    group.phase = (group.align - anchor % group.align) % group.align;
    groups.push_back(std::move(group));
  }
  return groups;
}

/// Returns the lowest offset >= `from` that is congruent to `phase` modulo
/// `align` (0 <= phase < align).
static int64_t alignToPhase(int64_t from, int64_t align, int64_t phase) {
  return phase + static_cast<int64_t>(
                     llvm::alignTo(std::max<int64_t>(from - phase, 0), align));
}

/// Returns the lowest base of `group` at which no member k overlaps one of
/// the intervals `taken[k]` (the footprints of the placed buffers it
/// collides with).
static int64_t
findGroupBase(const OverwriteGroup &group,
              llvm::ArrayRef<llvm::SmallVector<std::pair<int64_t, int64_t>>>
                  taken) {
  // Every move skips only bases at which a member overlaps an interval, and
  // bases only rise, so the first base that moves no more is the lowest.
  int64_t base = group.phase;
  for (bool moved = true; moved;) {
    moved = false;
    for (auto [k, intervals] : llvm::enumerate(taken)) {
      int64_t rel = group.rels[k], footprint = group.footprints[k];
      for (auto [begin, end] : intervals)
        if (base + rel < end && begin < base + rel + footprint) {
          base = alignToPhase(end - rel, group.align, group.phase);
          moved = true;
        }
    }
  }
  return base;
}

int64_t mlir::memopt::getLiveBytesPeak(llvm::ArrayRef<ArenaBuffer> buffers,
                                       int64_t alignment) {
  // Sweep the lifetime boundaries; ends sort before starts at the same step.
  llvm::SmallVector<std::pair<int64_t, int64_t>> events;
  for (const ArenaBuffer &buffer : buffers) {
    int64_t size = getFootprint(buffer, alignment);
    if (buffer.start >= buffer.end)
      continue;
    events.push_back({buffer.start, size});
    events.push_back({buffer.end, -size});
  }
  // A direct pair alive together counts the bytes it shares once. Members of
  // a group that are not a direct pair share none while both are alive, so
  // this is the exact union of each group's live members.
  for (auto [id, b] : llvm::enumerate(buffers)) {
    int64_t target = getOverwritten(buffers, id);
    if (target < 0)
      continue;
    const ArenaBuffer &a = buffers[target];
    int64_t shift = b.overwriteShift;
    int64_t shared = std::min(getFootprint(a, alignment),
                              shift + getFootprint(b, alignment)) -
                     std::max<int64_t>(0, shift);
    int64_t start = std::max(a.start, b.start), end = std::min(a.end, b.end);
    if (shared > 0 && start < end) {
      events.push_back({start, -shared});
      events.push_back({end, shared});
    }
  }
  // Within one step the negative deltas come first, so no partial sum
  // exceeds the step's total.
  llvm::sort(events);
  int64_t live = 0, peak = 0;
  for (auto [step, delta] : events) {
    live += delta;
    peak = std::max(peak, live);
  }
  return peak;
}

int64_t mlir::memopt::getLivenessLowerBound(llvm::ArrayRef<ArenaBuffer> buffers,
                                            int64_t alignment) {
  // Every buffer must also fit in the arena on its own, and every group
  // needs its span above the padding its alignment forces.
  int64_t peak = getLiveBytesPeak(buffers, alignment);
  for (const ArenaBuffer &buffer : buffers)
    peak = std::max(peak, getFootprint(buffer, alignment));
  llvm::SmallVector<int64_t> groupOf;
  for (const OverwriteGroup &group : collectGroups(buffers, alignment, groupOf))
    peak = std::max(peak, group.phase + group.span);
  return peak;
}

/// Places buffers in `order`, each at the lowest offset (a multiple of its
/// alignment) where its footprint does not collide with the footprint of an
/// already placed buffer alive at the same time. A group of overwrite pairs
/// is placed when its first member comes, at the lowest base where no
/// member collides (findGroupBase).
static ArenaPlan placeInOrder(llvm::ArrayRef<ArenaBuffer> buffers,
                              llvm::ArrayRef<unsigned> order,
                              int64_t alignment) {
  ArenaPlan plan;
  plan.offsets.assign(buffers.size(), -1);
  llvm::SmallVector<int64_t> groupOf;
  llvm::SmallVector<OverwriteGroup> groups =
      collectGroups(buffers, alignment, groupOf);
  llvm::SmallVector<unsigned> placed;
  for (unsigned id : order) {
    if (groupOf[id] >= 0) {
      const OverwriteGroup &group = groups[groupOf[id]];
      if (plan.offsets[id] >= 0)
        continue;
      llvm::SmallVector<llvm::SmallVector<std::pair<int64_t, int64_t>>> taken(
          group.members.size());
      for (auto [k, member] : llvm::enumerate(group.members))
        for (unsigned other : placed)
          if (buffers[other].size > 0 &&
              livesOverlap(buffers[member], buffers[other]))
            taken[k].push_back(
                {plan.offsets[other],
                 plan.offsets[other] + getFootprint(buffers[other], alignment)});
      int64_t base = findGroupBase(group, taken);
      for (auto [k, member] : llvm::enumerate(group.members)) {
        plan.offsets[member] = base + group.rels[k];
        placed.push_back(member);
      }
      plan.arenaSize = std::max(plan.arenaSize, base + group.span);
      continue;
    }
    const ArenaBuffer &buffer = buffers[id];
    int64_t align = getAlignment(buffer, alignment);
    int64_t footprint = getFootprint(buffer, alignment);
    llvm::SmallVector<std::pair<int64_t, int64_t>> taken;
    for (unsigned other : placed)
      if (livesOverlap(buffer, buffers[other]))
        taken.push_back(
            {plan.offsets[other],
             plan.offsets[other] + getFootprint(buffers[other], alignment)});
    llvm::sort(taken);
    int64_t offset = 0;
    for (auto [begin, end] : taken) {
      if (offset + footprint <= begin)
        break;
      offset = std::max<int64_t>(offset, llvm::alignTo(end, align));
    }
    plan.offsets[id] = offset;
    plan.arenaSize = std::max(plan.arenaSize, offset + footprint);
    placed.push_back(id);
  }
  return plan;
}

//===----------------------------------------------------------------------===//
// Best: heuristics, then the exact search
//===----------------------------------------------------------------------===//

namespace {

/// The buffers that take part in a `Best` placement, in units of the
/// smallest alignment among them: those with a positive size.
struct UnitProblem {
  /// Bytes of one unit: the smallest alignment of a buffer with a positive
  /// size (every alignment is a power of two, so a multiple of it).
  int64_t unit = 1;
  /// Index in the input of each buffer.
  llvm::SmallVector<unsigned> ids;
  /// Footprints and alignments in units, and lifetimes on scaled steps.
  llvm::SmallVector<int64_t> sizes, aligns, starts, ends;
  /// Buffers overlapping each buffer in time, but for its direct overwrite
  /// partners.
  llvm::SmallVector<llvm::SmallVector<unsigned>> conflicts;
  /// The groups of overwrite pairs, in units and by index in this problem,
  /// and the group of each buffer (-1: none).
  llvm::SmallVector<OverwriteGroup> groups;
  llvm::SmallVector<int64_t> groupOf;
  /// Smallest arena in units that holds every buffer on its own.
  int64_t minArena = 0;

  /// Number of buffers.
  unsigned size() const { return ids.size(); }
};

/// How a heuristic chooses among the gaps where a buffer fits.
enum class Fit {
  /// The lowest gap.
  First,
  /// The smallest bounded gap, else the top.
  Best,
};

} // namespace

/// Builds the unit problem of `buffers`.
static UnitProblem buildUnitProblem(llvm::ArrayRef<ArenaBuffer> buffers,
                                    int64_t alignment) {
  UnitProblem problem;
  // isValidPlan makes [s, e) and [s', e') collide when s < e' and s' < e, so
  // a buffer with an empty lifetime [t, t) collides with the buffers alive
  // both before and after t, and with no other empty lifetime. Scaled steps
  // keep exactly that relation with non-empty intervals: with K the most
  // empty lifetimes at one step and M = K + 1, [s, e) becomes [Ms + K, Me),
  // and the k-th empty lifetime at t becomes [Mt + k, Mt + k + 1), k < K.
  llvm::DenseMap<int64_t, int64_t> emptyCount, nextSlot;
  int64_t maxEmpty = 0;
  for (const ArenaBuffer &buffer : buffers)
    if (buffer.size > 0 && buffer.start >= buffer.end)
      maxEmpty = std::max(maxEmpty, ++emptyCount[buffer.start]);
  int64_t scale = maxEmpty + 1;
  problem.unit = alignment;
  bool anySized = false;
  for (const ArenaBuffer &buffer : buffers)
    if (buffer.size > 0) {
      int64_t align = getAlignment(buffer, alignment);
      problem.unit = anySized ? std::min(problem.unit, align) : align;
      anySized = true;
    }
  for (auto [id, buffer] : llvm::enumerate(buffers)) {
    assert(buffer.size >= 0 && "negative buffer size");
    assert(buffer.start <= buffer.end && "lifetime ends before it starts");
    int64_t units = getFootprint(buffer, alignment) / problem.unit;
    problem.minArena = std::max(problem.minArena, units);
    if (units == 0)
      continue;
    problem.ids.push_back(id);
    problem.sizes.push_back(units);
    problem.aligns.push_back(getAlignment(buffer, alignment) / problem.unit);
    if (buffer.start < buffer.end) {
      problem.starts.push_back(scale * buffer.start + maxEmpty);
      problem.ends.push_back(scale * buffer.end);
    } else {
      int64_t slot = nextSlot[buffer.start]++;
      problem.starts.push_back(scale * buffer.start + slot);
      problem.ends.push_back(scale * buffer.start + slot + 1);
    }
  }
  problem.conflicts.resize(problem.size());
  for (unsigned i = 0; i < problem.size(); ++i)
    for (unsigned j = i + 1; j < problem.size(); ++j)
      if (problem.starts[i] < problem.ends[j] &&
          problem.starts[j] < problem.ends[i] &&
          !isDirectPair(buffers, problem.ids[i], problem.ids[j])) {
        problem.conflicts[i].push_back(j);
        problem.conflicts[j].push_back(i);
      }
  // The groups in units (every shift is a multiple of both members'
  // alignments, so of the unit). Members of size 0 break a precondition;
  // they take no room and are left out.
  llvm::SmallVector<int64_t> inputGroupOf, index(buffers.size(), -1);
  for (auto [i, id] : llvm::enumerate(problem.ids))
    index[id] = i;
  problem.groupOf.assign(problem.size(), -1);
  for (OverwriteGroup &group : collectGroups(buffers, alignment, inputGroupOf)) {
    OverwriteGroup units;
    for (auto [k, id] : llvm::enumerate(group.members)) {
      if (index[id] < 0)
        continue;
      problem.groupOf[index[id]] = problem.groups.size();
      units.members.push_back(index[id]);
      units.rels.push_back(group.rels[k] / problem.unit);
      units.footprints.push_back(group.footprints[k] / problem.unit);
    }
    units.align = std::max<int64_t>(group.align / problem.unit, 1);
    units.phase = group.phase / problem.unit;
    units.span = group.span / problem.unit;
    problem.groups.push_back(std::move(units));
  }
  return problem;
}

/// Places the buffers of `problem` in `order`, each at an aligned offset in a
/// gap left by the already placed buffers it conflicts with, chosen by
/// `fit`. A group of overwrite pairs is placed when its first member comes,
/// at its lowest base where no member conflicts (first fit under both
/// rules). Returns the height (in units) and fills `offsets`.
static int64_t placeUnits(const UnitProblem &problem,
                          llvm::ArrayRef<unsigned> order, Fit fit,
                          llvm::SmallVectorImpl<int64_t> &offsets) {
  offsets.assign(problem.size(), -1);
  int64_t height = 0;
  llvm::SmallVector<std::pair<int64_t, int64_t>> taken;
  for (unsigned id : order) {
    if (problem.groupOf[id] >= 0) {
      if (offsets[id] >= 0)
        continue;
      const OverwriteGroup &group = problem.groups[problem.groupOf[id]];
      llvm::SmallVector<llvm::SmallVector<std::pair<int64_t, int64_t>>>
          memberTaken(group.members.size());
      for (auto [k, member] : llvm::enumerate(group.members))
        for (unsigned other : problem.conflicts[member])
          if (offsets[other] >= 0)
            memberTaken[k].push_back(
                {offsets[other], offsets[other] + problem.sizes[other]});
      int64_t base = findGroupBase(group, memberTaken);
      for (auto [k, member] : llvm::enumerate(group.members))
        offsets[member] = base + group.rels[k];
      height = std::max(height, base + group.span);
      continue;
    }
    int64_t size = problem.sizes[id];
    auto align = static_cast<uint64_t>(problem.aligns[id]);
    taken.clear();
    for (unsigned other : problem.conflicts[id])
      if (offsets[other] >= 0)
        taken.push_back(
            {offsets[other], offsets[other] + problem.sizes[other]});
    llvm::sort(taken);
    int64_t cursor = 0, chosen = -1, chosenGap = 0;
    for (auto [begin, end] : taken) {
      auto at = static_cast<int64_t>(llvm::alignTo(cursor, align));
      int64_t gap = begin - at;
      if (gap >= size &&
          (chosen < 0 || (fit == Fit::Best && gap < chosenGap))) {
        chosen = at;
        chosenGap = gap;
        if (fit == Fit::First)
          break;
      }
      cursor = std::max(cursor, end);
    }
    if (chosen < 0)
      chosen = static_cast<int64_t>(llvm::alignTo(cursor, align));
    offsets[id] = chosen;
    height = std::max(height, chosen + size);
  }
  return height;
}

/// Returns the placement orders the heuristics try: by size, area, lifetime
/// length, start, the largest total size alive during the lifetime, and the
/// total size of conflicting buffers (all descending but start; ties broken
/// by size, then input order).
static llvm::SmallVector<llvm::SmallVector<unsigned>>
getHeuristicOrders(const UnitProblem &problem) {
  unsigned n = problem.size();
  // Live totals per section between consecutive lifetime boundaries.
  llvm::SmallVector<int64_t> times(problem.starts);
  times.append(problem.ends.begin(), problem.ends.end());
  llvm::sort(times);
  times.erase(std::unique(times.begin(), times.end()), times.end());
  auto indexOf = [&](int64_t t) {
    return static_cast<unsigned>(llvm::lower_bound(times, t) - times.begin());
  };
  llvm::SmallVector<int64_t> delta(times.size() + 1, 0);
  for (unsigned i = 0; i < n; ++i) {
    delta[indexOf(problem.starts[i])] += problem.sizes[i];
    delta[indexOf(problem.ends[i])] -= problem.sizes[i];
  }
  llvm::SmallVector<int64_t> live(times.size(), 0);
  int64_t sum = 0;
  for (unsigned s = 0; s < times.size(); ++s)
    live[s] = sum += delta[s];
  llvm::SmallVector<int64_t> area(n), length(n), total(n, 0), conflict(n);
  for (unsigned i = 0; i < n; ++i) {
    length[i] = problem.ends[i] - problem.starts[i];
    area[i] = problem.sizes[i] * length[i];
    for (unsigned s = indexOf(problem.starts[i]), e = indexOf(problem.ends[i]);
         s < e; ++s)
      total[i] = std::max(total[i], live[s]);
    conflict[i] = problem.sizes[i];
    for (unsigned other : problem.conflicts[i])
      conflict[i] += problem.sizes[other];
  }

  llvm::SmallVector<llvm::SmallVector<unsigned>> orders;
  auto addOrder = [&](auto key) {
    llvm::SmallVector<unsigned> order =
        llvm::to_vector(llvm::seq<unsigned>(0, n));
    llvm::stable_sort(order, [&](unsigned a, unsigned b) {
      if (key(a) != key(b))
        return key(a) > key(b);
      return problem.sizes[a] > problem.sizes[b];
    });
    orders.push_back(std::move(order));
  };
  addOrder([&](unsigned i) { return problem.sizes[i]; });
  addOrder([&](unsigned i) { return area[i]; });
  addOrder([&](unsigned i) { return length[i]; });
  addOrder([&](unsigned i) { return -problem.starts[i]; });
  addOrder([&](unsigned i) { return total[i]; });
  addOrder([&](unsigned i) { return conflict[i]; });
  return orders;
}

/// Returns the plan of `buffers` that puts the buffers of `problem` at
/// `unitOffsets` (and every other buffer at 0).
static ArenaPlan makePlan(llvm::ArrayRef<ArenaBuffer> buffers,
                          const UnitProblem &problem,
                          llvm::ArrayRef<int64_t> unitOffsets) {
  ArenaPlan plan;
  plan.offsets.assign(buffers.size(), 0);
  int64_t height = problem.minArena;
  for (unsigned i = 0; i < problem.size(); ++i) {
    plan.offsets[problem.ids[i]] = unitOffsets[i] * problem.unit;
    height = std::max(height, unitOffsets[i] + problem.sizes[i]);
  }
  plan.arenaSize = height * problem.unit;
  return plan;
}

/// The `Best` algorithm; see planArena.
static std::optional<ArenaPlan> planBest(llvm::ArrayRef<ArenaBuffer> buffers,
                                         const PlacementOptions &options,
                                         ArenaPlan greedy) {
  int64_t alignment = options.alignment;
  std::optional<detail::SearchClock::time_point> deadline;
  if (options.timeLimitMs)
    deadline = detail::SearchClock::now() +
               std::chrono::milliseconds(options.timeLimitMs);
  UnitProblem problem = buildUnitProblem(buffers, alignment);
  // Every footprint is a multiple of the unit, and so is the bound.
  int64_t unit = problem.unit;
  int64_t lower = getLivenessLowerBound(buffers, alignment) / unit;

  // The heuristics, greedy-by-size first; the first smallest plan wins.
  ArenaPlan best = std::move(greedy);
  llvm::SmallVector<int64_t> offsets;
  auto tryOrder = [&](llvm::ArrayRef<unsigned> order, Fit fit) {
    int64_t height =
        std::max(placeUnits(problem, order, fit, offsets), problem.minArena);
    if (height * unit < best.arenaSize)
      best = makePlan(buffers, problem, offsets);
  };
  llvm::SmallVector<llvm::SmallVector<unsigned>> orders =
      getHeuristicOrders(problem);
  for (const llvm::SmallVector<unsigned> &order : orders)
    for (Fit fit : {Fit::First, Fit::Best})
      tryOrder(order, fit);
  // With overwrite pairs, which the exact search below does not know, each
  // order again with one buffer moved to its front: a group placed later
  // then leaves room for that buffer (in a chain, the output of the layer
  // after an expanding 1x1 convolution, below the convolution's output).
  // This stops at the lower bound, or once the buffers placed exceed the
  // node budget.
  if (!problem.groups.empty()) {
    uint64_t placed = 0;
    llvm::SmallVector<unsigned> moved;
    for (const llvm::SmallVector<unsigned> &order : orders)
      for (unsigned i = 1; i < order.size(); ++i)
        for (Fit fit : {Fit::First, Fit::Best}) {
          if (best.arenaSize == lower * unit ||
              (options.maxSearchNodes && placed > options.maxSearchNodes))
            break;
          moved.assign(order.begin(), order.end());
          std::rotate(moved.begin(), moved.begin() + i,
                      moved.begin() + i + 1);
          tryOrder(moved, fit);
          placed += order.size();
        }
  }
  // A plan at the lower bound is minimal; planArena rejects it if it does
  // not fit the capacity.
  best.provenMinimal = best.arenaSize == lower * unit;
  // The exact search knows no overwrite pairs: with any, the best heuristic
  // plan is the answer (planArena rejects it if it does not fit).
  if (best.provenMinimal || !problem.groups.empty())
    return best;

  detail::PackingSearch search(problem.sizes, problem.aligns, problem.starts,
                               problem.ends);
  // Find the smallest height that fits in [low, high + 1], where low is
  // proven (nothing below fits) and high + 1 is the incumbent. Each round
  // tries `low` itself (real workloads usually reach the lower bound), then
  // probes the middle of [probe, high] to improve the incumbent, each search
  // with the round's node budget; the budget doubles every round. A search
  // that runs out of nodes proves nothing, and the next probe looks above it
  // (probe restarts from low once it passes high); an infeasible height
  // proves every lower one infeasible too. Node budgets, not clocks, steer
  // and end this (no round's budget exceeds options.maxSearchNodes), so the
  // result is deterministic unless the time limit stops it first.
  int64_t low = lower, high = best.arenaSize / unit - 1;
  int64_t probe = low;
  uint64_t budget = 20000 + 100 * static_cast<uint64_t>(problem.size());
  // Runs one search; returns false when the time limit stopped it.
  auto attempt = [&](int64_t target) {
    detail::SearchResult result = search.solve(target, budget, deadline);
    switch (result.status) {
    case detail::SearchStatus::TimedOut:
      best.stoppedOnClock = true;
      return false;
    case detail::SearchStatus::Infeasible:
      low = std::max(low, target + 1);
      probe = std::max(probe, low);
      break;
    case detail::SearchStatus::OutOfNodes:
      if (target != low)
        probe = target + 1;
      break;
    case detail::SearchStatus::Found:
      best = makePlan(buffers, problem, result.offsets);
      high = best.arenaSize / unit - 1;
      break;
    }
    return true;
  };
  for (; low <= high; budget *= 2) {
    if (options.maxSearchNodes && budget > options.maxSearchNodes)
      break;
    if (!attempt(low))
      break;
    if (probe > high)
      probe = low;
    if (low < high && !attempt(probe + (high - probe + 1) / 2))
      break;
  }
  best.provenMinimal = low > high;

  // A capacity never costs bytes: the plan above is the one found without
  // it. Only when that plan does not fit is a plan under the capacity
  // searched for, which then stops at the first plan that fits.
  if (!options.capacity || best.arenaSize <= options.capacity)
    return best;
  int64_t capacity = options.capacity / unit;
  if (low > capacity || best.stoppedOnClock)
    return std::nullopt;
  detail::SearchResult result =
      search.solve(capacity, options.maxSearchNodes, deadline);
  if (result.status != detail::SearchStatus::Found)
    return std::nullopt;
  ArenaPlan plan = makePlan(buffers, problem, result.offsets);
  plan.provenMinimal = plan.arenaSize == lower * unit;
  return plan;
}

llvm::Error mlir::memopt::validateOverwrites(llvm::ArrayRef<ArenaBuffer> buffers,
                                             int64_t alignment) {
  auto error = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  auto n = static_cast<int64_t>(buffers.size());
  llvm::SmallVector<int64_t> overwrittenBy(n, -1);
  for (auto [i, b] : llvm::enumerate(buffers)) {
    int64_t target = b.overwrites;
    if (target == -1)
      continue;
    std::string pair =
        ("buffer " + llvm::Twine(i) + " overwrites buffer " + llvm::Twine(target))
            .str();
    if (target < -1 || target >= n)
      return error(pair + ", which does not exist (" + llvm::Twine(n) +
                   " buffers)");
    if (target == static_cast<int64_t>(i))
      return error("buffer " + llvm::Twine(i) + " overwrites itself");
    const ArenaBuffer &a = buffers[target];
    if (a.size <= 0 || b.size <= 0)
      return error(pair + ", but one of them has size 0");
    int64_t aAlign = getAlignment(a, alignment),
            bAlign = getAlignment(b, alignment);
    if (b.overwriteShift % aAlign || b.overwriteShift % bAlign)
      return error(pair + " at shift " + llvm::Twine(b.overwriteShift) +
                   ", not a multiple of both alignments (" +
                   llvm::Twine(aAlign) + " and " + llvm::Twine(bAlign) + ")");
    if (overwrittenBy[target] >= 0)
      return error("buffers " + llvm::Twine(overwrittenBy[target]) + " and " +
                   llvm::Twine(i) + " both overwrite buffer " +
                   llvm::Twine(target));
    overwrittenBy[target] = i;
  }
  // Each buffer overwrites at most one and is overwritten by at most one, so
  // the links form chains and cycles; a cycle has no buffer that overwrites
  // none.
  for (int64_t i = 0; i < n; ++i) {
    int64_t id = i;
    for (int64_t steps = 0; buffers[id].overwrites >= 0; ++steps) {
      if (steps == n)
        return error("the overwrite pairs form a cycle through buffer " +
                     llvm::Twine(i));
      id = buffers[id].overwrites;
    }
  }
  llvm::SmallVector<int64_t> groupOf;
  for (const OverwriteGroup &group :
       collectGroups(buffers, alignment, groupOf)) {
    for (auto [k, id] : llvm::enumerate(group.members))
      if ((group.phase + group.rels[k]) %
          getAlignment(buffers[id], alignment))
        return error("buffer " + llvm::Twine(id) +
                     " cannot be aligned at its offset relative to the "
                     "buffers it is linked to by overwrite pairs");
    for (unsigned k = 0; k < group.members.size(); ++k)
      for (unsigned l = k + 1; l < group.members.size(); ++l) {
        unsigned x = group.members[k], y = group.members[l];
        if (!isDirectPair(buffers, x, y) &&
            livesOverlap(buffers[x], buffers[y]) &&
            group.rels[k] < group.rels[l] + group.footprints[l] &&
            group.rels[l] < group.rels[k] + group.footprints[k])
          return error("buffers " + llvm::Twine(x) + " and " + llvm::Twine(y) +
                       ", linked by overwrite pairs but not a direct pair, "
                       "share bytes while both are alive");
      }
  }
  return llvm::Error::success();
}

/// Returns true if validateOverwrites accepts `buffers`.
static bool overwritesAreValid(llvm::ArrayRef<ArenaBuffer> buffers,
                               int64_t alignment) {
  return !llvm::errorToBool(validateOverwrites(buffers, alignment));
}

/// Returns the buffers' indices by decreasing size, the order of
/// greedy-by-size (stable: ties in input order).
static llvm::SmallVector<unsigned>
getBySizeOrder(llvm::ArrayRef<ArenaBuffer> buffers) {
  llvm::SmallVector<unsigned> order = llvm::to_vector(
      llvm::seq<unsigned>(0, static_cast<unsigned>(buffers.size())));
  std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
    return buffers[a].size > buffers[b].size;
  });
  return order;
}

/// Merges every overwrite pair whose buffers share exactly their bytes
/// (shift 0, the same footprint and alignment) and whose lifetimes meet or
/// touch into one buffer alive for both lifetimes, a plain rectangle that the exact search knows. Fills
/// \p mergedIndex with the index of each buffer among the merged ones.
static llvm::SmallVector<ArenaBuffer>
mergeExactPairs(llvm::ArrayRef<ArenaBuffer> buffers, int64_t alignment,
                llvm::SmallVectorImpl<unsigned> &mergedIndex) {
  auto isExact = [&](const ArenaBuffer &buffer) {
    if (buffer.overwrites < 0 || buffer.overwriteShift != 0 || !buffer.size)
      return false;
    const ArenaBuffer &over = buffers[buffer.overwrites];
    // The two lifetimes must meet or touch: the merged buffer is alive from
    // the first start to the last end.
    return buffer.start <= over.end && over.start <= buffer.end &&
           getFootprint(buffer, alignment) == getFootprint(over, alignment) &&
           getAlignment(buffer, alignment) == getAlignment(over, alignment);
  };
  // The buffer each one shares its bytes with, back to the first of a chain.
  auto getRoot = [&](unsigned id) {
    while (isExact(buffers[id]))
      id = static_cast<unsigned>(buffers[id].overwrites);
    return id;
  };
  llvm::SmallVector<ArenaBuffer> merged;
  mergedIndex.assign(buffers.size(), 0);
  llvm::SmallVector<int64_t> indexOfRoot(buffers.size(), -1);
  for (unsigned id = 0; id < buffers.size(); ++id) {
    unsigned root = getRoot(id);
    if (indexOfRoot[root] < 0) {
      indexOfRoot[root] = static_cast<int64_t>(merged.size());
      merged.push_back(buffers[root]);
    }
    ArenaBuffer &into = merged[indexOfRoot[root]];
    into.start = std::min(into.start, buffers[id].start);
    into.end = std::max(into.end, buffers[id].end);
    mergedIndex[id] = static_cast<unsigned>(indexOfRoot[root]);
  }
  // A link out of a chain (from its first buffer) points at the merged
  // buffer of its target.
  for (ArenaBuffer &buffer : merged)
    if (buffer.overwrites >= 0)
      buffer.overwrites = mergedIndex[buffer.overwrites];
  return merged;
}

std::optional<ArenaPlan>
mlir::memopt::planArena(llvm::ArrayRef<ArenaBuffer> buffers,
                        const PlacementOptions &options) {
  assert(options.alignment > 0 && llvm::isPowerOf2_64(options.alignment) &&
         "alignment must be a power of two");
  assert(llvm::all_of(buffers,
                      [](const ArenaBuffer &buffer) {
                        return buffer.alignment >= 0 &&
                               (buffer.alignment == 0 ||
                                llvm::isPowerOf2_64(buffer.alignment));
                      }) &&
         "buffer alignments must be powers of two");
  assert(overwritesAreValid(buffers, options.alignment) &&
         "overwrite pairs break a precondition (see validateOverwrites)");
  if (options.algorithm == PlacementAlgorithm::Best) {
    llvm::SmallVector<unsigned> mergedIndex;
    llvm::SmallVector<ArenaBuffer> merged =
        mergeExactPairs(buffers, options.alignment, mergedIndex);
    if (merged.size() < buffers.size()) {
      std::optional<ArenaPlan> plan = planArena(merged, options);
      if (plan) {
        llvm::SmallVector<int64_t> offsets;
        for (unsigned index : mergedIndex)
          offsets.push_back(plan->offsets[index]);
        plan->offsets = std::move(offsets);
        if (plan->provenMinimal)
          return plan;
      }
      // The heuristics on the merged buffers are not those on the pairs:
      // never worse than greedy-by-size on the buffers as given.
      ArenaPlan greedy = placeInOrder(buffers, getBySizeOrder(buffers),
                                      options.alignment);
      if ((plan && greedy.arenaSize >= plan->arenaSize) ||
          (options.capacity && greedy.arenaSize > options.capacity))
        return plan;
      greedy.provenMinimal = greedy.arenaSize ==
                             getLivenessLowerBound(buffers, options.alignment);
      return greedy;
    }
  }
  ArenaPlan plan;
  if (options.algorithm == PlacementAlgorithm::NoReuse) {
    // In input order; a group takes its span when its first member comes.
    llvm::SmallVector<int64_t> groupOf;
    llvm::SmallVector<OverwriteGroup> groups =
        collectGroups(buffers, options.alignment, groupOf);
    plan.offsets.assign(buffers.size(), -1);
    for (auto [id, buffer] : llvm::enumerate(buffers)) {
      if (groupOf[id] >= 0) {
        if (plan.offsets[id] >= 0)
          continue;
        const OverwriteGroup &group = groups[groupOf[id]];
        int64_t base = alignToPhase(plan.arenaSize, group.align, group.phase);
        for (auto [k, member] : llvm::enumerate(group.members))
          plan.offsets[member] = base + group.rels[k];
        plan.arenaSize = base + group.span;
        continue;
      }
      // An empty buffer takes no bytes, and no padding either.
      auto align =
          static_cast<uint64_t>(getAlignment(buffer, options.alignment));
      auto offset = static_cast<int64_t>(
          buffer.size ? llvm::alignTo(plan.arenaSize, align)
                      : llvm::alignDown(plan.arenaSize, align));
      plan.offsets[id] = offset;
      plan.arenaSize = std::max(
          plan.arenaSize, offset + getFootprint(buffer, options.alignment));
    }
  } else {
    plan = placeInOrder(buffers, getBySizeOrder(buffers), options.alignment);
    if (options.algorithm == PlacementAlgorithm::Best) {
      std::optional<ArenaPlan> best =
          planBest(buffers, options, std::move(plan));
      if (!best)
        return std::nullopt;
      plan = std::move(*best);
    }
  }
  if (options.capacity && plan.arenaSize > options.capacity)
    return std::nullopt;
  return plan;
}

bool mlir::memopt::isValidPlan(llvm::ArrayRef<ArenaBuffer> buffers,
                               const ArenaPlan &plan, int64_t alignment) {
  if (plan.offsets.size() != buffers.size() ||
      !overwritesAreValid(buffers, alignment))
    return false;
  for (auto [i, a] : llvm::enumerate(buffers)) {
    int64_t offset = plan.offsets[i];
    int64_t aBytes = getFootprint(a, alignment);
    if (offset < 0 || offset % getAlignment(a, alignment) ||
        offset + aBytes > plan.arenaSize)
      return false;
    if (a.overwrites >= 0 &&
        offset != plan.offsets[a.overwrites] + a.overwriteShift)
      return false;
    for (unsigned j = i + 1; j < buffers.size(); ++j) {
      const ArenaBuffer &b = buffers[j];
      if (livesOverlap(a, b) && a.size && b.size &&
          !isDirectPair(buffers, i, j) &&
          offset < plan.offsets[j] + getFootprint(b, alignment) &&
          plan.offsets[j] < offset + aBytes)
        return false;
    }
  }
  return true;
}

llvm::Expected<llvm::SmallVector<ArenaBuffer>>
mlir::memopt::parseArenaBuffersCsv(llvm::StringRef text) {
  auto error = [](size_t line, const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "line " + llvm::Twine(line) + ": " +
                                       message);
  };
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n');
  if (lines.empty() || lines.front().trim() != "id,lower,upper,size")
    return error(1, "expected the header 'id,lower,upper,size'");
  llvm::SmallVector<ArenaBuffer> buffers;
  llvm::DenseMap<int64_t, size_t> idLines;
  for (size_t i = 1; i < lines.size(); ++i) {
    size_t lineNo = i + 1;
    llvm::StringRef line = lines[i].trim();
    if (line.empty())
      continue;
    llvm::SmallVector<llvm::StringRef> fields;
    line.split(fields, ',');
    if (fields.size() != 4)
      return error(lineNo, "expected 4 fields (id,lower,upper,size), got " +
                               llvm::Twine(fields.size()));
    int64_t values[4];
    static const char *names[] = {"id", "lower", "upper", "size"};
    for (unsigned f = 0; f < 4; ++f)
      if (fields[f].trim().getAsInteger(10, values[f]) || values[f] < 0)
        return error(lineNo, llvm::Twine("'") + names[f] +
                                 "' is not a non-negative integer: '" +
                                 fields[f].trim() + "'");
    auto [it, inserted] = idLines.try_emplace(values[0], lineNo);
    if (!inserted)
      return error(lineNo, "duplicate id " + llvm::Twine(values[0]) +
                               " (first on line " + llvm::Twine(it->second) +
                               ")");
    if (values[1] > values[2])
      return error(lineNo, "lower " + llvm::Twine(values[1]) +
                               " is above upper " + llvm::Twine(values[2]));
    buffers.push_back({values[3], values[1], values[2]});
  }
  return buffers;
}
