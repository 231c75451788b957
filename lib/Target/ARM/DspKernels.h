//===- DspKernels.h - The DSP kernels' shared pieces ------------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// What the Armv7E-M DSP kernels of arm-dsp-int8-kernels share (see
// DspInt8Kernels.cpp for what they compute): the builder of their scalar and
// DSP operations, their loops with loop-carried accumulators
// (DspLoops.cpp), the padded window read in place with bounds checks only
// where the window leaves the image (DspWindow.cpp), and the pattern sets of
// the kernel files.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_TARGET_ARM_DSPKERNELS_H
#define MEMOPT_LIB_TARGET_ARM_DSPKERNELS_H

#include "Int8KernelUtils.h"
#include "PaddedWindow.h"

#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir {
namespace memopt {
namespace armkernels {
namespace dsp {

/// Emits the kernels' scalar and DSP operations at one insertion point.
class KernelBuilder : public ScalarBuilder {
public:
  using ScalarBuilder::ScalarBuilder;

  /// \p a + \p scale * \p c, folding the trivial cases.
  Value addScaled(Value a, Value c, int64_t scale) {
    return armkernels::addScaled(b, loc, a, c, scale);
  }

  /// Calls the ARM intrinsic \p name, which returns an i32.
  Value intrinsic(StringRef name, ValueRange args) {
    return LLVM::CallIntrinsicOp::create(b, loc, i32, b.getStringAttr(name),
                                         args)
        ->getResult(0);
  }
  /// SXTB16: bytes 0 and 2 of \p x, sign-extended into two halfwords.
  Value sxtb16(Value x) { return intrinsic("llvm.arm.sxtb16", {x}); }
  /// SXTB16 of \p x rotated right by 8: bytes 1 and 3 (one SXTB16 ROR #8).
  Value sxtb16Odd(Value x) {
    Value rotated = LLVM::FshrOp::create(b, loc, x, x, constant(8));
    return sxtb16(rotated);
  }
  /// SADD16 of \p x and \p packed, or \p x when \p packed is null.
  Value sadd16(Value x, Value packed) {
    return packed ? intrinsic("llvm.arm.sadd16", {x, packed}) : x;
  }

