//===- DspConvKernels.cpp - DSP kernels of convolutions -------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The DSP kernels of conv_2d_nhwc_fhwc[_q] (the reduction four input
// channels at a time: SXTB16, SADD16 and two SMLADs per output channel of a
// block) and of conv_2d_nhwc_hwcf[_q] (four output channels per filter word,
// SMLABB/SMLABT); see DspInt8Kernels.cpp.
//
//===----------------------------------------------------------------------===//

#include "DspKernels.h"

#include "MemOpt/Target/ARM/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::armkernels;
using namespace mlir::memopt::armkernels::dsp;

/// The widened copy of \p conv's filter that arm-dsp-widen-filters made
/// (kDspWideFilterAttr), read at the rows \p filter reads: every group of
/// four input channels at twice its int8 offset. None without a copy or if
/// the filter's input channels are not contiguous rows of a multiple of 4.
static std::optional<ByteView> getWideFilter(KernelBuilder &kb, Operation *conv,
                                             const ByteView &filter) {
  auto attr = conv->getAttrOfType<ArrayAttr>(kDspWideFilterAttr);
  if (!attr || attr.size() != 2)
    return std::nullopt;
  auto symbol = dyn_cast<FlatSymbolRefAttr>(attr[0]);
  auto typeAttr = dyn_cast<TypeAttr>(attr[1]);
  auto type = typeAttr ? dyn_cast<MemRefType>(typeAttr.getValue()) : nullptr;
  ArrayRef<int64_t> shape = filter.shape;
  if (!symbol || !type || type.getRank() != 4 || shape[3] % 4 != 0 ||
      type.getDimSize(3) != 2 * shape[3] || filter.strides[3] != 1 ||
      filter.strides[2] != shape[3] || filter.strides[1] != shape[2] * shape[3])
    return std::nullopt;
  Value global =
      memref::GetGlobalOp::create(kb.b, kb.loc, type, symbol.getValue());
  FailureOr<ByteView> view = getByteView(kb, global);
  if (failed(view))
    return std::nullopt;
  view->offset = kb.addScaled(view->offset, filter.offset, 2);
  view->strides.assign(
      {2 * filter.strides[0], 2 * filter.strides[1], 2 * filter.strides[2], 2});
  return *view;
}

/// The halfword pairs of the four int8 at \p word, each plus the packed
/// \p packedZp (if any): {(x0, x2), (x1, x3)} (two SXTB16s, two SADD16s).
static std::pair<Value, Value> widenWord(KernelBuilder &kb, Value word,
                                         Value packedZp) {
  Value even = kb.sadd16(kb.sxtb16(word), packedZp);
  Value odd = kb.sadd16(kb.sxtb16Odd(word), packedZp);
  return {even, odd};
}

/// The filter weights of four input channels of one output channel, the
/// filter's row \p row bytes after \p filterPtr, as halfword pairs
/// {(w0, w2), (w1, w3)}: the two words of the widened filter (\p wide; one
/// LDRD with \p dualLoads, else two LDRs), or the int8 word widened and its
/// zero point added (the packed negation \p filterZp).
static std::pair<Value, Value> loadFilterPairs(KernelBuilder &kb,
                                               Value filterPtr, int64_t row,
                                               bool wide, bool dualLoads,
                                               Value filterZp) {
  if (!wide)
    return widenWord(kb, kb.loadWordAt(filterPtr, row), filterZp);
  if (dualLoads)
    return kb.loadWordPairAt(filterPtr, row);
  Value w02 = kb.loadWordAt(filterPtr, row, 8);
  Value w13 = kb.loadWordAt(filterPtr, row + 4, 4);
  return {w02, w13};
}

