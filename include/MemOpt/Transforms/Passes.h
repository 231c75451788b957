//===- Passes.h - mem-opt pass entry points ---------------------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Declares the mem-opt passes generated from Passes.td and their registration.
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

/// Adds the Armv7E-M DSP kernels of int8 convolutions on memrefs
/// (ArmDspInt8Kernels.cpp); \p ocBlock output channels share one widened
/// input word, and LLVM unrolls a convolution's SIMD reduction loop by
/// \p unrollCount (0 or 1: no annotation).
void populateArmDspInt8KernelPatterns(RewritePatternSet &patterns,
                                      unsigned ocBlock,
                                      unsigned unrollCount = 0);

/// Adds the Armv8.1-M MVE kernels of int8 convolutions on memrefs
/// (ArmMveInt8Kernels.cpp); \p ocBlock output channels share one input
/// vector.
void populateArmMveInt8KernelPatterns(RewritePatternSet &patterns,
                                      unsigned ocBlock);

/// Adds the MVE kernel of the in-place depthwise convolution's channel
/// loops (ArmMveInt8Kernels.cpp): vectors of 4 output pixels of one
/// channel. It must run before populateArmMveInt8KernelPatterns, which
/// would make the convolution of each pixel scalar.
void populateArmMveDepthwiseChannelPatterns(RewritePatternSet &patterns);

/// Adds the split of `tosa.concat`s of more than \p maxOperands operands into
/// a tree of concats within the limit (SplitConcats.cpp).
void populateSplitConcatsPatterns(RewritePatternSet &patterns,
                                  unsigned maxOperands);

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_TRANSFORMS_PASSES_H