  /// The address of byte \p offset after \p base.
  Value address(Value base, Value offset) {
    return LLVM::GEPOp::create(b, loc, ptr, i8, base, ValueRange{offset});
  }
  /// The address of byte \p offset + \p constantOffset after \p base, the
  /// constant in a GEP of its own (an immediate offset of the load).
  Value address(Value base, Value offset, int64_t constantOffset) {
    Value dynamic = address(base, offset);
    if (constantOffset == 0)
      return dynamic;
    return LLVM::GEPOp::create(b, loc, ptr, i8, dynamic,
                               ArrayRef<LLVM::GEPArg>{constantOffset});
  }
  /// \p pointer + \p bytes.
  Value offsetPointer(Value pointer, int64_t bytes) {
    return LLVM::GEPOp::create(b, loc, ptr, i8, pointer,
                               ArrayRef<LLVM::GEPArg>{bytes});
  }
  /// Four bytes at \p pointer + \p bytes as an i32 (an unaligned load, or
  /// one aligned to \p alignment bytes, which LLVM may pair into LDRD).
  Value loadWordAt(Value pointer, int64_t bytes = 0, unsigned alignment = 1) {
    return LLVM::LoadOp::create(b, loc, i32,
                                bytes ? offsetPointer(pointer, bytes) : pointer,
                                alignment);
  }
  /// The two words at \p pointer + \p bytes, 8-byte aligned, through one
  /// i64 load (one LDRD, which LLVM does not form from two i32 loads for
  /// every CPU): {low word, high word}.
  std::pair<Value, Value> loadWordPairAt(Value pointer, int64_t bytes) {
    Type i64 = b.getI64Type();
    Value pair = LLVM::LoadOp::create(
        b, loc, i64, bytes ? offsetPointer(pointer, bytes) : pointer,
        /*alignment=*/8);
    Value low = LLVM::TruncOp::create(b, loc, i32, pair);
    Value high = LLVM::TruncOp::create(
        b, loc, i32,
        LLVM::LShrOp::create(
            b, loc, pair,
            LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(32))));
    return {low, high};
  }
  /// Four bytes at \p base + \p offset (+ \p constantOffset) as an i32 (an
  /// unaligned load).
  Value loadWord(Value base, Value offset, int64_t constantOffset = 0) {
    return LLVM::LoadOp::create(b, loc, i32,
                                address(base, offset, constantOffset),
                                /*alignment=*/1);
  }
  /// The int8 at \p base + \p offset (+ \p constantOffset), sign-extended
  /// to i32.
  Value loadByte(Value base, Value offset, int64_t constantOffset = 0) {
    Value byte = LLVM::LoadOp::create(b, loc, i8,
                                      address(base, offset, constantOffset), 1);
    return arith::ExtSIOp::create(b, loc, i32, byte);
  }
};

//===----------------------------------------------------------------------===//
// Loops (DspLoops.cpp)
//===----------------------------------------------------------------------===//

/// The body of a loop with accumulators: the builder at the iteration, the
/// induction variable and the accumulators in, the next accumulators out.
using AccsBody =
    function_ref<SmallVector<Value>(KernelBuilder &, Value, ValueRange)>;

/// Taps of a depthwise window up to which its loops are unrolled.
constexpr int64_t kMaxUnrolledTaps = 25;

/// Builds the ByteView of \p memref, or fails (creating nothing) if its
/// strides are not static.
FailureOr<ByteView> getByteView(KernelBuilder &kb, Value memref);

/// Calls \p body(kb, iv, accs) for iv = lb, lb + step, ... < ub, threading the
/// accumulators \p accs through an scf.for with i32 bounds; a single
/// iteration is emitted without a loop. Returns the final accumulators. An
/// \p unrollCount above 1 asks LLVM to unroll the loop by that count.
SmallVector<Value> forWithAccs(KernelBuilder &kb, int64_t lb, int64_t ub,
                               int64_t step, ValueRange accs, AccsBody body,
                               unsigned unrollCount = 0);

/// forWithAccs (unrolled by \p unrollCount), or every iteration in line
/// when there are only a few (the short reductions of narrow layers: no loop
/// overhead per step).
SmallVector<Value> forStepsWithAccs(KernelBuilder &kb, int64_t lb, int64_t ub,
                                    int64_t step, ValueRange accs,
                                    AccsBody body, unsigned unrollCount = 0);

/// forWithAccs from 0 to \p ub by 1, or every iteration in line if
/// \p unroll (for the few taps of a depthwise window, whose loops LLVM
/// leaves rolled at -Os).
SmallVector<Value> forTapsWithAccs(KernelBuilder &kb, bool unroll, int64_t ub,
                                   ValueRange accs, AccsBody body);

/// Calls \p emit(kb, first, width) over the channels [0, numChannels): in
/// blocks of \p block channels up to \p blockedEnd (a multiple of it), then
/// one at a time (the scalar tail).
void forChannelBlocks(KernelBuilder &kb, int64_t blockedEnd,
                      int64_t numChannels, int64_t block,
                      function_ref<void(KernelBuilder &, Value, int64_t)> emit);

/// The halfword pair (-zp, -zp) that SADD16 adds to a widened pair, or null
/// if \p zp is 0.
Value getPackedNegation(KernelBuilder &kb, int64_t zp);

/// Loads the int32 accumulators of output channels [\p first, \p first +
/// \p width) of pixel (\p n, \p oh, \p ow) from \p output, and appends
/// the channels' indices to \p channels.
SmallVector<Value> loadAccumulators(KernelBuilder &kb, Value output, Value n,
                                    Value oh, Value ow, Value first,
                                    int64_t width,
                                    SmallVectorImpl<Value> &channels);

/// Stores \p accs back to the \p channels of pixel (\p n, \p oh, \p ow).
void storeAccumulators(KernelBuilder &kb, Value output, Value n, Value oh,
                       Value ow, ArrayRef<Value> channels, ValueRange accs);

/// The output pixel loops of the kernels (forEachOutputPixel): calls
/// \p body(kb, n, oh, ow, inputPixel) with the i32 offset of the pixel's
/// window origin in the input.
void forEachPixel(
    KernelBuilder &kb, ArrayRef<int64_t> outShape, const ByteView &in,
    const ConvParts &parts,
    function_ref<void(KernelBuilder &, Value, Value, Value, Value)> body);

//===----------------------------------------------------------------------===//
// Padded windows read in place (DspWindow.cpp)
//===----------------------------------------------------------------------===//

/// The bounds of a padded window (PaddedWindow) as the kernels test its
/// taps, built before the kernel: window element (n, y, x, c) is image
/// element (n, y, x, c) + origin when (y, x) lies in the copied rectangle
/// [offset, offset + size) of H and W, the zero point otherwise.
struct WindowGuard {
  /// Whether the copy covers exactly the window's intersection with the
  /// image (PaddedWindow::exact): a tap is then copied iff it lies in the
  /// image, origin + index in [0, extent), which needs neither the copied
  /// rectangle nor its clamps.
  bool exact = false;
  /// The copied rectangle in H and W of the window (i32).
  Value offsetH, offsetW, sizeH, sizeW;
  /// The window's H and W.
  int64_t height = 0, width = 0;
  /// Image coordinate minus window coordinate in H and W (i32), and the
  /// image's H and W.
  Value originH, originW;
  int64_t extentH = 0, extentW = 0;
};

/// The input of a convolution: its ByteView and, if it is a padded window
/// read in place, the window (whose fill and copy the caller erases) and
/// its guard.
struct ConvInput {
  /// The input, or the window's image shifted to the window's origin.
  ByteView view;
  /// The padded window, if the input is one.
  std::optional<PaddedWindow> window;
  /// The window's bounds (if there is a window).
  WindowGuard guard;
};

/// Builds the ConvInput of \p parts for \p conv, or fails, creating
/// nothing, if the input (or its window's image) or the filter has dynamic
/// strides: the filter's ByteView built after it cannot fail then.
FailureOr<ConvInput> getConvInput(KernelBuilder &kb, const ConvParts &parts,
                                  Operation *conv);

/// Erases the fill and copy of the padded window of \p input, which the
/// kernel no longer reads.
void eraseWindowWrites(PatternRewriter &rewriter, ConvInput &input);

/// Whether tap \p k of output \p o (stride, dilation) lies in the copied rows
/// (\p row) or columns of \p guard: null without a guard.
Value isTapCopied(KernelBuilder &kb, const WindowGuard *guard, bool row,
                  Value o, int64_t stride, Value k, int64_t dilation);

/// Calls \p body(kb, accs) if \p condition holds (always if it is null),
/// else returns \p accs unchanged.
SmallVector<Value>
ifWithAccs(KernelBuilder &kb, Value condition, ValueRange accs,
           function_ref<SmallVector<Value>(KernelBuilder &, ValueRange)> body);

/// The callback of forWindowTaps: (kb, y, x, inTap, filterTap, accs) to the
/// next accumulators.
using WindowTap = function_ref<SmallVector<Value>(KernelBuilder &, Value, Value,
                                                  Value, Value, ValueRange)>;

/// Calls \p tap(kb, y, x, inTap, filterTap, accs) for the taps (y, x) of a
/// \p kh x \p kw window of output pixel (\p oh, \p ow) that lie in the
/// copied part of \p guard (all of them without one), threading \p accs, in
/// line if \p unroll (y and x are then constants): inTap is \p inBase + y, x
/// along the input's H and W (with dilation), filterTap \p filterBase + y, x
/// along the filter's first two dimensions.
SmallVector<Value> forWindowTaps(KernelBuilder &kb, const WindowGuard *guard,
                                 bool unroll, const ConvParts &parts, Value oh,
                                 Value ow, int64_t kh, int64_t kw,
                                 const ByteView &in, Value inBase,
                                 const ByteView &filter, Value filterBase,
                                 ValueRange accs, WindowTap tap);

/// Emits \p emit(kb, guard) twice when \p input is a padded window: once
/// without bounds checks for the windows the copy covers entirely (the
/// interior of the image), once with them; else once, without.
void emitForWindow(
    KernelBuilder &kb, const ConvInput &input,
    function_ref<void(KernelBuilder &, const WindowGuard *)> emit);

/// Emits \p emit(kb, view) twice when \p input is a padded window, both
/// without bounds checks: for the windows the copy covers entirely with the
/// image read in place (input.view), and for the others with the window's
/// fill and copy moved into that branch and the window \p windowMemRef read
/// as written (the fill and copy stay: the caller does not erase them).
/// For kernels whose unchecked loop is much cheaper than the checked one
/// (a kernel row of few input channels read as one run): the border pays a
/// fill and a copy of the window instead of a scalar tap per byte. Fails,
/// creating nothing, without a window or if \p windowMemRef has dynamic
/// strides.
LogicalResult
emitForFilledWindow(KernelBuilder &kb, PatternRewriter &rewriter,
                    const ConvInput &input, Value windowMemRef,
                    function_ref<void(KernelBuilder &, const ByteView &)> emit);

//===----------------------------------------------------------------------===//
// The kernel files' patterns
//===----------------------------------------------------------------------===//

/// Adds the kernels of conv_2d_nhwc_fhwc[_q] and conv_2d_nhwc_hwcf[_q]
/// (DspConvKernels.cpp); see populateArmDspInt8KernelPatterns.
void populateConvPatterns(RewritePatternSet &patterns, unsigned ocBlock,
                          unsigned unrollCount, bool dualLoads);

/// Adds the kernel of depthwise_conv_2d_nhwc_hwc[_q]
/// (DspDepthwiseKernels.cpp).
void populateDepthwisePatterns(RewritePatternSet &patterns);

/// Adds the rows of the in-place depthwise convolution's channel loops
/// (DspDepthwiseRows.cpp), applied before the other patterns, which rewrite
/// the convolution of each of their pixels, and with \p channelCopies the
/// copy of a channel back into its NHWC tensor. The MVE kernels take the
/// rows their channel vectors leave (Cortex-M55 has the DSP instructions)
/// and copy the channels with their own scatter stores.
void populateDepthwiseRowsPatterns(RewritePatternSet &patterns,
                                   bool channelCopies = true);

/// Adds the 32-bit rescale and the SIMD clamp (DspElementwiseKernels.cpp).
void populateElementwisePatterns(RewritePatternSet &patterns);

} // namespace dsp
} // namespace armkernels
} // namespace memopt
} // namespace mlir

#endif // MEMOPT_LIB_TARGET_ARM_DSPKERNELS_H
