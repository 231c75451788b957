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
//                              rescale (DepthwiseChannelRowsToMve); the
//                              channel's copy back as scatter stores
//                              (ChannelCopyToMve).
//
// A depthwise or HWCF convolution that reads fuse-rescale-accumulators'
// padded window (filled with the input zero point, then the in-bounds input
// copied in) reads the input directly instead; see PaddedWindow.
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
//===----------------------------------------------------------------------===//

#include "Int8KernelUtils.h"
#include "MemOpt/Target/ARM/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::armkernels;

namespace {
/// Emits the kernels' vector operations at one insertion point.
struct VectorBuilder {
  VectorBuilder(OpBuilder &b, Location loc)
      : b(b), loc(loc), i8(b.getI8Type()), i32(b.getI32Type()),
        ptr(LLVM::LLVMPointerType::get(b.getContext())) {}

  Value constant(int64_t value) { return getI32Constant(b, loc, value); }
  Value add(Value a, Value c) { return arith::AddIOp::create(b, loc, a, c); }
  Value mul(Value a, Value c) { return arith::MulIOp::create(b, loc, a, c); }

  /// The address of element \p offset (of type \p element) after \p base.
  Value address(Value base, Value offset, Type element) {
    return LLVM::GEPOp::create(b, loc, ptr, element, base, ValueRange{offset});
  }
  /// The mask whose first \p active of \p lanes lanes are set.
  Value mask(int64_t lanes, int64_t active) {
    auto type = VectorType::get({lanes}, b.getI1Type());
    SmallVector<bool> bits(lanes, false);
    std::fill_n(bits.begin(), active, true);
    return arith::ConstantOp::create(b, loc, type,
                                     DenseElementsAttr::get(type, bits));
  }
  /// \p lanes elements of type \p element at \p base + \p offset; only the
  /// first \p active are read (a masked load; the others are 0) when
  /// \p active < \p lanes.
  Value load(Value base, Value offset, Type element, int64_t lanes,
             int64_t active) {
    auto type = VectorType::get({lanes}, element);
    Value at = address(base, offset, element);
    unsigned alignment = element.getIntOrFloatBitWidth() / 8;
    if (active == lanes)
      return LLVM::LoadOp::create(b, loc, type, at, alignment);
    Value zero = arith::ConstantOp::create(
        b, loc, type, DenseElementsAttr::get(type, b.getZeroAttr(element)));
    return LLVM::MaskedLoadOp::create(b, loc, type, at, mask(lanes, active),
                                      zero, alignment);
  }
  /// Stores the first \p active lanes of \p value at \p base + \p offset.
  void store(Value value, Value base, Value offset, int64_t active) {
    auto type = cast<VectorType>(value.getType());
    Type element = type.getElementType();
    Value at = address(base, offset, element);
    unsigned alignment = element.getIntOrFloatBitWidth() / 8;
    int64_t lanes = type.getNumElements();
    if (active == lanes) {
      LLVM::StoreOp::create(b, loc, value, at, alignment);
      return;
    }
    LLVM::MaskedStoreOp::create(b, loc, value, at, mask(lanes, active),
                                alignment);
  }
  /// \p value (a vector of i8) sign-extended to i32 lanes.
  Value widen(Value value) {
    auto type = cast<VectorType>(value.getType());
    return arith::ExtSIOp::create(b, loc, VectorType::get(type.getShape(), i32),
                                  value);
  }
  /// The i32 vector of \p lanes lanes that all hold \p value.
  Value splat(int64_t value, int64_t lanes) {
    auto type = VectorType::get({lanes}, i32);
    return vector::BroadcastOp::create(b, loc, type, constant(value));
  }
  /// The sum of the lanes of \p value.
  Value sum(Value value) {
    return vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD,
                                       value);
  }

  OpBuilder &b;
  Location loc;
  Type i8, i32, ptr;
};

/// Input channels per vector of the convolution's reduction.
constexpr int64_t kConvLanes = 16;

/// Rewrites linalg.conv_2d_nhwc_fhwc[_q] (filter [OC, KH, KW, IC]) whose
/// input channels are contiguous in input and filter.
template <typename ConvOp> struct ConvFhwcToMve : OpRewritePattern<ConvOp> {
  ConvFhwcToMve(MLIRContext *context, unsigned ocBlock)
      : OpRewritePattern<ConvOp>(context), ocBlock(ocBlock) {}

  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<ConvParts> parts =
        matchInt8Conv(cast<linalg::LinalgOp>(op.getOperation()));
    if (failed(parts))
      return rewriter.notifyMatchFailure(op, "not an int8 conv on memrefs "
                                             "with constant zero points");
    // Checked before any IR is built: a failed match must not change it.
    std::optional<SmallVector<int64_t>> inStrides =
        getStaticStrides(parts->input);
    std::optional<SmallVector<int64_t>> filterStrides =
        getStaticStrides(parts->filter);
    if (!inStrides || !filterStrides || (*inStrides)[3] != 1 ||
        (*filterStrides)[3] != 1)
      return rewriter.notifyMatchFailure(op, "input channels not contiguous");
    Location loc = op.getLoc();
    FailureOr<ByteView> in = getByteView(rewriter, loc, parts->input);
    FailureOr<ByteView> filter = getByteView(rewriter, loc, parts->filter);
    ArrayRef<int64_t> outShape =
        cast<MemRefType>(parts->output.getType()).getShape();
    int64_t numOc = outShape[3];
    int64_t kh = filter->shape[1], kw = filter->shape[2];
    int64_t numIc = filter->shape[3];
    // When the taps of a window are contiguous in input and filter (a
    // padded window per output pixel of KH x KW x IC bytes, e.g. a first
    // layer's 3x3x3), the reduction is one run of KH * KW * IC bytes.
    if ((kh > 1 || kw > 1) && parts->dilationH == 1 && parts->dilationW == 1 &&
        in->strides[2] == numIc && in->strides[1] == kw * numIc &&
        filter->strides[2] == numIc && filter->strides[1] == kw * numIc) {
      numIc *= kh * kw;
      kh = kw = 1;
    }
    int64_t fullIc = numIc - numIc % kConvLanes;
    int64_t block = std::max<int64_t>(1, std::min<int64_t>(ocBlock, numOc));
    int64_t zx = parts->inputZp, zw = parts->filterZp;
    Value output = parts->output;

    forEachOutputPixel(
        rewriter, loc, outShape, *in, *parts,
        [&](OpBuilder &b, Location loc, Value n, Value oh, Value ow,
            Value pixel) {
          // Output channels [first, first + width). The carried values: the
          // width accumulators, then (zx != 0) the width filter sums, then
          // (zw != 0) the input sum.
          auto emitBlock = [&](OpBuilder &b, Location loc, Value first,
                               int64_t width) {
            VectorBuilder vb(b, loc);
            SmallVector<Value> ocs, carried, filterBases;
            for (int64_t j = 0; j < width; ++j) {
              Value oc = vb.add(first, vb.constant(j));
              ocs.push_back(oc);
              carried.push_back(memref::LoadOp::create(
                  b, loc, output, toIndices(b, loc, {n, oh, ow, oc})));
              filterBases.push_back(
                  addScaled(b, loc, filter->offset, oc, filter->strides[0]));
            }
            if (zx != 0)
              carried.append(width, vb.constant(0));
            if (zw != 0)
              carried.push_back(vb.constant(0));
            // One vector of input channels at inTap + ic (active lanes of
            // kConvLanes) for every output channel of the block.
            auto step = [&](OpBuilder &b, Location loc, Value inTap,
                            ArrayRef<Value> filterTaps, Value ic,
                            int64_t active, ValueRange carried) {
              VectorBuilder vb(b, loc);
              Value x = vb.widen(vb.load(in->base, vb.add(inTap, ic), vb.i8,
                                         kConvLanes, active));
              SmallVector<Value> next(carried);
              for (int64_t j = 0; j < width; ++j) {
                Value w =
                    vb.widen(vb.load(filter->base, vb.add(filterTaps[j], ic),
                                     vb.i8, kConvLanes, active));
                next[j] = vb.add(carried[j], vb.sum(vb.mul(x, w)));
                if (zx != 0)
                  next[width + j] = vb.add(carried[width + j], vb.sum(w));
              }
              if (zw != 0)
                next.back() = vb.add(carried.back(), vb.sum(x));
              return next;
            };
            carried = forWithAccs(
                b, loc, 0, kh, 1, carried,
                [&](OpBuilder &b, Location loc, Value y, ValueRange carried) {
                  Value inRow = addScaled(b, loc, pixel, y,
                                          parts->dilationH * in->strides[1]);
                  return forWithAccs(
                      b, loc, 0, kw, 1, carried,
                      [&](OpBuilder &b, Location loc, Value x,
                          ValueRange carried) {
                        Value inTap =
                            addScaled(b, loc, inRow, x,
                                      parts->dilationW * in->strides[2]);
                        SmallVector<Value> filterTaps;
                        for (Value base : filterBases)
                          filterTaps.push_back(addScaled(
                              b, loc,
                              addScaled(b, loc, base, y, filter->strides[1]), x,
                              filter->strides[2]));
                        SmallVector<Value> result =
                            forWithAccs(b, loc, 0, fullIc, kConvLanes, carried,
                                        [&](OpBuilder &b, Location loc,
                                            Value ic, ValueRange carried) {
                                          return step(b, loc, inTap, filterTaps,
                                                      ic, kConvLanes, carried);
                                        });
                        if (fullIc == numIc)
                          return result;
                        return step(b, loc, inTap, filterTaps,
                                    getI32Constant(b, loc, fullIc),
                                    numIc - fullIc, result);
                      });
                });
            // The zero-point terms: - zx sum w - zw sum x + N zx zw.
            VectorBuilder tail(b, loc);
            int64_t window = kh * kw * numIc;
            for (int64_t j = 0; j < width; ++j) {
              Value acc = carried[j];
              if (zx != 0)
                acc = tail.add(
                    acc, tail.mul(carried[width + j], tail.constant(-zx)));
              if (zw != 0)
                acc =
                    tail.add(acc, tail.mul(carried.back(), tail.constant(-zw)));
              // Modulo 2^32, as the op's int32 sums.
              int64_t constantTerm =
                  static_cast<int32_t>(static_cast<uint32_t>(window * zx * zw));
              if (constantTerm != 0)
                acc = tail.add(acc, tail.constant(constantTerm));
              memref::StoreOp::create(b, loc, acc, output,
                                      toIndices(b, loc, {n, oh, ow, ocs[j]}));
            }
          };
          int64_t blocked = numOc - numOc % block;
          forWithAccs(b, loc, 0, blocked, block, {},
                      [&](OpBuilder &b, Location loc, Value first, ValueRange) {
                        emitBlock(b, loc, first, block);
                        return SmallVector<Value>();
                      });
          if (blocked < numOc)
            emitBlock(b, loc, getI32Constant(b, loc, blocked), numOc - blocked);
        });
    rewriter.eraseOp(op);
    return success();
  }

  unsigned ocBlock;
};

