//===- MveRescale.cpp - MVE kernel of rescales ----------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The matching of a lowered per-pixel tosa.rescale to int8 (tosa-to-arith's
// 64-bit rounding multiply) and its vector form, four channels per vector
// (VMULH.S32, VRSHL.S32, VMAX/VMIN, VSTRB.32), bit-exact: the kernel of the
// rescale generics, and the rescale of the in-place depthwise convolution's
// channel vectors (MveChannelKernels.cpp). See MveInt8Kernels.cpp.
//
//===----------------------------------------------------------------------===//

#include "ApplyScale.h"
#include "MveKernels.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::armkernels;
using namespace mlir::memopt::armkernels::mve;

std::optional<int64_t> mve::getConstantInt(Value value) {
  APInt constant;
  if (!matchPattern(value, m_ConstantInt(&constant)))
    return std::nullopt;
  return constant.getSExtValue();
}

std::optional<RescaleParts> mve::matchRescaleBody(linalg::GenericOp op) {
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
  std::optional<ApplyScaleParts> scale =
      toI32 ? matchApplyScale(toI32) : std::nullopt;
  if (!scale)
    return std::nullopt;
  parts.acc = scale->value;
  parts.multiplier = scale->multiplier;
  parts.shift = scale->shift;
  parts.doubleRound = scale->doubleRound;
  return parts;
}

std::optional<ChannelOperand> mve::getChannelOperand(linalg::GenericOp op,
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

bool mve::hasVectorRescaleConstants(const ChannelOperand &multiplier,
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

Value mve::emitRescale(VectorBuilder &vb, const RescaleParts &rescale, Value a,
                       Value m, Value s) {
  return arith::TruncIOp::create(
      vb.b, vb.loc,
      VectorType::get(cast<VectorType>(a.getType()).getShape(), vb.i8),
      emitRescaleLanes(vb, rescale, a, m, s));
}

Value mve::emitRescaleLanes(VectorBuilder &vb, const RescaleParts &rescale,
                            Value a, Value m, Value s) {
  constexpr int64_t lanes = 4;
  OpBuilder &b = vb.b;
  Location loc = vb.loc;
  auto vecType = VectorType::get({lanes}, vb.i32);
  Value t;
  if (rescale.doubleRound) {
    // VQRDMULH.S32: SRDHM(a, m) = floor((a m + 2^30) / 2^31) (it saturates
    // only for a = m = INT32_MIN), then t - 1 where a < 0 (VSHR, VADD).
    t = LLVM::CallIntrinsicOp::create(
            b, loc, vecType, b.getStringAttr("llvm.arm.mve.vqrdmulh.v4i32"),
            ValueRange{a, m})
            ->getResult(0);
    t = vb.add(t, arith::ShRSIOp::create(b, loc, a, vb.splat(31, lanes)));
  } else {
    // VMULH.S32 through its intrinsic: the high words of a * m. (LLVM
    // folds the same from a 64-bit multiply into (P >> 31), which it
    // does not vectorize.)
    Value hi = LLVM::CallIntrinsicOp::create(
                   b, loc, vecType, b.getStringAttr("llvm.arm.mve.vmulh.v4i32"),
                   ValueRange{a, m, vb.constant(0)})
                   ->getResult(0);
    Value lo = vb.mul(a, m);
    t = arith::OrIOp::create(
        b, loc, arith::ShLIOp::create(b, loc, hi, vb.splat(1, lanes)),
        arith::ShRUIOp::create(b, loc, lo, vb.splat(31, lanes)));
  }
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
  return arith::MinSIOp::create(b, loc, y, vb.splat(rescale.hi, lanes));
}

namespace {
/// Rewrites the linalg.generic of a per-pixel rescale from int32 to int8
/// over C >= 4 channels (loops 1 x ... x 1 x C) whose shifts are constants
/// in [32, 62] and whose multipliers are constants other than INT32_MIN
/// into vectors of 4 channels: t = floor(Q / 2^31), which fits in 32 bits
/// since |a m| < 2^62, then one rounding shift right of t by s - 31 in
/// [1, 31] (VRSHL.S32 by the per-lane amount 31 - s, whose sum does not
/// overflow), the zero point, the clamp (VMAX, VMIN) and a narrowing store
/// (VSTRB.32).
///  - SINGLE_ROUND: with P = a * m (VMULH.S32 for the high word, VMUL.I32
///    for the low one), Q = P and t = (hi << 1) | (lo >> 31):
///      round(P / 2^s) = floor((P + 2^(s-1)) / 2^s)
///                     = floor((t + 2^(s-32)) / 2^(s-31)),
///    because P = t 2^31 + r with 0 <= r < 2^31, and r / 2^31 < 1 added to
///    the integer t + 2^(s-32) does not change the quotient's floor.
///  - DOUBLE_ROUND: TOSA's floor((P + 2^(s-1) + 2^30 - [a < 0] 2^31) / 2^s),
///    which is TFLite's MultiplyByQuantizedMultiplier with shift 31 - s,
///    takes t = SRDHM(a, m) - [a < 0] (VQRDMULH.S32, whose
///    floor((P + 2^30) / 2^31) saturates only for a = m = INT32_MIN; VSHR
///    #31 and VADD): the same argument with Q = P + 2^30 - [a < 0] 2^31.
///    t - 1 does not wrap: t >= -2^31 + 1.
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
    // The accumulator is the operand that is not constant (DOUBLE_ROUND
    // names it: the value whose sign it takes).
    if (!getConstantValues(*multiplier)) {
      if (rescale->doubleRound)
        return rewriter.notifyMatchFailure(op, "multiplier not constant");
      std::swap(acc, multiplier);
    }
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
} // namespace

void mve::populateRescalePatterns(RewritePatternSet &patterns) {
  patterns.add<RescaleToMve>(patterns.getContext());
}
