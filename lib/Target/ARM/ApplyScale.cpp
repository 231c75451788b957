//===- ApplyScale.cpp - Matching a lowered tosa.apply_scale ---------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//

#include "ApplyScale.h"

#include "Int8KernelUtils.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::armkernels;

/// Returns the constant integer \p value, if it is one.
static std::optional<int64_t> getConstant(Value value) {
  APInt constant;
  if (!matchPattern(value, m_ConstantInt(&constant)))
    return std::nullopt;
  return constant.getSExtValue();
}

/// Returns the operands of \p value if it is an arith.addi, else nothing.
static std::optional<std::pair<Value, Value>> getAddends(Value value) {
  auto add = value.getDefiningOp<arith::AddIOp>();
  if (!add)
    return std::nullopt;
  return std::make_pair(add.getLhs(), add.getRhs());
}

/// Returns the i32 value whose sign \p value picks: a select of +2^30 if
/// a >= 0 (or -2^30 if a < 0) and the other otherwise.
static Value getDoubleRoundSign(Value value) {
  auto select = value.getDefiningOp<arith::SelectOp>();
  if (!select)
    return {};
  auto cmp = select.getCondition().getDefiningOp<arith::CmpIOp>();
  std::optional<int64_t> ifTrue = getConstant(select.getTrueValue());
  std::optional<int64_t> ifFalse = getConstant(select.getFalseValue());
  std::optional<int64_t> bound = cmp ? getConstant(cmp.getRhs()) : std::nullopt;
  if (!cmp || !ifTrue || !ifFalse || !bound ||
      !cmp.getLhs().getType().isInteger(32))
    return {};
  // a >= 0 (canonicalization writes it a > -1) or a < 0 (a <= -1).
  arith::CmpIPredicate predicate = cmp.getPredicate();
  bool nonNegative = (predicate == arith::CmpIPredicate::sge && *bound == 0) ||
                     (predicate == arith::CmpIPredicate::sgt && *bound == -1);
  bool negativeTest = (predicate == arith::CmpIPredicate::slt && *bound == 0) ||
                      (predicate == arith::CmpIPredicate::sle && *bound == -1);
  constexpr int64_t half = int64_t(1) << 30;
  bool positive = nonNegative && *ifTrue == half && *ifFalse == -half;
  bool negative = negativeTest && *ifTrue == -half && *ifFalse == half;
  return positive || negative ? cmp.getLhs() : Value();
}

/// Fills the value and multiplier of \p parts from \p product, extsi(a) *
/// extsi(m) or extsi(a) * constant.
static bool matchProduct(Value product, ApplyScaleParts &parts) {
  auto mul = product.getDefiningOp<arith::MulIOp>();
  if (!mul)
    return false;
  auto lhs = mul.getLhs().getDefiningOp<arith::ExtSIOp>();
  if (!lhs || !lhs.getIn().getType().isInteger(32))
    return false;
  parts.value = lhs.getIn();
  if (auto rhs = mul.getRhs().getDefiningOp<arith::ExtSIOp>()) {
    if (!rhs.getIn().getType().isInteger(32))
      return false;
    parts.multiplier = rhs.getIn();
    return true;
  }
  std::optional<int64_t> multiplier = getConstant(mul.getRhs());
  if (!multiplier || *multiplier < INT32_MIN || *multiplier > INT32_MAX)
    return false;
  parts.multiplier = mul.getRhs();
  return true;
}

/// Whether \p value is (1 << extui(\p shift)) >> 1 in i64.
static bool isHalfPower(Value value, Value shift) {
  auto half = value.getDefiningOp<arith::ShRUIOp>();
  if (!half || getConstant(half.getRhs()) != 1)
    return false;
  auto power = half.getLhs().getDefiningOp<arith::ShLIOp>();
  auto ext =
      power ? power.getRhs().getDefiningOp<arith::ExtUIOp>() : arith::ExtUIOp();
  return ext && getConstant(power.getLhs()) == 1 && ext.getIn() == shift;
}

