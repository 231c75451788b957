//===- ArenaSearch.h - Exact search for arena placements --------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Internal to the arena planner. A branch-and-bound search in the spirit of
// MiniMalloc (Moffitt, ASPLOS'23) that decides whether buffers with fixed
// lifetimes fit below a given height, and returns a placement when they do.
// It works in units of the smallest alignment: every size here is already
// rounded up to its buffer's alignment and divided by the unit, every size is
// positive, every alignment a power of two and every lifetime non-empty.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_TRANSFORMS_ARENASEARCH_H
#define MEMOPT_LIB_TRANSFORMS_ARENASEARCH_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>

namespace mlir {
namespace memopt {
namespace detail {

/// Outcome of one decision search.
enum class SearchStatus {
  /// A placement below the height was found.
  Found,
  /// The search finished without one: no placement exists.
  Infeasible,
  /// The node limit was reached first: nothing is known.
  OutOfNodes,
  /// The deadline passed first.
  TimedOut,
};

/// Result of PackingSearch::solve.
struct SearchResult {
  SearchStatus status = SearchStatus::Infeasible;
  /// One offset per buffer (in units) when `status` is Found.
  llvm::SmallVector<int64_t> offsets;
  /// Search nodes visited.
  uint64_t nodes = 0;
};

/// Clock of search deadlines.
using SearchClock = std::chrono::steady_clock;

/// The exact search over one packing problem. Construct once, then call
/// solve() with different heights.
class PackingSearch {
public:
  /// Buffer `i` needs `sizes[i] > 0` units at an offset that is a multiple
  /// of `aligns[i]` (a power of two) during the steps [starts[i], ends[i]),
  /// with starts[i] < ends[i].
  PackingSearch(llvm::ArrayRef<int64_t> sizes, llvm::ArrayRef<int64_t> aligns,
                llvm::ArrayRef<int64_t> starts, llvm::ArrayRef<int64_t> ends);
  ~PackingSearch();

  /// Looks for a placement whose every buffer ends at or below `height`,
  /// visiting at most `maxNodes` search nodes (0: no limit). The result
  /// depends only on the inputs, unless `deadline` passes first.
  SearchResult solve(int64_t height, uint64_t maxNodes,
                     std::optional<SearchClock::time_point> deadline);

private:
  class Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace detail
} // namespace memopt
} // namespace mlir

#endif // MEMOPT_LIB_TRANSFORMS_ARENASEARCH_H
