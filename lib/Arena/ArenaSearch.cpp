//===- ArenaSearch.cpp - Exact search for arena placements ----------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// A depth-first branch and bound over canonical placements, after MiniMalloc
// (Moffitt, "MiniMalloc: A Lightweight Memory Allocator for Hardware-
// Accelerated Machine Learning", ASPLOS'23):
//
// - Time is cut into sections, the intervals between consecutive lifetime
//   boundaries; a buffer spans a contiguous range of sections.
// - Buffers are placed in non-decreasing order of offset, each at its
//   canonical offset: the top of the highest placed buffer it overlaps in
//   time (0 if none), rounded up to the buffer's alignment. Every placement
//   can be pushed down, one alignment step at a time, until each buffer
//   rests on 0 or is blocked by a buffer below it whose top is above its
//   previous step, so that its offset is that top rounded up to its
//   alignment; the pushed placement is produced in this order (the blocking
//   buffer is placed first, and no placed buffer it overlaps ends higher),
//   so the search is complete. Ties between buffers at one offset are
//   broken by a static preorder (symmetry breaking).
// - A candidate whose offset is at or above the top of another unplaced
//   buffer (at its canonical offset) is skipped: that buffer could go first
//   and leave no gap (dominance).
// - Pruning: in each section, the unplaced buffers all overlap in time, so
//   they stack above the section's floor (the top of its placed buffers, the
//   current offset, and the lowest canonical offset of its unplaced buffers)
//   and need floor + their total size <= height.
// - When no unplaced buffer crosses a section boundary, the rest splits into
//   independent subproblems solved one after the other.
// - Like MiniMalloc, several preorders run round-robin with a node budget
//   that doubles every round, so one unlucky order does not stall the search.
//
// Everything is deterministic: node budgets, not clocks, drive the round
// robin; the deadline only stops the search.
//
//===----------------------------------------------------------------------===//

#include "ArenaSearch.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::detail;

namespace {

/// Status of one search subtree.
enum class NodeStatus { Found, NotFound, OutOfNodes, TimedOut };

/// A preorder of the buffers: keys compared in turn, all descending.
enum class PreorderKey { Width, Area, Total };

/// A record to undo a change of an int64_t slot.
struct Change {
  int64_t *slot;
  int64_t old;
};

} // namespace

/// The state of a search.
class PackingSearch::Impl {
public:
  Impl(llvm::ArrayRef<int64_t> sizes, llvm::ArrayRef<int64_t> aligns,
       llvm::ArrayRef<int64_t> starts, llvm::ArrayRef<int64_t> ends);

  /// See PackingSearch::solve.
  SearchResult solve(int64_t height, uint64_t maxNodes,
                     std::optional<SearchClock::time_point> deadline);

private:
  /// Splits the unplaced buffers of `buffers` at the boundaries inside
  /// [secLo, secHi) that no unplaced buffer crosses and solves each part.
  NodeStatus decompose(llvm::ArrayRef<int> buffers, int secLo, int secHi);

  /// Preorders `buffers` and searches them from offset 0.
  NodeStatus subSolve(llvm::ArrayRef<int> buffers, int secLo, int secHi);

  /// Places one more buffer of `part` (in preorder) at an offset of at least
  /// `lastOffset` (and after preorder position `lastPos` at that offset).
  /// `maxTotal` is at least the largest unplaced total of the sections in
  /// [secLo, secHi).
  NodeStatus search(llvm::ArrayRef<int> part, int secLo, int secHi,
                    int64_t lastOffset, int lastPos, int64_t maxTotal);

  /// Returns the largest unplaced total of the sections in [secLo, secHi).
  int64_t getMaxTotal(int secLo, int secHi) const;

  /// Records `*slot` in `changes` and sets it to `value`.
  static void set(llvm::SmallVectorImpl<Change> &changes, int64_t &slot,
                  int64_t value) {
    changes.push_back({&slot, slot});
    slot = value;
  }

  // Problem.
  int numBuffers;
  int numSections = 0;
  llvm::SmallVector<int64_t> size, align, length, area;
  /// Sections [lo[i], hi[i]) of buffer i.
  llvm::SmallVector<int> lo, hi;
  /// Buffers overlapping buffer i in time.
  llvm::SmallVector<llvm::SmallVector<int>> overlaps;
  /// Buffers alive in section s.
  llvm::SmallVector<llvm::SmallVector<int>> sectionBuffers;
  /// Sum of sizes alive in section s, and buffers crossing the boundary
  /// between sections s and s + 1, before any placement.
  llvm::SmallVector<int64_t> initialTotal, initialCuts;