/// Matches \p sum, the product plus its single rounding \p isRound (a
/// predicate on the addend), into \p parts.
static bool matchRoundedProduct(Value sum, function_ref<bool(Value)> isRound,
                                ApplyScaleParts &parts) {
  std::optional<std::pair<Value, Value>> addends = getAddends(sum);
  if (!addends)
    return false;
  auto [lhs, rhs] = *addends;
  if (isRound(rhs) && matchProduct(lhs, parts))
    return true;
  return isRound(lhs) && matchProduct(rhs, parts);
}

/// Matches \p sum, the single-rounded product plus the +-2^30 of
/// DOUBLE_ROUND, into \p parts.
static bool matchDoubleRounded(Value sum, function_ref<bool(Value)> isRound,
                               ApplyScaleParts &parts) {
  std::optional<std::pair<Value, Value>> addends = getAddends(sum);
  if (!addends)
    return false;
  for (auto [sign, rounded] :
       {*addends, std::make_pair(addends->second, addends->first)}) {
    Value value = getDoubleRoundSign(sign);
    if (!value || !matchRoundedProduct(rounded, isRound, parts))
      continue;
    // The sign is the value's: swap if the product has it second.
    if (parts.multiplier == value)
      std::swap(parts.value, parts.multiplier);
    if (parts.value != value)
      return false;
    parts.doubleRound = true;
    return true;
  }
  return false;
}

