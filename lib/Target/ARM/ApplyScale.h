//===- ApplyScale.h - Matching a lowered tosa.apply_scale -------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The matcher of tosa-to-arith's 64-bit expansion of tosa.apply_scale, as
// canonicalization leaves it, in both rounding modes and with a shift that
// is a value or a constant: what the DSP and MVE rescale kernels start from
// (DspElementwiseKernels.cpp, MveRescale.cpp); and its scalar 32-bit form
// (SMULL or SMLAL and 32-bit shifts, Armv7-M and later), which the DSP
// kernels use for every rescale and the MVE kernels for the DOUBLE_ROUND
// rescales their vectors do not take, with the zero point and the int8
// clamp that follow folded into SSAT; the one-multiply form of rescales of
// small values (SMMUL/SMMULR, the Armv7E-M and Armv8.1-M DSP extension),
// from the value ranges this file computes; and the int8 clamp as SSAT.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_TARGET_ARM_APPLYSCALE_H
#define MEMOPT_LIB_TARGET_ARM_APPLYSCALE_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir {
namespace memopt {
namespace armkernels {

/// The operands of a lowered `tosa.apply_scale` (tosa-to-arith, 64-bit):
///   trunci((extsi(a) * m64 + round) >> s64)
/// with m64 = extsi(m) or an i64 constant in int32, s64 = extui(shift) (an
/// i8 value) or a constant in [1, 62], and round = (1 << s64) >> 1 (the
/// constant 2^(s-1) for a constant shift), to which DOUBLE_ROUND adds
/// +-2^30 by the sign of a when s > 31 (TOSA's apply_scale_32).
struct ApplyScaleParts {
  /// The i32 value a, and the multiplier: an i32 value or an i64 constant.
  /// For SINGLE_ROUND, value and multiplier are the product's operands in
  /// their order (either may be the value); for DOUBLE_ROUND, value is the
  /// one whose sign picks the +-2^30.
  Value value, multiplier;
  /// The shift: an i8 value, or an i64 constant.
  Value shift;
  /// Whether the +-2^30 of DOUBLE_ROUND is added (false for a constant
  /// shift of at most 31, where both modes are the same arithmetic).
  bool doubleRound = false;
};

/// Matches \p trunc, the i64 -> i32 trunci of a lowered apply_scale.
std::optional<ApplyScaleParts> matchApplyScale(arith::TruncIOp trunc);

/// A closed interval [lo, hi] of integer values.
struct ValueRange32 {
  int64_t lo, hi;
};

/// The values \p value can take, from its definition (constants, the
/// constant globals a linalg.generic reads, the width of narrow types, and
/// extensions, truncations, additions, subtractions, multiplications,
/// shifts by constants, masks, min, max and select, without wrapping), or
/// nothing when unknown.
std::optional<ValueRange32> getValueRange(Value value, unsigned depth = 0);

/// Adds the pattern that rewrites a lowered apply_scale whose multipliers
/// and shifts are constants (shifts in [32, 62], no multiplier INT32_MIN)
/// into 32-bit arithmetic (RescaleTo32Bit, ApplyScale.cpp): all of them, or
/// only the DOUBLE_ROUND ones if \p doubleRoundOnly, and only those whose
/// shift is a value (per channel) if \p shiftValuesOnly. Also, in every
/// case: a rescale of a small value (getValueRange) with any constant shifts
/// becomes one SMMUL or SMMULR (RescaleSmallValue), and a clamp to the whole
/// int8 range after a zero point becomes SSAT (ClampToSsat).
void populateScalarRescalePatterns(RewritePatternSet &patterns,
                                   bool doubleRoundOnly, bool shiftValuesOnly);

} // namespace armkernels
} // namespace memopt
} // namespace mlir

#endif // MEMOPT_LIB_TARGET_ARM_APPLYSCALE_H