  // Search state.
  int64_t height = 0;
  PreorderKey order[3] = {PreorderKey::Width, PreorderKey::Area,
                          PreorderKey::Total};
  llvm::SmallVector<int64_t> offset, minOffset;
  llvm::SmallVector<int64_t> floor, total, cuts;
  llvm::SmallVector<int64_t> solution;
  /// Marks of the sections whose floor needs recomputing.
  llvm::SmallVector<uint64_t> sectionMark;
  uint64_t markStamp = 0;
  int64_t nodesLeft = 0;
  uint64_t nodes = 0;
  std::optional<SearchClock::time_point> deadline;
  bool timedOut = false;
};

PackingSearch::Impl::Impl(llvm::ArrayRef<int64_t> sizes,
                          llvm::ArrayRef<int64_t> aligns,
                          llvm::ArrayRef<int64_t> starts,
                          llvm::ArrayRef<int64_t> ends)
    : numBuffers(static_cast<int>(sizes.size())) {
  llvm::SmallVector<int64_t> times;
  for (int i = 0; i < numBuffers; ++i) {
    assert(sizes[i] > 0 && starts[i] < ends[i] && "degenerate buffer");
    assert(aligns[i] > 0 && llvm::isPowerOf2_64(aligns[i]) &&
           "alignment must be a power of two");
    times.push_back(starts[i]);
    times.push_back(ends[i]);
  }
  llvm::sort(times);
  times.erase(std::unique(times.begin(), times.end()), times.end());
  numSections = times.empty() ? 0 : static_cast<int>(times.size()) - 1;
  auto indexOf = [&](int64_t t) {
    return static_cast<int>(llvm::lower_bound(times, t) - times.begin());
  };
  sectionBuffers.resize(numSections);
  initialTotal.assign(numSections, 0);
  initialCuts.assign(std::max(numSections - 1, 0), 0);
  for (int i = 0; i < numBuffers; ++i) {
    size.push_back(sizes[i]);
    align.push_back(aligns[i]);
    length.push_back(ends[i] - starts[i]);
    area.push_back(sizes[i] * length.back());
    lo.push_back(indexOf(starts[i]));
    hi.push_back(indexOf(ends[i]));
    for (int s = lo[i]; s < hi[i]; ++s) {
      sectionBuffers[s].push_back(i);
      initialTotal[s] += sizes[i];
    }
    for (int s = lo[i]; s + 1 < hi[i]; ++s)
      ++initialCuts[s];
  }
  overlaps.resize(numBuffers);
  for (int i = 0; i < numBuffers; ++i)
    for (int j = i + 1; j < numBuffers; ++j)
      if (lo[i] < hi[j] && lo[j] < hi[i]) {
        overlaps[i].push_back(j);
        overlaps[j].push_back(i);
      }
}

int64_t PackingSearch::Impl::getMaxTotal(int secLo, int secHi) const {
  int64_t most = 0;
  for (int s = secLo; s < secHi; ++s)
    most = std::max(most, total[s]);
  return most;
}

NodeStatus PackingSearch::Impl::decompose(llvm::ArrayRef<int> buffers,
                                          int secLo, int secHi) {
  int begin = secLo;
  for (int s = secLo; s < secHi; ++s) {
    if (s + 1 < secHi && cuts[s] != 0)
      continue;
    // [begin, s + 1) is independent of the rest.
    llvm::SmallVector<int> part;
    for (int b : buffers)
      if (offset[b] < 0 && lo[b] < s + 1 && begin < hi[b])
        part.push_back(b);
    if (!part.empty()) {
      NodeStatus status = subSolve(part, begin, s + 1);
      if (status != NodeStatus::Found)
        return status;
    }
    begin = s + 1;
  }
  return NodeStatus::Found;
}

NodeStatus PackingSearch::Impl::subSolve(llvm::ArrayRef<int> buffers, int secLo,
                                         int secHi) {
  // Preorder keys: width (lifetime length), area, and the largest unplaced
  // total of the sections the buffer spans.
  struct Key {
    int64_t width, area, total;
    int buffer;
  };
  llvm::SmallVector<Key> keys;
  for (int b : buffers) {
    int64_t most = 0;
    for (int s = lo[b]; s < hi[b]; ++s)
      most = std::max(most, total[s]);
    keys.push_back({length[b], area[b], most, b});
  }
  auto value = [](const Key &k, PreorderKey key) {
    switch (key) {
    case PreorderKey::Width:
      return k.width;
    case PreorderKey::Area:
      return k.area;
    case PreorderKey::Total:
      return k.total;
    }
    return int64_t(0);
  };
  llvm::sort(keys, [&](const Key &a, const Key &b) {
    for (PreorderKey key : order)
      if (value(a, key) != value(b, key))
        return value(a, key) > value(b, key);
    return a.buffer < b.buffer;
  });
  llvm::SmallVector<int> part;
  for (const Key &k : keys)
    part.push_back(k.buffer);
  return search(part, secLo, secHi, /*lastOffset=*/0, /*lastPos=*/0,
                getMaxTotal(secLo, secHi));
}