std::optional<ApplyScaleParts>
armkernels::matchApplyScale(arith::TruncIOp trunc) {
  if (!trunc.getType().isInteger(32) || !trunc.getIn().getType().isInteger(64))
    return std::nullopt;
  // The shift right: arithmetic, or logical by a constant >= 32 for
  // DOUBLE_ROUND (canonicalization writes trunci(x >> 32) so; the low words
  // are the same). (SINGLE_ROUND's is not taken logical: RescaleSmallValue
  // writes its high-word multiplies so, which must not match again.)
  Operation *shr = trunc.getIn().getDefiningOp();
  if (!isa_and_nonnull<arith::ShRSIOp, arith::ShRUIOp>(shr))
    return std::nullopt;
  bool logical = isa<arith::ShRUIOp>(shr);
  Value shrLhs = shr->getOperand(0), shrRhs = shr->getOperand(1);
  ApplyScaleParts parts;
  if (auto shiftExt = shrRhs.getDefiningOp<arith::ExtUIOp>()) {
    if (logical)
      return std::nullopt;
    // An i8 shift s: round = (1 << s) >> 1; DOUBLE_ROUND selects the sum
    // with +-2^30 when s > 31.
    Value shift = shiftExt.getIn();
    if (!shift.getType().isInteger(8))
      return std::nullopt;
    parts.shift = shift;
    auto isRound = [&](Value v) { return isHalfPower(v, shift); };
    if (matchRoundedProduct(shrLhs, isRound, parts))
      return parts;
    auto select = shrLhs.getDefiningOp<arith::SelectOp>();
    if (!select)
      return std::nullopt;
    auto cmp = select.getCondition().getDefiningOp<arith::CmpIOp>();
    auto shift32 =
        cmp ? cmp.getLhs().getDefiningOp<arith::ExtUIOp>() : arith::ExtUIOp();
    if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::sgt ||
        getConstant(cmp.getRhs()) != 31 || !shift32 || shift32.getIn() != shift)
      return std::nullopt;
    ApplyScaleParts single = parts;
    if (!matchRoundedProduct(select.getFalseValue(), isRound, single) ||
        !matchDoubleRounded(select.getTrueValue(), isRound, parts))
      return std::nullopt;
    // Both arms round the same product.
    if (!((single.value == parts.value &&
           single.multiplier == parts.multiplier) ||
          (single.value == parts.multiplier &&
           single.multiplier == parts.value)))
      return std::nullopt;
    return parts;
  }
  // A constant shift s in [1, 62] (a per-tensor rescale, folded): round is
  // the constant 2^(s-1); DOUBLE_ROUND's +-2^30 is there iff s > 31.
  std::optional<int64_t> shift = getConstant(shrRhs);
  if (!shift || *shift < 1 || *shift > 62 || (logical && *shift < 32))
    return std::nullopt;
  parts.shift = shrRhs;
  auto isRound = [&](Value v) {
    return getConstant(v) == int64_t(1) << (*shift - 1);
  };
  if (!logical && matchRoundedProduct(shrLhs, isRound, parts))
    return parts;
  if (*shift > 31 && matchDoubleRounded(shrLhs, isRound, parts))
    return parts;
  return std::nullopt;
}

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
  RescaleTo32Bit(MLIRContext *context, bool doubleRoundOnly,
                 bool shiftValuesOnly)
      : OpRewritePattern(context), doubleRoundOnly(doubleRoundOnly),
        shiftValuesOnly(shiftValuesOnly) {}

  /// Whether SINGLE_ROUND rescales, and rescales with a constant shift, are
  /// left alone.
  bool doubleRoundOnly, shiftValuesOnly;

  LogicalResult matchAndRewrite(arith::TruncIOp trunc,
                                PatternRewriter &rewriter) const override {
    std::optional<ApplyScaleParts> parts = matchApplyScale(trunc);
    if (!parts || (doubleRoundOnly && !parts->doubleRound))
      return failure();
    bool constantShift = !parts->shift.getType().isInteger(8);
    if (constantShift && shiftValuesOnly)
      return rewriter.notifyMatchFailure(trunc, "constant shift");
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

    ScalarBuilder kb(rewriter, trunc.getLoc());
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
    // The zero point and the clamp to int8 that follow, folded:
    // clamp(floor((y + 1) / 2) + zp) = SSAT((y + 1 + 2 zp) >> 1), one ADD
    // and an SSAT whose operand LLVM shifts. y + 1 + 2 zp fits when every
    // shift is above 32 (|y| < 2^30) or |m| <= 2^31 - 2^10 (|y| = |t| <=
    // |m| + 1).
    int64_t maxM = 0;
    for (int64_t m : *multipliers)
      maxM = std::max(maxM, m < 0 ? -m : m);
    if (bias == 33 || maxM <= (int64_t(1) << 31) - 1024)
      foldClamp(rewriter, trunc, y);
    rewriter.replaceOp(trunc, kb.add(quotient, roundBit));
    return success();
  }

  /// If the only use of \p trunc (the rescale) is a chain
  /// trunci_i8(minsi(maxsi(trunc [+ zp], -128), 127)) (either order),
  /// replaces the clamp with SSAT((y + 1 + 2 zp) >> 1).
  static void foldClamp(PatternRewriter &rewriter, arith::TruncIOp trunc,
                        Value y) {
    if (!trunc->hasOneUse())
      return;
    Operation *user = *trunc->user_begin();
    int64_t zp = 0;
    Value current = trunc.getResult();
    if (auto add = dyn_cast<arith::AddIOp>(user)) {
      std::optional<int64_t> c = getConstant(add.getRhs());
      if (!c || add.getLhs() != current || !add->hasOneUse() || *c < -128 ||
          *c > 127)
        return;
      zp = *c;
      current = add.getResult();
      user = *add->user_begin();
    }
    std::optional<int64_t> lo, hi;
    Operation *last = nullptr;
    // The clamp as ClampToSsat may have written it already.
    if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(user)) {
      if (call.getIntrin() != "llvm.arm.ssat" || call.getNumOperands() != 2 ||
          call.getOperand(0) != current || getConstant(call.getOperand(1)) != 8)
        return;
      lo = -128;
      hi = 127;
      last = call;
    }
    for (int i = 0; i < 2 && !last; ++i) {
      if (!isa<arith::MaxSIOp, arith::MinSIOp>(user) ||
          user->getOperand(0) != current)
        return;
      std::optional<int64_t> bound = getConstant(user->getOperand(1));
      if (!bound)
        return;
      (isa<arith::MaxSIOp>(user) ? lo : hi) = *bound;
      current = user->getResult(0);
      if (i == 1) {
        last = user;
        break;
      }
      if (!user->hasOneUse())
        return;
      user = *user->user_begin();
    }
    if (lo != -128 || hi != 127)
      return;
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(last);
    Location loc = last->getLoc();
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                          v);
    };
    Value sum = arith::AddIOp::create(rewriter, loc, y, constant(1 + 2 * zp));
    Value halved = arith::ShRSIOp::create(rewriter, loc, sum, constant(1));
    Value saturated =
        LLVM::CallIntrinsicOp::create(rewriter, loc, rewriter.getI32Type(),
                                      rewriter.getStringAttr("llvm.arm.ssat"),
                                      ValueRange{halved, constant(8)})
            ->getResult(0);
    rewriter.replaceOp(last, saturated);
  }
};
} // namespace

