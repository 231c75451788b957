//===- DspDepthwiseRows.cpp - DSP rows of the in-place depthwise ----------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The DSP kernel of the in-place depthwise convolution's channel loops (the
// ChannelRows that MveChannelRows.cpp matches, stride 1, dilation 1): each
// output row of a channel slides its window along the row with the window's
// columns in registers, so that an output pixel reads one new column of KH
// input bytes. Rows 2j and 2j + 1 of a column are one halfword pair, which
// one SMLAD multiplies by the pair of their weights; an odd last row takes
// SMLABB/SMLABT with its weights packed along the row. Taps outside the
// channel hold the input zero point: with the zero point folded into the
// accumulator (sum (x - zx) w = sum x w - zx sum w), their products cancel,
// so no tap is tested. Which window rows and columns lie outside is known at
// compile time: the rows are split into segments of one pattern, the
// columns into the loop whose new column lies inside and the few border
// pixels emitted in line. See DspInt8Kernels.cpp.
//
//===----------------------------------------------------------------------===//

#include "DspKernels.h"
#include "HoistedWeights.h"
#include "MveKernels.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::armkernels;
using namespace mlir::memopt::armkernels::dsp;

/// The halfword pair (\p bottom, \p top) of two i32 values in [-32768,
/// 32767] (PKHBT).
static Value packPair(KernelBuilder &kb, Value bottom, Value top) {
  Value low = arith::AndIOp::create(kb.b, kb.loc, bottom, kb.constant(0xFFFF));
  Value high = arith::ShLIOp::create(kb.b, kb.loc, top, kb.constant(16));
  return arith::OrIOp::create(kb.b, kb.loc, low, high);
}

