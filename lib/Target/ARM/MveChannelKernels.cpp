//===- MveChannelKernels.cpp - MVE vectors of the in-place depthwise ------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The MVE kernels of the in-place depthwise convolution's channel loops:
// vectors of 4 output pixels of a channel (gathers, VMLA.I32 by the weights
// read once per row loop, the vector rescale), along a row, or along a
// column in bands of 4 rows on maps of few columns; and the copy of the
// channel back into its NHWC tensor as scatter stores. See
// MveInt8Kernels.cpp.
//
//===----------------------------------------------------------------------===//

#include "MveKernels.h"

#include "HoistedWeights.h"
#include "MemOpt/Target/ARM/Passes.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::armkernels;
using namespace mlir::memopt::armkernels::mve;

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

/// The 4 input bytes at \p at + \p offsets, sign-extended to i32 lanes (a
/// gather, VLDRB.S32 with a vector of offsets); with \p mask, only its
/// active lanes are read (VPST; VLDRBT), the others are 0.
static Value gatherBytes(OpBuilder &b, Location loc, Value at, Value offsets,
                         Value mask = {}) {
  VectorBuilder vb(b, loc);
  auto type = VectorType::get({kPixelLanes}, vb.i32);
  SmallVector<Value> operands{at, offsets, vb.constant(8), vb.constant(0),
                              vb.constant(0)};
  StringRef name = "llvm.arm.mve.vldr.gather.offset.v4i32.p0.v4i32";
  if (mask) {
    operands.push_back(mask);
    name = "llvm.arm.mve.vldr.gather.offset.predicated.v4i32.p0.v4i32.v4i1";
  }
  return LLVM::CallIntrinsicOp::create(b, loc, type, b.getStringAttr(name),
                                       operands)
      ->getResult(0);
}

/// Stores the low bytes of the i32 lanes \p values at \p at + \p offsets
/// (a scatter, VSTRB.32 with a vector of offsets).
static void scatterBytes(OpBuilder &b, Location loc, Value at, Value offsets,
                         Value values) {
  VectorBuilder vb(b, loc);
  LLVM::CallIntrinsicOp::create(
      b, loc,
      b.getStringAttr("llvm.arm.mve.vstr.scatter.offset.p0.v4i32.v4i32"),
      ValueRange{at, offsets, values, vb.constant(8), vb.constant(0)});
}

namespace {
/// What the channel vectors read once per channel, before its row loop.
struct ChannelSetup {
  /// The source channel, the filter and the output channel.
  ByteView in, filter, out;
  /// The weights w - zw, with each row's sum and their total.
  HoistedWeights weights;
  /// The accumulator's start c + B - zx sum w.
  Value init;
  /// The rescale's multiplier and shift, splat over kPixelLanes lanes.
  Value multiplier, shift;
};
} // namespace

/// Emits the ChannelSetup of \p match at the insertion point (before its
/// row loop). matchChannelRows checked that the memrefs have static
/// strides.
static ChannelSetup emitChannelSetup(PatternRewriter &rewriter, Location loc,
                                     const ChannelRows &match) {
  const ConvParts &parts = match.parts;
  VectorBuilder vb(rewriter, loc);
  ChannelSetup setup;
  setup.in = *getByteView(rewriter, loc, match.source);
  setup.filter = *getByteView(rewriter, loc, parts.filter);
  setup.out = *getByteView(rewriter, loc, match.output);
  const ByteView &filter = setup.filter;
  auto read = [&](OpBuilder &b, Location loc, int64_t ky, int64_t kx) {
    VectorBuilder vb(b, loc);
    Value at = vb.add(filter.offset, vb.constant(ky * filter.strides[0] +
                                                 kx * filter.strides[1]));
    return loadScalar(b, loc, filter.base, at, parts.filterZp);
  };
  setup.weights =
      hoistWeights(rewriter, loc, match.conv, parts, match.kh, match.kw,
                   WeightScope::RowLoop, WeightReads{nullptr, read});
  setup.init = vb.add(vb.constant(match.init),
                      vb.mul(setup.weights.sum, vb.constant(-parts.inputZp)));
  if (match.bias) {
    ByteView bias = *getByteView(rewriter, loc, match.bias);
    setup.init = vb.add(
        setup.init,
        LLVM::LoadOp::create(rewriter, loc, vb.i32,
                             vb.address(bias.base, bias.offset, vb.i32), 4));
  }
  // One multiplier and one shift for the channel.
  auto readScalar = [&](const ChannelOperand &operand, Type element) -> Value {
    if (operand.constant)
      return vb.splat(element.isInteger(8) ? (*operand.constant & 0xFF)
                                           : *operand.constant,
                      kPixelLanes);
    ByteView view = *getByteView(rewriter, loc, operand.memref);
    Value scalar = LLVM::LoadOp::create(
        rewriter, loc, element, vb.address(view.base, view.offset, element),
        element.getIntOrFloatBitWidth() / 8);
    if (element.isInteger(8))
      scalar = arith::ExtUIOp::create(rewriter, loc, vb.i32, scalar);
    return vector::BroadcastOp::create(
        rewriter, loc, VectorType::get({kPixelLanes}, vb.i32), scalar);
  };
  setup.multiplier = readScalar(match.multiplier, vb.i32);
  setup.shift = readScalar(match.shift, vb.i8);
  return setup;
}