/// Taps of a window up to which its loops are unrolled.
constexpr int64_t kMaxUnrolledTaps = 27;

/// Calls \p emit(b, loc, first, lanes, active) over the channels [0,
/// \p channels): groups of 8 lanes, then one of 4, then a masked one of 4
/// (LLVM scalarizes masked loads of 8 bytes widened to i32, not of 4).
static void forEachChannelGroup(
    OpBuilder &b, Location loc, int64_t channels,
    function_ref<void(OpBuilder &, Location, Value, int64_t, int64_t)> emit) {
  int64_t by8 = channels - channels % 8;
  forWithAccs(b, loc, 0, by8, 8, {},
              [&](OpBuilder &b, Location loc, Value first, ValueRange) {
                emit(b, loc, first, 8, 8);
                return SmallVector<Value>();
              });
  int64_t next = by8;
  if (channels - next >= 4) {
    emit(b, loc, getI32Constant(b, loc, next), 4, 4);
    next += 4;
  }
  if (next < channels)
    emit(b, loc, getI32Constant(b, loc, next), 4, channels - next);
}

/// The i32 offset of output element (n, oh, ow, channel) in \p out.
static Value getOutputOffset(OpBuilder &b, Location loc, const ByteView &out,
                             Value n, Value oh, Value ow, Value channel) {
  Value offset = addScaled(b, loc, out.offset, n, out.strides[0]);
  offset = addScaled(b, loc, offset, oh, out.strides[1]);
  offset = addScaled(b, loc, offset, ow, out.strides[2]);
  return addScaled(b, loc, offset, channel, out.strides[3]);
}

/// The int8 at \p base + \p offset, sign-extended to i32, minus \p zp.
static Value loadScalar(OpBuilder &b, Location loc, Value base, Value offset,
                        int64_t zp) {
  VectorBuilder vb(b, loc);
  Value byte =
      LLVM::LoadOp::create(b, loc, vb.i8, vb.address(base, offset, vb.i8), 1);
  Value value = arith::ExtSIOp::create(b, loc, vb.i32, byte);
  return zp == 0 ? value : vb.add(value, vb.constant(-zp));
}

/// A padded window that a convolution reads: its input W (1 x KH x KW x C)
/// is filled with the input zero point and then a part of the source is
/// copied into it,
///   linalg.fill ins(zp) outs(W)
///   linalg.copy ins(S) outs(subview W[0, oy, ox, 0] [1, h, w, C])
/// (fuse-rescale-accumulators' window per output pixel). A tap outside the
/// copied part reads zp and adds (zp - zp) * w = 0, so the kernel reads S
/// directly over the taps [oy, oy + h) x [ox, ox + w) and the fill and copy
/// go: W is still allocated (the memory model counts it) but not written.
struct PaddedWindow {
  Operation *fill, *copy, *target;
  Value source;
  OpFoldResult oy, ox, h, w;
};

/// Matches the PaddedWindow that \p op (a convolution of one output pixel,
/// dilation 1) reads, if any. Nothing may write the source or W between the
/// copy and \p op except ops whose only outputs are \p op's output, the
/// accumulator.
static std::optional<PaddedWindow> matchPaddedWindow(Operation *op,
                                                     const ConvParts &parts) {
  auto inType = cast<MemRefType>(parts.input.getType());
  auto outType = cast<MemRefType>(parts.output.getType());
  if (inType.getRank() != 4 || inType.getDimSize(0) != 1 ||
      outType.getDimSize(0) != 1 || outType.getDimSize(1) != 1 ||
      outType.getDimSize(2) != 1 || parts.dilationH != 1 ||
      parts.dilationW != 1)
    return std::nullopt;
  PaddedWindow window{};
  for (Operation *user : parts.input.getUsers()) {
    // Users outside op's block (other pixel loops over the same window)
    // cannot run between the copy and op.
    if (user == op || !op->getBlock()->findAncestorOpInBlock(*user))
      continue;
    if (user->getBlock() != op->getBlock() || !user->isBeforeInBlock(op))
      return std::nullopt;
    if (auto fill = dyn_cast<linalg::FillOp>(user)) {
      if (window.fill || !fill.hasPureBufferSemantics() ||
          fill.getOutputs()[0] != parts.input)
        return std::nullopt;
      APInt value;
      if (!matchPattern(fill.getInputs()[0], m_ConstantInt(&value)) ||
          value.getSExtValue() != parts.inputZp)
        return std::nullopt;
      window.fill = fill;
      continue;
    }
    auto target = dyn_cast<memref::SubViewOp>(user);
    if (!target || window.target || !target->hasOneUse() ||
        !llvm::all_of(target.getStaticStrides(),
                      [](int64_t s) { return s == 1; }))
      return std::nullopt;
    auto copy = dyn_cast<linalg::CopyOp>(*target->getUsers().begin());
    if (!copy || copy.getOutputs()[0] != target.getResult() ||
        copy->getBlock() != op->getBlock())
      return std::nullopt;
    SmallVector<OpFoldResult> offsets = target.getMixedOffsets();
    SmallVector<OpFoldResult> sizes = target.getMixedSizes();
    if (offsets.size() != 4 || !isConstantIntValue(offsets[0], 0) ||
        !isConstantIntValue(offsets[3], 0) ||
        !isConstantIntValue(sizes[0], 1) ||
        !isConstantIntValue(sizes[3], inType.getDimSize(3)))
      return std::nullopt;
    window.target = target;
    window.copy = copy;
    window.source = copy.getInputs()[0];
    window.oy = offsets[1];
    window.ox = offsets[2];
    window.h = sizes[1];
    window.w = sizes[2];
  }
  if (!window.fill || !window.copy ||
      !window.fill->isBeforeInBlock(window.copy) ||
      !getStaticStrides(window.source))
    return std::nullopt;
  for (Operation *between = window.copy->getNextNode(); between != op;
       between = between->getNextNode()) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(between);
    if (!linalgOp || !linalgOp.hasPureBufferSemantics() ||
        !llvm::all_of(linalgOp.getDpsInits(),
                      [&](Value init) { return init == parts.output; }))
      return std::nullopt;
  }
  return window;
}

/// Erases the fill and copy of \p window (after the kernel that reads its
/// source directly was built).
static void eraseWindowWrites(PatternRewriter &rewriter,
                              const PaddedWindow &window) {
  rewriter.eraseOp(window.copy);
  rewriter.eraseOp(window.target);
  rewriter.eraseOp(window.fill);
}

/// The body of a tap: the i32 offset of the tap in the input (channel 0),
/// the filter's tap row and column, and the carried values.
using TapBody = function_ref<SmallVector<Value>(OpBuilder &, Location, Value,
                                                Value, Value, ValueRange)>;

/// Calls \p body over the taps of the window at \p pixel in \p in: the KH x
/// KW taps (unrolled when \p unroll), or, when \p window is set, those of
/// its copied part [oy, oy + h) x [ox, ox + w) read from \p in, the window's
/// source: all KH x KW taps unrolled when the part is the whole window (an
/// output pixel away from the border), else loops over the part.
static SmallVector<Value>
forEachTap(OpBuilder &b, Location loc, const ByteView &in, Value pixel,
           const ConvParts &parts, int64_t kh, int64_t kw, bool unroll,
           const PaddedWindow *window, ValueRange accs, TapBody body) {
  auto fullWindow = [&](OpBuilder &b, Location loc, ValueRange accs) {
    return forTapsWithAccs(
        b, loc, unroll, kh, accs,
        [&](OpBuilder &b, Location loc, Value y, ValueRange accs) {
          Value inRow =
              addScaled(b, loc, pixel, y, parts.dilationH * in.strides[1]);
          return forTapsWithAccs(
              b, loc, unroll, kw, accs,
              [&](OpBuilder &b, Location loc, Value x, ValueRange accs) {
                Value inTap = addScaled(b, loc, inRow, x,
                                        parts.dilationW * in.strides[2]);
                return body(b, loc, inTap, y, x, accs);
              });
        });
  };
  if (!window)
    return fullWindow(b, loc, accs);
  auto toI32 = [&](OpFoldResult value) {
    Value index = getValueOrCreateConstantIndexOp(b, loc, value);
    return arith::IndexCastOp::create(b, loc, b.getI32Type(), index)
        .getResult();
  };
  Value oy = toI32(window->oy), ox = toI32(window->ox);
  Value h = toI32(window->h), w = toI32(window->w);
  Value whole = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, h,
                            getI32Constant(b, loc, kh)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, w,
                            getI32Constant(b, loc, kw)));
  auto dynamicLoop = [&](OpBuilder &b, Location loc, Value ub, ValueRange accs,
                         LoopBody loopBody) {
    auto loop = scf::ForOp::create(
        b, loc, getI32Constant(b, loc, 0), ub, getI32Constant(b, loc, 1), accs,
        [&](OpBuilder &b, Location loc, Value iv, ValueRange args) {
          scf::YieldOp::create(b, loc, loopBody(b, loc, iv, args));
        });
    return SmallVector<Value>(loop.getResults());
  };
  auto ifOp = scf::IfOp::create(
      b, loc, whole,
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, fullWindow(b, loc, accs));
      },
      [&](OpBuilder &b, Location loc) {
        SmallVector<Value> result = dynamicLoop(
            b, loc, h, accs,
            [&](OpBuilder &b, Location loc, Value ty, ValueRange accs) {
              Value inRow = addScaled(b, loc, pixel, ty, in.strides[1]);
              Value y = arith::AddIOp::create(b, loc, oy, ty);
              return dynamicLoop(
                  b, loc, w, accs,
                  [&](OpBuilder &b, Location loc, Value tx, ValueRange accs) {
                    Value inTap = addScaled(b, loc, inRow, tx, in.strides[2]);
                    Value x = arith::AddIOp::create(b, loc, ox, tx);
                    return body(b, loc, inTap, y, x, accs);
                  });
            });
        scf::YieldOp::create(b, loc, result);
      });
  return SmallVector<Value>(ifOp.getResults());
}

