//===- ArenaPlanner.cpp - Static placement of buffers in one arena --------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Transforms/ArenaPlanner.h"

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

/// Returns true if the lifetimes [a.start, a.end) and [b.start, b.end) meet.
static bool livesOverlap(const ArenaBuffer &a, const ArenaBuffer &b) {
  return a.start < b.end && b.start < a.end;
}

int64_t mlir::memopt::getLivenessLowerBound(llvm::ArrayRef<ArenaBuffer> buffers,
                                            int64_t alignment) {
  // Sweep the lifetime boundaries; ends sort before starts at the same step.
  llvm::SmallVector<std::pair<int64_t, int64_t>> events;
  for (const ArenaBuffer &buffer : buffers) {
    auto size = static_cast<int64_t>(llvm::alignTo(buffer.size, alignment));
    events.push_back({buffer.start, size});
    events.push_back({buffer.end, -size});
  }
  llvm::sort(events);
  int64_t live = 0, peak = 0;
  for (auto [step, delta] : events) {
    live += delta;
    peak = std::max(peak, live);
  }
  return peak;
}

/// Places buffers in `order`, each at the lowest aligned offset that does not
/// collide with an already placed buffer alive at the same time.
static ArenaPlan placeInOrder(llvm::ArrayRef<ArenaBuffer> buffers,
                              llvm::ArrayRef<unsigned> order,
                              int64_t alignment) {
  ArenaPlan plan;
  plan.offsets.assign(buffers.size(), -1);
  llvm::SmallVector<unsigned> placed;
  for (unsigned id : order) {
    const ArenaBuffer &buffer = buffers[id];
    llvm::SmallVector<std::pair<int64_t, int64_t>> taken;
    for (unsigned other : placed)
      if (livesOverlap(buffer, buffers[other]))
        taken.push_back(
            {plan.offsets[other], plan.offsets[other] + buffers[other].size});
    llvm::sort(taken);
    int64_t offset = 0;
    for (auto [begin, end] : taken) {
      if (offset + buffer.size <= begin)
        break;
      offset = std::max<int64_t>(offset, llvm::alignTo(end, alignment));
    }
    plan.offsets[id] = offset;
    plan.arenaSize = std::max(plan.arenaSize, offset + buffer.size);
    placed.push_back(id);
  }
  plan.arenaSize =
      static_cast<int64_t>(llvm::alignTo(plan.arenaSize, alignment));
  return plan;
}

std::optional<ArenaPlan>
mlir::memopt::planArena(llvm::ArrayRef<ArenaBuffer> buffers,
                        const PlacementOptions &options) {
  ArenaPlan plan;
  if (options.algorithm == PlacementAlgorithm::NoReuse) {
    for (const ArenaBuffer &buffer : buffers) {
      plan.offsets.push_back(plan.arenaSize);
      plan.arenaSize +=
          static_cast<int64_t>(llvm::alignTo(buffer.size, options.alignment));
    }
  } else {
    llvm::SmallVector<unsigned> order = llvm::to_vector(
        llvm::seq<unsigned>(0, static_cast<unsigned>(buffers.size())));
    std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
      return buffers[a].size > buffers[b].size;
    });
    plan = placeInOrder(buffers, order, options.alignment);
  }
  if (options.capacity && plan.arenaSize > options.capacity)
    return std::nullopt;
  return plan;
}

bool mlir::memopt::isValidPlan(llvm::ArrayRef<ArenaBuffer> buffers,
                               const ArenaPlan &plan, int64_t alignment) {
  if (plan.offsets.size() != buffers.size())
    return false;
  for (auto [i, a] : llvm::enumerate(buffers)) {
    int64_t offset = plan.offsets[i];
    if (offset < 0 || offset % alignment || offset + a.size > plan.arenaSize)
      return false;
    for (unsigned j = i + 1; j < buffers.size(); ++j) {
      const ArenaBuffer &b = buffers[j];
      if (livesOverlap(a, b) && a.size && b.size &&
          offset < plan.offsets[j] + b.size &&
          plan.offsets[j] < offset + a.size)
        return false;
    }
  }
  return true;
}
