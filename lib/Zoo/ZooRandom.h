//===- ZooRandom.h - Platform-independent seeded random source --*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Zoo. The random source of the seeded families (RandWire,
// fuzz): a seed gives the same numbers with every standard library.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_ZOO_ZOORANDOM_H
#define MEMOPT_LIB_ZOO_ZOORANDOM_H

#include <cstdint>
#include <limits>
#include <random>

namespace mlir {
namespace memopt {
namespace zoo {

/// A seeded random source whose output is the same on every platform:
/// std::mt19937_64's sequence is fixed by the C++ standard, and the mappings
/// to doubles and bounded integers are our own (the std distributions are
/// implementation-defined).
class ZooRandom {
public:
  /// Seeds the engine with \p seed.
  explicit ZooRandom(uint64_t seed) : engine(seed) {}

  /// Returns a double uniformly distributed in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(engine() >> 11) * 0x1.0p-53; }

  /// Returns an integer uniformly distributed in [0, \p bound), without
  /// modulo bias (rejection sampling).
  uint64_t uniformInt(uint64_t bound) {
    const uint64_t max = std::numeric_limits<uint64_t>::max();
    const uint64_t limit = max - max % bound;
    uint64_t value;
    do {
      value = engine();
    } while (value >= limit);
    return value % bound;
  }

private:
  /// The underlying engine.
  std::mt19937_64 engine;
};

} // namespace zoo
} // namespace memopt
} // namespace mlir

#endif // MEMOPT_LIB_ZOO_ZOORANDOM_H
