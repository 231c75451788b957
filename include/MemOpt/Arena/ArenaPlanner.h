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
///
/// Overwrite pairs: a buffer B with `overwrites` = A is written over A while
/// A is consumed, so B sits at offset(A) + `overwriteShift` and the two may
/// share bytes even while both are alive. Pairs may chain (C overwrites B, B
/// overwrites A); the buffers linked this way form a *group* whose members
/// have fixed offsets relative to each other. Only a direct pair is exempt
/// from the collision rule: two members of a group that are not a direct
/// pair must not share bytes while both are alive. Preconditions (asserted;
/// validateOverwrites reports them as an error instead): `overwrites` is -1
/// or the index of another buffer, no buffer is overwritten by two, the links
/// form no cycle, both members of a pair have a positive size, each shift is
/// a multiple of both members' alignments, a group can be placed with every
/// member aligned, and no two members of a group that are not a direct pair
/// share bytes at their fixed offsets while both are alive.
struct ArenaBuffer {
  int64_t size = 0;
  int64_t start = 0;
  int64_t end = 0;
  int64_t alignment = 0;
  /// Index (in the same array) of a buffer whose bytes this one may take
  /// over: this buffer is placed at that buffer's offset + `overwriteShift`,
  /// and the two may share bytes during the steps both are alive (the
  /// collision rule exempts exactly this pair). -1: none.
  int64_t overwrites = -1;
  /// Offset of this buffer relative to `buffers[overwrites]`, in bytes; a
  /// multiple of both buffers' alignments.
  int64_t overwriteShift = 0;
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
/// alignment) of buffers alive at one step, each direct overwrite pair alive
/// at the step counting the bytes its members share once: the live bytes
/// of the schedule, which getLivenessLowerBound may exceed.
int64_t getLiveBytesPeak(llvm::ArrayRef<ArenaBuffer> buffers,
                         int64_t alignment);

/// Largest sum of footprints (getFootprint; `alignment` is the default
/// alignment) of buffers alive at one step, and at least the largest single
/// footprint: no placement can use a smaller arena. A buffer with
/// start == end is alive at no step.
///
/// With overwrite pairs, each direct pair alive at a step counts the bytes
/// its two members share at their fixed shift once, which makes the sum the
/// exact union of each group's live members (non-direct members never share
/// bytes while alive). The bound is also at least every group's extent: its
/// members' fixed offsets span that many bytes, plus the padding before the
/// first member that the alignments force.
int64_t getLivenessLowerBound(llvm::ArrayRef<ArenaBuffer> buffers,
                              int64_t alignment);

/// Checks the overwrite pairs of `buffers` against the preconditions of
/// ArenaBuffer (`alignment` is the default alignment). Returns an error
/// naming the buffers at fault, so that a caller can report a diagnostic
/// where planArena would assert.
llvm::Error validateOverwrites(llvm::ArrayRef<ArenaBuffer> buffers,
                               int64_t alignment);

/// Places `buffers`. Returns std::nullopt if `options.capacity` is set and the
/// algorithm found no placement within it.
///
/// Sizes must be >= 0 and start <= end, and the overwrite pairs must pass
/// validateOverwrites. Two buffers collide when both sizes are positive,
/// their lifetimes overlap as isValidPlan defines it (a.start < b.end &&
/// b.start < a.end; an empty lifetime [t, t) collides with the buffers alive
/// both before and after t) and they are not a direct overwrite pair. Each
/// group of overwrite pairs is placed as one block.
///
/// `Best` returns the smallest plan found (never worse than greedy-by-size);
/// a capacity never changes it when it fits. Only when it does not fit does
/// `Best` search for a plan within the capacity, and return the first it
/// finds. It
/// is deterministic: node budgets (`options.maxSearchNodes`) end the search,
/// so the same input gives the same plan, unless `options.timeLimitMs` stops
/// it first; then it returns what it has, with `stoppedOnClock` set
/// (std::nullopt if no plan fitting the capacity was found yet). When any
/// overwrite pair exists, `Best` skips its exact search: it returns the best
/// heuristic plan (proven minimal only at the lower bound), or std::nullopt
/// if that plan does not fit the capacity. See docs/ArenaPlanning.md.
std::optional<ArenaPlan> planArena(llvm::ArrayRef<ArenaBuffer> buffers,
                                   const PlacementOptions &options);

/// Returns true if `plan` places every buffer at an offset that is a
/// multiple of its alignment (`alignment` for buffers without one), its
/// footprint inside `plan.arenaSize`, with no overlap between the footprints
/// of buffers whose lifetimes overlap, except direct overwrite pairs, and
/// every buffer that overwrites another at that buffer's offset + its
/// `overwriteShift`. False if the pairs fail validateOverwrites.
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
