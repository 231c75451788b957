//===- PartitionConcat.h - Identity rewrites of concat + conv ---*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The rewrites behind the `partition-concat` pass (SERENITY's identity graph
// rewriting). A `tosa.concat` along channels that feeds a convolution, either
// directly or through unary elementwise ops, keeps every branch alive until
// the last one is ready. The rewrites split the convolution per branch:
//   - conv2d: one partial conv2d per branch on the matching input-channel
//     slice of the weights, summed into one accumulator by a chain of
//     `tosa.add` marked `memopt.accumulate` (bias added once);
//   - depthwise_conv2d: one depthwise conv per branch on the matching channel
//     slice of weights and bias, concatenated.
// Elementwise ops between the concat and the convolution are cloned into the
// branches. The concat and those ops stay for any other user.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TRANSFORMS_PARTITIONCONCAT_H
#define MEMOPT_TRANSFORMS_PARTITIONCONCAT_H

#include "MemOpt/CostModel/CostModel.h"
#include "MemOpt/Utils/Attributes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir {
namespace memopt {

/// A channel concatenation that reaches a convolution's input through a chain
/// of unary elementwise ops.
struct ConcatSite {
  /// The concatenation (axis 3 of an NHWC tensor, two operands or more).
  tosa::ConcatOp concat;
  /// The elementwise ops from the concat to the convolution's input, in
  /// order; empty if the concat feeds the convolution directly.
  SmallVector<Operation *> chain;
};

/// Returns the concat site that defines \p input, or failure with the reason
/// in \p reason. Supported elementwise ops: tosa.clamp, cast, rescale (per
/// tensor, or per channel with constant parameters), and the one-operand
/// math ops (abs, ceil, clz, cos, erf, exp, floor, log, logical_not,
/// bitwise_not, reciprocal, rsqrt, sigmoid, sin, tanh).
FailureOr<ConcatSite> matchConcatSite(Value input, std::string *reason);

/// Clones the chain of \p site onto every operand of its concat, before the
/// rewriter's insertion point. Returns one value per branch: the channel
/// slice of the convolution's input that the branch computes.
SmallVector<Value> createBranchInputs(RewriterBase &rewriter,
                                      const ConcatSite &site);

/// Erases the chain and the concat of \p site, from the convolution's side,
/// as long as nothing else uses them.
void eraseDeadSite(RewriterBase &rewriter, const ConcatSite &site);

/// Returns \p loc with \p suffix appended to its name if it is a NameLoc,
/// so that the ops a rewrite creates keep readable names.
Location appendToName(Location loc, const Twine &suffix);

/// Returns the slice [offset, offset + size) of \p value along \p axis: a new
/// `tosa.const` if \p value is a dense constant, otherwise a `tosa.slice`.
Value sliceAlongAxis(RewriterBase &rewriter, Location loc, Value value,
                     int64_t axis, int64_t offset, int64_t size);

/// Splits \p conv, whose input is a concat site, into partial convolutions
/// accumulated with `tosa.add {memopt.accumulate}`. Fails without touching
/// the IR if the site is not legal.
LogicalResult partitionConcatConv(RewriterBase &rewriter, tosa::Conv2DOp conv);

/// Splits \p conv, whose input is a concat site, into per-branch depthwise
/// convolutions joined by a concat. Fails without touching the IR if the
/// site is not legal.
LogicalResult partitionConcatDepthwiseConv(RewriterBase &rewriter,
                                           tosa::DepthwiseConv2DOp conv);

/// Options of the partition-concat rewrites.
struct PartitionConcatOptions {
  /// Rewrite concat + conv2d.
  bool conv = true;
  /// Rewrite concat + depthwise_conv2d.
  bool depthwise = true;
  /// Rewrite only where the optimal peak goes down (auto) or everywhere
  /// legal (always).
  bool onlyProfitable = true;
  /// Time limit of each exact scheduling in auto mode (0: none).
  uint64_t timeLimitMs = 2000;
  /// The memory model whose optimal peak auto mode lowers.
  CostModelOptions model;
};

/// Peaks of one function before and after partition-concat (auto) plus
/// scheduling.
struct PartitionPeaks {
  /// Peak of the file order.
  int64_t inputPeak = 0;
  /// Best peak the exact scheduler finds without partitioning.
  int64_t scheduledPeak = 0;
  /// Best peak after partition-concat and scheduling.
  int64_t partitionedPeak = 0;
  /// True if both scheduled peaks are proven optimal.
  bool optimal = false;
  /// Sites rewritten.
  unsigned sitesRewritten = 0;
};

/// Runs partition-concat with \p options on \p func in place. Emits errors
/// and fails if auto mode cannot model the function. \p sitesRewritten
/// receives the number of convolutions split.
LogicalResult runPartitionConcat(func::FuncOp func,
                                 const PartitionConcatOptions &options,
                                 unsigned &sitesRewritten);

/// Computes the peaks of \p func before and after partition-concat (auto)
/// plus scheduling, on a copy; \p func is unchanged.
FailureOr<PartitionPeaks> evaluatePartitionPeaks(func::FuncOp func,
                                                 uint64_t timeLimitMs);

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_TRANSFORMS_PARTITIONCONCAT_H