NodeStatus PackingSearch::Impl::search(llvm::ArrayRef<int> part, int secLo,
                                       int secHi, int64_t lastOffset,
                                       int lastPos, int64_t maxTotal) {
  if (nodesLeft-- <= 0)
    return NodeStatus::OutOfNodes;
  if ((++nodes & 1023) == 0 && deadline && SearchClock::now() >= *deadline)
    timedOut = true;
  if (timedOut)
    return NodeStatus::TimedOut;

  // Candidates: unplaced buffers at their canonical offsets, lowest first.
  struct Candidate {
    int64_t offset;
    int pos;
  };
  llvm::SmallVector<Candidate, 32> candidates;
  int64_t minHeight = std::numeric_limits<int64_t>::max();
  for (auto [pos, b] : llvm::enumerate(part))
    if (offset[b] < 0) {
      candidates.push_back({minOffset[b], static_cast<int>(pos)});
      minHeight = std::min(minHeight, minOffset[b] + size[b]);
    }
  if (candidates.empty())
    return NodeStatus::Found;
  llvm::sort(candidates, [](const Candidate &a, const Candidate &b) {
    return a.offset != b.offset ? a.offset < b.offset : a.pos < b.pos;
  });

  llvm::SmallVector<Change, 64> changes;
  for (auto [at, pos] : candidates) {
    // Canonical order: offsets never decrease; ties follow the preorder.
    if (at < lastOffset || (at == lastOffset && pos < lastPos))
      continue;
    // Dominance: another buffer would fit entirely below this one.
    if (at >= minHeight)
      break;
    int b = part[pos];
    int64_t top = at + size[b];
    if (top > height)
      continue;
    offset[b] = at;
    solution[b] = at;
    changes.clear();

    // Buffers overlapping b in time now start at b's top or above, rounded
    // up to their alignment; `reach` is the highest such new offset.
    ++markStamp;
    llvm::SmallVector<int, 32> affected, raised;
    bool hatless = true;
    int64_t reach = top;
    for (int other : overlaps[b]) {
      if (offset[other] >= 0)
        continue;
      hatless = false;
      auto above = static_cast<int64_t>(
          llvm::alignTo(top, static_cast<uint64_t>(align[other])));
      if (minOffset[other] >= above)
        continue;
      set(changes, minOffset[other], above);
      reach = std::max(reach, above);
      // Only sections outside b's lifetime may see their floor rise below.
      auto mark = [&](int begin, int end) {
        for (int s = begin; s < end; ++s)
          if (sectionMark[s] != markStamp) {
            sectionMark[s] = markStamp;
            affected.push_back(s);
          }
      };
      mark(lo[other], std::min(hi[other], lo[b]));
      mark(std::max(lo[other], hi[b]), hi[other]);
    }
    // b raises the floor of its sections and leaves their unplaced total.
    for (int s = lo[b]; s < hi[b]; ++s) {
      set(changes, floor[s], std::max(floor[s], top));
      total[s] -= size[b];
    }
    // A section's floor is at least its lowest unplaced canonical offset.
    // An affected section holds a buffer whose canonical offset is now at
    // most `reach`, so its floor can rise to `reach` at most: skip the scan
    // when the floor is there already, or when even `reach` plus the
    // section's unplaced total fits (totals only shrink, so that raise could
    // never prune). A scan stops at the first unplaced buffer that leaves the
    // floor where it is.
    for (int s : affected) {
      if (floor[s] >= reach || reach + total[s] <= height)
        continue;
      int64_t lowest = std::numeric_limits<int64_t>::max();
      for (int other : sectionBuffers[s])
        if (offset[other] < 0) {
          lowest = std::min(lowest, minOffset[other]);
          if (lowest <= floor[s])
            break;
        }
      if (lowest != std::numeric_limits<int64_t>::max() && floor[s] < lowest) {
        set(changes, floor[s], lowest);
        raised.push_back(s);
      }
    }

    // Every section s of the partition needs max(at, floor) + total <= height,
    // that is floor + total <= height and at + total <= height. The first
    // held before this placement except where floor or total just changed:
    // b's sections and the raised floors. The second holds for all sections
    // when at + maxTotal fits (totals only shrink), else a scan decides.
    bool fits = true;
    for (int s = lo[b]; s < hi[b] && fits; ++s)
      fits = floor[s] + total[s] <= height;
    for (int s : raised)
      fits = fits && floor[s] + total[s] <= height;
    int64_t bound = maxTotal;
    if (fits && at + bound > height) {
      bound = getMaxTotal(secLo, secHi);
      fits = at + bound <= height;
    }
    NodeStatus status = NodeStatus::NotFound;
    if (fits) {
      // Boundaries that b alone crossed now split the problem.
      bool split = false;
      for (int s = lo[b]; s + 1 < hi[b]; ++s)
        if (--cuts[s] == 0 && s >= secLo && s + 1 < secHi)
          split = true;
      status = split ? decompose(part, secLo, secHi)
                     : search(part, secLo, secHi, at, pos, bound);
      for (int s = lo[b]; s + 1 < hi[b]; ++s)
        ++cuts[s];
    }

    for (int s = lo[b]; s < hi[b]; ++s)
      total[s] += size[b];
    for (const Change &change : llvm::reverse(changes))
      *change.slot = change.old;
    offset[b] = -1;
    if (status != NodeStatus::NotFound)
      return status;
    // Hatless pruning: no unplaced buffer overlaps b, so b at its canonical
    // offset constrains nothing; the failure is not b's, and placing any
    // other buffer first cannot help.
    if (hatless)
      break;
  }
  return NodeStatus::NotFound;
}