/// Rewrites linalg.depthwise_conv_2d_nhwc_hwc[_q] (filter [KH, KW, C]): at
/// least 4 channels contiguous in input and filter as vectors, fewer
/// (the in-place depthwise has 1) as scalars.
template <typename DepthwiseOp>
struct DepthwiseHwcToMve : OpRewritePattern<DepthwiseOp> {
  using OpRewritePattern<DepthwiseOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(DepthwiseOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<ConvParts> parts =
        matchInt8Conv(cast<linalg::LinalgOp>(op.getOperation()));
    if (failed(parts))
      return rewriter.notifyMatchFailure(op, "not an int8 depthwise conv on "
                                             "memrefs with constant zero "
                                             "points");
    ArrayRef<int64_t> outShape =
        cast<MemRefType>(parts->output.getType()).getShape();
    int64_t channels = outShape[3];
    std::optional<PaddedWindow> window = matchPaddedWindow(op, *parts);
    Value input = window ? window->source : parts->input;
    // Checked before any IR is built: a failed match must not change it.
    std::optional<SmallVector<int64_t>> inStrides = getStaticStrides(input);
    std::optional<SmallVector<int64_t>> filterStrides =
        getStaticStrides(parts->filter);
    std::optional<SmallVector<int64_t>> outStrides =
        getStaticStrides(parts->output);
    if (!inStrides || !filterStrides || !outStrides)
      return rewriter.notifyMatchFailure(op, "dynamic strides");
    if (channels >= 4 && ((*inStrides)[3] != 1 || (*filterStrides)[2] != 1 ||
                          (*outStrides)[3] != 1))
      return rewriter.notifyMatchFailure(op, "channels not contiguous");
    Location loc = op.getLoc();
    FailureOr<ByteView> in = getByteView(rewriter, loc, input);
    FailureOr<ByteView> filter = getByteView(rewriter, loc, parts->filter);
    FailureOr<ByteView> out = getByteView(rewriter, loc, parts->output);
    int64_t kh = filter->shape[0], kw = filter->shape[1];
    bool unroll = kh * kw <= kMaxUnrolledTaps;
    int64_t zx = parts->inputZp, zw = parts->filterZp;
    const PaddedWindow *windowPtr = window ? &*window : nullptr;

    forEachOutputPixel(
        rewriter, loc, outShape, *in, *parts,
        [&](OpBuilder &b, Location loc, Value n, Value oh, Value ow,
            Value pixel) {
          // Channels [first, first + active) in a vector of `lanes` lanes;
          // lanes == 0: the one channel `first` as a scalar.
          auto emitGroup = [&](OpBuilder &b, Location loc, Value first,
                               int64_t lanes, int64_t active) {
            VectorBuilder vb(b, loc);
            Value outAt = getOutputOffset(b, loc, *out, n, oh, ow, first);
            Value acc = lanes == 0
                            ? LLVM::LoadOp::create(
                                  b, loc, vb.i32,
                                  vb.address(out->base, outAt, vb.i32), 4)
                                  .getResult()
                            : vb.load(out->base, outAt, vb.i32, lanes, active);
            Value inChannel = addScaled(b, loc, pixel, first, in->strides[3]);
            Value filterChannel =
                addScaled(b, loc, filter->offset, first, filter->strides[2]);
            Value negZx = zx != 0 && lanes ? vb.splat(-zx, lanes) : nullptr;
            Value negZw = zw != 0 && lanes ? vb.splat(-zw, lanes) : nullptr;
            SmallVector<Value> result = forEachTap(
                b, loc, *in, inChannel, *parts, kh, kw, unroll, windowPtr, acc,
                [&](OpBuilder &b, Location loc, Value inTap, Value y, Value x,
                    ValueRange accs) {
                  VectorBuilder vb(b, loc);
                  Value filterTap = addScaled(
                      b, loc,
                      addScaled(b, loc, filterChannel, y, filter->strides[0]),
                      x, filter->strides[1]);
                  if (lanes == 0) {
                    Value xv = loadScalar(b, loc, in->base, inTap, zx);
                    Value wv = loadScalar(b, loc, filter->base, filterTap, zw);
                    return SmallVector<Value>{vb.add(accs[0], vb.mul(xv, wv))};
                  }
                  Value xv =
                      vb.widen(vb.load(in->base, inTap, vb.i8, lanes, active));
                  Value wv = vb.widen(
                      vb.load(filter->base, filterTap, vb.i8, lanes, active));
                  if (negZx)
                    xv = vb.add(xv, negZx);
                  if (negZw)
                    wv = vb.add(wv, negZw);
                  return SmallVector<Value>{vb.add(accs[0], vb.mul(xv, wv))};
                });
            if (lanes == 0)
              LLVM::StoreOp::create(b, loc, result[0],
                                    vb.address(out->base, outAt, vb.i32), 4);
            else
              vb.store(result[0], out->base, outAt, active);
          };
          if (channels >= 4) {
            forEachChannelGroup(b, loc, channels, emitGroup);
            return;
          }
          for (int64_t c = 0; c < channels; ++c)
            emitGroup(b, loc, getI32Constant(b, loc, c), 0, 1);
        });
    if (window)
      eraseWindowWrites(rewriter, *window);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Rewrites linalg.conv_2d_nhwc_hwcf[_q] (filter [KH, KW, IC, OC]; a first
/// layer, or a depthwise convolution of one input channel) of at least 4
/// output channels, contiguous in filter and output: per tap and input
/// channel, the zero-point-corrected input value multiplies a vector of
/// output channels of the filter (VMLA.I32 by a scalar).
template <typename ConvOp> struct ConvHwcfToMve : OpRewritePattern<ConvOp> {
  using OpRewritePattern<ConvOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<ConvParts> parts =
        matchInt8Conv(cast<linalg::LinalgOp>(op.getOperation()));
    if (failed(parts))
      return rewriter.notifyMatchFailure(op, "not an int8 conv on memrefs "
                                             "with constant zero points");
    ArrayRef<int64_t> outShape =
        cast<MemRefType>(parts->output.getType()).getShape();
    int64_t numOc = outShape[3];
    if (numOc < 4)
      return rewriter.notifyMatchFailure(op, "fewer than 4 output channels");
    std::optional<PaddedWindow> window = matchPaddedWindow(op, *parts);
    Value input = window ? window->source : parts->input;
    // Checked before any IR is built: a failed match must not change it.
    std::optional<SmallVector<int64_t>> inStrides = getStaticStrides(input);
    std::optional<SmallVector<int64_t>> filterStrides =
        getStaticStrides(parts->filter);
    std::optional<SmallVector<int64_t>> outStrides =
        getStaticStrides(parts->output);
    if (!inStrides || !filterStrides || !outStrides ||
        (*filterStrides)[3] != 1 || (*outStrides)[3] != 1)
      return rewriter.notifyMatchFailure(op, "output channels not contiguous");
    Location loc = op.getLoc();
    FailureOr<ByteView> in = getByteView(rewriter, loc, input);
    FailureOr<ByteView> filter = getByteView(rewriter, loc, parts->filter);
    FailureOr<ByteView> out = getByteView(rewriter, loc, parts->output);
    int64_t kh = filter->shape[0], kw = filter->shape[1];
    int64_t numIc = filter->shape[2];
    bool unroll = kh * kw * numIc <= kMaxUnrolledTaps;
    int64_t zx = parts->inputZp, zw = parts->filterZp;
    const PaddedWindow *windowPtr = window ? &*window : nullptr;

    forEachOutputPixel(
        rewriter, loc, outShape, *in, *parts,
        [&](OpBuilder &b, Location loc, Value n, Value oh, Value ow,
            Value pixel) {
          auto emitGroup = [&](OpBuilder &b, Location loc, Value first,
                               int64_t lanes, int64_t active) {
            VectorBuilder vb(b, loc);
            Value outAt = getOutputOffset(b, loc, *out, n, oh, ow, first);
            Value acc = vb.load(out->base, outAt, vb.i32, lanes, active);
            Value filterChannel = vb.add(filter->offset, first);
            Value negZw = zw != 0 ? vb.splat(-zw, lanes) : nullptr;
            SmallVector<Value> result = forEachTap(
                b, loc, *in, pixel, *parts, kh, kw, unroll, windowPtr, acc,
                [&](OpBuilder &b, Location loc, Value inTap, Value y, Value x,
                    ValueRange accs) {
                  Value filterTap = addScaled(
                      b, loc,
                      addScaled(b, loc, filterChannel, y, filter->strides[0]),
                      x, filter->strides[1]);
                  return forTapsWithAccs(
                      b, loc, unroll, numIc, accs,
                      [&](OpBuilder &b, Location loc, Value ic,
                          ValueRange accs) {
                        VectorBuilder vb(b, loc);
                        Value xv = loadScalar(
                            b, loc, in->base,
                            addScaled(b, loc, inTap, ic, in->strides[3]), zx);
                        Value wv =
                            vb.widen(vb.load(filter->base,
                                             addScaled(b, loc, filterTap, ic,
                                                       filter->strides[2]),
                                             vb.i8, lanes, active));
                        if (negZw)
                          wv = vb.add(wv, negZw);
                        Value xs = vector::BroadcastOp::create(
                            b, loc, wv.getType(), xv);
                        return SmallVector<Value>{
                            vb.add(accs[0], vb.mul(wv, xs))};
                      });
                });
            vb.store(result[0], out->base, outAt, active);
          };
          forEachChannelGroup(b, loc, numOc, emitGroup);
        });
    if (window)
      eraseWindowWrites(rewriter, *window);
    rewriter.eraseOp(op);
    return success();
  }
};

/// The parts of a lowered per-pixel `tosa.rescale` from int32 to int8
/// (tosa-to-arith's 64-bit apply_scale, SINGLE_ROUND):
///   y = clamp(trunci((extsi(a) * extsi(m) + ((1 << s) >> 1)) >> s) + zp,
///             lo, hi)
/// with s = extui(shift).
struct RescaleParts {
  Value acc, multiplier, shift;
  int64_t zp, lo, hi;
};

/// Returns the constant integer \p value, if it is one.
static std::optional<int64_t> getConstantInt(Value value) {
  APInt constant;
  if (!matchPattern(value, m_ConstantInt(&constant)))
    return std::nullopt;
  return constant.getSExtValue();
}

/// Matches the body of a rescale generic: the values of a, m and the i8
/// shift, and the constants.
static std::optional<RescaleParts> matchRescaleBody(linalg::GenericOp op) {
  auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
  if (yield.getNumOperands() != 1)
    return std::nullopt;
  auto toI8 = yield.getOperand(0).getDefiningOp<arith::TruncIOp>();
  if (!toI8 || !toI8.getType().isInteger(8))
    return std::nullopt;
  auto min = toI8.getIn().getDefiningOp<arith::MinSIOp>();
  if (!min)
    return std::nullopt;
  auto max = min.getLhs().getDefiningOp<arith::MaxSIOp>();
  std::optional<int64_t> hi = getConstantInt(min.getRhs());
  if (!max || !hi)
    return std::nullopt;
  std::optional<int64_t> lo = getConstantInt(max.getRhs());
  if (!lo)
    return std::nullopt;
  RescaleParts parts;
  parts.lo = *lo;
  parts.hi = *hi;
  parts.zp = 0;
  Value scaled = max.getLhs();
  if (auto addZp = scaled.getDefiningOp<arith::AddIOp>()) {
    std::optional<int64_t> zp = getConstantInt(addZp.getRhs());
    if (!zp)
      return std::nullopt;
    parts.zp = *zp;
    scaled = addZp.getLhs();
  }
  auto toI32 = scaled.getDefiningOp<arith::TruncIOp>();
  if (!toI32 || !toI32.getType().isInteger(32) ||
      !toI32.getIn().getType().isInteger(64))
    return std::nullopt;
  auto shr = toI32.getIn().getDefiningOp<arith::ShRSIOp>();
  if (!shr)
    return std::nullopt;
  auto sum = shr.getLhs().getDefiningOp<arith::AddIOp>();
  auto product =
      sum ? sum.getLhs().getDefiningOp<arith::MulIOp>() : arith::MulIOp();
  if (!product)
    return std::nullopt;
  if (auto shiftExt = shr.getRhs().getDefiningOp<arith::ExtUIOp>()) {
    // An i8 shift s, rounded by adding (1 << s) >> 1.
    auto half = sum.getRhs().getDefiningOp<arith::ShRUIOp>();
    if (!shiftExt.getIn().getType().isInteger(8) || !half ||
        getConstantInt(half.getRhs()) != 1)
      return std::nullopt;
    auto power = half.getLhs().getDefiningOp<arith::ShLIOp>();
    if (!power || getConstantInt(power.getLhs()) != 1 ||
        power.getRhs() != shiftExt.getResult())
      return std::nullopt;
    parts.shift = shiftExt.getIn();
  } else {
    // A constant shift s in [1, 62] (a per-tensor rescale, folded), rounded
    // by adding the constant 2^(s - 1).
    std::optional<int64_t> shift = getConstantInt(shr.getRhs());
    if (!shift || *shift < 1 || *shift > 62 ||
        getConstantInt(sum.getRhs()) != int64_t(1) << (*shift - 1))
      return std::nullopt;
    parts.shift = shr.getRhs();
  }
  // a * m with both sign-extended from i32, or m an i32 constant.
  auto lhs = product.getLhs().getDefiningOp<arith::ExtSIOp>();
  if (!lhs || !lhs.getIn().getType().isInteger(32))
    return std::nullopt;
  parts.acc = lhs.getIn();
  if (auto rhs = product.getRhs().getDefiningOp<arith::ExtSIOp>()) {
    if (!rhs.getIn().getType().isInteger(32))
      return std::nullopt;
    parts.multiplier = rhs.getIn();
    return parts;
  }
  std::optional<int64_t> multiplier = getConstantInt(product.getRhs());
  if (!multiplier || *multiplier < INT32_MIN || *multiplier > INT32_MAX)
    return std::nullopt;
  parts.multiplier = product.getRhs();
  return parts;
}

/// How a rescale generic reads one of its values per channel c.
struct ChannelOperand {
  /// The memref operand (null: a constant).
  Value memref;
  /// Whether it is read at offset c (else one value for all channels).
  bool perChannel = false;
  /// The constant, when memref is null.
  std::optional<int64_t> constant;
};

/// Returns how \p value, a value in the body of \p op, is read: a block
/// argument of an input whose indexing map is the identity or the
/// projection on the last loop (contiguous in its last dimension), or one
/// of no loop (a scalar), or a constant.
static std::optional<ChannelOperand> getChannelOperand(linalg::GenericOp op,
                                                       Value value) {
  ChannelOperand result;
  if (std::optional<int64_t> constant = getConstantInt(value)) {
    result.constant = constant;
    return result;
  }
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || arg.getOwner() != op.getBody() ||
      arg.getArgNumber() >= op.getNumDpsInputs())
    return std::nullopt;
  OpOperand *operand = op.getDpsInputOperand(arg.getArgNumber());
  AffineMap map = op.getMatchingIndexingMap(operand);
  unsigned numLoops = op.getNumLoops();
  std::optional<SmallVector<int64_t>> strides =
      getStaticStrides(operand->get());
  if (!strides)
    return std::nullopt;
  result.memref = operand->get();
  if (map.getNumResults() == 0)
    return result;
  if (!strides->empty() && strides->back() != 1)
    return std::nullopt;
  if (map.isIdentity() ||
      (map.getNumResults() == 1 &&
       map.getResult(0) == getAffineDimExpr(numLoops - 1, op.getContext()))) {
    result.perChannel = true;
    return result;
  }
  return std::nullopt;
}

/// The constants that \p operand holds: its constant, or every value of the
/// constant global it views.
static std::optional<SmallVector<int64_t>>
getConstantValues(const ChannelOperand &operand) {
  if (operand.constant)
    return SmallVector<int64_t>{*operand.constant};
  return getGlobalValues(operand.memref);
}

/// Returns true if every multiplier that \p multiplier can hold is a
/// constant other than INT32_MIN and every shift that \p shift can hold a
/// constant in [32, 62] (unsigned i8), the domain of emitRescale.
static bool hasVectorRescaleConstants(const ChannelOperand &multiplier,
                                      const ChannelOperand &shift) {
  std::optional<SmallVector<int64_t>> multipliers =
      getConstantValues(multiplier);
  std::optional<SmallVector<int64_t>> shifts = getConstantValues(shift);
  return multipliers && shifts &&
         !llvm::is_contained(*multipliers, INT32_MIN) &&
         llvm::all_of(*shifts, [](int64_t s) {
           int64_t unsignedShift = s & 0xFF;
           return unsignedShift >= 32 && unsignedShift <= 62;
         });
}

/// The rescale of \p rescale applied to the i32 lanes \p a with the
/// multipliers \p m and the shifts \p s (i32 vectors of 4 lanes; every shift
/// in [32, 62], no multiplier INT32_MIN), as the 4 int8 results (see
/// RescaleToMve for why it is exact).
static Value emitRescale(VectorBuilder &vb, const RescaleParts &rescale,
                         Value a, Value m, Value s) {
  constexpr int64_t lanes = 4;
  OpBuilder &b = vb.b;
  Location loc = vb.loc;
  auto vecType = VectorType::get({lanes}, vb.i32);
  // VMULH.S32 through its intrinsic: the high words of a * m. (LLVM
  // folds the same from a 64-bit multiply into (P >> 31), which it
  // does not vectorize.)
  Value hi = LLVM::CallIntrinsicOp::create(
                 b, loc, vecType, b.getStringAttr("llvm.arm.mve.vmulh.v4i32"),
                 ValueRange{a, m, vb.constant(0)})
                 ->getResult(0);
  Value lo = vb.mul(a, m);
  Value t = arith::OrIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, hi, vb.splat(1, lanes)),
      arith::ShRUIOp::create(b, loc, lo, vb.splat(31, lanes)));
  // VRSHL.S32 by 31 - s < 0: (t + 2^(s-32)) >> (s - 31), the sum taken
  // without overflow.
  Value y =
      LLVM::CallIntrinsicOp::create(
          b, loc, vecType,
          b.getStringAttr("llvm.arm.mve.vshl.vector.v4i32.v4i32"),
          ValueRange{t, arith::SubIOp::create(b, loc, vb.splat(31, lanes), s),
                     vb.constant(0), vb.constant(1), vb.constant(0)})
          ->getResult(0);
  if (rescale.zp != 0)
    y = vb.add(y, vb.splat(rescale.zp, lanes));
  y = arith::MaxSIOp::create(b, loc, y, vb.splat(rescale.lo, lanes));
  y = arith::MinSIOp::create(b, loc, y, vb.splat(rescale.hi, lanes));
  return arith::TruncIOp::create(b, loc, VectorType::get({lanes}, vb.i8), y);
}

