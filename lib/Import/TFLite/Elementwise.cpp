//===- Elementwise.cpp - TFLite elementwise operators ---------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// ADD, MUL, RELU and RELU6:
// - ADD and MUL are `tosa.add` and `tosa.mul`; lower-rank operands are
//   reshaped to the output's rank for broadcasting.
// - int8 ADD is TFLite's: both operands rescaled to i32 at the common scale
//   2 * max(s_a, s_b) with 20 extra bits, `tosa.add`, rescale to the output.
//   TFLite shifts each operand left by 20 bits and then rescales it with
//   double rounding. With TFLite's arithmetic (the default) an operand is
//   rescaled once, by a multiplier and shift found at import that give
//   TFLite's value for each of the 256 int8 inputs, and otherwise in two
//   steps: an exact shift by 20 bits, then TFLite's rescale.
// - int8 MUL widens both operands to i32 minus their zero points,
//   `tosa.mul`, and rescales by s_a * s_b / s_out.
// - RELU and RELU6 are `tosa.clamp` (bounds quantized for integer tensors),
//   after a rescale when input and output quantizations differ.
//
//===----------------------------------------------------------------------===//

#include "TFLiteImporter.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::tfliteimport;

namespace {

/// The operands of a binary operator, at the output's rank.
struct BinaryOperands {
  /// Left and right operand and output tensors.
  int32_t a, b, out;
  /// The output's type.
  RankedTensorType outType;
  /// The operands' values, reshaped for broadcasting.
  Value lhs, rhs;
  /// Whether the operator is int8 (otherwise f32).
  bool quantized;
};

} // namespace

/// Returns operand \p t of a binary operator writing \p out, reshaped to the
/// output's rank (leading ones), as TOSA broadcasts only between equal ranks.
static FailureOr<Value> broadcastOperand(TFLiteImporter &imp, int32_t t,
                                         int32_t out) {
  RankedTensorType outType = imp.tensorType(out);
  int64_t rank = outType.getRank();
  FailureOr<Value> v = imp.getValue(t);
  if (failed(v))
    return failure();
  ArrayRef<int64_t> shape = imp.shapeOf(t);
  if (static_cast<int64_t>(shape.size()) > rank)
    return imp.opError() << "operand rank exceeds the result's";
  SmallVector<int64_t> full(rank - shape.size(), 1);
  llvm::append_range(full, shape);
  for (int64_t i = 0; i < rank; ++i)
    if (full[i] != outType.getDimSize(i) && full[i] != 1)
      return imp.opError() << "operand shape does not broadcast to the result";
  return imp.reshape(*v, full, imp.tensorLoc(out, "broadcast"));
}

/// Checks binary operator \p op (f32 or int8, one element type) and builds
/// its operands.
static FailureOr<BinaryOperands> binaryOperands(TFLiteImporter &imp,
                                                const tfl::Operator *op) {
  if (failed(imp.checkArity(op, 2, 2, 1)))
    return failure();
  BinaryOperands p;
  p.a = TFLiteImporter::input(op, 0);
  p.b = TFLiteImporter::input(op, 1);
  p.out = TFLiteImporter::output(op);
  p.outType = imp.tensorType(p.out);
  Type elt = p.outType.getElementType();
  if (imp.tensorType(p.a).getElementType() != elt ||
      imp.tensorType(p.b).getElementType() != elt)
    return imp.opError() << "operand and result types differ";
  if (!(elt.isF32() || elt.isInteger(8)))
    return imp.opError() << "unsupported element type " << elt;
  // Both operands are built even when the first fails (as many diagnostics).
  FailureOr<Value> va = broadcastOperand(imp, p.a, p.out),
                   vb = broadcastOperand(imp, p.b, p.out);
  if (failed(va) || failed(vb))
    return failure();
  p.lhs = *va;
  p.rhs = *vb;
  p.quantized = elt.isInteger(8);
  return p;
}

/// Returns the type of \p v with element type \p elt.
static RankedTensorType withElementType(Value v, Type elt) {
  return RankedTensorType::get(cast<RankedTensorType>(v.getType()).getShape(),
                               elt);
}

/// Applies fused activation \p act to \p result and defines the output of
/// \p p.
static LogicalResult finishBinary(TFLiteImporter &imp, const BinaryOperands &p,
                                  Value result,
                                  tfl::ActivationFunctionType act) {
  FailureOr<Value> activated =
      imp.activation(result, act, p.out, imp.tensorLoc(p.out));
  if (failed(activated))
    return failure();
  return imp.define(p.out, *activated);
}

/// Checks that the operands and the result of int8 \p p are per-tensor
/// quantized.
static LogicalResult checkPerTensor(TFLiteImporter &imp,
                                    const BinaryOperands &p) {
  if (imp.quant(p.a).scales.size() != 1 || imp.quant(p.b).scales.size() != 1 ||
      imp.quant(p.out).scales.size() != 1)
    return imp.opError() << "operands and result must be per-tensor quantized";
  return success();
}

