//===- HoistedWeights.h - Depthwise weights read before loops ---*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The weights of a one-channel depthwise filter (the in-place depthwise
// convolution computes one pixel of one channel per convolution, inside
// loops over the channel's pixels), minus the filter zero point, read once
// before the loops in which the filter does not change, so that they stay
// in registers over the pixels. One structure for the DSP kernels, which
// read them once per channel (halfword pairs for SMLABB/SMLABT), and for
// the MVE channel vectors, which read them once per loop over output rows
// (scalars for VMLA, with each row's sum); WeightScope says which.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_TARGET_ARM_HOISTEDWEIGHTS_H
#define MEMOPT_LIB_TARGET_ARM_HOISTEDWEIGHTS_H

#include "Int8KernelUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlir {
namespace memopt {
namespace armkernels {

/// Where hoistWeights reads the weights, and what it derives from them.
enum class WeightScope {
  /// Once per channel (the DSP kernels): before the outermost scf.for around
  /// the convolution in which the filter is defined outside, if the filter
  /// is a view of a constant memref.global (read-only, so no op in the loops
  /// changes it), else before the convolution. A filter whose weights are
  /// all the same is one constant; the others are also packed in halfword
  /// pairs; and the input zero point times their sum is folded.
  Channel,
  /// Once per row loop (the MVE channel vectors, whose rows are split into
  /// border and interior loops): before the scf.for over the channel's
  /// output rows around the scf.for over its columns, whose body holds the
  /// convolution (the caller checked that the rows do not write the
  /// filter). Each row's sum and their total are built as well.
  RowLoop,
};

/// How a kernel reads the weights (each kernel with its own loads).
struct WeightReads {
  /// Builds, at the hoist point, what the reads share (e.g. the filter's
  /// ByteView); called once before the first read, and only if a weight is
  /// read. May be null.
  function_ref<void(OpBuilder &, Location)> prepare;
  /// Returns weight (ky, kx) minus the filter zero point, as an i32.
  function_ref<Value(OpBuilder &, Location, int64_t, int64_t)> read;
};

/// The weights of a one-channel KH x KW depthwise filter, minus the filter
/// zero point, read once before the loops around the convolution.
struct HoistedWeights {
  /// The filter's KW.
  int64_t kw = 0;
  /// The KH * KW weights w - zw (i32), row by row.
  SmallVector<Value> taps;
  /// WeightScope::RowLoop: the sum of each row's taps, and the sum of all
  /// (a skipped window row adds its sum back).
  SmallVector<Value> rowSums;
  Value sum;
  /// WeightScope::Channel: the weight minus the filter zero point of a
  /// splat filter (a constant whose weights are all the same): the kernel
  /// multiplies by this constant, which LLVM folds (a weight of 1 is an
  /// add), instead of reading pairs.
  std::optional<int64_t> splatWeight;
  /// WeightScope::Channel: halfword pairs, tap 2k in the bottom half, tap
  /// 2k + 1 in the top (none for a splat filter).
  SmallVector<Value> pairs;
  /// WeightScope::Channel: -zi * sum(w - zw). A window read without bounds
  /// checks adds it once and multiplies the input values without
  /// subtracting the input zero point zi. Null if zi is 0.
  Value foldedZeroPoint;

  /// Returns weight (\p ky, \p kx) minus the filter zero point.
  Value getTap(int64_t ky, int64_t kx) const { return taps[ky * kw + kx]; }
};

/// Reads the \p kh x \p kw weights of the one-channel filter of \p conv
/// (whose operands are \p parts) with \p reads, before the loops that
/// \p scope names, at \p loc; the builder's insertion point is restored.
/// The caller checked that the filter's strides are static.
HoistedWeights hoistWeights(OpBuilder &b, Location loc, Operation *conv,
                            const ConvParts &parts, int64_t kh, int64_t kw,
                            WeightScope scope, const WeightReads &reads);

} // namespace armkernels
} // namespace memopt
} // namespace mlir

#endif // MEMOPT_LIB_TARGET_ARM_HOISTEDWEIGHTS_H
