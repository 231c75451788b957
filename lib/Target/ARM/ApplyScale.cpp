//===- ApplyScale.cpp - Matching a lowered tosa.apply_scale ---------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//

#include "ApplyScale.h"

#include "mlir/IR/Matchers.h"

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
  if (!cmp || !ifTrue || !ifFalse || getConstant(cmp.getRhs()) != 0 ||
      !cmp.getLhs().getType().isInteger(32))
    return {};
  constexpr int64_t half = int64_t(1) << 30;
  bool positive = cmp.getPredicate() == arith::CmpIPredicate::sge &&
                  *ifTrue == half && *ifFalse == -half;
  bool negative = cmp.getPredicate() == arith::CmpIPredicate::slt &&
                  *ifTrue == -half && *ifFalse == half;
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
  auto shr = trunc.getIn().getDefiningOp<arith::ShRSIOp>();
  if (!shr)
    return std::nullopt;
  ApplyScaleParts parts;
  if (auto shiftExt = shr.getRhs().getDefiningOp<arith::ExtUIOp>()) {
    // An i8 shift s: round = (1 << s) >> 1; DOUBLE_ROUND selects the sum
    // with +-2^30 when s > 31.
    Value shift = shiftExt.getIn();
    if (!shift.getType().isInteger(8))
      return std::nullopt;
    parts.shift = shift;
    auto isRound = [&](Value v) { return isHalfPower(v, shift); };
    if (matchRoundedProduct(shr.getLhs(), isRound, parts))
      return parts;
    auto select = shr.getLhs().getDefiningOp<arith::SelectOp>();
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
  std::optional<int64_t> shift = getConstant(shr.getRhs());
  if (!shift || *shift < 1 || *shift > 62)
    return std::nullopt;
  parts.shift = shr.getRhs();
  auto isRound = [&](Value v) {
    return getConstant(v) == int64_t(1) << (*shift - 1);
  };
  if (matchRoundedProduct(shr.getLhs(), isRound, parts))
    return parts;
  if (*shift > 31 && matchDoubleRounded(shr.getLhs(), isRound, parts))
    return parts;
  return std::nullopt;
}