namespace {
/// Rewrites linalg.conv_2d_nhwc_fhwc[_q] (filter [OC, KH, KW, IC]).
template <typename ConvOp> struct ConvFhwcToDsp : Int8ConvPattern<ConvOp> {
  ConvFhwcToDsp(MLIRContext *context, unsigned ocBlock, unsigned unrollCount,
                bool dualLoads)
      : Int8ConvPattern<ConvOp>(context), ocBlock(ocBlock),
        unrollCount(unrollCount), dualLoads(dualLoads) {}

  LogicalResult rewriteConv(ConvOp op, const ConvParts &parts,
                            PatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    FailureOr<ConvInput> input = getConvInput(kb, parts, op);
    if (failed(input))
      return rewriter.notifyMatchFailure(op, "dynamic strides");
    FailureOr<ByteView> filter = getByteView(kb, parts.filter);
    std::optional<ByteView> wideFilter = getWideFilter(kb, op, *filter);
    ArrayRef<int64_t> outShape =
        cast<MemRefType>(parts.output.getType()).getShape();
    int64_t numOc = outShape[3];
    int64_t kh = filter->shape[1], kw = filter->shape[2];
    int64_t numIc = filter->shape[3];
    Value inZp = getPackedNegation(kb, parts.inputZp);
    Value filterZp = getPackedNegation(kb, parts.filterZp);
    Value inZpScalar = kb.constant(parts.inputZp);
    Value filterZpScalar = kb.constant(parts.filterZp);
    Value output = parts.output;
    int64_t block = std::max<int64_t>(1, std::min<int64_t>(ocBlock, numOc));

    auto emitKernel = [&](KernelBuilder &kb, const WindowGuard *guard,
                          const ByteView &inView) {
      const ByteView *in = &inView;
      bool contiguous = in->strides[3] == 1 && filter->strides[3] == 1;
      // Without bounds checks, a kernel row of contiguous pixels is one run
      // of KW * IC bytes in both the input and the filter: the SIMD
      // reduction spans it (a first layer of 3 input channels gets 2 words
      // per row instead of 9 scalar taps).
      int64_t tapsW = kw, runIc = numIc;
      if (!guard && contiguous && parts.dilationW == 1 &&
          in->strides[2] == numIc && filter->strides[2] == numIc) {
        tapsW = 1;
        runIc = kw * numIc;
      }
      // The SIMD part of the reduction over a run; the rest is scalar.
      int64_t runSimd = contiguous ? runIc - runIc % 4 : 0;
      // The widened filter (two words per four input channels, its zero
      // point subtracted) where the whole run is SIMD.
      bool wide = wideFilter && runSimd == runIc;
      const ByteView *fv = wide ? &*wideFilter : &*filter;
      // Four input channels per step of the SIMD reduction: 2 widenings of
      // the input word, then per output channel its filter's halfword pairs
      // and 2 SMLADs. The state is the accumulators, then the input and
      // filter addresses as loop-carried pointers (post-increment loads, one
      // filter pointer with immediate offsets per channel).
      auto simdStep = [&](KernelBuilder &kb, Value, ValueRange state) {
        ValueRange accs = state.drop_back(2);
        Value inPtr = state[accs.size()];
        Value filterPtr = state[accs.size() + 1];
        auto [even, odd] = widenWord(kb, kb.loadWordAt(inPtr), inZp);
        SmallVector<Value> next;
        for (auto [j, acc] : llvm::enumerate(accs)) {
          auto [w02, w13] = loadFilterPairs(kb, filterPtr, j * fv->strides[0],
                                            wide, dualLoads, filterZp);
          Value sum = kb.intrinsic("llvm.arm.smlad", {even, w02, acc});
          next.push_back(kb.intrinsic("llvm.arm.smlad", {odd, w13, sum}));
        }
        next.push_back(kb.offsetPointer(inPtr, 4));
        next.push_back(kb.offsetPointer(filterPtr, wide ? 8 : 4));
        return next;
      };
      // The reduction over the run of one tap, the input at inTap and the
      // filter at filterTap: the SIMD steps, then the input channels left
      // over one at a time.
      auto reduceRun = [&](KernelBuilder &kb, Value inTap, Value filterTap,
                           ValueRange accs) {
        SmallVector<Value> state(accs);
        state.push_back(kb.address(in->base, inTap));
        state.push_back(kb.address(fv->base, filterTap));
        SmallVector<Value> result =
            forStepsWithAccs(kb, 0, runSimd, 4, state, simdStep, unrollCount);
        result.resize(accs.size());
        return forStepsWithAccs(
            kb, runSimd, runIc, 1, result,
            [&](KernelBuilder &kb, Value ic, ValueRange accs) {
              Value xv = arith::SubIOp::create(
                  kb.b, kb.loc,
                  kb.loadByte(in->base,
                              kb.addScaled(inTap, ic, in->strides[3])),
                  inZpScalar);
              SmallVector<Value> next;
              Value tap = kb.addScaled(filterTap, ic, filter->strides[3]);
              for (auto [j, acc] : llvm::enumerate(accs)) {
                Value wv = arith::SubIOp::create(
                    kb.b, kb.loc,
                    kb.loadByte(filter->base, tap, j * filter->strides[0]),
                    filterZpScalar);
                next.push_back(kb.add(acc, kb.mul(xv, wv)));
              }
              return next;
            });
      };
      forEachPixel(
          kb, outShape, *in, parts,
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
                  kb.addScaled(fv->offset, first, fv->strides[0]);
              accs = forWithAccs(
                  kb, 0, kh, 1, accs,
                  [&](KernelBuilder &kb, Value y, ValueRange accs) {
                    Value rowCopied =
                        isTapCopied(kb, guard, /*row=*/true, oh, parts.strideH,
                                    y, parts.dilationH);
                    return ifWithAccs(
                        kb, rowCopied, accs,
                        [&](KernelBuilder &kb, ValueRange accs) {
                          Value inRow = kb.addScaled(
                              pixel, y, parts.dilationH * in->strides[1]);
                          return forWithAccs(
                              kb, 0, tapsW, 1, accs,
                              [&](KernelBuilder &kb, Value x, ValueRange accs) {
                                Value columnCopied = isTapCopied(
                                    kb, guard, /*row=*/false, ow, parts.strideW,
                                    x, parts.dilationW);
                                return ifWithAccs(
                                    kb, columnCopied, accs,
                                    [&](KernelBuilder &kb, ValueRange accs) {
                                      Value inTap = kb.addScaled(
                                          inRow, x,
                                          parts.dilationW * in->strides[2]);
                                      Value filterTap = kb.addScaled(
                                          kb.addScaled(filterBlock, y,
                                                       fv->strides[1]),
                                          x, fv->strides[2]);
                                      return reduceRun(kb, inTap, filterTap,
                                                       accs);
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
    // A kernel row of a few input channels, not a multiple of 4, is one run
    // without bounds checks (a word per 4 bytes of the row) but a scalar
    // tail per tap with them: the border windows are filled and copied (as
    // the fused loop did) and read without checks too (first layers: the
    // kernel row of KWS's 10x4 convolution of one input channel is one word
    // instead of 4 scalar taps per output channel).
    bool fillBorder = numIc % 4 != 0 && kw > 1 && parts.dilationW == 1 &&
                      filter->strides[3] == 1 && filter->strides[2] == numIc &&
                      input->view.strides[3] == 1 &&
                      input->view.strides[2] == numIc;
    if (fillBorder && succeeded(emitForFilledWindow(
                          kb, rewriter, *input, parts.input,
                          [&](KernelBuilder &kb, const ByteView &view) {
                            emitKernel(kb, nullptr, view);
                          }))) {
      rewriter.eraseOp(op);
      return success();
    }
    emitForWindow(kb, *input, [&](KernelBuilder &kb, const WindowGuard *guard) {
      emitKernel(kb, guard, input->view);
    });
    eraseWindowWrites(rewriter, *input);
    rewriter.eraseOp(op);
    return success();
  }

  /// Output channels per block.
  unsigned ocBlock;
  /// LLVM's unroll count of the SIMD reduction loop (0: no annotation).
  unsigned unrollCount;
  /// Whether a widened filter's two words are one LDRD (an i64 load) or two
  /// LDRs (which a dual-issue core pairs with the SMLADs).
  bool dualLoads;
};
} // namespace

namespace {
/// Rewrites linalg.conv_2d_nhwc_hwcf[_q] (filter [KH, KW, IC, OC]; the
/// first layer of a network, or a depthwise convolution of one input
/// channel): its output channels are contiguous in the filter, so four of
/// them are widened from one filter word and each input value, corrected by
/// its zero point, multiplies all four with SMLABB/SMLABT.
template <typename ConvOp> struct ConvHwcfToDsp : Int8ConvPattern<ConvOp> {
  using Int8ConvPattern<ConvOp>::Int8ConvPattern;

  LogicalResult rewriteConv(ConvOp op, const ConvParts &parts,
                            PatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    FailureOr<ConvInput> input = getConvInput(kb, parts, op);
    if (failed(input))
      return rewriter.notifyMatchFailure(op, "dynamic strides");
    FailureOr<ByteView> filter = getByteView(kb, parts.filter);
    const ByteView *in = &input->view;
    ArrayRef<int64_t> outShape =
        cast<MemRefType>(parts.output.getType()).getShape();
    int64_t numOc = outShape[3];
    int64_t kh = filter->shape[0], kw = filter->shape[1];
    int64_t numIc = filter->shape[2];
    int64_t simdOc = filter->strides[3] == 1 ? numOc - numOc % 4 : 0;
    bool unroll = kh * kw * numIc <= kMaxUnrolledTaps;
    Value filterZp = getPackedNegation(kb, parts.filterZp);
    Value inZpScalar = kb.constant(parts.inputZp);
    Value filterZpScalar = kb.constant(parts.filterZp);
    Value output = parts.output;

    auto emitKernel = [&](KernelBuilder &kb, const WindowGuard *guard) {
      forEachPixel(
          kb, outShape, *in, parts,
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
                  kb, guard, unroll, parts, oh, ow, kh, kw, *in, pixel, *filter,
                  filterChannel, accs,
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
                          auto [wEven, wOdd] =
                              widenWord(kb, kb.loadWord(filter->base, filterAt),
                                        filterZp);
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
    emitForWindow(kb, *input, emitKernel);
    eraseWindowWrites(rewriter, *input);
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void dsp::populateConvPatterns(RewritePatternSet &patterns, unsigned ocBlock,
                               unsigned unrollCount, bool dualLoads) {
  patterns.add<ConvFhwcToDsp<linalg::Conv2DNhwcFhwcQOp>,
               ConvFhwcToDsp<linalg::Conv2DNhwcFhwcOp>>(
      patterns.getContext(), ocBlock, unrollCount, dualLoads);
  patterns.add<ConvHwcfToDsp<linalg::Conv2DNhwcHwcfQOp>,
               ConvHwcfToDsp<linalg::Conv2DNhwcHwcfOp>>(patterns.getContext());
}