std::optional<ValueRange32> armkernels::getValueRange(Value value,
                                                      unsigned depth) {
  auto type = dyn_cast<IntegerType>(value.getType());
  if (!type || type.getWidth() > 64 || depth > 24)
    return std::nullopt;
  unsigned width = type.getWidth();
  // The range of \p width-bit signed values.
  auto typeRange = [](unsigned bits) {
    return ValueRange32{-(int64_t(1) << (bits - 1)),
                        (int64_t(1) << (bits - 1)) - 1};
  };
  // Whether [lo, hi] (exact, in 128 bits) is representable in the result.
  auto fits = [&](__int128 lo, __int128 hi) -> std::optional<ValueRange32> {
    __int128 min = -(__int128(1) << (width - 1));
    __int128 max = (__int128(1) << (width - 1)) - 1;
    if (lo < min || hi > max)
      return std::nullopt;
    return ValueRange32{int64_t(lo), int64_t(hi)};
  };
  if (std::optional<SmallVector<int64_t>> values = getConstantValues(value)) {
    if (values->empty())
      return std::nullopt;
    auto [min, max] = std::minmax_element(values->begin(), values->end());
    // Constants narrower than 64 bits read as signed values of their type.
    return ValueRange32{*min, *max};
  }
  // Operands read from memory or loop values: only their type bounds them.
  Operation *def = value.getDefiningOp();
  if (!def)
    return width <= 16 ? std::optional(typeRange(width)) : std::nullopt;
  auto range = [&](Value v) { return getValueRange(v, depth + 1); };
  auto constantOf = [](Value v) { return getConstant(v); };
  if (auto ext = dyn_cast<arith::ExtSIOp>(def)) {
    if (std::optional<ValueRange32> in = range(ext.getIn()))
      return in;
    return typeRange(ext.getIn().getType().getIntOrFloatBitWidth());
  }
  if (auto ext = dyn_cast<arith::ExtUIOp>(def)) {
    unsigned bits = ext.getIn().getType().getIntOrFloatBitWidth();
    std::optional<ValueRange32> in = range(ext.getIn());
    if (in && in->lo >= 0)
      return in;
    return ValueRange32{0, int64_t((uint64_t(1) << bits) - 1)};
  }
  if (auto trunc = dyn_cast<arith::TruncIOp>(def)) {
    // The low word of x >>> c, c >= 32, is that of x >> c (the high words
    // of a 64-bit product, RescaleSmallValue's).
    auto logical = trunc.getIn().getDefiningOp<arith::ShRUIOp>();
    std::optional<int64_t> amount =
        logical ? constantOf(logical.getRhs()) : std::nullopt;
    unsigned inWidth = trunc.getIn().getType().getIntOrFloatBitWidth();
    if (amount && *amount >= inWidth - width && *amount < inWidth) {
      std::optional<ValueRange32> in = range(logical.getLhs());
      return in ? fits(__int128(in->lo >> *amount), __int128(in->hi >> *amount))
                : std::nullopt;
    }
    std::optional<ValueRange32> in = range(trunc.getIn());
    return in ? fits(in->lo, in->hi) : std::nullopt;
  }
  if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::MaxSIOp,
          arith::MinSIOp>(def)) {
    std::optional<ValueRange32> l = range(def->getOperand(0));
    std::optional<ValueRange32> r = range(def->getOperand(1));
    if (!l || !r)
      return std::nullopt;
    if (isa<arith::AddIOp>(def))
      return fits(__int128(l->lo) + r->lo, __int128(l->hi) + r->hi);
    if (isa<arith::SubIOp>(def))
      return fits(__int128(l->lo) - r->hi, __int128(l->hi) - r->lo);
    if (isa<arith::MaxSIOp>(def))
      return ValueRange32{std::max(l->lo, r->lo), std::max(l->hi, r->hi)};
    if (isa<arith::MinSIOp>(def))
      return ValueRange32{std::min(l->lo, r->lo), std::min(l->hi, r->hi)};
    __int128 products[] = {__int128(l->lo) * r->lo, __int128(l->lo) * r->hi,
                           __int128(l->hi) * r->lo, __int128(l->hi) * r->hi};
    return fits(*std::min_element(std::begin(products), std::end(products)),
                *std::max_element(std::begin(products), std::end(products)));
  }
  if (isa<arith::ShLIOp, arith::ShRSIOp, arith::ShRUIOp>(def)) {
    std::optional<int64_t> amount = constantOf(def->getOperand(1));
    if (!amount || *amount < 0 || *amount >= width)
      return std::nullopt;
    std::optional<ValueRange32> in = range(def->getOperand(0));
    if (isa<arith::ShRUIOp>(def)) {
      if (in && in->lo >= 0)
        return ValueRange32{in->lo >> *amount, in->hi >> *amount};
      if (*amount == 0)
        return std::nullopt;
      return ValueRange32{0, int64_t((uint64_t(1) << (width - *amount)) - 1)};
    }
    if (!in)
      return std::nullopt;
    if (isa<arith::ShRSIOp>(def))
      return ValueRange32{in->lo >> *amount, in->hi >> *amount};
    return fits(__int128(in->lo) * (__int128(1) << *amount),
                __int128(in->hi) * (__int128(1) << *amount));
  }
  if (auto andOp = dyn_cast<arith::AndIOp>(def)) {
    for (Value operand : andOp->getOperands())
      if (std::optional<int64_t> mask = constantOf(operand); mask && *mask >= 0)
        return ValueRange32{0, *mask};
    return std::nullopt;
  }
  if (auto select = dyn_cast<arith::SelectOp>(def)) {
    std::optional<ValueRange32> t = range(select.getTrueValue());
    std::optional<ValueRange32> f = range(select.getFalseValue());
    if (!t || !f)
      return std::nullopt;
    return ValueRange32{std::min(t->lo, f->lo), std::max(t->hi, f->hi)};
  }
  return width <= 16 ? std::optional(typeRange(width)) : std::nullopt;
}

