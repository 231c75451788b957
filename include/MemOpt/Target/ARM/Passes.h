//===- Passes.h - Arm code generation entry points --------------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Declares the Cortex-M code generators generated from Passes.td, their
// registration and their patterns: int8 convolution kernels for the
// Armv7E-M DSP extension and for Armv8.1-M MVE.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TARGET_ARM_PASSES_H
#define MEMOPT_TARGET_ARM_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace memopt {

#define GEN_PASS_DECL
#include "MemOpt/Target/ARM/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "MemOpt/Target/ARM/Passes.h.inc"

/// The attribute that arm-dsp-widen-filters puts on an int8 convolution:
/// [the symbol of its filter's widened copy, the copy's memref type].
constexpr llvm::StringLiteral kDspWideFilterAttr = "memopt.dsp_wide_filter";

/// Adds the Armv7E-M DSP kernels of int8 convolutions on memrefs
/// (DspInt8Kernels.cpp); \p ocBlock output channels share one widened
/// input word, and LLVM unrolls a convolution's SIMD reduction loop by
/// \p unrollCount (0 or 1: no annotation). With \p dualLoads, the two words
/// of a widened filter (arm-dsp-widen-filters) are one LDRD, else two LDRs.
void populateArmDspInt8KernelPatterns(RewritePatternSet &patterns,
                                      unsigned ocBlock,
                                      unsigned unrollCount = 0,
                                      bool dualLoads = true);

/// Adds the Armv8.1-M MVE kernels of int8 convolutions on memrefs
/// (MveInt8Kernels.cpp); \p ocBlock output channels share one input
/// vector.
void populateArmMveInt8KernelPatterns(RewritePatternSet &patterns,
                                      unsigned ocBlock);

/// Adds the MVE kernel of the in-place depthwise convolution's channel
/// loops (MveChannelKernels.cpp): vectors of 4 output pixels of one
/// channel. It must run before populateArmMveInt8KernelPatterns, which
/// would make the convolution of each pixel scalar.
void populateArmMveDepthwiseChannelPatterns(RewritePatternSet &patterns);

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_TARGET_ARM_PASSES_H