/// Rewrites the linalg.generic of a per-pixel rescale from int32 to int8
/// over C >= 4 channels (loops 1 x ... x 1 x C) whose shifts are constants
/// in [32, 62] and whose multipliers are constants other than INT32_MIN
/// into vectors of 4 channels: with P = a * m (VMULH.S32 for the high word,
/// VMUL.I32 for the low one) and t = P >> 31 = (hi << 1) | (lo >> 31),
/// which fits in 32 bits since |P| < 2^62,
///   round(P / 2^s) = floor((P + 2^(s-1)) / 2^s)
///                  = floor((t + 2^(s-32)) / 2^(s-31)),
/// because P = t 2^31 + r with 0 <= r < 2^31, and r / 2^31 < 1 added to
/// the integer t + 2^(s-32) does not change the quotient's floor: one
/// rounding shift right of t by s - 31 in [1, 31] (VRSHL.S32 by the
/// per-lane amount 31 - s, whose sum does not overflow). Then the zero
/// point, the clamp (VMAX, VMIN) and a narrowing store (VSTRB.32).
struct RescaleToMve : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
        op.getNumReductionLoops() != 0)
      return failure();
    std::optional<RescaleParts> rescale = matchRescaleBody(op);
    if (!rescale)
      return rewriter.notifyMatchFailure(op, "not a rescale to int8");
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (ranges.empty() || ranges.back() < 4 ||
        llvm::any_of(ArrayRef(ranges).drop_back(),
                     [](int64_t r) { return r != 1; }))
      return rewriter.notifyMatchFailure(op, "not one pixel of >= 4 channels");
    int64_t channels = ranges.back();
    OpOperand *init = op.getDpsInitOperand(0);
    std::optional<SmallVector<int64_t>> outStrides =
        getStaticStrides(init->get());
    if (!op.getMatchingIndexingMap(init).isIdentity() || !outStrides ||
        outStrides->back() != 1)
      return rewriter.notifyMatchFailure(op, "output not contiguous");
    std::optional<ChannelOperand> acc = getChannelOperand(op, rescale->acc);
    std::optional<ChannelOperand> multiplier =
        getChannelOperand(op, rescale->multiplier);
    std::optional<ChannelOperand> shift = getChannelOperand(op, rescale->shift);
    if (!acc || !multiplier || !shift)
      return rewriter.notifyMatchFailure(op, "operands not contiguous");
    // The accumulator is the operand that is not constant.
    if (!getConstantValues(*multiplier))
      std::swap(acc, multiplier);
    if (!acc->memref || !acc->perChannel ||
        !hasVectorRescaleConstants(*multiplier, *shift))
      return rewriter.notifyMatchFailure(
          op, "multiplier or shift not constant, or shift not in [32, 62]");

    Location loc = op.getLoc();
    FailureOr<ByteView> out = getByteView(rewriter, loc, init->get());
    FailureOr<ByteView> accView = getByteView(rewriter, loc, acc->memref);
    std::optional<ByteView> mulView, shiftView;
    if (multiplier->memref)
      mulView = *getByteView(rewriter, loc, multiplier->memref);
    if (shift->memref)
      shiftView = *getByteView(rewriter, loc, shift->memref);

    auto emitGroup = [&](OpBuilder &b, Location loc, Value first,
                         int64_t active) {
      constexpr int64_t lanes = 4;
      VectorBuilder vb(b, loc);
      auto vecType = VectorType::get({lanes}, vb.i32);
      // The 4 values of \p operand for the channels at `first`, as i32.
      auto read = [&](const ChannelOperand &operand,
                      const std::optional<ByteView> &view, Type element) {
        if (operand.constant)
          return vb.splat(element.isInteger(8) ? (*operand.constant & 0xFF)
                                               : *operand.constant,
                          lanes);
        Value values;
        if (operand.perChannel) {
          values = vb.load(view->base, vb.add(view->offset, first), element,
                           lanes, active);
        } else {
          Value scalar = LLVM::LoadOp::create(
              b, loc, element, vb.address(view->base, view->offset, element),
              element.getIntOrFloatBitWidth() / 8);
          values = vector::BroadcastOp::create(
              b, loc, VectorType::get({lanes}, element), scalar);
        }
        if (element.isInteger(8))
          values = arith::ExtUIOp::create(b, loc, vecType, values);
        return values;
      };
      Value a = read(*acc, *accView, vb.i32);
      Value m = read(*multiplier, mulView, vb.i32);
      Value s = read(*shift, shiftView, vb.i8);
      Value bytes = emitRescale(vb, *rescale, a, m, s);
      vb.store(bytes, out->base, vb.add(out->offset, first), active);
    };
    int64_t by4 = channels - channels % 4;
    forWithAccs(rewriter, loc, 0, by4, 4, {},
                [&](OpBuilder &b, Location loc, Value first, ValueRange) {
                  emitGroup(b, loc, first, 4);
                  return SmallVector<Value>();
                });
    if (by4 < channels)
      emitGroup(rewriter, loc, getI32Constant(rewriter, loc, by4),
                channels - by4);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Evaluates the index \p value, given the values of the loop induction