SearchResult
PackingSearch::Impl::solve(int64_t newHeight, uint64_t maxNodes,
                           std::optional<SearchClock::time_point> newDeadline) {
  SearchResult result;
  height = newHeight;
  deadline = newDeadline;
  timedOut = false;
  nodes = 0;
  offset.assign(numBuffers, -1);
  minOffset.assign(numBuffers, 0);
  solution.assign(numBuffers, 0);
  floor.assign(numSections, 0);
  total.assign(initialTotal.begin(), initialTotal.end());
  cuts.assign(initialCuts.begin(), initialCuts.end());
  sectionMark.assign(numSections, 0);

  // Quick refusal: some section holds more than `height` on its own.
  for (int64_t sum : initialTotal)
    if (sum > height)
      return result;

  static const PreorderKey orders[][3] = {
      {PreorderKey::Width, PreorderKey::Area, PreorderKey::Total},
      {PreorderKey::Total, PreorderKey::Area, PreorderKey::Width},
      {PreorderKey::Total, PreorderKey::Width, PreorderKey::Area},
  };
  llvm::SmallVector<int> all = llvm::to_vector(llvm::seq<int>(0, numBuffers));
  // Round robin over the preorders with a node budget doubling every round.
  for (int64_t budget = std::max(numBuffers, 1);; budget *= 2) {
    for (const auto &preorder : orders) {
      std::copy(std::begin(preorder), std::end(preorder), order);
      nodesLeft = budget * 2;
      if (maxNodes)
        nodesLeft = std::min<int64_t>(nodesLeft, maxNodes - nodes);
      NodeStatus status = decompose(all, 0, numSections);
      result.nodes = nodes;
      switch (status) {
      case NodeStatus::Found:
        result.status = SearchStatus::Found;
        result.offsets.assign(solution.begin(), solution.end());
        return result;
      case NodeStatus::NotFound:
        result.status = SearchStatus::Infeasible;
        return result;
      case NodeStatus::TimedOut:
        result.status = SearchStatus::TimedOut;
        return result;
      case NodeStatus::OutOfNodes:
        if (maxNodes && nodes >= maxNodes) {
          result.status = SearchStatus::OutOfNodes;
          return result;
        }
        break;
      }
    }
  }
}

PackingSearch::PackingSearch(llvm::ArrayRef<int64_t> sizes,
                             llvm::ArrayRef<int64_t> aligns,
                             llvm::ArrayRef<int64_t> starts,
                             llvm::ArrayRef<int64_t> ends)
    : impl(std::make_unique<Impl>(sizes, aligns, starts, ends)) {}

PackingSearch::~PackingSearch() = default;

SearchResult
PackingSearch::solve(int64_t height, uint64_t maxNodes,
                     std::optional<SearchClock::time_point> deadline) {
  return impl->solve(height, maxNodes, deadline);
}