/// TFLite's SaturatingRoundingDoublingHighMul of \p a and \p b (no
/// saturation needed: |a * b| < 2^62 here).
static int64_t doublingHighMul(int64_t a, int64_t b) {
  int64_t ab = a * b;
  int64_t nudge = ab >= 0 ? (int64_t(1) << 30) : 1 - (int64_t(1) << 30);
  return (ab + nudge) / (int64_t(1) << 31);
}

/// TFLite's RoundingDivideByPOT: \p x / 2^\p e, halves away from zero.
static int64_t roundingDivideByPOT(int64_t x, int64_t e) {
  int64_t mask = (int64_t(1) << e) - 1;
  int64_t remainder = x & mask;
  int64_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> e) + (remainder > threshold ? 1 : 0);
}

/// Finds one DOUBLE_ROUND rescale, \p outM and TOSA shift \p outS, of an
/// int8 ADD operand with zero point \p zp that gives TFLite's value,
/// MultiplyByQuantizedMultiplierSmallerThanOneExp((x - zp) << 20, m, 31 - s),
/// for each of the 256 int8 inputs x (findExactRescale, shifts up to 31).
static bool findExactOperandRescale(int64_t zp, int32_t m, int32_t s,
                                    int32_t &outM, int32_t &outS) {
  if (s < 31)
    return false;
  SmallVector<int64_t> inputs, targets;
  for (int64_t x = -128; x <= 127; ++x) {
    int64_t v = x - zp;
    inputs.push_back(v);
    targets.push_back(roundingDivideByPOT(
        doublingHighMul(v * (int64_t(1) << 20), m), s - 31));
  }
  return findExactRescale(inputs, targets, /*maxShift=*/31, outM, outS);
}

/// Rescales int8 ADD operand \p value (zero point \p zp) to i32 by
/// \p factor (its scale over twice the larger input scale) with TFLite's
/// 20-bit left shift: one rescale when one gives TFLite's values
/// (findExactOperandRescale), otherwise the exact shift and then the
/// rescale.
static FailureOr<Value> scaleAddOperand(TFLiteImporter &imp, Value value,
                                        double factor, int64_t zp,
                                        Location loc) {
  RankedTensorType type = withElementType(value, imp.getBuilder().getI32Type());
  double shift = double(1 << 20);
  int32_t m, s, exactM, exactS;
  if (!imp.tfliteArithmetic() || failed(computeMultiplier(factor, m, s)))
    return imp.rescale(value, type, {factor * shift}, zp, 0, loc);
  if (findExactOperandRescale(zp, m, s, exactM, exactS))
    return imp.rescaleFixed(value, type, {exactM},
                            {static_cast<int8_t>(exactS)}, zp, 0, loc);
  FailureOr<Value> shifted = imp.rescale(value, type, {shift}, zp, 0, loc);
  if (failed(shifted))
    return failure();
  return imp.rescaleFixed(*shifted, type, {m}, {static_cast<int8_t>(s)}, 0, 0,
                          loc);
}

//===----------------------------------------------------------------------===//
// Converters
//===----------------------------------------------------------------------===//

/// ADD: `tosa.add`; int8 as TFLite's int8 add.
static LogicalResult convertAdd(TFLiteImporter &imp, const tfl::Operator *op) {
  FailureOr<BinaryOperands> p = binaryOperands(imp, op);
  if (failed(p))
    return failure();
  tfl::ActivationFunctionType act = tfl::ActivationFunctionType::NONE;
  if (const auto *o = op->builtin_options_as_AddOptions())
    act = o->fused_activation_function();
  int32_t out = p->out;
  bool fused = act != tfl::ActivationFunctionType::NONE;
  Location loc = imp.tensorLoc(out);
  Location innerLoc = p->quantized || fused ? imp.tensorLoc(out, "add") : loc;
  if (!p->quantized)
    return finishBinary(
        imp, *p,
        imp.create("tosa.add", p->outType, {p->lhs, p->rhs}, {}, innerLoc),
        act);

  if (failed(checkPerTensor(imp, *p)))
    return failure();
  QuantParams qa = imp.quant(p->a), qb = imp.quant(p->b), qo = imp.quant(out);
  Type i32 = imp.getBuilder().getI32Type();
  auto accType = RankedTensorType::get(p->outType.getShape(), i32);
  // TFLite's int8 add: both operands to a common scale 2 * max(sa, sb)
  // with 20 extra bits, add in i32, rescale to the output.
  double twiceMax = 2 * std::max(qa.scale(), qb.scale());
  double shift = double(1 << 20);
  FailureOr<Value> ra =
      scaleAddOperand(imp, p->lhs, qa.scale() / twiceMax, qa.zeroPoint(),
                      imp.tensorLoc(out, "lhs"));
  FailureOr<Value> rb =
      scaleAddOperand(imp, p->rhs, qb.scale() / twiceMax, qb.zeroPoint(),
                      imp.tensorLoc(out, "rhs"));
  if (failed(ra) || failed(rb))
    return failure();
  Value sum = imp.create("tosa.add", accType, {*ra, *rb}, {}, innerLoc);
  FailureOr<Value> r =
      imp.rescale(sum, p->outType, {twiceMax / (shift * qo.scale())}, 0,
                  qo.zeroPoint(), fused ? imp.tensorLoc(out, "rescale") : loc);
  if (failed(r))
    return failure();
  return finishBinary(imp, *p, *r, act);
}