namespace {
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
    ChannelSetup setup = emitChannelSetup(rewriter, loc, *match);
    const ByteView *in = &setup.in, *out = &setup.out;
    const HoistedWeights &weights = setup.weights;
    Value init = setup.init;

    // The columns: the left border, the vectors, the right border.
    rewriter.setInsertionPoint(columns);
    VectorBuilder vb(rewriter, loc);
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
                Value x = gatherBytes(b, loc, at, offsets);
                Value w = vector::BroadcastOp::create(b, loc, offsetType,
                                                      weights.getTap(ky, kx));
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
                          skipped = vb.add(acc, vector::BroadcastOp::create(
                                                    b, loc, offsetType,
                                                    vb.mul(weights.rowSums[ky],
                                                           vb.constant(zx))));
                        scf::YieldOp::create(b, loc, skipped);
                      })
                      .getResult(0);
          }
          Value bytes = emitRescale(vb, match->rescale, acc, setup.multiplier,
                                    setup.shift);
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

/// Rewrites the channel loops (ChannelRows) that DepthwiseChannelRowsToMve
/// leaves because fewer than 4 of their columns are interior (DS-CNN's maps
/// of 5 columns: 3), when they have at least 4 output rows and few columns,
/// into bands of 4 output rows whose columns are all in line: the vectors
/// hold 4 output pixels of one column, one per row. Along the band, each
/// input column is gathered once per window row (the 4 input bytes sh rows
/// apart, VLDRB.S32 with a vector of offsets) and multiplied into the
/// accumulator of every output column whose window holds it (VMLA.I32 by
/// the tap's weight): with stride 1, KH gathers per output column instead
/// of KH * KW. An output column whose last input column is read is
/// rescaled and stored into the output channel by a scatter (VSTRB.32 with
/// a vector of offsets, one output row apart). The bands start every 4
/// rows; the last one overlaps the one before when the rows are not a
/// multiple of 4 (it recomputes the same bytes).
///
/// Nothing is tested at run time. The input zero point is folded into the
/// accumulator's start (sum (x - zx) w = sum x w - zx sum w, modulo 2^32 as
/// the op's int32 sums), so a tap outside the channel must read zx, and
/// which taps lie outside is known at compile time: an input column outside
/// is not read, and zx times the weights of its taps goes into the start of
/// the output columns whose windows hold it. The bands of one pattern of
/// lanes inside per window row form a loop (the interior) or are emitted in
/// line (the border bands): a window row inside for some lanes only is read
/// by a predicated gather (VPST; VLDRBT, the other lanes are not read)
/// whose inactive lanes become zx (VPSEL); one inside for no lane is not
/// read, its zx w in the start.
///
/// The weights, the bias and the rescale's multiplier and shift are read
/// once per channel. Nothing is written but the output channel: the window
/// and the accumulator stay allocated, unwritten, so the arena is unchanged.
struct DepthwiseChannelColumnsToMve : OpRewritePattern<scf::ForOp> {
  using OpRewritePattern::OpRewritePattern;

  /// The most multiply-accumulates of one band (its code is in line).
  static constexpr int64_t kMaxBandTaps = 8 * kMaxUnrolledTaps;

