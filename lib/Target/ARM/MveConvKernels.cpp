//===- MveConvKernels.cpp - MVE kernels of convolutions -------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The MVE kernels of conv_2d_nhwc_fhwc[_q] (sixteen input channels per
// vector, one VMLAVA.S8 per output channel of a block, the zero points
// applied once per output) and of conv_2d_nhwc_hwcf[_q] (a vector of output
// channels times the input value); see MveInt8Kernels.cpp.
//
//===----------------------------------------------------------------------===//

#include "MveKernels.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::armkernels;
using namespace mlir::memopt::armkernels::mve;

/// Input channels per vector of the convolution's reduction.
static constexpr int64_t kConvLanes = 16;

namespace {
/// What sets a convolution's accumulator just before it: a linalg.fill of a
/// constant, or a linalg.generic that copies a constant global into it (the
/// bias, broadcast over the pixels).
struct AccumulatorStart {
  Operation *op = nullptr;
  /// The fill's constant, or the global read at map(n, oh, ow, oc).
  std::optional<int64_t> fill;
  Value source;
  AffineMap map;
};
} // namespace

/// Matches the AccumulatorStart of \p conv, whose accumulator is \p output:
/// the op before it (only ops without memory effects between them) writes
/// all of \p output and nothing else.
static std::optional<AccumulatorStart> matchAccumulatorStart(Operation *conv,
                                                             Value output) {
  Operation *op = conv->getPrevNode();
  while (op && isMemoryEffectFree(op))
    op = op->getPrevNode();
  auto linalgOp = dyn_cast_if_present<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureBufferSemantics() ||
      linalgOp.getNumDpsInits() != 1 ||
      linalgOp.getDpsInitOperand(0)->get() != output)
    return std::nullopt;
  AccumulatorStart start;
  start.op = op;
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    start.fill = getConstantInt(fill.getInputs()[0]);
    return start.fill ? std::optional(start) : std::nullopt;
  }
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      !generic.getIndexingMapsArray().back().isIdentity() ||
      !getGlobalValues(generic.getDpsInputOperand(0)->get()))
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  if (yield.getNumOperands() != 1 ||
      yield.getOperand(0) != generic.getBody()->getArgument(0))
    return std::nullopt;
  start.source = generic.getDpsInputOperand(0)->get();
  start.map = generic.getIndexingMapsArray().front();
  if (!start.map.isProjectedPermutation() || start.map.getNumDims() != 4)
    return std::nullopt;
  return start;
}

/// The start of the accumulator of output element \p indices (n, oh, ow, oc)
/// from \p start.
static Value loadAccumulatorStart(OpBuilder &b, Location loc,
                                  const AccumulatorStart &start,
                                  ArrayRef<Value> indices) {
  if (start.fill)
    return getI32Constant(b, loc, *start.fill);
  SmallVector<Value> sourceIndices;
  for (AffineExpr result : start.map.getResults())
    sourceIndices.push_back(
        indices[cast<AffineDimExpr>(result).getPosition()]);
  return memref::LoadOp::create(b, loc, start.source,
                                toIndices(b, loc, sourceIndices));
}