/// MUL: `tosa.mul`; int8 as (a - za) * (b - zb) in i32, rescaled.
static LogicalResult convertMul(TFLiteImporter &imp, const tfl::Operator *op) {
  FailureOr<BinaryOperands> p = binaryOperands(imp, op);
  if (failed(p))
    return failure();
  tfl::ActivationFunctionType act = tfl::ActivationFunctionType::NONE;
  if (const auto *o = op->builtin_options_as_MulOptions())
    act = o->fused_activation_function();
  int32_t out = p->out;
  bool fused = act != tfl::ActivationFunctionType::NONE;
  OpBuilder &builder = imp.getBuilder();
  Location loc = imp.tensorLoc(out);
  Location innerLoc = p->quantized || fused ? imp.tensorLoc(out, "mul") : loc;
  if (!p->quantized)
    return finishBinary(
        imp, *p,
        imp.create(
            "tosa.mul", p->outType,
            {p->lhs, p->rhs, imp.scalarConst(builder.getI8Type(), 0, innerLoc)},
            {}, innerLoc),
        act);

  if (failed(checkPerTensor(imp, *p)))
    return failure();
  QuantParams qa = imp.quant(p->a), qb = imp.quant(p->b), qo = imp.quant(out);
  Type i32 = builder.getI32Type();
  auto accType = RankedTensorType::get(p->outType.getShape(), i32);
  // (a - za) * (b - zb) in i32, then one rescale by sa * sb / so.
  FailureOr<Value> ra =
      imp.rescale(p->lhs, withElementType(p->lhs, i32), {1.0}, qa.zeroPoint(),
                  0, imp.tensorLoc(out, "lhs"));
  FailureOr<Value> rb =
      imp.rescale(p->rhs, withElementType(p->rhs, i32), {1.0}, qb.zeroPoint(),
                  0, imp.tensorLoc(out, "rhs"));
  if (failed(ra) || failed(rb))
    return failure();
  Value prod =
      imp.create("tosa.mul", accType,
                 {*ra, *rb, imp.scalarConst(builder.getI8Type(), 0, innerLoc)},
                 {}, innerLoc);
  FailureOr<Value> r =
      imp.rescale(prod, p->outType, {qa.scale() * qb.scale() / qo.scale()}, 0,
                  qo.zeroPoint(), fused ? imp.tensorLoc(out, "rescale") : loc);
  if (failed(r))
    return failure();
  return finishBinary(imp, *p, *r, act);
}

/// RELU and RELU6: `tosa.clamp` to the bounds of \p act, after a rescale
/// when the quantizations of input and output differ.
static LogicalResult convertClamp(TFLiteImporter &imp, const tfl::Operator *op,
                                  tfl::ActivationFunctionType act) {
  if (failed(imp.checkArity(op, 1, 1, 1)))
    return failure();
  int32_t in = TFLiteImporter::input(op, 0), out = TFLiteImporter::output(op);
  if (imp.tensorType(in) != imp.tensorType(out))
    return imp.opError() << "input and output types differ";
  FailureOr<Value> x = imp.getValue(in);
  if (failed(x))
    return failure();
  Value v = *x;
  if (imp.isQuantized(in)) {
    FailureOr<Value> rq =
        imp.requantize(v, in, out, imp.tensorLoc(out, "rescale"));
    if (failed(rq))
      return failure();
    v = *rq;
  }
  FailureOr<Value> r = imp.activation(v, act, out, imp.tensorLoc(out));
  if (failed(r))
    return failure();
  return imp.define(out, *r);
}

/// RELU: clamp at 0.
static LogicalResult convertRelu(TFLiteImporter &imp, const tfl::Operator *op) {
  return convertClamp(imp, op, tfl::ActivationFunctionType::RELU);
}

/// RELU6: clamp to [0, 6].
static LogicalResult convertRelu6(TFLiteImporter &imp,
                                  const tfl::Operator *op) {
  return convertClamp(imp, op, tfl::ActivationFunctionType::RELU6);
}

void mlir::memopt::tfliteimport::populateElementwiseConverters(
    ConverterTable &table) {
  table.onOp(kAdd, convertAdd);
  table.onOp(kMul, convertMul);
  table.onOp(kRelu, convertRelu);
  table.onOp(kRelu6, convertRelu6);
}
