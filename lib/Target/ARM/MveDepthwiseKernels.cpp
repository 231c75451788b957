//===- MveDepthwiseKernels.cpp - MVE kernels of depthwise convolutions ----===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The MVE kernel of depthwise_conv_2d_nhwc_hwc[_q]: eight channels per
// vector<8xi32> (then four, then a masked group of four), per tap the input
// and filter bytes widened, the zero points added, multiplied and
// accumulated; fewer than 4 channels scalar. A padded window of one output
// pixel is read in place. See MveInt8Kernels.cpp.
//
//===----------------------------------------------------------------------===//

#include "MveKernels.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::armkernels;
using namespace mlir::memopt::armkernels::mve;

namespace {
/// Rewrites linalg.depthwise_conv_2d_nhwc_hwc[_q] (filter [KH, KW, C]): at
/// least 4 channels contiguous in input and filter as vectors, fewer
/// (the in-place depthwise has 1) as scalars.
template <typename DepthwiseOp>
struct DepthwiseHwcToMve : Int8ConvPattern<DepthwiseOp> {
  using Int8ConvPattern<DepthwiseOp>::Int8ConvPattern;

  LogicalResult rewriteConv(DepthwiseOp op, const ConvParts &parts,
                            PatternRewriter &rewriter) const override {
    ArrayRef<int64_t> outShape =
        cast<MemRefType>(parts.output.getType()).getShape();
    int64_t channels = outShape[3];
    std::optional<PaddedWindow> window = matchPixelWindow(op, parts);
    Value input = window ? window->source : parts.input;
    // Checked before any IR is built: a failed match must not change it.
    std::optional<SmallVector<int64_t>> inStrides = getStaticStrides(input);
    std::optional<SmallVector<int64_t>> filterStrides =
        getStaticStrides(parts.filter);
    std::optional<SmallVector<int64_t>> outStrides =
        getStaticStrides(parts.output);
    if (!inStrides || !filterStrides || !outStrides)
      return rewriter.notifyMatchFailure(op, "dynamic strides");
    if (channels >= 4 && ((*inStrides)[3] != 1 || (*filterStrides)[2] != 1 ||
                          (*outStrides)[3] != 1))
      return rewriter.notifyMatchFailure(op, "channels not contiguous");
    Location loc = op.getLoc();
    FailureOr<ByteView> in = getByteView(rewriter, loc, input);
    FailureOr<ByteView> filter = getByteView(rewriter, loc, parts.filter);
    FailureOr<ByteView> out = getByteView(rewriter, loc, parts.output);
    int64_t kh = filter->shape[0], kw = filter->shape[1];
    bool unroll = kh * kw <= kMaxUnrolledTaps;
    int64_t zx = parts.inputZp, zw = parts.filterZp;
    const PaddedWindow *windowPtr = window ? &*window : nullptr;

    forEachOutputPixel(
        rewriter, loc, outShape, *in, parts,
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
                b, loc, *in, inChannel, parts, kh, kw, unroll, windowPtr, acc,
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
} // namespace

void mve::populateDepthwisePatterns(RewritePatternSet &patterns) {
  patterns.add<DepthwiseHwcToMve<linalg::DepthwiseConv2DNhwcHwcQOp>,
               DepthwiseHwcToMve<linalg::DepthwiseConv2DNhwcHwcOp>>(
      patterns.getContext());
}