namespace {
/// Rewrites a lowered apply_scale whose shifts are constants and whose
/// value a is known to be small (getValueRange: an int8 input less its zero
/// point, a sum of such rescales, ...) into a 32 x 32 -> high-word multiply
/// (SMMUL or SMMULR, Armv7E-M and Armv8.1-M with DSP), with P = a * m:
///  - every shift s in [1, 31] (both modes: TOSA's DOUBLE_ROUND adds its
///    +-2^30 only for s > 31), when a' = a * 2^(32-s) fits in int32:
///      floor((P + 2^(s-1)) / 2^s) = floor((a' m + 2^31) / 2^32)
///    (numerator and denominator times 2^(32-s)): one SMMULR of a'.
///  - every shift s in [32, 62], when |a| <= 2^30 (a2 = 2a fits): with
///    t = floor(Q / 2^31) as in RescaleTo32Bit, t = floor(2P / 2^32) = SMMUL
///    (a2, m) for SINGLE_ROUND, and t = floor((2P + 2^31) / 2^32) - [a < 0]
///    = SMMULR(a2, m) - (a >>> 31) for DOUBLE_ROUND (Q = P + 2^30 -
///    [a < 0] 2^31); then the rounding shift by e = s - 31: (t + 2^(e-1)) >>
///    e for a constant shift when the sum provably fits in int32, else
///    y = t >> (s - 32), (y >> 1) + (y & 1).
/// Any multiplier, INT32_MIN included: the high-word multiplies are exact.
struct RescaleSmallValue : OpRewritePattern<arith::TruncIOp> {
  RescaleSmallValue(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(arith::TruncIOp trunc,
                                PatternRewriter &rewriter) const override {
    std::optional<ApplyScaleParts> parts = matchApplyScale(trunc);
    if (!parts)
      return failure();
    bool constantShift = !parts->shift.getType().isInteger(8);
    std::optional<SmallVector<int64_t>> shifts =
        getConstantValues(parts->shift);
    if (!shifts || shifts->empty())
      return rewriter.notifyMatchFailure(trunc, "shift not known");
    SmallVector<int64_t> s;
    for (int64_t shift : *shifts)
      s.push_back(constantShift ? shift : shift & 0xFF);
    int64_t minShift = *llvm::min_element(s), maxShift = *llvm::max_element(s);
    bool leftShift = maxShift <= 31;
    if (minShift < 1 || maxShift > 62 || (!leftShift && minShift < 32))
      return rewriter.notifyMatchFailure(trunc, "shifts on both sides of 32");
    // The value whose range is small (DOUBLE_ROUND: the one whose sign it
    // takes; SINGLE_ROUND: either factor).
    Value a = parts->value, multiplier = parts->multiplier;
    if (!a.getType().isInteger(32))
      std::swap(a, multiplier);
    std::optional<ValueRange32> range =
        a.getType().isInteger(32) ? getValueRange(a) : std::nullopt;
    if (!range && !parts->doubleRound && multiplier.getType().isInteger(32)) {
      std::swap(a, multiplier);
      range = getValueRange(a);
    }
    if (!range)
      return rewriter.notifyMatchFailure(trunc, "value range not known");
    // Bounds of a that keep a * 2^k in int32.
    int64_t k = leftShift ? 32 - minShift : 1;
    if (range->lo < -(int64_t(1) << (31 - k)) ||
        range->hi > (int64_t(1) << (31 - k)) - 1)
      return rewriter.notifyMatchFailure(trunc, "value too large");

    ScalarBuilder kb(rewriter, trunc.getLoc());
    Location loc = kb.loc;
    Type i64 = rewriter.getI64Type();
    auto constant64 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(rewriter, loc, i64, v);
    };
    Value m64 = multiplier.getType().isInteger(64)
                    ? multiplier
                    : arith::ExtSIOp::create(rewriter, loc, i64, multiplier)
                          .getResult();
    Value shift32 = constantShift ? Value()
                                  : arith::ExtUIOp::create(rewriter, loc,
                                                           kb.i32, parts->shift)
                                        .getResult();
    // The high word of a' * m (+ 2^31 if rounding).
    auto highWord = [&](Value scaled, bool round) -> Value {
      Value product = arith::MulIOp::create(
          rewriter, loc, arith::ExtSIOp::create(rewriter, loc, i64, scaled),
          m64);
      if (round)
        product = arith::AddIOp::create(rewriter, loc, product,
                                        constant64(int64_t(1) << 31));
      // A logical shift: the low word is the same, and the result is not
      // a lowered apply_scale (shift 32) that would match again.
      return arith::TruncIOp::create(
          rewriter, loc, kb.i32,
          arith::ShRUIOp::create(rewriter, loc, product, constant64(32)));
    };
    if (leftShift) {
      Value amount =
          constantShift
              ? kb.constant(32 - s.front())
              : arith::SubIOp::create(rewriter, loc, kb.constant(32), shift32)
                    .getResult();
      rewriter.replaceOp(
          trunc,
          highWord(arith::ShLIOp::create(rewriter, loc, a, amount), true));
      return success();
    }
    Value a2 = arith::ShLIOp::create(rewriter, loc, a, kb.constant(1));
    Value t = highWord(a2, parts->doubleRound);
    if (parts->doubleRound)
      t = arith::SubIOp::create(
          rewriter, loc, t,
          arith::ShRUIOp::create(rewriter, loc, a, kb.constant(31)));
    // |t| <= |a| |m| / 2^31 + 1, |m| <= 2^31 when not known.
    std::optional<ValueRange32> mRange = getValueRange(multiplier);
    __int128 maxM = mRange
                        ? std::max(-__int128(mRange->lo), __int128(mRange->hi))
                        : __int128(1) << 31;
    __int128 maxA = std::max(-__int128(range->lo), __int128(range->hi));
    __int128 maxT = maxA * maxM / (__int128(1) << 31) + 2;
    Value result;
    if (constantShift && maxT + (__int128(1) << (maxShift - 32)) <= INT32_MAX) {
      result = arith::ShRSIOp::create(
          rewriter, loc, kb.add(t, kb.constant(int64_t(1) << (s.front() - 32))),
          kb.constant(s.front() - 31));
    } else {
      Value excess =
          constantShift
              ? kb.constant(s.front() - 32)
              : arith::SubIOp::create(rewriter, loc, shift32, kb.constant(32))
                    .getResult();
      Value y = arith::ShRSIOp::create(rewriter, loc, t, excess);
      result = kb.add(arith::ShRSIOp::create(rewriter, loc, y, kb.constant(1)),
                      arith::AndIOp::create(rewriter, loc, y, kb.constant(1)));
    }
    rewriter.replaceOp(trunc, result);
    return success();
  }
};

/// Rewrites trunci(minsi(maxsi(x, -128), 127)) to i8 (the clamp of a
/// rescale to the whole int8 range, after its zero point) into SSAT #8
/// (`llvm.arm.ssat`, Armv7-M and later). LLVM would otherwise move the zero
/// point's addition past the clamp (x + zp clamped to [-128 - zp, 127 - zp])
/// and compare twice: five or six instructions instead of two.
struct ClampToSsat : OpRewritePattern<arith::TruncIOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncIOp trunc,
                                PatternRewriter &rewriter) const override {
    if (!trunc.getType().isInteger(8) || !trunc.getIn().getType().isInteger(32))
      return failure();
    Value x = trunc.getIn();
    std::optional<int64_t> lo, hi;
    // Either order: min(max(x, lo), hi) or max(min(x, hi), lo).
    for (int i = 0; i < 2; ++i) {
      Operation *def = x.getDefiningOp();
      if (!isa_and_nonnull<arith::MaxSIOp, arith::MinSIOp>(def))
        break;
      std::optional<int64_t> bound = getConstant(def->getOperand(1));
      if (!bound)
        return failure();
      (isa<arith::MaxSIOp>(def) ? lo : hi) = *bound;
      x = def->getOperand(0);
    }
    if (lo != -128 || hi != 127)
      return failure();
    Value saturated =
        LLVM::CallIntrinsicOp::create(
            rewriter, trunc.getLoc(), rewriter.getI32Type(),
            rewriter.getStringAttr("llvm.arm.ssat"),
            ValueRange{x,
                       arith::ConstantIntOp::create(rewriter, trunc.getLoc(),
                                                    rewriter.getI32Type(), 8)})
            ->getResult(0);
    rewriter.replaceOpWithNewOp<arith::TruncIOp>(trunc, trunc.getType(),
                                                 saturated);
    return success();
  }
};
} // namespace

void armkernels::populateScalarRescalePatterns(RewritePatternSet &patterns,
                                               bool doubleRoundOnly,
                                               bool shiftValuesOnly) {
  patterns.add<RescaleTo32Bit>(patterns.getContext(), doubleRoundOnly,
                               shiftValuesOnly);
  patterns.add<RescaleSmallValue, ClampToSsat>(patterns.getContext());
}