namespace {
/// How a window column is held: the pairs of rows (2j, 2j + 1) and, for an
/// odd KH, the last row alone; numPairs + (odd ? 1 : 0) i32 values.
struct ColumnLayout {
  int64_t kh;
  int64_t numPairs() const { return kh / 2; }
  bool odd() const { return kh % 2; }
  int64_t size() const { return numPairs() + (odd() ? 1 : 0); }
};

/// Rewrites the column loop of the in-place depthwise convolution's channel
/// (mve::ChannelRows, matched without the vector conditions) into rows with
/// a sliding window in registers (the file comment). The accumulator
/// starts at c + B - zx sum w (the fill, the bias and the folded zero
/// point), and the rescale is the original linalg.generic, cloned per pixel
/// with the pixel's indices and the accumulator as a scalar operand instead
/// of the buffer A: the scalar rescale patterns lower it as before. Nothing
/// else is written: the window and A stay allocated, unwritten, so the
/// arena is unchanged.
struct DepthwiseChannelRowsToDsp : OpRewritePattern<scf::ForOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(scf::ForOp columns,
                                PatternRewriter &rewriter) const override {
    std::optional<mve::ChannelRows> match =
        mve::matchChannelRows(columns, /*forVectors=*/false);
    if (!match)
      return rewriter.notifyMatchFailure(
          columns, "not the column loop of a one-channel depthwise "
                   "convolution");
    const ConvParts &parts = match->parts;
    int64_t kh = match->kh, kw = match->kw;
    if (match->sh != 1 || match->sw != 1 || parts.dilationH != 1 ||
        parts.dilationW != 1 || kh * kw > kMaxUnrolledTaps)
      return rewriter.notifyMatchFailure(
          columns, "not stride 1, dilation 1 and at most 25 taps");
    auto sourceType = cast<MemRefType>(match->source.getType());
    int64_t height = sourceType.getDimSize(1), width = sourceType.getDimSize(2);
    scf::ForOp rows = match->rows;
    int64_t rowBegin = *getConstantIntValue(rows.getLowerBound());
    int64_t rowEnd = *getConstantIntValue(rows.getUpperBound());
    int64_t colBegin = *getConstantIntValue(columns.getLowerBound());
    int64_t colEnd = *getConstantIntValue(columns.getUpperBound());
    Location loc = columns.getLoc();
    int64_t zx = parts.inputZp;

    // Checked before anything is created: the ByteViews below cannot fail.
    if (!getStaticStrides(match->source) || !getStaticStrides(parts.filter) ||
        (match->bias && !getStaticStrides(match->bias)))
      return rewriter.notifyMatchFailure(columns, "dynamic strides");

    // Per channel, before the rows: the views, the weights, the start.
    rewriter.setInsertionPoint(rows);
    KernelBuilder kb(rewriter, loc);
    FailureOr<ByteView> in = dsp::getByteView(kb, match->source);
    FailureOr<ByteView> filter = dsp::getByteView(kb, parts.filter);
    auto read = [&](OpBuilder &b, Location loc, int64_t ky,
                    int64_t kx) -> Value {
      KernelBuilder kb(b, loc);
      return arith::SubIOp::create(
          b, loc,
          kb.loadByte(filter->base, filter->offset,
                      ky * filter->strides[0] + kx * filter->strides[1]),
          kb.constant(parts.filterZp));
    };
    HoistedWeights weights =
        hoistWeights(rewriter, loc, match->conv, parts, kh, kw,
                     WeightScope::RowLoop, WeightReads{nullptr, read});
    ColumnLayout layout{kh};
    // Per window column kx: the weight pairs of rows (2j, 2j + 1); the last
    // row of an odd KH in pairs along the row (kx = 2m, 2m + 1).
    SmallVector<SmallVector<Value>> pairWeights(kw);
    for (int64_t kx = 0; kx < kw; ++kx)
      for (int64_t j = 0; j < layout.numPairs(); ++j)
        pairWeights[kx].push_back(packPair(kb, weights.getTap(2 * j, kx),
                                           weights.getTap(2 * j + 1, kx)));
    SmallVector<Value> lastRowWeights;
    for (int64_t kx = 0; layout.odd() && kx < kw; kx += 2)
      lastRowWeights.push_back(kx + 1 < kw
                                   ? packPair(kb, weights.getTap(kh - 1, kx),
                                              weights.getTap(kh - 1, kx + 1))
                                   : weights.getTap(kh - 1, kx));
    Value init =
        kb.add(kb.constant(match->init), kb.mul(weights.sum, kb.constant(-zx)));
    if (match->bias) {
      FailureOr<ByteView> bias = dsp::getByteView(kb, match->bias);
      Value at = LLVM::GEPOp::create(rewriter, loc, kb.ptr, kb.i32, bias->base,
                                     ValueRange{bias->offset});
      init = kb.add(init, LLVM::LoadOp::create(rewriter, loc, kb.i32, at, 4));
    }
    Value zeroPoint = kb.constant(zx);
    Value zeroPair = packPair(kb, zeroPoint, zeroPoint);
    Value acc = match->parts.output;

    // Which window rows lie inside the channel for output row oh.
    auto rowPattern = [&](int64_t oh) {
      SmallVector<bool> inside;
      for (int64_t ky = 0; ky < kh; ++ky) {
        int64_t y = match->originY + oh + ky;
        inside.push_back(y >= 0 && y < height);
      }
      return inside;
    };
    auto columnInside = [&](int64_t x) { return x >= 0 && x < width; };

    // Emits the rows [begin, end), all of the window-row pattern inside.
    auto emitRows = [&](int64_t begin, int64_t end, ArrayRef<bool> inside) {
      forWithAccs(
          rewriter, loc, begin, end, 1, {},
          [&](OpBuilder &b, Location loc, Value oh, ValueRange) {
            KernelBuilder kb(b, loc);
            Value ohIndex =
                arith::IndexCastOp::create(b, loc, b.getIndexType(), oh);
            // The offset of window row 0, column 0 of output (oh, 0).
            Value rowBase = kb.addScaled(
                in->offset, kb.add(oh, kb.constant(match->originY)),
                in->strides[1]);
            // Column x of the window rows (x: a constant or an i32 value).
            auto loadColumn = [&](KernelBuilder &kb, Value x,
                                  std::optional<int64_t> constantX) {
              SmallVector<Value> rowsOf;
              for (int64_t ky = 0; ky < kh; ++ky) {
                if (!inside[ky] || (constantX && !columnInside(*constantX))) {
                  rowsOf.push_back(zeroPoint);
                  continue;
                }
                Value at = kb.addScaled(rowBase, x, in->strides[2]);
                rowsOf.push_back(
                    kb.loadByte(in->base, at, ky * in->strides[1]));
              }
              SmallVector<Value> column;
              for (int64_t j = 0; j < layout.numPairs(); ++j) {
                bool zeros = !inside[2 * j] && !inside[2 * j + 1];
                column.push_back(
                    zeros ? zeroPair
                          : packPair(kb, rowsOf[2 * j], rowsOf[2 * j + 1]));
              }
              if (layout.odd())
                column.push_back(rowsOf[kh - 1]);
              return column;
            };
            // One output pixel: the window's columns \p window (kw of
            // them, flattened), then the shifted columns.
            auto emitPixel = [&](KernelBuilder &kb, Value ow,
                                 ArrayRef<Value> window) {
              Value sum = init;
              for (int64_t kx = 0; kx < kw; ++kx) {
                ArrayRef<Value> column =
                    window.slice(kx * layout.size(), layout.size());
                for (int64_t j = 0; j < layout.numPairs(); ++j)
                  sum = kb.intrinsic("llvm.arm.smlad",
                                     {column[j], pairWeights[kx][j], sum});
                if (layout.odd())
                  sum = kb.intrinsic(
                      kx % 2 ? "llvm.arm.smlabt" : "llvm.arm.smlabb",
                      {column.back(), lastRowWeights[kx / 2], sum});
              }
              IRMapping mapping;
              mapping.map(rows.getInductionVar(), ohIndex);
              mapping.map(columns.getInductionVar(),
                          arith::IndexCastOp::create(kb.b, kb.loc,
                                                     kb.b.getIndexType(), ow));
              for (Operation &op : columns.getBody()->without_terminator()) {
                if (isSkipped(&op, *match))
                  continue;
                Operation *clone = kb.b.clone(op, mapping);
                if (&op == match->rescaleOp.getOperation())
                  readScalar(cast<linalg::GenericOp>(clone), acc, sum);
              }
            };
            // The kw - 1 columns before the first new one.
            SmallVector<Value> carried;
            for (int64_t kx = 0; kx + 1 < kw; ++kx) {
              int64_t x = match->originX + colBegin + kx;
              llvm::append_range(carried, loadColumn(kb, kb.constant(x), x));
            }
            auto step = [&](KernelBuilder &kb, Value ow,
                            std::optional<int64_t> constantOw,
                            ValueRange current) {
              Value x = kb.add(ow, kb.constant(match->originX + kw - 1));
              std::optional<int64_t> constantX;
              if (constantOw)
                constantX = *constantOw + match->originX + kw - 1;
              SmallVector<Value> window(current);
              llvm::append_range(window, loadColumn(kb, x, constantX));
              emitPixel(kb, ow, window);
              return SmallVector<Value>(
                  ArrayRef<Value>(window).drop_front(layout.size()));
            };
            // The pixels whose new column lies inside form one range;
            // those before and after it are emitted in line.
            int64_t loopBegin = colEnd, loopEnd = colEnd;
            for (int64_t ow = colBegin; ow < colEnd; ++ow)
              if (columnInside(match->originX + ow + kw - 1)) {
                loopBegin = std::min(loopBegin, ow);
                loopEnd = ow + 1;
              }
            for (int64_t ow = colBegin; ow < colEnd; ++ow) {
              if (ow == loopBegin && loopEnd - loopBegin > 1) {
                carried =
                    forWithAccs(kb.b, kb.loc, loopBegin, loopEnd, 1, carried,
                                [&](OpBuilder &b, Location loc, Value ow,
                                    ValueRange current) {
                                  KernelBuilder kb(b, loc);
                                  return step(kb, ow, std::nullopt, current);
                                });
                ow = loopEnd - 1;
                continue;
              }
              carried = step(kb, kb.constant(ow), ow, carried);
            }
            return SmallVector<Value>();
          });
    };

    // The row segments of one window-row pattern, in order.
    int64_t segmentBegin = rowBegin;
    for (int64_t oh = rowBegin + 1; oh <= rowEnd; ++oh)
      if (oh == rowEnd || rowPattern(oh) != rowPattern(segmentBegin)) {
        emitRows(segmentBegin, oh, rowPattern(segmentBegin));
        segmentBegin = oh;
      }
    rewriter.eraseOp(rows);
    return success();
  }

