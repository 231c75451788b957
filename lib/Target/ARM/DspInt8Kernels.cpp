//===- DspInt8Kernels.cpp - arm-dsp-int8-kernels patterns -----------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Lowers bufferized int8 convolutions to loops that use the DSP extension of
// Armv7E-M (Cortex-M4, Cortex-M7) through LLVM's ARM intrinsics
// (the `_q` ops and the plain ones on int8, whose zero points are 0):
//
//   conv_2d_nhwc_fhwc[_q]      for each output pixel and block of B output
//                              channels, the reduction over (kh, kw, ic) four
//                              input channels at a time: one 32-bit load of
//                              the input, SXTB16 and SXTB16 ROR #8 widen it
//                              to the pairs (x0, x2) and (x1, x3), SADD16
//                              subtracts the input zero point from both
//                              halves, and two SMLADs per output channel
//                              accumulate the four products.
//   depthwise_conv_2d_nhwc_hwc[_q]  four channels at a time: per tap one load
//                              of the input and one of the filter, widened
//                              the same way, and SMLABB/SMLATT accumulate
//                              each channel separately. A one-channel
//                              convolution (the in-place depthwise computes
//                              one per pixel of each channel) loads its
//                              weights once, before the pixel loops around
//                              it, as halfword pairs for SMLABB/SMLABT, and
//                              folds the input zero point into the
//                              accumulator where no tap is skipped.
//
// Input channels (or channels) that are not a multiple of 4, and output
// channels that are not a multiple of B, are computed by scalar tails. The
// accumulators live in registers (loop-carried values) over the whole
// reduction; the output is read once (its bias or zero initialization) and
// written once.
//
// Bit-exactness: every operand of a 16x16 multiply is an int8 value minus an
// int8 zero point, in [-255, 255]; the int32 sums wrap modulo 2^32 exactly as
// the linalg op's arith.addi does (SMLAD sets the Q flag on overflow but
// returns the wrapped sum).
//
// A convolution whose input is a padded window (fuse-rescale-accumulators: a
// fill with the input zero point and a copy of the part of the image the
// window covers) reads the image in place: taps outside the image are
// skipped (their products are 0), with bounds checks only where the window
// leaves the image, and the fill and the copy are erased. An int8 clamp
// (a lowered tosa.clamp) runs four bytes at a time with SSUB8 and SEL.
//
// Memory: the kernels read input and filter in place through (possibly
// unaligned) 32-bit loads, which Armv7-M allows on normal memory, and need no
// scratch buffer, so the arena is unchanged (an erased window's buffer keeps
// its slot in the planned arena).
//
// The files: DspConvKernels.cpp (conv_2d_nhwc_fhwc, conv_2d_nhwc_hwcf),
// DspDepthwiseKernels.cpp (depthwise_conv_2d_nhwc_hwc),
// DspElementwiseKernels.cpp (rescale, clamp), DspLoops.cpp and
// DspWindow.cpp (what they share, DspKernels.h); the padded-window matcher
// and the hoisted weights are shared with the MVE kernels (PaddedWindow.h,
// HoistedWeights.h).
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Target/ARM/Passes.h"

#include "DspKernels.h"

using namespace mlir;
using namespace mlir::memopt;

void mlir::memopt::populateArmDspInt8KernelPatterns(RewritePatternSet &patterns,
                                                    unsigned ocBlock,
                                                    unsigned unrollCount,
                                                    bool dualLoads) {
  armkernels::dsp::populateConvPatterns(patterns, ocBlock, unrollCount,
                                        dualLoads);
  armkernels::dsp::populateElementwisePatterns(patterns);
  armkernels::dsp::populateDepthwisePatterns(patterns);
}
