//===- DspInt8Kernels.cpp - arm-dsp-int8-kernels pass ---------------------===//
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
//===----------------------------------------------------------------------===//

#include "MemOpt/Target/ARM/Passes.h"

#include "Int8KernelUtils.h"
#include "MemOpt/Conversion/LocationMarks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::memopt;
using armkernels::ByteView;
using armkernels::ConvParts;
using armkernels::isStaticIntMemRef;
using armkernels::matchInt8Conv;

namespace {
/// Emits the kernels' scalar and DSP operations at one insertion point.
class KernelBuilder {
public:
  KernelBuilder(OpBuilder &builder, Location loc)
      : b(builder), loc(loc), i8(builder.getI8Type()),
        i32(builder.getI32Type()),
        ptr(LLVM::LLVMPointerType::get(builder.getContext())) {}

  /// An i32 constant.
  Value constant(int64_t value) {
    return arith::ConstantIntOp::create(b, loc, i32, value);
  }
  Value add(Value a, Value c) { return arith::AddIOp::create(b, loc, a, c); }
  Value mul(Value a, Value c) { return arith::MulIOp::create(b, loc, a, c); }
  /// \p a + \p scale * \p c, folding the trivial cases.
  Value addScaled(Value a, Value c, int64_t scale) {
    if (scale == 0)
      return a;
    return add(a, scale == 1 ? c : mul(c, constant(scale)));
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
  /// Four bytes at \p pointer + \p bytes as an i32 (an unaligned load).
  Value loadWordAt(Value pointer, int64_t bytes = 0) {
    return LLVM::LoadOp::create(b, loc, i32,
                                bytes ? offsetPointer(pointer, bytes) : pointer,
                                /*alignment=*/1);
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

  OpBuilder &b;
  Location loc;
  Type i8, i32, ptr;
};

/// A padded window a convolution reads (fuse-rescale-accumulators): a buffer
/// filled with the input zero point, then partly overwritten by a copy of a
/// part of its source. The kernels read the source in place instead: window
/// element (n, y, x, c) is source element (n, y, x, c) + origin when (y, x)
/// lies in the copied rectangle [offset, offset + size) of H and W, and the
/// zero point (whose products are 0) otherwise. The fill and the copy are
/// then dead; the window's buffer stays where the arena plan put it.
struct PaddedWindow {
  linalg::FillOp fill;
  linalg::CopyOp copy;
  /// The memref the window is copied from.
  Value source;
  /// The copied rectangle in H and W of the window (i32).
  Value offsetH, offsetW, sizeH, sizeW;
  /// The window's H and W.
  int64_t heightW = 0, widthW = 0;
  /// Whether the copy covers exactly the window's intersection with the
  /// source (it carries the mark of fuse-rescale-accumulators): a tap is
  /// then copied iff it lies in the source, origin + index in [0, extent),
  /// which needs neither the copied rectangle nor its clamps.
  bool exact = false;
  /// Source coordinate minus window coordinate in H and W (i32), and the
  /// source's H and W.
  Value originH, originW;
  int64_t extentH = 0, extentW = 0;
};

} // namespace

/// Builds the ByteView of \p memref, or fails (creating nothing) if its
/// strides are not static.
static FailureOr<ByteView> getByteView(KernelBuilder &kb, Value memref) {
  return armkernels::getByteView(kb.b, kb.loc, memref);
}

/// Calls \p body(b, iv, accs) for iv = lb, lb + step, ... < ub, threading the
/// accumulators \p accs through an scf.for with i32 bounds; a single
/// iteration is emitted without a loop. Returns the final accumulators. An
/// \p unrollCount above 1 asks LLVM to unroll the loop by that count.
static SmallVector<Value> forWithAccs(
    KernelBuilder &kb, int64_t lb, int64_t ub, int64_t step, ValueRange accs,
    function_ref<SmallVector<Value>(KernelBuilder &, Value, ValueRange)> body,
    unsigned unrollCount = 0) {
  return armkernels::forWithAccs(
      kb.b, kb.loc, lb, ub, step, accs,
      [&](OpBuilder &b, Location loc, Value iv, ValueRange args) {
        KernelBuilder inner(b, loc);
        return body(inner, iv, args);
      },
      unrollCount);
}

/// Like forWithAccs, but emits every iteration in line (for the few taps of
/// a depthwise window, whose loops LLVM leaves rolled at -Os).
static SmallVector<Value> unrolledWithAccs(
    KernelBuilder &kb, int64_t ub, ValueRange accs,
    function_ref<SmallVector<Value>(KernelBuilder &, Value, ValueRange)> body) {
  SmallVector<Value> current(accs);
  for (int64_t i = 0; i < ub; ++i)
    current = body(kb, kb.constant(i), current);
  return current;
}

/// Iterations up to which a reduction loop is emitted unrolled.
static constexpr int64_t kMaxUnrolledSteps = 4;

/// forWithAccs (unrolled by \p unrollCount), or every iteration in line
/// when there are at most kMaxUnrolledSteps (the short reductions of narrow
/// layers: no loop overhead per step).
static SmallVector<Value> forStepsWithAccs(
    KernelBuilder &kb, int64_t lb, int64_t ub, int64_t step, ValueRange accs,
    function_ref<SmallVector<Value>(KernelBuilder &, Value, ValueRange)> body,
    unsigned unrollCount = 0) {
  if (ub <= lb || (ub - lb + step - 1) / step > kMaxUnrolledSteps)
    return forWithAccs(kb, lb, ub, step, accs, body, unrollCount);
  SmallVector<Value> current(accs);
  for (int64_t i = lb; i < ub; i += step)
    current = body(kb, kb.constant(i), current);
  return current;
}

/// Taps of a depthwise window up to which its loops are unrolled.
static constexpr int64_t kMaxUnrolledTaps = 25;

/// forWithAccs from 0 to \p ub by 1, or unrolledWithAccs if \p unroll.
static SmallVector<Value> forTapsWithAccs(
    KernelBuilder &kb, bool unroll, int64_t ub, ValueRange accs,
    function_ref<SmallVector<Value>(KernelBuilder &, Value, ValueRange)> body) {
  return unroll ? unrolledWithAccs(kb, ub, accs, body)
                : forWithAccs(kb, 0, ub, 1, accs, body);
}

/// Calls \p emit(kb, first, width) over the channels [0, numChannels): in
/// blocks of \p block channels up to \p blockedEnd (a multiple of it), then
/// one at a time (the scalar tail).
static void
forChannelBlocks(KernelBuilder &kb, int64_t blockedEnd, int64_t numChannels,
                 int64_t block,
                 function_ref<void(KernelBuilder &, Value, int64_t)> emit) {
  forWithAccs(kb, 0, blockedEnd, block, {},
              [&](KernelBuilder &kb, Value first, ValueRange) {
                emit(kb, first, block);
                return SmallVector<Value>();
              });
  forWithAccs(kb, blockedEnd, numChannels, 1, {},
              [&](KernelBuilder &kb, Value channel, ValueRange) {
                emit(kb, channel, 1);
                return SmallVector<Value>();
              });
}

/// The halfword pair (-zp, -zp) that SADD16 adds to a widened pair, or null
/// if \p zp is 0.
static Value getPackedNegation(KernelBuilder &kb, int64_t zp) {
  if (zp == 0)
    return nullptr;
  uint32_t half = static_cast<uint32_t>(-zp) & 0xFFFFu;
  return kb.constant(static_cast<int32_t>(half | (half << 16)));
}

/// Returns the offsets of \p view if it is a rank-preserving subview with
/// unit strides.
static std::optional<SmallVector<OpFoldResult>>
getUnitStrideOffsets(memref::SubViewOp view) {
  if (!view || view.getSourceType().getRank() != view.getType().getRank() ||
      !llvm::all_of(view.getMixedStrides(), [](OpFoldResult stride) {
        return isConstantIntValue(stride, 1);
      }))
    return std::nullopt;
  return view.getMixedOffsets();
}

/// Matches the padded window \p window that \p conv reads as its NHWC
/// input: its only other users are a linalg.fill with \p zeroPoint and a
/// linalg.copy into a unit-stride subview of it from a unit-stride subview
/// of a statically strided source, both before \p conv in its block, which
/// cover the window's N and C entirely.
static std::optional<PaddedWindow>
matchPaddedWindow(Value window, int64_t zeroPoint, Operation *conv) {
  auto windowType = dyn_cast<MemRefType>(window.getType());
  if (!windowType || windowType.getRank() != 4 || !windowType.hasStaticShape())
    return std::nullopt;
  PaddedWindow result;
  memref::SubViewOp target;
  for (Operation *user : window.getUsers()) {
    if (user == conv)
      continue;
    if (auto fill = dyn_cast<linalg::FillOp>(user)) {
      if (result.fill || fill.getOutputs()[0] != window)
        return std::nullopt;
      result.fill = fill;
      continue;
    }
    auto view = dyn_cast<memref::SubViewOp>(user);
    if (!view || target || !view->hasOneUse())
      return std::nullopt;
    auto copy = dyn_cast<linalg::CopyOp>(*view->user_begin());
    if (!copy || copy.getOutputs()[0] != view.getResult())
      return std::nullopt;
    target = view;
    result.copy = copy;
  }
  if (!result.fill || !result.copy)
    return std::nullopt;
  Block *block = conv->getBlock();
  if (result.fill->getBlock() != block || result.copy->getBlock() != block ||
      !result.fill->isBeforeInBlock(result.copy) ||
      !result.copy->isBeforeInBlock(conv))
    return std::nullopt;
  // The window is the zero point where the copy does not write.
  APInt fillValue;
  if (!matchPattern(result.fill.getInputs()[0], m_ConstantInt(&fillValue)) ||
      fillValue.getBitWidth() != 8 || fillValue.getSExtValue() != zeroPoint)
    return std::nullopt;
  auto source = result.copy.getInputs()[0].getDefiningOp<memref::SubViewOp>();
  std::optional<SmallVector<OpFoldResult>> sourceOffsets =
      getUnitStrideOffsets(source);
  std::optional<SmallVector<OpFoldResult>> targetOffsets =
      getUnitStrideOffsets(target);
  if (!sourceOffsets || !targetOffsets ||
      !isStaticIntMemRef(source.getSource(), 8) ||
      source.getSourceType().getRank() != 4)
    return std::nullopt;
  SmallVector<OpFoldResult> sizes = target.getMixedSizes();
  // N and C are copied whole.
  for (unsigned dim : {0u, 3u})
    if (!isConstantIntValue((*targetOffsets)[dim], 0) ||
        !isConstantIntValue(sizes[dim], windowType.getDimSize(dim)))
      return std::nullopt;
  result.source = source.getSource();
  result.heightW = windowType.getDimSize(1);
  result.widthW = windowType.getDimSize(2);
  result.exact = hasLocationMark(result.copy, kPaddedWindowLocName);
  result.extentH = source.getSourceType().getDimSize(1);
  result.extentW = source.getSourceType().getDimSize(2);
  return result;
}

/// The i32 value of \p value (an index value or attribute).
static Value getI32(KernelBuilder &kb, OpFoldResult value) {
  if (std::optional<int64_t> constant = getConstantIntValue(value))
    return kb.constant(*constant);
  return arith::IndexCastOp::create(kb.b, kb.loc, kb.i32, cast<Value>(value));
}

/// Builds what the kernels read of \p window: the ByteView of its source
/// shifted to the window's origin (window element (n, y, x, c) at
/// n * strides[0] + y * strides[1] + ... after the offset, as for the window
/// itself), and the copied rectangle in \p window.
static FailureOr<ByteView> getWindowByteView(KernelBuilder &kb,
                                             PaddedWindow &window) {
  FailureOr<ByteView> view = getByteView(kb, window.source);
  if (failed(view))
    return failure();
  auto source = window.copy.getInputs()[0].getDefiningOp<memref::SubViewOp>();
  auto target = window.copy.getOutputs()[0].getDefiningOp<memref::SubViewOp>();
  for (auto [dim, sourceOffset, targetOffset] :
       llvm::enumerate(source.getMixedOffsets(), target.getMixedOffsets())) {
    Value origin = arith::SubIOp::create(kb.b, kb.loc, getI32(kb, sourceOffset),
                                         getI32(kb, targetOffset));
    view->offset = kb.addScaled(view->offset, origin, view->strides[dim]);
    if (dim == 1)
      window.originH = origin;
    if (dim == 2)
      window.originW = origin;
  }
  SmallVector<OpFoldResult> offsets = target.getMixedOffsets();
  SmallVector<OpFoldResult> sizes = target.getMixedSizes();
  window.offsetH = getI32(kb, offsets[1]);
  window.offsetW = getI32(kb, offsets[2]);
  window.sizeH = getI32(kb, sizes[1]);
  window.sizeW = getI32(kb, sizes[2]);
  return view;
}

/// Whether window row (or column) \p index lies in [offset, offset + size):
/// (index - offset) <u size. Null without a window.
static Value isCopied(KernelBuilder &kb, const PaddedWindow *window,
                      Value index, bool row) {
  if (!window)
    return nullptr;
  if (window->exact) {
    Value inSource = kb.add(row ? window->originH : window->originW, index);
    return arith::CmpIOp::create(
        kb.b, kb.loc, arith::CmpIPredicate::ult, inSource,
        kb.constant(row ? window->extentH : window->extentW));
  }
  Value offset = row ? window->offsetH : window->offsetW;
  Value size = row ? window->sizeH : window->sizeW;
  Value relative = arith::SubIOp::create(kb.b, kb.loc, index, offset);
  return arith::CmpIOp::create(kb.b, kb.loc, arith::CmpIPredicate::ult,
                               relative, size);
}

/// Whether tap \p k of output \p o (stride, dilation) lies in the copied rows
/// (\p row) or columns of \p window: null without a window.
static Value isTapCopied(KernelBuilder &kb, const PaddedWindow *window,
                         bool row, Value o, int64_t stride, Value k,
                         int64_t dilation) {
  if (!window)
    return nullptr;
  Value index =
      kb.addScaled(kb.addScaled(kb.constant(0), o, stride), k, dilation);
  return isCopied(kb, window, index, row);
}

/// Calls \p body(kb, accs) if \p condition holds (always if it is null),
/// else returns \p accs unchanged.
static SmallVector<Value>
ifWithAccs(KernelBuilder &kb, Value condition, ValueRange accs,
           function_ref<SmallVector<Value>(KernelBuilder &, ValueRange)> body) {
  if (!condition)
    return body(kb, accs);
  auto ifOp = scf::IfOp::create(
      kb.b, kb.loc, condition,
      [&](OpBuilder &b, Location loc) {
        KernelBuilder inner(b, loc);
        scf::YieldOp::create(b, loc, body(inner, accs));
      },
      [&](OpBuilder &b, Location loc) { scf::YieldOp::create(b, loc, accs); });
  return SmallVector<Value>(ifOp.getResults());
}

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
static SmallVector<Value>
forWindowTaps(KernelBuilder &kb, const PaddedWindow *guard, bool unroll,
              const ConvParts &parts, Value oh, Value ow, int64_t kh,
              int64_t kw, const ByteView &in, Value inBase,
              const ByteView &filter, Value filterBase, ValueRange accs,
              WindowTap tap) {
  return forTapsWithAccs(
      kb, unroll, kh, accs, [&](KernelBuilder &kb, Value y, ValueRange accs) {
        Value rowCopied = isTapCopied(kb, guard, /*row=*/true, oh,
                                      parts.strideH, y, parts.dilationH);
        return ifWithAccs(
            kb, rowCopied, accs, [&](KernelBuilder &kb, ValueRange accs) {
              Value inRow =
                  kb.addScaled(inBase, y, parts.dilationH * in.strides[1]);
              Value filterRow = kb.addScaled(filterBase, y, filter.strides[0]);
              return forTapsWithAccs(
                  kb, unroll, kw, accs,
                  [&](KernelBuilder &kb, Value x, ValueRange accs) {
                    Value columnCopied =
                        isTapCopied(kb, guard, /*row=*/false, ow, parts.strideW,
                                    x, parts.dilationW);
                    return ifWithAccs(
                        kb, columnCopied, accs,
                        [&](KernelBuilder &kb, ValueRange accs) {
                          Value inTap = kb.addScaled(
                              inRow, x, parts.dilationW * in.strides[2]);
                          Value filterTap =
                              kb.addScaled(filterRow, x, filter.strides[1]);
                          return tap(kb, y, x, inTap, filterTap, accs);
                        });
                  });
            });
      });
}

/// Emits \p emit(kb, window) twice when the input is a padded \p window: once
/// without bounds checks for the windows the copy covers entirely (the
/// interior of the image), once with them; else once, without.
static void
emitForWindow(KernelBuilder &kb, const PaddedWindow *window,
              function_ref<void(KernelBuilder &, const PaddedWindow *)> emit) {
  if (!window)
    return emit(kb, nullptr);
  auto equals = [&](Value a, int64_t b) {
    return arith::CmpIOp::create(kb.b, kb.loc, arith::CmpIPredicate::eq, a,
                                 kb.constant(b));
  };
  Value whole;
  if (window->exact) {
    // The window lies in the source: origin in [0, extent - window].
    auto inside = [&](Value origin, int64_t extent, int64_t size) -> Value {
      if (extent < size)
        return arith::ConstantIntOp::create(kb.b, kb.loc, kb.b.getI1Type(), 0);
      return arith::CmpIOp::create(kb.b, kb.loc, arith::CmpIPredicate::ule,
                                   origin, kb.constant(extent - size));
    };
    whole = arith::AndIOp::create(
        kb.b, kb.loc, inside(window->originH, window->extentH, window->heightW),
        inside(window->originW, window->extentW, window->widthW));
  } else {
    whole = arith::AndIOp::create(
        kb.b, kb.loc,
        arith::AndIOp::create(kb.b, kb.loc, equals(window->offsetH, 0),
                              equals(window->sizeH, window->heightW)),
        arith::AndIOp::create(kb.b, kb.loc, equals(window->offsetW, 0),
                              equals(window->sizeW, window->widthW)));
  }
  scf::IfOp::create(
      kb.b, kb.loc, whole,
      [&](OpBuilder &b, Location loc) {
        KernelBuilder inner(b, loc);
        emit(inner, nullptr);
        scf::YieldOp::create(b, loc);
      },
      [&](OpBuilder &b, Location loc) {
        KernelBuilder inner(b, loc);
        emit(inner, window);
        scf::YieldOp::create(b, loc);
      });
}

/// The input of a convolution: its ByteView and, if it is a padded window
/// read in place, the window (whose fill and copy the caller erases).
struct ConvInput {
  ByteView view;
  std::optional<PaddedWindow> window;
};

/// Builds the ConvInput of \p parts for \p conv, or fails, creating
/// nothing, if the input (or its window's source) or the filter has dynamic
/// strides: the filter's ByteView built after it cannot fail then.
static FailureOr<ConvInput>
getConvInput(KernelBuilder &kb, const ConvParts &parts, Operation *conv) {
  ConvInput input;
  input.window = matchPaddedWindow(parts.input, parts.inputZp, conv);
  if (!armkernels::getStaticStrides(input.window ? input.window->source
                                                 : parts.input) ||
      !armkernels::getStaticStrides(parts.filter))
    return failure();
  FailureOr<ByteView> view = input.window ? getWindowByteView(kb, *input.window)
                                          : getByteView(kb, parts.input);
  if (failed(view))
    return failure();
  input.view = *view;
  return input;
}

/// Erases the fill and copy of the padded window of \p input, which the
/// kernel no longer reads.
static void eraseWindowWrites(PatternRewriter &rewriter, ConvInput &input) {
  if (!input.window)
    return;
  Operation *target = input.window->copy.getOutputs()[0].getDefiningOp();
  Operation *source = input.window->copy.getInputs()[0].getDefiningOp();
  rewriter.eraseOp(input.window->copy);
  rewriter.eraseOp(input.window->fill);
  rewriter.eraseOp(target);
  if (source->use_empty())
    rewriter.eraseOp(source);
}

/// Loads the int32 accumulators of output channels [\p first, \p first +
/// \p width) of pixel (\p n, \p oh, \p ow) from \p output, and appends
/// the channels' indices to \p channels.
static SmallVector<Value> loadAccumulators(KernelBuilder &kb, Value output,
                                           Value n, Value oh, Value ow,
                                           Value first, int64_t width,
                                           SmallVectorImpl<Value> &channels) {
  SmallVector<Value> accs;
  for (int64_t j = 0; j < width; ++j) {
    Value channel = kb.add(first, kb.constant(j));
    channels.push_back(channel);
    accs.push_back(memref::LoadOp::create(
        kb.b, kb.loc, output,
        armkernels::toIndices(kb.b, kb.loc, {n, oh, ow, channel})));
  }
  return accs;
}

/// Stores \p accs back to the \p channels of pixel (\p n, \p oh, \p ow).
static void storeAccumulators(KernelBuilder &kb, Value output, Value n,
                              Value oh, Value ow, ArrayRef<Value> channels,
                              ValueRange accs) {
  for (auto [acc, channel] : llvm::zip(accs, channels))
    memref::StoreOp::create(
        kb.b, kb.loc, acc, output,
        armkernels::toIndices(kb.b, kb.loc, {n, oh, ow, channel}));
}

/// The output pixel loops shared by both kernels: calls \p body(kb, n, oh,
/// ow, inputPixel) with the i32 offset of the pixel's window origin in the
/// input, inside loops over the output's N, H and W.
static void forEachPixel(
    KernelBuilder &kb, ArrayRef<int64_t> outShape, const ByteView &in,
    const ConvParts &parts,
    function_ref<void(KernelBuilder &, Value, Value, Value, Value)> body) {
  forWithAccs(
      kb, 0, outShape[0], 1, {}, [&](KernelBuilder &kb, Value n, ValueRange) {
        Value rowBase = kb.addScaled(in.offset, n, in.strides[0]);
        forWithAccs(
            kb, 0, outShape[1], 1, {},
            [&](KernelBuilder &kb, Value oh, ValueRange) {
              Value colBase =
                  kb.addScaled(rowBase, oh, parts.strideH * in.strides[1]);
              forWithAccs(kb, 0, outShape[2], 1, {},
                          [&](KernelBuilder &kb, Value ow, ValueRange) {
                            Value pixel = kb.addScaled(
                                colBase, ow, parts.strideW * in.strides[2]);
                            body(kb, n, oh, ow, pixel);
                            return SmallVector<Value>();
                          });
              return SmallVector<Value>();
            });
        return SmallVector<Value>();
      });
}

namespace {
/// Rewrites linalg.conv_2d_nhwc_fhwc[_q] (filter [OC, KH, KW, IC]).
template <typename ConvOp> struct ConvFhwcToDsp : OpRewritePattern<ConvOp> {
  ConvFhwcToDsp(MLIRContext *context, unsigned ocBlock, unsigned unrollCount)
      : OpRewritePattern<ConvOp>(context), ocBlock(ocBlock),
        unrollCount(unrollCount) {}

  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<ConvParts> parts =
        matchInt8Conv(cast<linalg::LinalgOp>(op.getOperation()));
    if (failed(parts))
      return rewriter.notifyMatchFailure(op, "not an int8 conv on memrefs "
                                             "with constant zero points");
    KernelBuilder kb(rewriter, op.getLoc());
    FailureOr<ConvInput> input = getConvInput(kb, *parts, op);
    if (failed(input))
      return rewriter.notifyMatchFailure(op, "dynamic strides");
    FailureOr<ByteView> filter = getByteView(kb, parts->filter);
    const ByteView *in = &input->view;
    bool contiguous = in->strides[3] == 1 && filter->strides[3] == 1;
    ArrayRef<int64_t> outShape =
        cast<MemRefType>(parts->output.getType()).getShape();
    int64_t numOc = outShape[3];
    int64_t kh = filter->shape[1], kw = filter->shape[2];
    int64_t numIc = filter->shape[3];
    Value inZp = getPackedNegation(kb, parts->inputZp);
    Value filterZp = getPackedNegation(kb, parts->filterZp);
    Value inZpScalar = kb.constant(parts->inputZp);
    Value filterZpScalar = kb.constant(parts->filterZp);
    Value output = parts->output;
    int64_t block = std::max<int64_t>(1, std::min<int64_t>(ocBlock, numOc));

    auto emitKernel = [&](KernelBuilder &kb, const PaddedWindow *guard) {
      // Without bounds checks, a kernel row of contiguous pixels is one run
      // of KW * IC bytes in both the input and the filter: the SIMD
      // reduction spans it (a first layer of 3 input channels gets 2 words
      // per row instead of 9 scalar taps).
      int64_t tapsW = kw, runIc = numIc;
      if (!guard && contiguous && parts->dilationW == 1 &&
          in->strides[2] == numIc && filter->strides[2] == numIc) {
        tapsW = 1;
        runIc = kw * numIc;
      }
      // The SIMD part of the reduction over a run; the rest is scalar.
      int64_t runSimd = contiguous ? runIc - runIc % 4 : 0;
      forEachPixel(
          kb, outShape, *in, *parts,
          [&](KernelBuilder &kb, Value n, Value oh, Value ow, Value pixel) {
            // Output channels [first, first + width) of one pixel.
            auto emitBlock = [&](KernelBuilder &kb, Value first,
                                 int64_t width) {
              SmallVector<Value> ocs;
              SmallVector<Value> accs =
                  loadAccumulators(kb, output, n, oh, ow, first, width, ocs);
              // The block's filter rows, output channel j at a constant
              // j * strides[0] after the first (immediate load offsets).
              Value filterBlock =
                  kb.addScaled(filter->offset, first, filter->strides[0]);
              accs = forWithAccs(
                  kb, 0, kh, 1, accs,
                  [&](KernelBuilder &kb, Value y, ValueRange accs) {
                    Value rowCopied =
                        isTapCopied(kb, guard, /*row=*/true, oh, parts->strideH,
                                    y, parts->dilationH);
                    return ifWithAccs(
                        kb, rowCopied, accs,
                        [&](KernelBuilder &kb, ValueRange accs) {
                          Value inRow = kb.addScaled(
                              pixel, y, parts->dilationH * in->strides[1]);
                          return forWithAccs(
                              kb, 0, tapsW, 1, accs,
                              [&](KernelBuilder &kb, Value x, ValueRange accs) {
                                Value columnCopied = isTapCopied(
                                    kb, guard, /*row=*/false, ow,
                                    parts->strideW, x, parts->dilationW);
                                return ifWithAccs(
                                    kb, columnCopied, accs,
                                    [&](KernelBuilder &kb, ValueRange accs) {
                                      Value inTap = kb.addScaled(
                                          inRow, x,
                                          parts->dilationW * in->strides[2]);
                                      Value filterTap = kb.addScaled(
                                          kb.addScaled(filterBlock, y,
                                                       filter->strides[1]),
                                          x, filter->strides[2]);
                                      // Four input channels per step: 2
                                      // widenings of the input word, then per
                                      // output channel 2 widenings and 2
                                      // SMLADs.
                                      // The input and filter addresses are
                                      // loop-carried pointers (post-increment
                                      // loads, one filter pointer with
                                      // immediate offsets per channel).
                                      SmallVector<Value> state(accs);
                                      state.push_back(
                                          kb.address(in->base, inTap));
                                      state.push_back(
                                          kb.address(filter->base, filterTap));
                                      SmallVector<Value> result =
                                          forStepsWithAccs(
                                              kb, 0, runSimd, 4, state,
                                              [&](KernelBuilder &kb, Value,
                                                  ValueRange state) {
                                                ValueRange accs =
                                                    state.drop_back(2);
                                                Value inPtr = state[width];
                                                Value filterPtr =
                                                    state[width + 1];
                                                Value word =
                                                    kb.loadWordAt(inPtr);
                                                Value even = kb.sadd16(
                                                    kb.sxtb16(word), inZp);
                                                Value odd = kb.sadd16(
                                                    kb.sxtb16Odd(word), inZp);
                                                SmallVector<Value> next;
                                                for (auto [j, acc] :
                                                     llvm::enumerate(accs)) {
                                                  Value w = kb.loadWordAt(
                                                      filterPtr,
                                                      j * filter->strides[0]);
                                                  Value wEven = kb.sadd16(
                                                      kb.sxtb16(w), filterZp);
                                                  Value wOdd =
                                                      kb.sadd16(kb.sxtb16Odd(w),
                                                                filterZp);
                                                  Value sum = kb.intrinsic(
                                                      "llvm.arm.smlad",
                                                      {even, wEven, acc});
                                                  next.push_back(kb.intrinsic(
                                                      "llvm.arm.smlad",
                                                      {odd, wOdd, sum}));
                                                }
                                                next.push_back(
                                                    kb.offsetPointer(inPtr, 4));
                                                next.push_back(kb.offsetPointer(
                                                    filterPtr, 4));
                                                return next;
                                              },
                                              unrollCount);
                                      result.resize(width);
                                      // The input channels left over, one at a
                                      // time.
                                      return forStepsWithAccs(
                                          kb, runSimd, runIc, 1, result,
                                          [&](KernelBuilder &kb, Value ic,
                                              ValueRange accs) {
                                            Value xv = arith::SubIOp::create(
                                                kb.b, kb.loc,
                                                kb.loadByte(
                                                    in->base,
                                                    kb.addScaled(
                                                        inTap, ic,
                                                        in->strides[3])),
                                                inZpScalar);
                                            SmallVector<Value> next;
                                            Value tap = kb.addScaled(
                                                filterTap, ic,
                                                filter->strides[3]);
                                            for (auto [j, acc] :
                                                 llvm::enumerate(accs)) {
                                              Value wv = arith::SubIOp::create(
                                                  kb.b, kb.loc,
                                                  kb.loadByte(
                                                      filter->base, tap,
                                                      j * filter->strides[0]),
                                                  filterZpScalar);
                                              next.push_back(
                                                  kb.add(acc, kb.mul(xv, wv)));
                                            }
                                            return next;
                                          });
                                    });
                              });
                        });
                  });
              storeAccumulators(kb, output, n, oh, ow, ocs, accs);
            };
            int64_t blocked = numOc - numOc % block;
            forChannelBlocks(kb, blocked, numOc, block, emitBlock);
          });
    };
    emitForWindow(kb, input->window ? &*input->window : nullptr, emitKernel);
    eraseWindowWrites(rewriter, *input);
    rewriter.eraseOp(op);
    return success();
  }