/// variables in \p known: constants and affine.apply/min/max of them.
static std::optional<int64_t>
evaluateIndex(Value value, const DenseMap<Value, int64_t> &known) {
  if (auto it = known.find(value); it != known.end())
    return it->second;
  if (std::optional<int64_t> constant = getConstantInt(value))
    return constant;
  Operation *def = value.getDefiningOp();
  AffineMap map;
  if (auto apply = dyn_cast_if_present<affine::AffineApplyOp>(def))
    map = apply.getAffineMap();
  else if (auto min = dyn_cast_if_present<affine::AffineMinOp>(def))
    map = min.getAffineMap();
  else if (auto max = dyn_cast_if_present<affine::AffineMaxOp>(def))
    map = max.getAffineMap();
  else
    return std::nullopt;
  SmallVector<Attribute> operands;
  for (Value operand : def->getOperands()) {
    std::optional<int64_t> operandValue = evaluateIndex(operand, known);
    if (!operandValue)
      return std::nullopt;
    operands.push_back(
        IntegerAttr::get(IndexType::get(value.getContext()), *operandValue));
  }
  SmallVector<Attribute> results;
  if (failed(map.constantFold(operands, results)) || results.empty())
    return std::nullopt;
  SmallVector<int64_t> values;
  for (Attribute result : results)
    values.push_back(cast<IntegerAttr>(result).getInt());
  if (isa<affine::AffineMinOp>(def))
    return *llvm::min_element(values);
  if (isa<affine::AffineMaxOp>(def))
    return *llvm::max_element(values);
  return values.front();
}

/// Evaluates \p value (an attribute or an index value) like evaluateIndex.
static std::optional<int64_t>
evaluateIndex(OpFoldResult value, const DenseMap<Value, int64_t> &known) {
  if (std::optional<int64_t> constant = getConstantIntValue(value))
    return constant;
  return evaluateIndex(cast<Value>(value), known);
}

/// The buffer that \p memref views and the bytes [begin, end) of it that
/// it may cover: through subviews and reshapes to a memref.view at a
/// constant byte shift (the planned arena), or a function argument.
struct BufferRange {
  Value buffer;
  int64_t begin, end;
};

static std::optional<BufferRange> getBufferRange(Value memref) {
  while (Operation *def = memref.getDefiningOp()) {
    if (!isa<memref::SubViewOp, memref::CollapseShapeOp, memref::ExpandShapeOp,
             memref::CastOp>(def))
      break;
    memref = def->getOperand(0);
  }
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
    return std::nullopt;
  int64_t bytes = type.getNumElements() * type.getElementTypeBitWidth() / 8;
  if (isa<BlockArgument>(memref))
    return BufferRange{memref, 0, bytes};
  auto view = memref.getDefiningOp<memref::ViewOp>();
  std::optional<int64_t> shift =
      view ? getConstantIntValue(view.getByteShift()) : std::nullopt;
  if (!shift || !view.getSizes().empty())
    return std::nullopt;
  return BufferRange{view.getSource(), *shift, *shift + bytes};
}

/// Returns true if the memrefs \p a and \p b provably do not overlap:
/// disjoint bytes of one buffer, or two buffers one of which is a
/// `llvm.noalias` function argument (the arena).
static bool areDisjoint(Value a, Value b) {
  std::optional<BufferRange> first = getBufferRange(a);
  std::optional<BufferRange> second = getBufferRange(b);
  if (!first || !second)
    return false;
  if (first->buffer == second->buffer)
    return first->end <= second->begin || second->end <= first->begin;
  auto isNoAlias = [](Value buffer) {
    auto arg = dyn_cast<BlockArgument>(buffer);
    auto func =
        arg ? dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp())
            : FunctionOpInterface();
    return func && func.getArgAttr(arg.getArgNumber(), "llvm.noalias");
  };
  return isNoAlias(first->buffer) || isNoAlias(second->buffer);
}

