//===- Defaults.h - Default limits of the memory scheduler ------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The one place that states the default limits of the exact search. The
// state budget decides where a search stops, so results are the same on every
// machine; the wall clock is only a safety stop. Passes.td, the pipelines and
// the tools take their defaults from here.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_SCHEDULE_DEFAULTS_H
#define MEMOPT_SCHEDULE_DEFAULTS_H

#include <cstdint>

namespace mlir {
namespace memopt {
namespace schedule {

/// Default wall-clock safety stop of one function's exact search, in
/// milliseconds (10 s).
constexpr uint64_t kDefaultTimeLimitMs = 10000;
/// Default budget of distinct search states of one function's exact search.
constexpr uint64_t kDefaultMaxStates = 4000000;
/// Default state budget of mem-opt-compile, which must finish a model in
/// seconds: it stops the search of a 734-op RandWire cell in 4-6 s, before
/// the clock; every benchmark model proven optimal under kDefaultMaxStates
/// needs at most 4,497 (docs/CortexM.md).
constexpr uint64_t kDefaultCompileMaxStates = 250000;

/// Default expansions a best-first round of the exact search spends above
/// the bound it started from before rounds under a budget take over
/// (docs/Scheduling.md, item 3). Rounds under a budget prove faster, but
/// best first finds the orders the search found before 2026-11-27, which
/// some arena placements depend on: at 256, the zoo's int8 RandWire cell
/// gets an order as good that places 16 KB above its liveness bound; at
/// 1024 it keeps its order (540,672 B); the small RandWire cells of
/// docs/Scheduling.md then take up to 1.9x the time they take at 256, but
/// the largest (seeds 1) about the same.
constexpr uint64_t kDefaultBestFirstStates = 1024;

/// Default node budget of the exact search: a segment with more nodes is not
/// searched (it keeps its best heuristic order, with its static bound). The
/// search's moves and bounds cost time and memory quadratic in a segment's
/// nodes, so this keeps one state cheap; the largest segment of the
/// benchmark models has under a thousand nodes (docs/Scale.md).
constexpr uint64_t kDefaultMaxSearchNodes = 4096;

} // namespace schedule
} // namespace memopt
} // namespace mlir

#endif // MEMOPT_SCHEDULE_DEFAULTS_H
