//===- MveChannelKernels.cpp - MVE vectors of the in-place depthwise ------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The MVE kernels of the in-place depthwise convolution's channel loops:
// vectors of 4 output pixels of a channel (gathers, VMLA.I32 by the weights
// read once per row loop, the vector rescale) and the copy of the channel
// back into its NHWC tensor as scatter stores. See MveInt8Kernels.cpp.
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
    VectorBuilder vb(rewriter, loc);
    FailureOr<ByteView> in = getByteView(rewriter, loc, match->source);
    FailureOr<ByteView> filter = getByteView(rewriter, loc, parts.filter);
    FailureOr<ByteView> out = getByteView(rewriter, loc, match->output);
    // The weights w - zw, with each row's sum, once per row loop.
    auto read = [&](OpBuilder &b, Location loc, int64_t ky, int64_t kx) {
      VectorBuilder vb(b, loc);
      Value at = vb.add(filter->offset, vb.constant(ky * filter->strides[0] +
                                                    kx * filter->strides[1]));
      return loadScalar(b, loc, filter->base, at, parts.filterZp);
    };
    HoistedWeights weights =
        hoistWeights(rewriter, loc, match->conv, parts, match->kh, match->kw,
                     WeightScope::RowLoop, WeightReads{nullptr, read});
    // The accumulator's start: c + B - zx sum w.
    Value init =
        vb.add(vb.constant(match->init), vb.mul(weights.sum, vb.constant(-zx)));
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

void mve::populateChannelCopyPatterns(RewritePatternSet &patterns) {
  patterns.add<ChannelCopyToMve>(patterns.getContext());
}

void mlir::memopt::populateArmMveDepthwiseChannelPatterns(
    RewritePatternSet &patterns) {
  patterns.add<DepthwiseChannelRowsToMve>(patterns.getContext());
}
