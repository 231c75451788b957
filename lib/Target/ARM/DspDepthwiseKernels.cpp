//===- DspDepthwiseKernels.cpp - DSP kernels of depthwise convolutions ----===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The DSP kernel of depthwise_conv_2d_nhwc_hwc[_q]: four channels per input
// and filter word, SMLABB/SMLATT per channel; a one-channel convolution (the
// in-place depthwise computes one per pixel of each channel) reads its
// weights once per channel as halfword pairs (hoistWeights) for
// SMLABB/SMLABT. See DspInt8Kernels.cpp.
//
//===----------------------------------------------------------------------===//

#include "DspKernels.h"
#include "HoistedWeights.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::armkernels;
using namespace mlir::memopt::armkernels::dsp;

/// Reads the \p kh x \p kw weights of the one-channel filter of \p parts
/// once per channel (WeightScope::Channel), before the loops around \p op:
/// the bytes of the filter's ByteView minus the filter zero point.
static HoistedWeights hoistChannelWeights(PatternRewriter &rewriter,
                                          Operation *op, const ConvParts &parts,
                                          int64_t kh, int64_t kw) {
  std::optional<ByteView> filter;
  Value filterZp;
  auto prepare = [&](OpBuilder &b, Location loc) {
    KernelBuilder kb(b, loc);
    // The caller checked that the filter's strides are static.
    filter = *getByteView(kb, parts.filter);
    filterZp = kb.constant(parts.filterZp);
  };
  auto read = [&](OpBuilder &b, Location loc, int64_t y, int64_t x) -> Value {
    KernelBuilder kb(b, loc);
    return arith::SubIOp::create(
        kb.b, kb.loc,
        kb.loadByte(filter->base, filter->offset,
                    y * filter->strides[0] + x * filter->strides[1]),
        filterZp);
  };
  return hoistWeights(rewriter, op->getLoc(), op, parts, kh, kw,
                      WeightScope::Channel, WeightReads{prepare, read});
}

namespace {
/// Rewrites linalg.depthwise_conv_2d_nhwc_hwc[_q] (filter [KH, KW, C]).
template <typename DepthwiseOp>
struct DepthwiseHwcToDsp : Int8ConvPattern<DepthwiseOp> {
  using Int8ConvPattern<DepthwiseOp>::Int8ConvPattern;

  LogicalResult rewriteConv(DepthwiseOp op, const ConvParts &parts,
                            PatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    FailureOr<ConvInput> input = getConvInput(kb, parts, op);
    if (failed(input))
      return rewriter.notifyMatchFailure(op, "dynamic strides");
    FailureOr<ByteView> filter = getByteView(kb, parts.filter);
    const ByteView *in = &input->view;
    bool contiguous = in->strides[3] == 1 && filter->strides[2] == 1;
    ArrayRef<int64_t> outShape =
        cast<MemRefType>(parts.output.getType()).getShape();
    int64_t channels = outShape[3];
    int64_t kh = filter->shape[0], kw = filter->shape[1];
    int64_t simdChannels = contiguous ? channels - channels % 4 : 0;
    bool unroll = kh * kw <= kMaxUnrolledTaps;
    // One channel with unrolled taps (the in-place depthwise convolution):
    // SMLABB/SMLABT with the weights in registers.
    std::optional<HoistedWeights> hoisted;
    if (channels == 1 && unroll)
      hoisted = hoistChannelWeights(rewriter, op, parts, kh, kw);
    Value inZp = getPackedNegation(kb, parts.inputZp);
    Value filterZp = getPackedNegation(kb, parts.filterZp);
    Value inZpScalar = kb.constant(parts.inputZp);
    Value filterZpScalar = kb.constant(parts.filterZp);
    Value output = parts.output;

    auto emitKernel = [&](KernelBuilder &kb, const WindowGuard *guard) {
      forEachPixel(
          kb, outShape, *in, parts,
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
                  kb, guard, unroll, parts, oh, ow, kh, kw, *in, inChannel,
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
    emitForWindow(kb, *input, emitKernel);
    eraseWindowWrites(rewriter, *input);
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void dsp::populateDepthwisePatterns(RewritePatternSet &patterns) {
  patterns.add<DepthwiseHwcToDsp<linalg::DepthwiseConv2DNhwcHwcQOp>,
               DepthwiseHwcToDsp<linalg::DepthwiseConv2DNhwcHwcOp>>(
      patterns.getContext());
}