  /// Makes the rescale \p generic read the i32 \p value (a scalar operand)
  /// instead of the accumulator buffer \p acc.
  static void readScalar(linalg::GenericOp generic, Value acc, Value value) {
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    for (OpOperand *input : generic.getDpsInputOperands()) {
      if (input->get() != acc)
        continue;
      input->set(value);
      maps[input->getOperandNumber()] =
          AffineMap::get(generic.getNumLoops(), 0, generic.getContext());
    }
    generic.setIndexingMapsAttr(
        Builder(generic.getContext()).getAffineMapArrayAttr(maps));
  }

  /// Whether \p op of the column loop's body is replaced (the window's
  /// writes, the accumulator's fill, the convolution and the bias).
  static bool isSkipped(Operation *op, const mve::ChannelRows &match) {
    return op == match.conv || op == match.fill || op == match.biasOp ||
           isa<linalg::FillOp, linalg::CopyOp>(op) ||
           (isa<memref::SubViewOp>(op) &&
            op != linalg::GenericOp(match.rescaleOp)
                      .getDpsInits()[0]
                      .getDefiningOp());
  }
};

/// Rewrites a linalg.copy of int8 from a contiguous one-channel buffer
/// (1 x H x W x 1, the in-place depthwise convolution's channel) into a
/// view with a uniform pixel stride C (a channel of an NHWC tensor: rows
/// W * C bytes apart) that does not overlap it: per kCopyBytes pixels, word
/// loads of the contiguous bytes and one byte store per pixel of the
/// shifted word, then the remaining pixels the same way in line.
struct ChannelCopyToDsp : OpRewritePattern<linalg::CopyOp> {
  using OpRewritePattern::OpRewritePattern;

