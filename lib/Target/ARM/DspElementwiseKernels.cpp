//===- DspElementwiseKernels.cpp - DSP rescale and clamp ------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The DSP kernels of elementwise ops: a lowered tosa.rescale's 64-bit
// rounding multiply as one SMULL (SMLAL for TFLite's double rounding) and
// 32-bit shifts, and an int8 clamp four
// bytes at a time (SSUB8, SEL). See DspInt8Kernels.cpp.
//
//===----------------------------------------------------------------------===//

#include "ApplyScale.h"
#include "DspKernels.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::armkernels;
using namespace mlir::memopt::armkernels::dsp;

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
/// Rewrites the 64-bit rounding multiply of a lowered tosa.rescale
/// (matchApplyScale) into 32-bit operations when every shift s is in
/// [32, 62] and no multiplier is INT32_MIN (both read from constants). With
/// P = a * m (|P| < 2^62) and t = floor(Q / 2^31), which fits in 32 bits,
/// both modes are a rounding shift of t right by e = s - 31 in [1, 31]:
///   round(t / 2^e) = floor((t + 2^(e-1)) / 2^e) = (y >> 1) + (y & 1),
///   y = t >> (s - 32),
/// because floor((h + 2^(k-1)) / 2^k) = floor(h / 2^k) + bit k-1 of h; the
/// shifts are in [0, 31] and nothing overflows.
///  - SINGLE_ROUND (an i8 shift; a constant one stays 64-bit, whose
///    constant shifts cost less): Q = P, t = (hi << 1) | (lo >> 31) from
///    one SMULL (lo, hi), and
///      floor((P + 2^(s-1)) / 2^s) = floor((t + 2^(s-32)) / 2^(s-31))
///    since the bits of P below 2^31 do not carry into the sum's quotient.
///  - DOUBLE_ROUND (an i8 or a constant shift): TOSA's
///      floor((P + 2^(s-1) + 2^30 - [a < 0] 2^31) / 2^s)
///    (TFLite's MultiplyByQuantizedMultiplier with shift 31 - s: the high
///    multiply SRDHM(a, m) = floor((P + 2^30) / 2^31), then RoundingDivide
///    ByPOT by e, halves away from zero) is the same rounding shift of
///      t = floor(Q / 2^31),  Q = P + 2^30 - [a < 0] 2^31
///    (= SRDHM(a, m) - [a < 0]): the terms 2^(s-1) and 2^31 are multiples
///    of 2^31, so the division by 2^31 floors first. Q comes from one SMLAL
///    onto the accumulator (2^30 | sm << 31, sm), sm = a >> 31. When every
///    shift is above 32, y = floor(Q / 2^(s-1)) is directly the high word
///    of Q shifted right by s - 33, as many instructions as SINGLE_ROUND.
///    t >= -2^31 + 1 fits as |P| < 2^62.
struct RescaleTo32Bit : OpRewritePattern<arith::TruncIOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncIOp trunc,
                                PatternRewriter &rewriter) const override {
    std::optional<ApplyScaleParts> parts = matchApplyScale(trunc);
    if (!parts)
      return failure();
    bool constantShift = !parts->shift.getType().isInteger(8);
    if (constantShift && !parts->doubleRound)
      return rewriter.notifyMatchFailure(trunc, "constant single-round shift");
    // The multiplier and the shift must be known: constants.
    std::optional<SmallVector<int64_t>> shifts =
        getConstantValues(parts->shift);
    if (!shifts || llvm::any_of(*shifts, [&](int64_t s) {
          int64_t unsignedShift = constantShift ? s : s & 0xFF;
          return unsignedShift < 32 || unsignedShift > 62;
        }))
      return rewriter.notifyMatchFailure(trunc, "shift not in [32, 62]");
    Value multiplier = parts->multiplier;
    Value accumulator = parts->value;
    std::optional<SmallVector<int64_t>> multipliers =
        getConstantValues(multiplier);
    if (!multipliers && !parts->doubleRound) {
      std::swap(multiplier, accumulator);
      multipliers = getConstantValues(multiplier);
    }
    if (!multipliers || llvm::is_contained(*multipliers, INT32_MIN))
      return rewriter.notifyMatchFailure(trunc, "multiplier not known");

    KernelBuilder kb(rewriter, trunc.getLoc());
    // t and the shift of y = t >> excess.
    Value t;
    int64_t bias = 32;
    if (parts->doubleRound) {
      // Q = P + 2^30 - [a < 0] 2^31 from one SMLAL whose accumulator is
      // (lo, hi) = (2^30 | sm << 31, sm), sm = a >> 31: an ASR and an ORR.
      Type i64 = rewriter.getI64Type();
      auto constant64 = [&](int64_t value) -> Value {
        return arith::ConstantIntOp::create(rewriter, kb.loc, i64, value);
      };
      auto widen = [&](Value v) -> Value {
        return v.getType().isInteger(64)
                   ? v
                   : arith::ExtSIOp::create(rewriter, kb.loc, i64, v);
      };
      Value a = widen(accumulator);
      Value signMask =
          arith::ShRSIOp::create(rewriter, kb.loc, a, constant64(63));
      Value nudge = arith::OrIOp::create(
          rewriter, kb.loc,
          arith::ShLIOp::create(rewriter, kb.loc, signMask, constant64(31)),
          constant64(1 << 30));
      Value q = arith::AddIOp::create(
          rewriter, kb.loc,
          arith::MulIOp::create(rewriter, kb.loc, a, widen(multiplier)), nudge);
      // Every shift above 32: y = floor(Q / 2^(s-1)) is the high word
      // shifted by s - 33. Else t = floor(Q / 2^31) = (hi << 1) | (lo >> 31).
      bool highWord = llvm::all_of(*shifts, [&](int64_t s) {
        return (constantShift ? s : s & 0xFF) >= 33;
      });
      bias = highWord ? 33 : 32;
      t = arith::TruncIOp::create(
          rewriter, kb.loc, kb.i32,
          arith::ShRUIOp::create(rewriter, kb.loc, q,
                                 constant64(highWord ? 32 : 31)));
    } else {
      if (!multiplier.getType().isInteger(32))
        multiplier = kb.constant(multipliers->front());
      auto wide = arith::MulSIExtendedOp::create(rewriter, kb.loc, accumulator,
                                                 multiplier);
      t = arith::OrIOp::create(
          rewriter, kb.loc,
          arith::ShLIOp::create(rewriter, kb.loc, wide.getHigh(),
                                kb.constant(1)),
          arith::ShRUIOp::create(rewriter, kb.loc, wide.getLow(),
                                 kb.constant(31)));
    }
    Value excess =
        constantShift
            ? kb.constant(shifts->front() - bias)
            : arith::SubIOp::create(rewriter, kb.loc,
                                    arith::ExtUIOp::create(
                                        rewriter, kb.loc, kb.i32, parts->shift),
                                    kb.constant(bias))
                  .getResult();
    // y = t >> (s - 32) once: t >> (s - 31) is y >> 1 and the rounding bit
    // is y & 1.
    Value y = arith::ShRSIOp::create(rewriter, kb.loc, t, excess);
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

void dsp::populateElementwisePatterns(RewritePatternSet &patterns) {
  patterns.add<RescaleTo32Bit, ClampToDsp>(patterns.getContext());
}