/// The one-channel depthwise convolution of the in-place depthwise
/// (inplace-depthwise, fuse-rescale-accumulators): an scf.for over output
/// rows oh around an scf.for over output columns ow whose body computes one
/// output pixel of one channel,
///   linalg.fill ins(zx) outs(W)                     the padded window
///   linalg.copy ins(subview S[0, ys, xs, 0] [1, h, w, 1])
///               outs(subview W[0, ty, tx, 0] [1, h, w, 1])
///   linalg.fill ins(c) outs(A)                      the i32 accumulator
///   linalg.depthwise_conv_2d_nhwc_hwc[_q] ins(W, F) outs(A)
///   [linalg.generic A = B + A]                      the bias, one i32
///   linalg.generic ins(A, ...) outs(subview O[0, oh, ow, 0] [1, 1, 1, 1])
///                                                   the rescale to int8
/// with index computations (affine.apply/min/max) in between.
struct ChannelRows {
  scf::ForOp rows, columns;
  ConvParts parts;
  int64_t kh, kw;
  /// The channel S (1 x H x W x 1) and the output channel O.
  Value source, output;
  /// The accumulator's fill constant and the bias B (null: none).
  int64_t init;
  Value bias;
  RescaleParts rescale;
  ChannelOperand multiplier, shift;
  /// Window row ky reads source row originY + sh * oh + ky, column kx
  /// source column originX + sw * ow + kx.
  int64_t originY, originX, sh, sw;
  /// The columns whose windows lie inside the source: [interiorBegin,
  /// interiorEnd).
  int64_t interiorBegin, interiorEnd;
  /// The rows whose windows lie inside the source: [interiorRowBegin,
  /// interiorRowEnd).
  int64_t interiorRowBegin, interiorRowEnd;
  /// Whether window row ky lies inside the source for every output row.
  SmallVector<bool> rowAlwaysInside;
};

/// Output pixels per vector of the channel rows.
constexpr int64_t kPixelLanes = 4;

/// The byte offsets 0, \p stride, 2 \p stride, ... of the kPixelLanes
/// pixels of a vector, as the vector<4xi32> constant of a gather or a
/// scatter.
static Value getLaneOffsets(OpBuilder &b, Location loc, int64_t stride) {
  auto type = VectorType::get({kPixelLanes}, b.getI32Type());
  SmallVector<int32_t> offsets;
  for (int64_t lane = 0; lane < kPixelLanes; ++lane)
    offsets.push_back(static_cast<int32_t>(lane * stride));
  return arith::ConstantOp::create(
      b, loc, type, DenseElementsAttr::get(type, ArrayRef<int32_t>(offsets)));
}

/// Matches the ChannelRows of the column loop \p columns and checks, by
/// evaluating the index computations at every output pixel, that the copy
/// is exactly the window's intersection with the source, at an origin
/// linear in (oh, ow), and that the pixel written is (oh, ow).
static std::optional<ChannelRows> matchChannelRows(scf::ForOp columns) {
  auto rows = dyn_cast<scf::ForOp>(columns->getParentOp());
  // The rows loop holds the column loop only: what is read before it (the
  // weights, bias, multiplier and shift) is not written in it but by the
  // columns.
  if (!rows || columns.getNumRegionIterArgs() != 0 ||
      rows.getNumRegionIterArgs() != 0 ||
      &rows.getBody()->front() != columns.getOperation() ||
      columns->getNextNode() != rows.getBody()->getTerminator())
    return std::nullopt;
  std::optional<int64_t> rowBegin = getConstantIntValue(rows.getLowerBound());
  std::optional<int64_t> rowEnd = getConstantIntValue(rows.getUpperBound());
  std::optional<int64_t> colBegin =
      getConstantIntValue(columns.getLowerBound());
  std::optional<int64_t> colEnd = getConstantIntValue(columns.getUpperBound());
  if (!rowBegin || !rowEnd || !colBegin || !colEnd ||
      getConstantIntValue(rows.getStep()) != 1 ||
      getConstantIntValue(columns.getStep()) != 1 || *rowBegin >= *rowEnd ||
      *colBegin >= *colEnd)
    return std::nullopt;
  auto outside = [&](Value value) {
    return value && rows.isDefinedOutsideOfLoop(value);
  };

  ChannelRows match;
  match.rows = rows;
  match.columns = columns;
  Block *body = columns.getBody();
  Operation *conv = nullptr;
  for (Operation &op : *body)
    if (isa<linalg::DepthwiseConv2DNhwcHwcQOp,
            linalg::DepthwiseConv2DNhwcHwcOp>(op)) {
      if (conv)
        return std::nullopt;
      conv = &op;
    }
  if (!conv)
    return std::nullopt;
  FailureOr<ConvParts> parts = matchInt8Conv(cast<linalg::LinalgOp>(conv));
  if (failed(parts))
    return std::nullopt;
  match.parts = *parts;
  ArrayRef<int64_t> filterShape =
      cast<MemRefType>(parts->filter.getType()).getShape();
  ArrayRef<int64_t> outShape =
      cast<MemRefType>(parts->output.getType()).getShape();
  if (filterShape.size() != 3 || filterShape[2] != 1 || outShape[3] != 1 ||
      !outside(parts->filter) || !getStaticStrides(parts->filter))
    return std::nullopt;
  match.kh = filterShape[0];
  match.kw = filterShape[1];
  std::optional<PaddedWindow> window = matchPaddedWindow(conv, *parts);
  if (!window)
    return std::nullopt;
  auto sourceView = window->source.getDefiningOp<memref::SubViewOp>();
  if (!sourceView || sourceView->getBlock() != body ||
      !outside(sourceView.getSource()) ||
      !getStaticStrides(sourceView.getSource()) ||
      !llvm::all_of(sourceView.getStaticStrides(),
                    [](int64_t s) { return s == 1; }))
    return std::nullopt;
  match.source = sourceView.getSource();
  ArrayRef<int64_t> sourceShape =
      cast<MemRefType>(match.source.getType()).getShape();
  if (sourceShape.size() != 4 || sourceShape[0] != 1 || sourceShape[3] != 1)
    return std::nullopt;

  // The ops on the accumulator A after the window: its fill, the
  // convolution, the bias and the rescale, in this order.
  // The vectors do not write A: every block that uses it elsewhere (the
  // border loops) must write it first.
  Value acc = parts->output;
  if (!outside(acc))
    return std::nullopt;
  for (Operation *user : acc.getUsers()) {
    if (user->getBlock() == body)
      continue;
    Operation *first = user;
    for (Operation *other : acc.getUsers())
      if (other->getBlock() == user->getBlock() &&
          other->isBeforeInBlock(first))
        first = other;
    auto fill = dyn_cast<linalg::FillOp>(first);
    if (!fill || fill.getOutputs()[0] != acc)
      return std::nullopt;
  }
  Operation *fill = nullptr, *biasOp = nullptr;
  linalg::GenericOp rescaleOp;
  memref::SubViewOp outputView;
  for (Operation &op : *body) {
    if (&op == conv || &op == window->fill || &op == window->copy ||
        &op == window->target || &op == sourceView.getOperation() ||
        isa<scf::YieldOp, arith::ConstantOp, affine::AffineApplyOp,
            affine::AffineMinOp, affine::AffineMaxOp>(op))
      continue;
    if (auto accFill = dyn_cast<linalg::FillOp>(op)) {
      std::optional<int64_t> value = getConstantInt(accFill.getInputs()[0]);
      if (fill || !value || accFill.getOutputs()[0] != acc ||
          !op.isBeforeInBlock(conv))
        return std::nullopt;
      fill = &op;
      match.init = *value;
      continue;
    }
    if (auto view = dyn_cast<memref::SubViewOp>(op)) {
      if (outputView || !outside(view.getSource()))
        return std::nullopt;
      outputView = view;
      continue;
    }
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic || !generic.hasPureBufferSemantics() ||
        generic.getNumDpsInits() != 1 || !conv->isBeforeInBlock(&op))
      return std::nullopt;
    // The bias: A = B + A with B one i32 defined outside the rows.
    if (!biasOp && !rescaleOp && generic.getDpsInits()[0] == acc) {
      auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
      auto add = yield.getNumOperands() == 1
                     ? yield.getOperand(0).getDefiningOp<arith::AddIOp>()
                     : arith::AddIOp();
      if (!add || generic.getNumDpsInputs() != 2)
        return std::nullopt;
      for (OpOperand *input : generic.getDpsInputOperands()) {
        if (input->get() == acc)
          continue;
        auto biasType = dyn_cast<MemRefType>(input->get().getType());
        if (match.bias || !outside(input->get()) || !biasType ||
            !biasType.hasStaticShape() || biasType.getNumElements() != 1 ||
            !biasType.getElementType().isInteger(32) ||
            !getStaticStrides(input->get()) || !getGlobalValues(input->get()))
          return std::nullopt;
        match.bias = input->get();
      }
      Block *genericBody = generic.getBody();
      if (!match.bias || add.getLhs().getParentBlock() != genericBody ||
          add.getRhs().getParentBlock() != genericBody ||
          !isa<BlockArgument>(add.getLhs()) ||
          !isa<BlockArgument>(add.getRhs()) || add.getLhs() == add.getRhs() ||
          cast<BlockArgument>(add.getLhs()).getArgNumber() >= 2 ||
          cast<BlockArgument>(add.getRhs()).getArgNumber() >= 2)
        return std::nullopt;
      biasOp = &op;
      continue;
    }
    std::optional<RescaleParts> rescale = matchRescaleBody(generic);
    if (rescaleOp || !rescale || !outputView ||
        generic.getDpsInits()[0] != outputView.getResult() ||
        llvm::any_of(generic.getStaticLoopRanges(),
                     [](int64_t r) { return r != 1; }))
      return std::nullopt;
    std::optional<ChannelOperand> lhs =
        getChannelOperand(generic, rescale->acc);
    std::optional<ChannelOperand> rhs =
        getChannelOperand(generic, rescale->multiplier);
    std::optional<ChannelOperand> shift =
        getChannelOperand(generic, rescale->shift);
    if (!lhs || !rhs || !shift)
      return std::nullopt;
    if (rhs->memref == acc)
      std::swap(lhs, rhs);
    if (lhs->memref != acc || rhs->memref == acc || shift->memref == acc ||
        (rhs->memref && !outside(rhs->memref)) ||
        (shift->memref && !outside(shift->memref)) ||
        !hasVectorRescaleConstants(*rhs, *shift))
      return std::nullopt;
    rescaleOp = generic;
    match.rescale = *rescale;
    match.multiplier = *rhs;
    match.shift = *shift;
  }
  if (!fill || !rescaleOp || (biasOp && !biasOp->isBeforeInBlock(rescaleOp)))
    return std::nullopt;
  match.output = outputView.getSource();
  std::optional<SmallVector<int64_t>> outStrides =
      getStaticStrides(match.output);
  if (!outStrides || outStrides->size() != 4 || (*outStrides)[2] != 1 ||
      !llvm::all_of(outputView.getStaticSizes(),
                    [](int64_t s) { return s == 1; }))
    return std::nullopt;

  // Four pixels are read before they are written: the output channel must
  // not overlap the source.
  if (!areDisjoint(match.source, match.output))
    return std::nullopt;

  // Evaluate the windows and the output pixel at every (oh, ow).
  int64_t height = sourceShape[1], width = sourceShape[2];
  SmallVector<OpFoldResult> sourceOffsets = sourceView.getMixedOffsets();
  SmallVector<OpFoldResult> outOffsets = outputView.getMixedOffsets();
  DenseMap<Value, int64_t> known;
  std::optional<int64_t> firstY, firstX;
  match.sh = match.sw = 1;
  match.interiorBegin = *colEnd;
  match.interiorEnd = *colBegin;
  match.interiorRowBegin = *rowEnd;
  match.interiorRowEnd = *rowBegin;
  match.rowAlwaysInside.assign(match.kh, true);
  // Checks that the copy along one axis is [origin, origin + k) cut to
  // [0, extent): the source offset, the window offset and the size.
  auto isExact = [](int64_t origin, int64_t k, int64_t extent,
                    std::optional<int64_t> offset,
                    std::optional<int64_t> windowOffset,
                    std::optional<int64_t> size) {
    int64_t begin = std::clamp<int64_t>(origin, 0, extent);
    int64_t end = std::clamp<int64_t>(origin + k, 0, extent);
    return end > begin && offset == begin && size == end - begin &&
           windowOffset == begin - origin;
  };
  for (int64_t oh = *rowBegin; oh < *rowEnd; ++oh) {
    for (int64_t ow = *colBegin; ow < *colEnd; ++ow) {
      known[rows.getInductionVar()] = oh;
      known[columns.getInductionVar()] = ow;
      std::optional<int64_t> ys = evaluateIndex(sourceOffsets[1], known);
      std::optional<int64_t> xs = evaluateIndex(sourceOffsets[2], known);
      std::optional<int64_t> ty = evaluateIndex(window->oy, known);
      std::optional<int64_t> tx = evaluateIndex(window->ox, known);
      if (!ys || !xs || !ty || !tx ||
          evaluateIndex(sourceOffsets[0], known) != 0 ||
          evaluateIndex(sourceOffsets[3], known) != 0 ||
          evaluateIndex(outOffsets[0], known) != 0 ||
          evaluateIndex(outOffsets[1], known) != oh ||
          evaluateIndex(outOffsets[2], known) != ow ||
          evaluateIndex(outOffsets[3], known) != 0)
        return std::nullopt;
      int64_t y = *ys - *ty, x = *xs - *tx;
      // The origin is firstY + sh * (oh - rowBegin), firstX + sw * (ow -
      // colBegin); the steps come from the second row and column.
      if (!firstY)
        firstY = y;
      if (!firstX)
        firstX = x;
      if (oh == *rowBegin + 1 && ow == *colBegin)
        match.sh = y - *firstY;
      if (ow == *colBegin + 1 && oh == *rowBegin)
        match.sw = x - *firstX;
      if (match.sh < 1 || match.sw < 1 ||
          y != *firstY + match.sh * (oh - *rowBegin) ||
          x != *firstX + match.sw * (ow - *colBegin) ||
          !isExact(y, match.kh, height, ys, ty,
                   evaluateIndex(window->h, known)) ||
          !isExact(x, match.kw, width, xs, tx, evaluateIndex(window->w, known)))
        return std::nullopt;
      if (x >= 0 && x + match.kw <= width) {
        match.interiorBegin = std::min(match.interiorBegin, ow);
        match.interiorEnd = std::max(match.interiorEnd, ow + 1);
      }
      if (y >= 0 && y + match.kh <= height) {
        match.interiorRowBegin = std::min(match.interiorRowBegin, oh);
        match.interiorRowEnd = std::max(match.interiorRowEnd, oh + 1);
      }
      for (int64_t ky = 0; ky < match.kh; ++ky)
        if (y + ky < 0 || y + ky >= height)
          match.rowAlwaysInside[ky] = false;
    }
  }
  match.originY = *firstY - match.sh * *rowBegin;
  match.originX = *firstX - match.sw * *colBegin;
  if (match.interiorEnd - match.interiorBegin < kPixelLanes)
    return std::nullopt;
  return match;
}