  /// Output channels per block.
  unsigned ocBlock;
  /// LLVM's unroll count of the SIMD reduction loop (0: no annotation).
  unsigned unrollCount;
};
} // namespace

namespace {
/// The weights of a one-channel depthwise filter, minus the filter zero
/// point, loaded once before the loops around the convolution in which the
/// filter does not change (the in-place depthwise convolution computes one
/// pixel of one channel per convolution, inside loops over the channel's
/// pixels), so that they stay in registers over the pixels.
struct HoistedWeights {
  /// Halfword pairs: tap 2k in the bottom half, tap 2k + 1 in the top.
  SmallVector<Value> pairs;
  /// The weight minus the filter zero point of a splat filter (a constant
  /// whose weights are all the same): the kernel multiplies by this
  /// constant, which LLVM folds (a weight of 1 is an add), instead of
  /// reading pairs.
  std::optional<int64_t> splatWeight;
  /// -zi * sum(w - zw): a window read without bounds checks adds it once and
  /// multiplies the input values without subtracting the input zero point
  /// zi. Null if zi is 0.
  Value foldedZeroPoint;
};
} // namespace

/// Loads the \p kh x \p kw weights of the one-channel filter of \p parts:
/// if the filter is a view of a constant memref.global (read-only, so no
/// op in a loop can change it), before the outermost of the scf.for loops
/// around \p op in which the filter is defined outside, else before \p op.
static HoistedWeights hoistWeights(PatternRewriter &rewriter, Operation *op,
                                   const ConvParts &parts, int64_t kh,
                                   int64_t kw) {
  std::optional<SmallVector<int64_t>> values =
      armkernels::getGlobalValues(parts.filter);
  Operation *point = op;
  while (auto loop = dyn_cast<scf::ForOp>(point->getParentOp())) {
    if (!values || !loop.isDefinedOutsideOfLoop(parts.filter))
      break;
    point = loop;
  }
  OpBuilder::InsertionGuard insertionGuard(rewriter);
  rewriter.setInsertionPoint(point);
  KernelBuilder kb(rewriter, op->getLoc());
  HoistedWeights hoisted;
  SmallVector<Value> weights;
  if (values && !values->empty() && llvm::all_equal(*values)) {
    hoisted.splatWeight = values->front() - parts.filterZp;
    weights.assign(kh * kw, kb.constant(*hoisted.splatWeight));
  } else {
    // The caller checked that the filter's strides are static.
    ByteView filter = *getByteView(kb, parts.filter);
    Value filterZp = kb.constant(parts.filterZp);
    for (int64_t y = 0; y < kh; ++y)
      for (int64_t x = 0; x < kw; ++x)
        weights.push_back(arith::SubIOp::create(
            kb.b, kb.loc,
            kb.loadByte(filter.base, filter.offset,
                        y * filter.strides[0] + x * filter.strides[1]),
            filterZp));
  }
  for (size_t t = 0; !hoisted.splatWeight && t < weights.size(); t += 2) {
    if (t + 1 == weights.size()) {
      // The bottom half of the sign-extended weight is the weight.
      hoisted.pairs.push_back(weights[t]);
      break;
    }
    Value bottom =
        arith::AndIOp::create(kb.b, kb.loc, weights[t], kb.constant(0xFFFF));
    Value top =
        arith::ShLIOp::create(kb.b, kb.loc, weights[t + 1], kb.constant(16));
    hoisted.pairs.push_back(arith::OrIOp::create(kb.b, kb.loc, bottom, top));
  }
  if (parts.inputZp != 0) {
    Value sum = weights.front();
    for (Value weight : ArrayRef<Value>(weights).drop_front())
      sum = kb.add(sum, weight);
    hoisted.foldedZeroPoint = kb.mul(sum, kb.constant(-parts.inputZp));
  }
  return hoisted;
}

namespace {
/// Rewrites linalg.depthwise_conv_2d_nhwc_hwc[_q] (filter [KH, KW, C]).
template <typename DepthwiseOp>
struct DepthwiseHwcToDsp : OpRewritePattern<DepthwiseOp> {
  using OpRewritePattern<DepthwiseOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(DepthwiseOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<ConvParts> parts =
        matchInt8Conv(cast<linalg::LinalgOp>(op.getOperation()));
    if (failed(parts))
      return rewriter.notifyMatchFailure(op, "not an int8 depthwise conv on "
                                             "memrefs with constant zero "
                                             "points");
    KernelBuilder kb(rewriter, op.getLoc());
    FailureOr<ConvInput> input = getConvInput(kb, *parts, op);
    if (failed(input))
      return rewriter.notifyMatchFailure(op, "dynamic strides");
    FailureOr<ByteView> filter = getByteView(kb, parts->filter);
    const ByteView *in = &input->view;
    bool contiguous = in->strides[3] == 1 && filter->strides[2] == 1;
    ArrayRef<int64_t> outShape =
        cast<MemRefType>(parts->output.getType()).getShape();
    int64_t channels = outShape[3];
    int64_t kh = filter->shape[0], kw = filter->shape[1];
    int64_t simdChannels = contiguous ? channels - channels % 4 : 0;
    bool unroll = kh * kw <= kMaxUnrolledTaps;
    // One channel with unrolled taps (the in-place depthwise convolution):
    // SMLABB/SMLABT with the weights in registers.
    std::optional<HoistedWeights> hoisted;
    if (channels == 1 && unroll)
      hoisted = hoistWeights(rewriter, op, *parts, kh, kw);
    Value inZp = getPackedNegation(kb, parts->inputZp);
    Value filterZp = getPackedNegation(kb, parts->filterZp);
    Value inZpScalar = kb.constant(parts->inputZp);
    Value filterZpScalar = kb.constant(parts->filterZp);
    Value output = parts->output;

    auto emitKernel = [&](KernelBuilder &kb, const PaddedWindow *guard) {
      forEachPixel(
          kb, outShape, *in, *parts,
          [&](KernelBuilder &kb, Value n, Value oh, Value ow, Value pixel) {
            // Channels [first, first + width): width 4 with DSP, 1 scalar.
            auto emitChannels = [&](KernelBuilder &kb, Value first,
                                    int64_t width) {
              SmallVector<Value> cs;
              SmallVector<Value> accs =
                  loadAccumulators(kb, output, n, oh, ow, first, width, cs);
              Value inChannel = kb.addScaled(pixel, first, in->strides[3]);
              Value filterChannel =
                  kb.addScaled(filter->offset, first, filter->strides[2]);
              // Without bounds checks every tap is read: the input zero
              // point is folded into the accumulator.
              bool folded = hoisted && !guard && hoisted->foldedZeroPoint;
              if (folded)
                accs[0] = kb.add(accs[0], hoisted->foldedZeroPoint);
              accs = forWindowTaps(
                  kb, guard, unroll, *parts, oh, ow, kh, kw, *in, inChannel,
                  *filter, filterChannel, accs,
                  [&](KernelBuilder &kb, Value y, Value x, Value inTap,
                      Value filterTap, ValueRange accs) -> SmallVector<Value> {
                    if (hoisted) {
                      Value xv = kb.loadByte(in->base, inTap);
                      if (!folded)
                        xv =
                            arith::SubIOp::create(kb.b, kb.loc, xv, inZpScalar);
                      if (hoisted->splatWeight)
                        return SmallVector<Value>{kb.add(
                            accs[0],
                            kb.mul(xv, kb.constant(*hoisted->splatWeight)))};
                      int64_t tap = *getConstantIntValue(y) * kw +
                                    *getConstantIntValue(x);
                      return SmallVector<Value>{kb.intrinsic(
                          tap % 2 ? "llvm.arm.smlabt" : "llvm.arm.smlabb",
                          {xv, hoisted->pairs[tap / 2], accs[0]})};
                    }
                    if (width == 1) {
                      Value xv = arith::SubIOp::create(
                          kb.b, kb.loc, kb.loadByte(in->base, inTap),
                          inZpScalar);
                      Value wv = arith::SubIOp::create(
                          kb.b, kb.loc, kb.loadByte(filter->base, filterTap),
                          filterZpScalar);
                      return SmallVector<Value>{
                          kb.add(accs[0], kb.mul(xv, wv))};
                    }
                    // Channels (0, 2) in the even pair, (1, 3) in the odd one.
                    Value word = kb.loadWord(in->base, inTap);
                    Value w = kb.loadWord(filter->base, filterTap);
                    Value even = kb.sadd16(kb.sxtb16(word), inZp);
                    Value odd = kb.sadd16(kb.sxtb16Odd(word), inZp);
                    Value wEven = kb.sadd16(kb.sxtb16(w), filterZp);
                    Value wOdd = kb.sadd16(kb.sxtb16Odd(w), filterZp);
                    return SmallVector<Value>{
                        kb.intrinsic("llvm.arm.smlabb", {even, wEven, accs[0]}),
                        kb.intrinsic("llvm.arm.smlabb", {odd, wOdd, accs[1]}),
                        kb.intrinsic("llvm.arm.smlatt", {even, wEven, accs[2]}),
                        kb.intrinsic("llvm.arm.smlatt", {odd, wOdd, accs[3]})};
                  });
              storeAccumulators(kb, output, n, oh, ow, cs, accs);
            };
            forChannelBlocks(kb, simdChannels, channels, 4, emitChannels);
          });
    };
    emitForWindow(kb, input->window ? &*input->window : nullptr, emitKernel);
    eraseWindowWrites(rewriter, *input);
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

namespace {
/// Rewrites linalg.conv_2d_nhwc_hwcf[_q] (filter [KH, KW, IC, OC]; the
/// first layer of a network, or a depthwise convolution of one input
/// channel): its output channels are contiguous in the filter, so four of
/// them are widened from one filter word and each input value, corrected by
/// its zero point, multiplies all four with SMLABB/SMLABT.
template <typename ConvOp> struct ConvHwcfToDsp : OpRewritePattern<ConvOp> {
  using OpRewritePattern<ConvOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<ConvParts> parts =
        matchInt8Conv(cast<linalg::LinalgOp>(op.getOperation()));
    if (failed(parts))
      return rewriter.notifyMatchFailure(op, "not an int8 conv on memrefs "
                                             "with constant zero points");
    KernelBuilder kb(rewriter, op.getLoc());
    FailureOr<ConvInput> input = getConvInput(kb, *parts, op);
    if (failed(input))
      return rewriter.notifyMatchFailure(op, "dynamic strides");
    FailureOr<ByteView> filter = getByteView(kb, parts->filter);
    const ByteView *in = &input->view;
    ArrayRef<int64_t> outShape =
        cast<MemRefType>(parts->output.getType()).getShape();
    int64_t numOc = outShape[3];
    int64_t kh = filter->shape[0], kw = filter->shape[1];
    int64_t numIc = filter->shape[2];
    int64_t simdOc = filter->strides[3] == 1 ? numOc - numOc % 4 : 0;
    bool unroll = kh * kw * numIc <= kMaxUnrolledTaps;
    Value filterZp = getPackedNegation(kb, parts->filterZp);
    Value inZpScalar = kb.constant(parts->inputZp);
    Value filterZpScalar = kb.constant(parts->filterZp);
    Value output = parts->output;

    auto emitKernel = [&](KernelBuilder &kb, const PaddedWindow *guard) {
      forEachPixel(
          kb, outShape, *in, *parts,
          [&](KernelBuilder &kb, Value n, Value oh, Value ow, Value pixel) {
            // Output channels [first, first + width): width 4 with DSP, 1
            // scalar.
            auto emitChannels = [&](KernelBuilder &kb, Value first,
                                    int64_t width) {
              SmallVector<Value> ocs;
              SmallVector<Value> accs =
                  loadAccumulators(kb, output, n, oh, ow, first, width, ocs);
              Value filterChannel =
                  kb.addScaled(filter->offset, first, filter->strides[3]);
              accs = forWindowTaps(
                  kb, guard, unroll, *parts, oh, ow, kh, kw, *in, pixel,
                  *filter, filterChannel, accs,
                  [&](KernelBuilder &kb, Value y, Value x, Value inTap,
                      Value filterTap, ValueRange accs) -> SmallVector<Value> {
                    return forTapsWithAccs(
                        kb, unroll, numIc, accs,
                        [&](KernelBuilder &kb, Value ic, ValueRange accs) {
                          Value xv = arith::SubIOp::create(
                              kb.b, kb.loc,
                              kb.loadByte(
                                  in->base,
                                  kb.addScaled(inTap, ic, in->strides[3])),
                              inZpScalar);
                          Value filterAt =
                              kb.addScaled(filterTap, ic, filter->strides[2]);
                          if (width == 1) {
                            Value wv = arith::SubIOp::create(
                                kb.b, kb.loc,
                                kb.loadByte(filter->base, filterAt),
                                filterZpScalar);
                            return SmallVector<Value>{
                                kb.add(accs[0], kb.mul(xv, wv))};
                          }
                          // Output channels (0, 2) in the even pair,
                          // (1, 3) in the odd one; the input value is
                          // the bottom half of xv.
                          Value w = kb.loadWord(filter->base, filterAt);
                          Value wEven = kb.sadd16(kb.sxtb16(w), filterZp);
                          Value wOdd = kb.sadd16(kb.sxtb16Odd(w), filterZp);
                          return SmallVector<Value>{
                              kb.intrinsic("llvm.arm.smlabb",
                                           {xv, wEven, accs[0]}),
                              kb.intrinsic("llvm.arm.smlabb",
                                           {xv, wOdd, accs[1]}),
                              kb.intrinsic("llvm.arm.smlabt",
                                           {xv, wEven, accs[2]}),
                              kb.intrinsic("llvm.arm.smlabt",
                                           {xv, wOdd, accs[3]})};
                        });
                  });
              storeAccumulators(kb, output, n, oh, ow, ocs, accs);
            };
            forChannelBlocks(kb, simdOc, numOc, 4, emitChannels);
          });
    };
    emitForWindow(kb, input->window ? &*input->window : nullptr, emitKernel);
    eraseWindowWrites(rewriter, *input);
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

/// Returns the constant integer values \p value stands for: a constant, or a
/// block argument of a linalg.generic whose operand is a view of a constant
/// memref.global.
static std::optional<SmallVector<int64_t>> getConstantValues(Value value) {
  APInt scalar;
  if (matchPattern(value, m_ConstantInt(&scalar)))
    return SmallVector<int64_t>{scalar.getSExtValue()};
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg)
    return std::nullopt;
  auto generic = dyn_cast<linalg::GenericOp>(arg.getOwner()->getParentOp());
  if (!generic || arg.getOwner() != generic.getBody() ||
      arg.getArgNumber() >= generic.getNumDpsInputs())
    return std::nullopt;
  return armkernels::getGlobalValues(
      generic.getDpsInputOperand(arg.getArgNumber())->get());
}

namespace {
/// Rewrites the 64-bit rounding multiply of a lowered tosa.rescale,
///   trunci((extsi(a) * extsi(m) + ((1 << s) >> 1)) >> s),  s = extui(shift),
/// into 32-bit operations when every shift is in [32, 62] and no multiplier
/// is INT32_MIN (both read from constants): with P = a * m from one SMULL
/// (lo, hi) and t = P >> 31 = (hi << 1) | (lo >> 31), which fits in 32 bits
/// since |P| < 2^62,
///   round(P / 2^s) = floor((P + 2^(s-1)) / 2^s)
///                  = (t >> (s - 31)) + ((t >> (s - 32)) & 1)
///                  = (y >> 1) + (y & 1),  y = t >> (s - 32),
/// because floor((h + 2^(k-1)) / 2^k) = floor(h / 2^k) + bit k-1 of h. The
/// shifts are in [0, 31], so no shift is out of range.
struct RescaleTo32Bit : OpRewritePattern<arith::TruncIOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncIOp trunc,
                                PatternRewriter &rewriter) const override {
    if (!trunc.getType().isInteger(32) ||
        !trunc.getIn().getType().isInteger(64))
      return failure();
    auto shr = trunc.getIn().getDefiningOp<arith::ShRSIOp>();
    if (!shr)
      return failure();
    auto sum = shr.getLhs().getDefiningOp<arith::AddIOp>();
    auto shiftExt = shr.getRhs().getDefiningOp<arith::ExtUIOp>();
    if (!sum || !shiftExt || !shiftExt.getIn().getType().isInteger(8))
      return failure();
    auto product = sum.getLhs().getDefiningOp<arith::MulIOp>();
    auto half = sum.getRhs().getDefiningOp<arith::ShRUIOp>();
    if (!product || !half || !matchPattern(half.getRhs(), m_One()))
      return failure();
    auto power = half.getLhs().getDefiningOp<arith::ShLIOp>();
    if (!power || !matchPattern(power.getLhs(), m_One()) ||
        power.getRhs() != shiftExt.getResult())
      return failure();
    auto lhs = product.getLhs().getDefiningOp<arith::ExtSIOp>();
    auto rhs = product.getRhs().getDefiningOp<arith::ExtSIOp>();
    if (!lhs || !rhs || !lhs.getIn().getType().isInteger(32) ||
        !rhs.getIn().getType().isInteger(32))
      return failure();
    // The multiplier and the shift must be known: constants.
    std::optional<SmallVector<int64_t>> shifts =
        getConstantValues(shiftExt.getIn());
    if (!shifts || llvm::any_of(*shifts, [](int64_t s) {
          int64_t unsignedShift = s & 0xFF;
          return unsignedShift < 32 || unsignedShift > 62;
        }))
      return rewriter.notifyMatchFailure(trunc, "shift not in [32, 62]");
    Value multiplier = rhs.getIn();
    Value accumulator = lhs.getIn();
    std::optional<SmallVector<int64_t>> multipliers =
        getConstantValues(multiplier);
    if (!multipliers) {
      std::swap(multiplier, accumulator);
      multipliers = getConstantValues(multiplier);
    }
    if (!multipliers || llvm::is_contained(*multipliers, INT32_MIN))
      return rewriter.notifyMatchFailure(trunc, "multiplier not known");

    KernelBuilder kb(rewriter, trunc.getLoc());
    auto wide = arith::MulSIExtendedOp::create(rewriter, kb.loc, accumulator,
                                               multiplier);
    Value t = arith::OrIOp::create(
        rewriter, kb.loc,
        arith::ShLIOp::create(rewriter, kb.loc, wide.getHigh(), kb.constant(1)),
        arith::ShRUIOp::create(rewriter, kb.loc, wide.getLow(),
                               kb.constant(31)));
    Value shift =
        arith::ExtUIOp::create(rewriter, kb.loc, kb.i32, shiftExt.getIn());
    // y = t >> (s - 32) once: t >> (s - 31) is y >> 1 and the rounding bit
    // is y & 1.
    Value y = arith::ShRSIOp::create(
        rewriter, kb.loc, t,
        arith::SubIOp::create(rewriter, kb.loc, shift, kb.constant(32)));
    Value quotient =
        arith::ShRSIOp::create(rewriter, kb.loc, y, kb.constant(1));
    Value roundBit = arith::AndIOp::create(rewriter, kb.loc, y, kb.constant(1));
    rewriter.replaceOp(trunc, kb.add(quotient, roundBit));
    return success();
  }
};
} // namespace

/// Returns true if \p value is a contiguous row-major memref of int8 with a
/// static shape.
static bool isContiguousInt8MemRef(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type || !type.getElementType().isInteger(8) || !type.hasStaticShape() ||
      failed(type.getStridesAndOffset(strides, offset)))
    return false;
  // Row-major: each dimension (of more than one element) strides over the
  // ones after it.
  int64_t expected = 1;
  for (int64_t dim = type.getRank() - 1; dim >= 0; --dim) {
    if (type.getDimSize(dim) != 1 && strides[dim] != expected)
      return false;
    expected *= type.getDimSize(dim);
  }
  return true;
}

namespace {
/// Rewrites an elementwise clamp of int8 values (a linalg.generic whose body
/// is arith.maxsi and/or arith.minsi of the element with constants, as a
/// lowered tosa.clamp is) four bytes at a time: SSUB8 of the word and the
/// bound repeated in each byte sets the GE flag of each byte where the
/// element is at least the bound, and SEL picks the element or the bound
/// per byte. Bytes left over are clamped one at a time.
struct ClampToDsp : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 1 ||
        op.getNumDpsInits() != 1 ||
        op.getNumParallelLoops() != op.getNumLoops() ||
        !llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); }))
      return failure();
    Value input = op.getDpsInputOperand(0)->get();
    Value output = op.getDpsInitOperand(0)->get();
    if (!isContiguousInt8MemRef(input) || !isContiguousInt8MemRef(output) ||
        cast<MemRefType>(input.getType()).getShape() !=
            cast<MemRefType>(output.getType()).getShape())
      return failure();
    // The chain of bounds from the element to the yielded value: (bound,
    // isMax) per op.
    Block &body = op.getRegion().front();
    Value current = body.getArgument(0);
    SmallVector<std::pair<int64_t, bool>> bounds;
    for (Operation &inner : body.without_terminator()) {
      if (!isa<arith::MaxSIOp, arith::MinSIOp>(inner) ||
          inner.getOperand(0) != current)
        return failure();
      APInt bound;
      if (!matchPattern(inner.getOperand(1), m_ConstantInt(&bound)))
        return failure();
      bounds.push_back({bound.getSExtValue(), isa<arith::MaxSIOp>(inner)});
      current = inner.getResult(0);
    }
    if (bounds.empty() || body.getTerminator()->getOperand(0) != current)
      return failure();

    if (!armkernels::getStaticStrides(input) ||
        !armkernels::getStaticStrides(output))
      return failure();
    KernelBuilder kb(rewriter, op.getLoc());
    FailureOr<ByteView> in = getByteView(kb, input);
    FailureOr<ByteView> out = getByteView(kb, output);
    int64_t numElements = cast<MemRefType>(input.getType()).getNumElements();
    int64_t words = numElements - numElements % 4;
    SmallVector<Value> state = {kb.address(in->base, in->offset),
                                kb.address(out->base, out->offset)};
    state = forWithAccs(
        kb, 0, words, 4, state,
        [&](KernelBuilder &kb, Value, ValueRange state) {
          Value word = kb.loadWordAt(state[0]);
          for (auto [bound, isMax] : bounds) {
            uint32_t byte = static_cast<uint32_t>(bound) & 0xFFu;
            Value packed =
                kb.constant(static_cast<int32_t>(byte * 0x01010101u));
            // GE per byte where word >= bound.
            kb.intrinsic("llvm.arm.ssub8", {word, packed});
            word = isMax ? kb.intrinsic("llvm.arm.sel", {word, packed})
                         : kb.intrinsic("llvm.arm.sel", {packed, word});
          }
          LLVM::StoreOp::create(kb.b, kb.loc, word, state[1],
                                /*alignment=*/1);
          return SmallVector<Value>{kb.offsetPointer(state[0], 4),
                                    kb.offsetPointer(state[1], 4)};
        });
    forWithAccs(
        kb, words, numElements, 1, state,
        [&](KernelBuilder &kb, Value, ValueRange state) {
          Value value = LLVM::LoadOp::create(kb.b, kb.loc, kb.i8, state[0], 1);
          for (auto [bound, isMax] : bounds) {
            Value c = arith::ConstantIntOp::create(kb.b, kb.loc, kb.i8, bound);
            value =
                isMax
                    ? arith::MaxSIOp::create(kb.b, kb.loc, value, c).getResult()
                    : arith::MinSIOp::create(kb.b, kb.loc, value, c)
                          .getResult();
          }
          LLVM::StoreOp::create(kb.b, kb.loc, value, state[1], 1);
          return SmallVector<Value>{kb.offsetPointer(state[0], 1),
                                    kb.offsetPointer(state[1], 1)};
        });
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void mlir::memopt::populateArmDspInt8KernelPatterns(RewritePatternSet &patterns,
                                                    unsigned ocBlock,
                                                    unsigned unrollCount) {
  patterns.add<ConvFhwcToDsp<linalg::Conv2DNhwcFhwcQOp>,
               ConvFhwcToDsp<linalg::Conv2DNhwcFhwcOp>>(patterns.getContext(),
                                                        ocBlock, unrollCount);
  patterns.add<RescaleTo32Bit, ClampToDsp>(patterns.getContext());
  patterns.add<ConvHwcfToDsp<linalg::Conv2DNhwcHwcfQOp>,
               ConvHwcfToDsp<linalg::Conv2DNhwcHwcfOp>>(patterns.getContext());
  patterns.add<DepthwiseHwcToDsp<linalg::DepthwiseConv2DNhwcHwcQOp>,
               DepthwiseHwcToDsp<linalg::DepthwiseConv2DNhwcHwcOp>>(
      patterns.getContext());
}
