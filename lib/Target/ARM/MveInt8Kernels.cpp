//===- MveInt8Kernels.cpp - arm-mve-int8-kernels patterns -----------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Lowers bufferized int8 convolutions to loops on vectors that LLVM's ARM
// backend selects as MVE (Armv8.1-M Helium, Cortex-M55) instructions:
//
//   conv_2d_nhwc_fhwc[_q]      for each output pixel and block of output
//                              channels, the reduction over (kh, kw, ic)
//                              sixteen input channels at a time: one
//                              vector<16xi8> load of the input (VLDRB.U8)
//                              and, per output channel, one of the filter and
//                              vector.reduction <add> of the product of the
//                              sign-extended vectors, which is one VMLAVA.S8
//                              (16 multiply-accumulates into a scalar). The
//                              input channels left over (ic % 16) take one
//                              masked load (VPST; VLDRBT) whose inactive
//                              lanes are 0.
//   depthwise_conv_2d_nhwc_hwc[_q]  eight channels at a time (then four,
//                              then a masked group of four): per tap the
//                              input and filter bytes sign-extended to
//                              vector<8xi32> (VLDRB.S32), the zero point
//                              added (VADD), multiplied (VMUL.I32) and added
//                              to the accumulator vector, which is loaded and
//                              stored once per pixel; fewer than 4
//                              channels scalar, taps unrolled.
//   conv_2d_nhwc_hwcf[_q]      a vector of output channels of the filter
//                              times the input value (VMLA by a scalar).
//   a per-pixel rescale        4 channels per vector (VMULH.S32, a rounding
//   (linalg.generic)           shift VRSHL.S32, VMAX/VMIN, VSTRB.32),
//                              bit-exact with the 64-bit rounding multiply
//                              (RescaleToMve).
//   the in-place depthwise     4 output pixels of a channel per vector:
//   convolution's channel      gathered taps (VLDRB.S32 with a vector of
//   loops                      offsets), VMLA.I32 by the weight, the vector
//                              rescale (DepthwiseChannelRowsToMve); on maps
//                              of fewer than 4 interior columns, bands of 4
//                              rows, each input column gathered once per
//                              window row (DepthwiseChannelColumnsToMve);
//                              the channel's copy back as scatter stores
//                              (ChannelCopyToMve).
//
// A depthwise or HWCF convolution that reads fuse-rescale-accumulators'
// padded window (filled with the input zero point, then the in-bounds input
// copied in) reads the input directly instead; see PaddedWindow. A
// conv_2d_nhwc_fhwc reads the window itself (its zero point folded into
// the bias by arm-dsp-fold-zero-points{padded-windows}): the window's fill
// runs only at the border and its copy is vector loads and stores
// (lowerWindowWrites).
//
// Zero points. VMLAVA.S8 multiplies the raw int8 values, so the convolution
// uses
//   sum (x - zx)(w - zw) = sum x w - zx sum w - zw sum x + N zx zw
// (N = KH * KW * IC), with sum w per output channel (VADDVA.S8) when zx is
// not 0 and sum x per pixel when zw is not 0, all modulo 2^32: the int32
// result is the linalg op's, whose additions wrap the same way. Each product
// of two int8 values, and each partial sum of VMLAVA, is an exact integer.
// The depthwise products (x - zx)(w - zw) are at most 255 * 255 in
// magnitude, computed in i32.
//
// Memory: the kernels read input and filter in place (unaligned vector loads
// of bytes are allowed) and keep their accumulators in registers; no
// scratch buffer, so the arena is unchanged.
//
// The files: MveConvKernels.cpp (conv_2d_nhwc_fhwc, conv_2d_nhwc_hwcf),
// MveDepthwiseKernels.cpp (depthwise_conv_2d_nhwc_hwc), MveRescale.cpp
// (the rescale), MveChannelRows.cpp and MveChannelKernels.cpp (the in-place
// depthwise convolution's channel loops and copy back), MveKernelSupport.cpp
// (what they share, MveKernels.h); the padded-window matcher and the hoisted
// weights are shared with the DSP kernels (PaddedWindow.h, HoistedWeights.h).
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Target/ARM/Passes.h"

#include "MveKernels.h"

using namespace mlir;
using namespace mlir::memopt;

void mlir::memopt::populateArmMveInt8KernelPatterns(RewritePatternSet &patterns,
                                                    unsigned ocBlock) {
  armkernels::mve::populateConvPatterns(patterns, ocBlock);
  armkernels::mve::populateRescalePatterns(patterns);
  armkernels::mve::populateChannelCopyPatterns(patterns);
  armkernels::mve::populateDepthwisePatterns(patterns);
}
