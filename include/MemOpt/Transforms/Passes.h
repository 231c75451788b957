//===- Passes.h - TOSA-level pass entry points -----------------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Declares mem-opt's TOSA-level passes generated from Passes.td, their
// registration and the concat partition's patterns.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TRANSFORMS_PASSES_H
#define MEMOPT_TRANSFORMS_PASSES_H

#include "MemOpt/CostModel/CostModel.h"
#include "MemOpt/Schedule/Defaults.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace tosa {
class DepthwiseConv2DOp;
} // namespace tosa

namespace memopt {

#define GEN_PASS_DECL
#include "MemOpt/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "MemOpt/Transforms/Passes.h.inc"

/// Adds the channel-wise partition of concat + tosa.conv2d
/// (PartitionConcatConv.cpp).
void populatePartitionConcatConvPatterns(RewritePatternSet &patterns);

/// Adds the kernel-wise partition of concat + tosa.depthwise_conv2d
/// (PartitionConcatDepthwiseConv.cpp).
void populatePartitionConcatDepthwiseConvPatterns(RewritePatternSet &patterns);

/// Adds the rewrite of a stride-1 depthwise convolution whose output is
/// smaller than its input (a band's) into one over its whole input, in
/// place, and a view of the rows it had (WidenDepthwise.cpp).
void populateWidenDepthwisePatterns(RewritePatternSet &patterns);

/// Rewrites \p depthwise as populateWidenDepthwisePatterns does, with
/// \p rewriter; fails (changing nothing) if it does not apply or the wider
/// convolution would not be computed in place.
LogicalResult widenDepthwiseInPlace(RewriterBase &rewriter,
                                    tosa::DepthwiseConv2DOp depthwise);

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_TRANSFORMS_PASSES_H