/// Clones \p loop (constant bounds, step 1) at the insertion point over
/// [\p begin, \p end).
static void cloneWithBounds(PatternRewriter &rewriter, scf::ForOp loop,
                            int64_t begin, int64_t end) {
  auto clone = cast<scf::ForOp>(rewriter.clone(*loop));
  clone.setLowerBound(
      arith::ConstantIndexOp::create(rewriter, loop.getLoc(), begin));
  clone.setUpperBound(
      arith::ConstantIndexOp::create(rewriter, loop.getLoc(), end));
}

/// Rewrites the column loop of the in-place depthwise convolution's channel
/// (ChannelRows) into vectors of 4 output pixels of the channel: per tap a
/// gather of the 4 input bytes at a stride of sw pixels (VLDRB.S32 with a
/// vector of offsets, `llvm.arm.mve.vldr.gather.offset`) and a
/// multiply-accumulate by the tap's weight (VMLA.I32 by a scalar), then
/// the rescale of the 4 pixels (emitRescale) and a narrowing store of 4
/// contiguous bytes of the output channel. Only the columns whose window
/// lies inside the source are vectorized (the last vector overlaps the one
/// before when their number is not a multiple of 4: it recomputes the same
/// bytes); the border columns keep their scalar loops. First the row loop
/// is split into its border rows and its interior rows (whose windows lie
/// inside the source), so that only the border rows' vectors test a window
/// row, by a compare per vector, and skip it when it lies outside.
///
/// The weights (w - zw), the bias and the rescale's multiplier and shift
/// are read once per row loop, before it. The input zero point is
/// folded in per channel, sum (x - zx) w = sum x w - zx sum w, with
/// zx times the sum of a skipped row's weights added back, all modulo 2^32
/// as the op's int32 sums. Nothing is written but the output channel: the
/// window and the accumulator stay allocated, unwritten, so the arena is
/// unchanged.
struct DepthwiseChannelRowsToMve : OpRewritePattern<scf::ForOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(scf::ForOp columns,
                                PatternRewriter &rewriter) const override {
    std::optional<ChannelRows> match = matchChannelRows(columns);
    if (!match)
      return rewriter.notifyMatchFailure(
          columns, "not the column loop of a one-channel depthwise "
                   "convolution with a vectorizable interior");
    const ConvParts &parts = match->parts;
    int64_t zx = parts.inputZp;
    Location loc = columns.getLoc();
    // First the rows are split into the border rows and the interior ones,
    // whose vectors then test no window row.
    scf::ForOp rows = match->rows;
    int64_t rowBegin = *getConstantIntValue(rows.getLowerBound());
    int64_t rowEnd = *getConstantIntValue(rows.getUpperBound());
    if (match->interiorRowBegin < match->interiorRowEnd &&
        (rowBegin < match->interiorRowBegin ||
         match->interiorRowEnd < rowEnd)) {
      rewriter.setInsertionPoint(rows);
      for (auto [begin, end] :
           {std::pair(rowBegin, match->interiorRowBegin),
            std::pair(match->interiorRowBegin, match->interiorRowEnd),
            std::pair(match->interiorRowEnd, rowEnd)})
        if (begin < end)
          cloneWithBounds(rewriter, rows, begin, end);
      rewriter.eraseOp(rows);
      return success();
    }

    // Per channel, before the rows.
    rewriter.setInsertionPoint(rows);
    VectorBuilder vb(rewriter, loc);
    FailureOr<ByteView> in = getByteView(rewriter, loc, match->source);
    FailureOr<ByteView> filter = getByteView(rewriter, loc, parts.filter);
    FailureOr<ByteView> out = getByteView(rewriter, loc, match->output);
    SmallVector<SmallVector<Value>> weights(match->kh);
    SmallVector<Value> rowSums;
    Value sum = vb.constant(0);
    for (int64_t ky = 0; ky < match->kh; ++ky) {
      Value rowSum = vb.constant(0);
      for (int64_t kx = 0; kx < match->kw; ++kx) {
        Value at = vb.add(filter->offset, vb.constant(ky * filter->strides[0] +
                                                      kx * filter->strides[1]));
        Value w = loadScalar(rewriter, loc, filter->base, at, parts.filterZp);
        weights[ky].push_back(w);
        rowSum = vb.add(rowSum, w);
      }
      rowSums.push_back(rowSum);
      sum = vb.add(sum, rowSum);
    }
    // The accumulator's start: c + B - zx sum w.
    Value init =
        vb.add(vb.constant(match->init), vb.mul(sum, vb.constant(-zx)));
    if (match->bias) {
      FailureOr<ByteView> bias = getByteView(rewriter, loc, match->bias);
      init = vb.add(init, LLVM::LoadOp::create(
                              rewriter, loc, vb.i32,
                              vb.address(bias->base, bias->offset, vb.i32), 4));
    }
    // One multiplier and one shift for the channel.
    auto readScalar = [&](const ChannelOperand &operand,
                          Type element) -> Value {
      if (operand.constant)
        return vb.splat(element.isInteger(8) ? (*operand.constant & 0xFF)
                                             : *operand.constant,
                        kPixelLanes);
      FailureOr<ByteView> view = getByteView(rewriter, loc, operand.memref);
      Value scalar = LLVM::LoadOp::create(
          rewriter, loc, element, vb.address(view->base, view->offset, element),
          element.getIntOrFloatBitWidth() / 8);
      if (element.isInteger(8))
        scalar = arith::ExtUIOp::create(rewriter, loc, vb.i32, scalar);
      return vector::BroadcastOp::create(
          rewriter, loc, VectorType::get({kPixelLanes}, vb.i32), scalar);
    };
    Value multiplier = readScalar(match->multiplier, vb.i32);
    Value shift = readScalar(match->shift, vb.i8);

    // The columns: the left border, the vectors, the right border.
    rewriter.setInsertionPoint(columns);
    int64_t colBegin = *getConstantIntValue(columns.getLowerBound());
    int64_t colEnd = *getConstantIntValue(columns.getUpperBound());
    if (colBegin < match->interiorBegin)
      cloneWithBounds(rewriter, columns, colBegin, match->interiorBegin);
    Value oh = arith::IndexCastOp::create(rewriter, loc, vb.i32,
                                          match->rows.getInductionVar());
    Value firstRow =
        addScaled(rewriter, loc, vb.constant(match->originY), oh, match->sh);
    int64_t pixelStride = in->strides[2];
    auto offsetType = VectorType::get({kPixelLanes}, vb.i32);
    Value offsets = getLaneOffsets(rewriter, loc, match->sw * pixelStride);
    int64_t interior = match->interiorEnd - match->interiorBegin;
    int64_t vectors = llvm::divideCeil(interior, kPixelLanes);
    forWithAccs(
        rewriter, loc, match->interiorBegin,
        match->interiorBegin + vectors * kPixelLanes, kPixelLanes, {},
        [&](OpBuilder &b, Location loc, Value first, ValueRange) {
          VectorBuilder vb(b, loc);
          if (interior % kPixelLanes != 0)
            first = arith::MinSIOp::create(
                b, loc, first, vb.constant(match->interiorEnd - kPixelLanes));
          Value column =
              addScaled(b, loc, vb.constant(match->originX), first, match->sw);
          Value pixel = addScaled(b, loc, in->offset, firstRow, in->strides[1]);
          pixel = addScaled(b, loc, pixel, column, pixelStride);
          Value acc = vector::BroadcastOp::create(b, loc, offsetType, init);
          for (int64_t ky = 0; ky < match->kh; ++ky) {
            auto taps = [&](OpBuilder &b, Location loc) {
              VectorBuilder vb(b, loc);
              Value sum = acc;
              for (int64_t kx = 0; kx < match->kw; ++kx) {
                Value at =
                    vb.address(in->base,
                               vb.add(pixel, vb.constant(ky * in->strides[1] +
                                                         kx * pixelStride)),
                               vb.i8);
                Value x =
                    LLVM::CallIntrinsicOp::create(
                        b, loc, offsetType,
                        b.getStringAttr(
                            "llvm.arm.mve.vldr.gather.offset.v4i32.p0.v4i32"),
                        ValueRange{at, offsets, vb.constant(8), vb.constant(0),
                                   vb.constant(0)})
                        ->getResult(0);
                Value w = vector::BroadcastOp::create(b, loc, offsetType,
                                                      weights[ky][kx]);
                sum = vb.add(sum, vb.mul(x, w));
              }
              return sum;
            };
            if (match->rowAlwaysInside[ky]) {
              acc = taps(b, loc);
              continue;
            }
            Value inside = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::ult,
                vb.add(firstRow, vb.constant(ky)),
                vb.constant(
                    cast<MemRefType>(match->source.getType()).getDimSize(1)));
            acc = scf::IfOp::create(
                      b, loc, inside,
                      [&](OpBuilder &b, Location loc) {
                        scf::YieldOp::create(b, loc, taps(b, loc));
                      },
                      [&](OpBuilder &b, Location loc) {
                        // The skipped row's -zx sum w, added back.
                        VectorBuilder vb(b, loc);
                        Value skipped = acc;
                        if (zx != 0)
                          skipped = vb.add(
                              acc, vector::BroadcastOp::create(
                                       b, loc, offsetType,
                                       vb.mul(rowSums[ky], vb.constant(zx))));
                        scf::YieldOp::create(b, loc, skipped);
                      })
                      .getResult(0);
          }
          Value bytes = emitRescale(vb, match->rescale, acc, multiplier, shift);
          Value at = getOutputOffset(b, loc, *out, vb.constant(0), oh, first,
                                     vb.constant(0));
          vb.store(bytes, out->base, at, kPixelLanes);
          return SmallVector<Value>();
        });
    if (match->interiorEnd < colEnd)
      cloneWithBounds(rewriter, columns, match->interiorEnd, colEnd);
    rewriter.eraseOp(columns);
    return success();
  }
};