namespace {
/// Rewrites linalg.conv_2d_nhwc_fhwc[_q] (filter [OC, KH, KW, IC]) whose
/// input channels are contiguous in input and filter.
template <typename ConvOp> struct ConvFhwcToMve : Int8ConvPattern<ConvOp> {
  ConvFhwcToMve(MLIRContext *context, unsigned ocBlock)
      : Int8ConvPattern<ConvOp>(context), ocBlock(ocBlock) {}

  LogicalResult rewriteConv(ConvOp op, const ConvParts &parts,
                            PatternRewriter &rewriter) const override {
    // Checked before any IR is built: a failed match must not change it.
    std::optional<SmallVector<int64_t>> inStrides =
        getStaticStrides(parts.input);
    std::optional<SmallVector<int64_t>> filterStrides =
        getStaticStrides(parts.filter);
    if (!inStrides || !filterStrides || (*inStrides)[3] != 1 ||
        (*filterStrides)[3] != 1)
      return rewriter.notifyMatchFailure(op, "input channels not contiguous");
    // A padded window of one output pixel: its fill is dead where the copy
    // covers it, and its copy is vectors (lowerWindowWrites).
    std::optional<PaddedWindow> window = matchFilledPixelWindow(op, parts);
    Location loc = op.getLoc();
    FailureOr<ByteView> in = getByteView(rewriter, loc, parts.input);
    FailureOr<ByteView> filter = getByteView(rewriter, loc, parts.filter);
    ArrayRef<int64_t> outShape =
        cast<MemRefType>(parts.output.getType()).getShape();
    int64_t numOc = outShape[3];
    int64_t kh = filter->shape[1], kw = filter->shape[2];
    int64_t numIc = filter->shape[3];
    // When the taps of a window are contiguous in input and filter (a
    // padded window per output pixel of KH x KW x IC bytes, e.g. a first
    // layer's 3x3x3), the reduction is one run of KH * KW * IC bytes.
    if ((kh > 1 || kw > 1) && parts.dilationH == 1 && parts.dilationW == 1 &&
        in->strides[2] == numIc && in->strides[1] == kw * numIc &&
        filter->strides[2] == numIc && filter->strides[1] == kw * numIc) {
      numIc *= kh * kw;
      kh = kw = 1;
    }
    int64_t fullIc = numIc - numIc % kConvLanes;
    int64_t block = std::max<int64_t>(1, std::min<int64_t>(ocBlock, numOc));
    int64_t zx = parts.inputZp, zw = parts.filterZp;
    Value output = parts.output;
    // The kernel loads and stores every accumulator: the start comes from
    // what sets it (no copy of the bias per pixel).
    std::optional<AccumulatorStart> start =
        matchAccumulatorStart(op, parts.output);

    forEachOutputPixel(
        rewriter, loc, outShape, *in, parts,
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
              carried.push_back(
                  start ? loadAccumulatorStart(b, loc, *start, {n, oh, ow, oc})
                        : memref::LoadOp::create(
                              b, loc, output,
                              toIndices(b, loc, {n, oh, ow, oc})));
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
                                          parts.dilationH * in->strides[1]);
                  return forWithAccs(
                      b, loc, 0, kw, 1, carried,
                      [&](OpBuilder &b, Location loc, Value x,
                          ValueRange carried) {
                        Value inTap = addScaled(
                            b, loc, inRow, x, parts.dilationW * in->strides[2]);
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
    if (window)
      lowerWindowWrites(rewriter, *window);
    if (start)
      rewriter.eraseOp(start->op);
    rewriter.eraseOp(op);
    return success();
  }

  /// Output channels per block.
  unsigned ocBlock;
};

/// Rewrites linalg.conv_2d_nhwc_hwcf[_q] (filter [KH, KW, IC, OC]; a first
/// layer, or a depthwise convolution of one input channel) of at least 4
/// output channels, contiguous in filter and output: per tap and input
/// channel, the zero-point-corrected input value multiplies a vector of
/// output channels of the filter (VMLA.I32 by a scalar).
template <typename ConvOp> struct ConvHwcfToMve : Int8ConvPattern<ConvOp> {
  using Int8ConvPattern<ConvOp>::Int8ConvPattern;

  LogicalResult rewriteConv(ConvOp op, const ConvParts &parts,
                            PatternRewriter &rewriter) const override {
    ArrayRef<int64_t> outShape =
        cast<MemRefType>(parts.output.getType()).getShape();
    int64_t numOc = outShape[3];
    if (numOc < 4)
      return rewriter.notifyMatchFailure(op, "fewer than 4 output channels");
    std::optional<PaddedWindow> window = matchFilledPixelWindow(op, parts);
    Value input = window ? window->source : parts.input;
    // Checked before any IR is built: a failed match must not change it.
    std::optional<SmallVector<int64_t>> inStrides = getStaticStrides(input);
    std::optional<SmallVector<int64_t>> filterStrides =
        getStaticStrides(parts.filter);
    std::optional<SmallVector<int64_t>> outStrides =
        getStaticStrides(parts.output);
    if (!inStrides || !filterStrides || !outStrides ||
        (*filterStrides)[3] != 1 || (*outStrides)[3] != 1)
      return rewriter.notifyMatchFailure(op, "output channels not contiguous");
    Location loc = op.getLoc();
    FailureOr<ByteView> in = getByteView(rewriter, loc, input);
    FailureOr<ByteView> filter = getByteView(rewriter, loc, parts.filter);
    FailureOr<ByteView> out = getByteView(rewriter, loc, parts.output);
    int64_t kh = filter->shape[0], kw = filter->shape[1];
    int64_t numIc = filter->shape[2];
    bool unroll = kh * kw * numIc <= kMaxUnrolledTaps;
    int64_t zx = parts.inputZp, zw = parts.filterZp;
    const PaddedWindow *windowPtr = window ? &*window : nullptr;

    forEachOutputPixel(
        rewriter, loc, outShape, *in, parts,
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
                b, loc, *in, pixel, parts, kh, kw, unroll, windowPtr, acc,
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

} // namespace

void mve::populateConvPatterns(RewritePatternSet &patterns, unsigned ocBlock) {
  patterns.add<ConvFhwcToMve<linalg::Conv2DNhwcFhwcQOp>,
               ConvFhwcToMve<linalg::Conv2DNhwcFhwcOp>>(patterns.getContext(),
                                                        ocBlock);
  patterns.add<ConvHwcfToMve<linalg::Conv2DNhwcHwcfQOp>,
               ConvHwcfToMve<linalg::Conv2DNhwcHwcfOp>>(patterns.getContext());
}