  LogicalResult matchAndRewrite(scf::ForOp columns,
                                PatternRewriter &rewriter) const override {
    std::optional<ChannelRows> match =
        matchChannelRows(columns, /*forVectors=*/false);
    if (!match)
      return rewriter.notifyMatchFailure(
          columns, "not the column loop of a one-channel depthwise "
                   "convolution");
    scf::ForOp rows = match->rows;
    int64_t rowBegin = *getConstantIntValue(rows.getLowerBound());
    int64_t rowEnd = *getConstantIntValue(rows.getUpperBound());
    int64_t colBegin = *getConstantIntValue(columns.getLowerBound());
    int64_t colEnd = *getConstantIntValue(columns.getUpperBound());
    int64_t kh = match->kh, kw = match->kw;
    if (match->interiorEnd - match->interiorBegin >= kPixelLanes ||
        rowEnd - rowBegin < kPixelLanes ||
        kh * kw * (colEnd - colBegin) > kMaxBandTaps ||
        !hasVectorRescaleConstants(match->multiplier, match->shift))
      return rewriter.notifyMatchFailure(
          columns, "not fewer than 4 interior columns, at least 4 rows, at "
                   "most 216 taps per band and a vector rescale");
    int64_t zx = match->parts.inputZp;
    Location loc = columns.getLoc();
    auto sourceType = cast<MemRefType>(match->source.getType());
    int64_t height = sourceType.getDimSize(1), width = sourceType.getDimSize(2);

    // Per channel, before the rows.
    rewriter.setInsertionPoint(rows);
    ChannelSetup setup = emitChannelSetup(rewriter, loc, *match);
    const ByteView &in = setup.in, &out = setup.out;
    const HoistedWeights &weights = setup.weights;
    VectorBuilder vb(rewriter, loc);
    int64_t rowStride = in.strides[1], pixelStride = in.strides[2];
    Value inOffsets = getLaneOffsets(rewriter, loc, match->sh * rowStride);
    Value outOffsets = getLaneOffsets(rewriter, loc, out.strides[1]);
    auto vecType = VectorType::get({kPixelLanes}, vb.i32);
    Value zeroPoints = vb.splat(zx, kPixelLanes);

    // Which lanes of the band that starts at output row start lie inside
    // the channel at window row ky (bit l: lane l).
    auto lanePattern = [&](int64_t start) {
      SmallVector<unsigned> lanes;
      for (int64_t ky = 0; ky < kh; ++ky) {
        unsigned bits = 0;
        for (int64_t lane = 0; lane < kPixelLanes; ++lane) {
          int64_t y = match->originY + match->sh * (start + lane) + ky;
          if (y >= 0 && y < height)
            bits |= 1u << lane;
        }
        lanes.push_back(bits);
      }
      return lanes;
    };
    constexpr unsigned kAllLanes = (1u << kPixelLanes) - 1;
    // The input column of tap kx of output column ow.
    auto inputColumn = [&](int64_t ow, int64_t kx) {
      return match->originX + match->sw * ow + kx;
    };
    auto isInside = [&](int64_t x) { return x >= 0 && x < width; };

    // The band of 4 output rows from \p start (an i32 value) whose lanes
    // \p lanes lie inside per window row.
    auto emitBand = [&](OpBuilder &b, Location loc, Value start,
                        ArrayRef<unsigned> lanes) {
      VectorBuilder vb(b, loc);
      Value firstRow =
          addScaled(b, loc, vb.constant(match->originY), start, match->sh);
      Value rowBase = addScaled(b, loc, in.offset, firstRow, rowStride);
      // Each output column's accumulator, from c + B - zx sum w plus zx
      // times the weights of its taps outside.
      SmallVector<Value> accs;
      for (int64_t ow = colBegin; ow < colEnd; ++ow) {
        Value init = setup.init;
        for (int64_t ky = 0; ky < kh; ++ky)
          for (int64_t kx = 0; kx < kw; ++kx)
            if (zx != 0 && (lanes[ky] == 0 || !isInside(inputColumn(ow, kx))))
              init = vb.add(init,
                            vb.mul(weights.getTap(ky, kx), vb.constant(zx)));
        accs.push_back(vector::BroadcastOp::create(b, loc, vecType, init));
      }
      // The window rows' masks (null: every lane inside).
      SmallVector<Value> masks;
      for (int64_t ky = 0; ky < kh; ++ky) {
        if (lanes[ky] == 0 || lanes[ky] == kAllLanes) {
          masks.push_back(Value());
          continue;
        }
        auto maskType = VectorType::get({kPixelLanes}, b.getI1Type());
        SmallVector<bool> bits;
        for (int64_t lane = 0; lane < kPixelLanes; ++lane)
          bits.push_back(lanes[ky] >> lane & 1);
        masks.push_back(arith::ConstantOp::create(
            b, loc, maskType, DenseElementsAttr::get(maskType, bits)));
      }
      // The input columns in order; an output column is finished after
      // its last input column inside.
      int64_t firstX = std::max<int64_t>(0, inputColumn(colBegin, 0));
      int64_t lastX = std::min(width - 1, inputColumn(colEnd - 1, kw - 1));
      for (int64_t x = firstX; x <= lastX; ++x) {
        for (int64_t ky = 0; ky < kh; ++ky) {
          if (lanes[ky] == 0)
            continue;
          Value g;
          for (int64_t ow = colBegin; ow < colEnd; ++ow) {
            int64_t kx = x - inputColumn(ow, 0);
            if (kx < 0 || kx >= kw)
              continue;
            if (!g) {
              Value at = vb.add(rowBase, vb.constant(ky * rowStride +
                                                     x * pixelStride));
              g = gatherBytes(b, loc, vb.address(in.base, at, vb.i8),
                              inOffsets, masks[ky]);
              if (masks[ky])
                g = arith::SelectOp::create(b, loc, masks[ky], g, zeroPoints);
            }
            Value w = vector::BroadcastOp::create(b, loc, vecType,
                                                  weights.getTap(ky, kx));
            accs[ow - colBegin] = vb.add(accs[ow - colBegin], vb.mul(g, w));
          }
        }
        for (int64_t ow = colBegin; ow < colEnd; ++ow) {
          int64_t last = std::min(width - 1, inputColumn(ow, kw - 1));
          if (last != x)
            continue;
          Value values =
              emitRescaleLanes(vb, match->rescale, accs[ow - colBegin],
                               setup.multiplier, setup.shift);
          Value at = getOutputOffset(b, loc, out, vb.constant(0), start,
                                     vb.constant(ow), vb.constant(0));
          scatterBytes(b, loc, vb.address(out.base, at, vb.i8), outOffsets,
                       values);
        }
      }
    };

    // The bands' first rows: every 4 rows, the last one moved back; the
    // bands after one of the same pattern, every 4 rows, are its loop.
    SmallVector<int64_t> starts;
    for (int64_t start = rowBegin; start < rowEnd; start += kPixelLanes)
      starts.push_back(std::min(start, rowEnd - kPixelLanes));
    for (size_t first = 0; first < starts.size();) {
      SmallVector<unsigned> lanes = lanePattern(starts[first]);
      size_t last = first;
      while (last + 1 < starts.size() &&
             starts[last + 1] == starts[last] + kPixelLanes &&
             lanePattern(starts[last + 1]) == lanes)
        ++last;
      forWithAccs(rewriter, loc, starts[first], starts[last] + kPixelLanes,
                  kPixelLanes, {},
                  [&](OpBuilder &b, Location loc, Value start, ValueRange) {
                    emitBand(b, loc, start, lanes);
                    return SmallVector<Value>();
                  });
      first = last + 1;
    }
    rewriter.eraseOp(rows);
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
    std::optional<ChannelCopy> copy = matchChannelCopy(op, kPixelLanes);
    if (!copy)
      return rewriter.notifyMatchFailure(
          op, "not a contiguous int8 channel copied into a uniformly strided, "
              "disjoint one");
    Value source = copy->source, target = copy->target;
    int64_t pixels = copy->pixels, stride = copy->stride;
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
          scatterBytes(b, loc, at, offsets, values);
          return SmallVector<Value>();
        });
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void mve::populateChannelCopyPatterns(RewritePatternSet &patterns) {
  patterns.add<ChannelCopyToMve>(patterns.getContext());
}

void mlir::memopt::populateArmMveDepthwiseChannelPatterns(
    RewritePatternSet &patterns) {
  patterns.add<DepthwiseChannelRowsToMve, DepthwiseChannelColumnsToMve>(
      patterns.getContext());
}