/// Rewrites a linalg.copy of int8 from a contiguous one-channel buffer
/// (1 x H x W x 1, the in-place depthwise convolution's channel) into a
/// view with a uniform pixel stride C (a channel of an NHWC tensor: rows W *
/// C bytes apart) that does not overlap it: 4 pixels per vector, a load of
/// 4 contiguous bytes (VLDRB.U32) and a scatter store of them C bytes apart
/// (VSTRB.32 with a vector of offsets, `llvm.arm.mve.vstr.scatter.offset`).
/// The last vector overlaps the one before when H * W is not a multiple of
/// 4 (it stores the same bytes again).
struct ChannelCopyToMve : OpRewritePattern<linalg::CopyOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::CopyOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureBufferSemantics())
      return failure();
    Value source = op.getInputs()[0], target = op.getOutputs()[0];
    if (!isStaticIntMemRef(source, 8) || !isStaticIntMemRef(target, 8))
      return rewriter.notifyMatchFailure(op, "not a static int8 copy");
    auto sourceType = cast<MemRefType>(source.getType());
    ArrayRef<int64_t> shape = sourceType.getShape();
    std::optional<SmallVector<int64_t>> sourceStrides =
        getStaticStrides(source);
    std::optional<SmallVector<int64_t>> targetStrides =
        getStaticStrides(target);
    int64_t pixels = shape.size() == 4 ? shape[1] * shape[2] : 0;
    if (shape.size() != 4 || shape[0] != 1 || shape[3] != 1 ||
        pixels < kPixelLanes || !sourceStrides || !targetStrides ||
        !sourceType.getLayout().isIdentity() ||
        (*targetStrides)[1] != shape[2] * (*targetStrides)[2] ||
        !areDisjoint(source, target))
      return rewriter.notifyMatchFailure(
          op, "not a contiguous channel copied into a uniformly strided one");
    int64_t stride = (*targetStrides)[2];
    Location loc = op.getLoc();
    FailureOr<ByteView> from = getByteView(rewriter, loc, source);
    FailureOr<ByteView> to = getByteView(rewriter, loc, target);
    VectorBuilder vb(rewriter, loc);
    auto vecType = VectorType::get({kPixelLanes}, vb.i32);
    Value offsets = getLaneOffsets(rewriter, loc, stride);
    int64_t vectors = llvm::divideCeil(pixels, kPixelLanes);
    forWithAccs(
        rewriter, loc, 0, vectors * kPixelLanes, kPixelLanes, {},
        [&](OpBuilder &b, Location loc, Value first, ValueRange) {
          VectorBuilder vb(b, loc);
          if (pixels % kPixelLanes != 0)
            first = arith::MinSIOp::create(b, loc, first,
                                           vb.constant(pixels - kPixelLanes));
          Value bytes = vb.load(from->base, vb.add(from->offset, first), vb.i8,
                                kPixelLanes, kPixelLanes);
          Value values = arith::ExtUIOp::create(b, loc, vecType, bytes);
          Value at = vb.address(
              to->base, addScaled(b, loc, to->offset, first, stride), vb.i8);
          LLVM::CallIntrinsicOp::create(
              b, loc,
              b.getStringAttr(
                  "llvm.arm.mve.vstr.scatter.offset.p0.v4i32.v4i32"),
              ValueRange{at, offsets, values, vb.constant(8), vb.constant(0)});
          return SmallVector<Value>();
        });
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void mlir::memopt::populateArmMveInt8KernelPatterns(RewritePatternSet &patterns,
                                                    unsigned ocBlock) {
  patterns.add<ConvFhwcToMve<linalg::Conv2DNhwcFhwcQOp>,
               ConvFhwcToMve<linalg::Conv2DNhwcFhwcOp>>(patterns.getContext(),
                                                        ocBlock);
  patterns.add<RescaleToMve, ChannelCopyToMve>(patterns.getContext());
  patterns.add<ConvHwcfToMve<linalg::Conv2DNhwcHwcfQOp>,
               ConvHwcfToMve<linalg::Conv2DNhwcHwcfOp>>(patterns.getContext());
  patterns.add<DepthwiseHwcToMve<linalg::DepthwiseConv2DNhwcHwcQOp>,
               DepthwiseHwcToMve<linalg::DepthwiseConv2DNhwcHwcOp>>(
      patterns.getContext());
}

void mlir::memopt::populateArmMveDepthwiseChannelPatterns(
    RewritePatternSet &patterns) {
  patterns.add<DepthwiseChannelRowsToMve>(patterns.getContext());
}