  /// Pixels per iteration of the copy loop (two words).
  static constexpr int64_t kCopyBytes = 8;

  LogicalResult matchAndRewrite(linalg::CopyOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<ChannelCopy> copy = matchChannelCopy(op, kCopyBytes);
    if (!copy)
      return rewriter.notifyMatchFailure(
          op, "not a contiguous int8 channel copied into a uniformly strided, "
              "disjoint one");
    Value source = copy->source, target = copy->target;
    int64_t pixels = copy->pixels, stride = copy->stride;
    Location loc = op.getLoc();
    KernelBuilder kb(rewriter, loc);
    FailureOr<ByteView> from = dsp::getByteView(kb, source);
    FailureOr<ByteView> to = dsp::getByteView(kb, target);
    // Pixels [first, first + count), count <= 4, from one word.
    auto copyWord = [&](KernelBuilder &kb, Value first, int64_t skip,
                        int64_t count) {
      Value word = kb.loadWord(from->base, kb.add(from->offset, first), skip);
      Value at = kb.addScaled(to->offset, first, stride);
      for (int64_t i = 0; i < count; ++i) {
        Value byte =
            i ? arith::ShRUIOp::create(kb.b, kb.loc, word, kb.constant(8 * i))
              : word;
        byte = arith::TruncIOp::create(kb.b, kb.loc, kb.i8, byte);
        LLVM::StoreOp::create(kb.b, kb.loc, byte,
                              kb.address(to->base, at, (skip + i) * stride), 1);
      }
    };
    int64_t looped = pixels - pixels % kCopyBytes;
    forWithAccs(rewriter, loc, 0, looped, kCopyBytes, {},
                [&](OpBuilder &b, Location loc, Value first, ValueRange) {
                  KernelBuilder kb(b, loc);
                  for (int64_t word = 0; word < kCopyBytes; word += 4)
                    copyWord(kb, first, word, 4);
                  return SmallVector<Value>();
                });
    for (int64_t word = looped; word < pixels; word += 4)
      copyWord(kb, kb.constant(looped), word - looped,
               std::min<int64_t>(4, pixels - word));
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void dsp::populateDepthwiseRowsPatterns(RewritePatternSet &patterns,
                                        bool channelCopies) {
  patterns.add<DepthwiseChannelRowsToDsp>(patterns.getContext());
  if (channelCopies)
    patterns.add<ChannelCopyToDsp>(patterns.getContext());
}
