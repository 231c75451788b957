//===- ArenaPlanner.h - Static buffer placement in one arena ----*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Places buffers with fixed lifetimes at byte offsets in one arena so that no
// two buffers alive at the same time overlap (the dynamic storage allocation
// problem). Works on sizes and lifetimes alone; never touches IR. The
// memplan passes build the problem from bufferized IR, and the MiniMalloc
// benchmark feeds it the public instances.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ARENA_ARENAPLANNER_H
#define MEMOPT_ARENA_ARENAPLANNER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>

namespace mlir {
namespace memopt {

/// One buffer to place: `size` bytes, alive during the steps [start, end),
/// at an offset that is a multiple of `alignment` (a power of two; 0 takes
/// the placement's default alignment). The buffer occupies its footprint:
/// `size` rounded up to its alignment (getFootprint).
struct ArenaBuffer {
  int64_t size = 0;
  int64_t start = 0;
  int64_t end = 0;
  int64_t alignment = 0;
};

/// Returns the alignment of \p buffer: its own, or \p defaultAlignment if it
/// has none.
inline int64_t getAlignment(const ArenaBuffer &buffer,
                            int64_t defaultAlignment) {
  return buffer.alignment ? buffer.alignment : defaultAlignment;
}

/// Returns the bytes \p buffer occupies in the arena: its size rounded up to
/// its alignment (getAlignment).
int64_t getFootprint(const ArenaBuffer &buffer, int64_t defaultAlignment);

/// How to place the buffers.
enum class PlacementAlgorithm {
  /// Every buffer gets its own bytes (no reuse).
  NoReuse,
  /// TFLite Micro's greedy-by-size: largest first, lowest offset that fits.
  GreedyBySize,
  /// mem-opt's planner: the best placement it can find, aiming at the
  /// liveness lower bound.
  Best,
};

/// Parses an algorithm name (`no-reuse`, `greedy-by-size`, `best`).
std::optional<PlacementAlgorithm> parsePlacementAlgorithm(llvm::StringRef name);

/// Options of a placement.
struct PlacementOptions {
  PlacementAlgorithm algorithm = PlacementAlgorithm::Best;
  /// Alignment of the buffers without one of their own (a power of two).
  int64_t alignment = 16;
  /// Arena capacity to fit into; 0 means unbounded (minimize the size).
  int64_t capacity = 0;
  /// Node budget of the `Best` search: the budget of one attempt doubles
  /// every round, and the search stops (deterministically) before a round
  /// whose budget exceeds this; 0 means none.
  uint64_t maxSearchNodes = 1 << 18;
  /// Wall-clock safety stop of searching algorithms in milliseconds; 0 means
  /// none. When it stops a search, the plan says so (`stoppedOnClock`).
  uint64_t timeLimitMs = 10000;
};

/// A placement: one offset per buffer, in input order, and the arena size
/// (the largest offset + footprint; at least the largest footprint).
struct ArenaPlan {
  llvm::SmallVector<int64_t> offsets;
  int64_t arenaSize = 0;
  /// True if no smaller arena exists (for the given alignments): the size
  /// equals the lower bound, or the exact search proved it minimal. Only the
  /// `Best` algorithm proves anything.
  bool provenMinimal = false;
  /// True if the wall-clock safety stop (`timeLimitMs`) ended the search, so
  /// that a busier machine might have returned another plan.
  bool stoppedOnClock = false;
};

/// Largest sum of footprints (getFootprint; `alignment` is the default
/// alignment) of buffers alive at one step, and at least the largest single
/// footprint: no placement can use a smaller arena. A buffer with
/// start == end is alive at no step.
int64_t getLivenessLowerBound(llvm::ArrayRef<ArenaBuffer> buffers,
                              int64_t alignment);

/// Places `buffers`. Returns std::nullopt if `options.capacity` is set and the
/// algorithm found no placement within it.
///
/// Sizes must be >= 0 and start <= end. Two buffers collide when both sizes
/// are positive and their lifetimes overlap as isValidPlan defines it
/// (a.start < b.end && b.start < a.end; an empty lifetime [t, t) collides
/// with the buffers alive both before and after t).
///
/// `Best` returns the smallest plan found (never worse than greedy-by-size);
/// a capacity never changes it when it fits. Only when it does not fit does
/// `Best` search for a plan within the capacity, and return the first it
/// finds. It
/// is deterministic: node budgets (`options.maxSearchNodes`) end the search,
/// so the same input gives the same plan, unless `options.timeLimitMs` stops
/// it first; then it returns what it has, with `stoppedOnClock` set
/// (std::nullopt if no plan fitting the capacity was found yet). See
/// docs/ArenaPlanning.md.
std::optional<ArenaPlan> planArena(llvm::ArrayRef<ArenaBuffer> buffers,
                                   const PlacementOptions &options);

/// Returns true if `plan` places every buffer at an offset that is a
/// multiple of its alignment (`alignment` for buffers without one), its
/// footprint inside `plan.arenaSize`, with no overlap between the footprints
/// of buffers whose lifetimes overlap.
bool isValidPlan(llvm::ArrayRef<ArenaBuffer> buffers, const ArenaPlan &plan,
                 int64_t alignment);

/// Parses buffers in the CSV format of MiniMalloc's benchmark instances: a
/// header `id,lower,upper,size`, then one line per buffer alive during the
/// steps [lower, upper) with `size` bytes. Ids must be distinct; the buffers
/// keep the file's order. Returns an error naming the line on malformed input.
llvm::Expected<llvm::SmallVector<ArenaBuffer>>
parseArenaBuffersCsv(llvm::StringRef text);

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_ARENA_ARENAPLANNER_H
