//===- Softmax.cpp - TFLite softmax ---------------------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// SOFTMAX over the last axis.
//
// int8 input (int8 or int16 output) is TFLite Micro's fixed-point kernel
// (reference_ops::Softmax, the one TFLite Micro runs for these types), bit
// for bit, in integer TOSA ops:
// - the input difference d = x - max(row) lies in [-255, 0], so its
//   fixed-point exponential (d rescaled by the input multiplier to Q5.26,
//   then gemmlowp's exp_on_negative_values, a Q0.31 result) is computed here
//   for the 256 possible values and looked up with `tosa.gather`; values of
//   d below diff_min (CalculateInputRadius) are 0, as TFLite skips them;
// - the row sum of the exponentials rounded to Q12.19 (`tosa.reduce_sum`);
// - its reciprocal as TFLite's GetReciprocal: count leading zeros, the sum
//   normalized into [1, 2), gemmlowp's one_over_one_plus_x_for_x_in_0_1
//   (three Newton-Raphson steps in Q2.29, every product a rounding doubling
//   high multiply: `tosa.mul` with shift 31);
// - per element, the exponential times the reciprocal (`tosa.mul`, shift 31),
//   a rounding right shift by the row's exponent, the output's minimum added
//   and a clamp.
// Float tensors, and int16 input (TFLite's lookup-table kernel), keep the
// float softmax: reduce_max, sub, exp, reduce_sum, reciprocal, mul (a first
// mul by beta when it is not 1), between dequantize and quantize for integer
// tensors.
//
//===----------------------------------------------------------------------===//

#include "TFLiteImporter.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::tfliteimport;

//===----------------------------------------------------------------------===//
// Fixed-point arithmetic (gemmlowp's, on int32 raw values)
//===----------------------------------------------------------------------===//

/// Rounding doubling high multiply: round(a * b / 2^31), halves away from
/// zero, INT32_MIN * INT32_MIN saturated.
static int32_t doublingHighMul(int32_t a, int32_t b) {
  if (a == b && a == std::numeric_limits<int32_t>::min())
    return std::numeric_limits<int32_t>::max();
  int64_t ab = int64_t(a) * int64_t(b);
  int64_t nudge = ab >= 0 ? (int64_t(1) << 30) : 1 - (int64_t(1) << 30);
  return static_cast<int32_t>((ab + nudge) / (int64_t(1) << 31));
}

/// Division by 2^exponent rounded to nearest, halves away from zero.
static int32_t roundingShiftRight(int32_t x, int exponent) {
  int32_t mask = static_cast<int32_t>((int64_t(1) << exponent) - 1);
  int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + ((x & mask) > threshold ? 1 : 0);
}

/// exp(a) for a in [-1/4, 0), Q0.31 in and out: a Taylor expansion around
/// -1/8 (gemmlowp's constants e^(-1/8) and 1/3).
static int32_t expOnQuarterInterval(int32_t a) {
  const int32_t expMinusOneEighth = 1895147668, oneThird = 715827883;
  int32_t x = a + (1 << 28);
  int32_t x2 = doublingHighMul(x, x);
  int32_t x3 = doublingHighMul(x2, x);
  int32_t x4 = doublingHighMul(x2, x2);
  int32_t x4Over4 = roundingShiftRight(x4, 2);
  int32_t poly =
      roundingShiftRight(doublingHighMul(x4Over4 + x3, oneThird) + x2, 1);
  return expMinusOneEighth + doublingHighMul(expMinusOneEighth, x + poly);
}

/// exp(a) for a <= 0 in Q5.26, a Q0.31 result: the remainder modulo 1/4 by
/// the Taylor expansion, then a factor exp(-2^k) (Q0.31 constants) for each
/// bit k in [-2, 4] of the whole quarters; exp(0) is the largest Q0.31 value.
static int32_t expOnNegativeQ5(int32_t a) {
  const int fractionalBits = 26;
  const int32_t quarter = 1 << (fractionalBits - 2);
  int32_t modQuarter = (a & (quarter - 1)) - quarter;
  // Q5.26 to Q0.31: a left shift by 5 that cannot saturate in
  // [-1/4, 0).
  int32_t result = expOnQuarterInterval(modQuarter * 32);
  int32_t remainder = modQuarter - a;
  static const int32_t factors[] = {
      1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  for (int k = -2; k <= 4; ++k)
    if (remainder & (int32_t(1) << (fractionalBits + k)))
      result = doublingHighMul(result, factors[k + 2]);
  return a == 0 ? std::numeric_limits<int32_t>::max() : result;
}

namespace {
/// TFLite's int8 softmax parameters and the table of exponentials.
struct SoftmaxTable {
  /// The input multiplier (Q0.31) and its left shift
  /// (PreprocessSoftmaxScaling, 5 integer bits).
  int32_t multiplier = 0;
  int leftShift = 0;
  /// The smallest input difference TFLite counts (CalculateInputRadius).
  int32_t diffMin = 0;
  /// exp of input difference -i, Q0.31, for i in [0, 255].
  SmallVector<int32_t> exps;
};
} // namespace

/// Computes the parameters of TFLite's int8 softmax for \p beta and input
/// scale \p inputScale, and the exponential of every input difference.
/// Fails when the scaled multiplier is not above 1 (TFLite's
/// QuantizeMultiplierGreaterThanOne check).
static FailureOr<SoftmaxTable> buildSoftmaxTable(double beta,
                                                 double inputScale) {
  const int integerBits = 5;
  SoftmaxTable t;
  double real = std::min(beta * inputScale * double(int64_t(1) << 26),
                         double((int64_t(1) << 31) - 1));
  if (!(real > 1.0))
    return failure();
  int exponent = 0;
  double q = std::frexp(real, &exponent);
  int64_t fixed =
      static_cast<int64_t>(std::round(q * double(int64_t(1) << 31)));
  if (fixed == (int64_t(1) << 31)) {
    fixed /= 2;
    ++exponent;
  }
  t.multiplier = static_cast<int32_t>(fixed);
  t.leftShift = exponent;
  double radius = double((1 << integerBits) - 1) *
                  double(int64_t(1) << (31 - integerBits)) /
                  double(int64_t(1) << t.leftShift);
  t.diffMin = -static_cast<int32_t>(std::floor(radius));
  for (int32_t i = 0; i < 256; ++i) {
    int32_t diff = -i;
    if (diff < t.diffMin) {
      t.exps.push_back(0);
      continue;
    }
    // |diff| * 2^leftShift <= 31 * 2^26 here: no overflow.
    int32_t scaled = doublingHighMul(
        static_cast<int32_t>(int64_t(diff) * (int64_t(1) << t.leftShift)),
        t.multiplier);
    t.exps.push_back(expOnNegativeQ5(scaled));
  }
  return t;
}

//===----------------------------------------------------------------------===//
// The fixed-point softmax in TOSA
//===----------------------------------------------------------------------===//

namespace {
/// Builds the integer TOSA ops of one softmax.
struct FixedSoftmaxBuilder {
  FixedSoftmaxBuilder(TFLiteImporter &imp, Location loc, int64_t rank)
      : imp(imp), loc(loc), rank(rank), i32(imp.getBuilder().getI32Type()) {}

  TFLiteImporter &imp;
  /// The location of every op.
  Location loc;
  /// The rank of the softmax's tensors.
  int64_t rank;
  /// The element type (i32).
  Type i32;

  /// The constants made so far, by value (the shift of `tosa.mul` under
  /// key 1 << 40).
  llvm::DenseMap<int64_t, Value> constants;

  /// A constant of \p rank dimensions of size 1 holding \p value (made
  /// once).
  Value splat(int64_t value) {
    Value &c = constants[value];
    if (!c)
      c = imp.reshape(imp.scalarConst(i32, static_cast<double>(value), loc),
                      SmallVector<int64_t>(rank, 1), loc);
    return c;
  }
  /// The type of an elementwise op on \p a and \p b: the larger shape.
  RankedTensorType broadcastType(Value a, Value b) {
    auto aType = cast<RankedTensorType>(a.getType());
    SmallVector<int64_t> shape = llvm::to_vector(aType.getShape());
    for (auto [d, other] :
         llvm::zip(shape, cast<RankedTensorType>(b.getType()).getShape()))
      d = std::max(d, other);
    return aType.clone(shape);
  }
  /// Elementwise \p name of \p a and \p b.
  Value binary(StringRef name, Value a, Value b) {
    return imp.create(name, broadcastType(a, b), {a, b}, {}, loc);
  }
  /// Rounding doubling high multiply (`tosa.mul` with shift 31: the
  /// product rounded half up, which is gemmlowp's rounding; no operand pair
  /// here is INT32_MIN twice).
  Value highMul(Value a, Value b) {
    Value &shift = constants[int64_t(1) << 40];
    if (!shift)
      shift = imp.scalarConst(imp.getBuilder().getI8Type(), 31, loc);
    return imp.create("tosa.mul", broadcastType(a, b), {a, b, shift}, {}, loc);
  }
  /// Arithmetic right shift of \p a by \p b, rounding halves up when
  /// \p round (gemmlowp's rounding for the non-negative values here).
  Value shiftRight(Value a, Value b, bool round) {
    OpBuilder &builder = imp.getBuilder();
    return imp.create(
        "tosa.arithmetic_right_shift", a.getType(), {a, b},
        {builder.getNamedAttr("round", builder.getBoolAttr(round))}, loc);
  }
  /// \p a clamped to [\p lo, \p hi] (`tosa.minimum` and `tosa.maximum`:
  /// TOSA's profile has no i32 `tosa.clamp`).
  Value clamp(Value a, int64_t lo, int64_t hi) {
    return binary("tosa.maximum", binary("tosa.minimum", a, splat(hi)),
                  splat(lo));
  }
  /// gemmlowp's saturating multiplication by 2^\p k (its Rescale to \p k
  /// fewer integer bits): values above 2^(31-k) - 1 give INT32_MAX, below
  /// -2^(31-k) INT32_MIN.
  Value saturatingShiftLeft(Value a, int k) {
    const int64_t limit = (int64_t(1) << (31 - k)) - 1;
    Value shifted = binary("tosa.logical_left_shift",
                           clamp(a, -limit - 1, limit), splat(k));
    auto boolType =
        RankedTensorType::get(cast<RankedTensorType>(a.getType()).getShape(),
                              imp.getBuilder().getI1Type());
    Value over =
        imp.create("tosa.greater", boolType, {a, splat(limit)}, {}, loc);
    return imp.create(
        "tosa.select", a.getType(),
        {over, splat(std::numeric_limits<int32_t>::max()), shifted}, {}, loc);
  }
  /// TFLite's GetReciprocal of the Q12.19 row sums \p sum (positive): the
  /// Q0.31 reciprocal of the sum normalized into [1, 2), and the number of
  /// leading zeros of the sum.
  std::pair<Value, Value> reciprocal(Value sum) {
    Value zeros = imp.create("tosa.clz", sum.getType(), {sum}, {}, loc);
    // The sum shifted to its top bit, minus 1.0: a in [0, 1), Q0.31.
    Value a = binary("tosa.bitwise_and",
                     binary("tosa.logical_left_shift", sum, zeros),
                     splat(std::numeric_limits<int32_t>::max()));
    // one_over_one_plus_x_for_x_in_0_1: (a + 1) / 2 in Q0.31, then Newton-
    // Raphson in Q2.29 from 48/17 - 32/17 * d.
    Value half = binary("tosa.add", shiftRight(a, splat(1), false),
                        splat(int64_t(1) << 30));
    Value x = binary("tosa.add", splat(1515870810),
                     highMul(half, splat(-1010580540)));
    for (int i = 0; i < 3; ++i) {
      Value error =
          binary("tosa.sub", splat(int64_t(1) << 29), highMul(half, x));
      x = binary("tosa.add", x, saturatingShiftLeft(highMul(x, error), 2));
    }
    // x ~ 2 / (1 + a) in Q2.29 is 1 / (1 + a) in Q1.30; to Q0.31, where
    // 1.0 (a = 0) saturates.
    return {saturatingShiftLeft(x, 1), zeros};
  }
};
} // namespace

/// SOFTMAX of int8 \p x (tensor \p in) to \p outType, TFLite's kernel.
static FailureOr<Value> fixedPointSoftmax(TFLiteImporter &imp, Value x,
                                          int32_t in, RankedTensorType outType,
                                          double beta, Location loc,
                                          Location inner) {
  FailureOr<SoftmaxTable> table =
      buildSoftmaxTable(beta, imp.quant(in).scale());
  if (failed(table))
    return imp.opError() << "beta * input scale * 2^26 must be above 1, as "
                            "TFLite's int8 softmax requires (beta "
                         << beta << ", input scale " << imp.quant(in).scale()
                         << ")";
  OpBuilder &builder = imp.getBuilder();
  Type i32 = builder.getI32Type();
  auto inType = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> shape = inType.getShape();
  int64_t rank = inType.getRank();
  FixedSoftmaxBuilder b(imp, inner, rank);
  SmallVector<int64_t> reduced = llvm::to_vector(shape);
  reduced.back() = 1;
  auto wide = RankedTensorType::get(shape, i32);
  auto rowType = RankedTensorType::get(reduced, i32);
  auto axis = builder.getNamedAttr("axis", builder.getI32IntegerAttr(rank - 1));

  // max(row) - x, in [0, 255]: the index of the exponential.
  Value mx = imp.create("tosa.reduce_max",
                        RankedTensorType::get(reduced, inType.getElementType()),
                        {x}, {axis}, inner);
  Value index =
      b.binary("tosa.sub", imp.create("tosa.cast", rowType, {mx}, {}, inner),
               imp.create("tosa.cast", wide, {x}, {}, inner));
  int64_t count = inType.getNumElements();
  auto tableType = RankedTensorType::get({1, 256, 1}, i32);
  Value tableConst = imp.create(
      "tosa.const", tableType, {},
      {builder.getNamedAttr(
          "values", DenseElementsAttr::get(tableType, ArrayRef(table->exps)))},
      inner);
  Value gathered = imp.create(
      "tosa.gather", RankedTensorType::get({1, count, 1}, i32),
      {tableConst, imp.reshape(index, {1, count}, inner)}, {}, inner);
  Value exps = imp.reshape(gathered, shape, inner);

  // The row sums in Q12.19 (each exponential rounded to it), and their
  // reciprocal.
  Value sum =
      imp.create("tosa.reduce_sum", rowType,
                 {b.shiftRight(exps, b.splat(12), true)}, {axis}, inner);
  auto [scale, zeros] = b.reciprocal(sum);

  // exp * reciprocal, divided by 2^(12 - zeros + 31 - bits) with rounding,
  // plus the output's minimum, clamped.
  unsigned bits = outType.getElementType().getIntOrFloatBitWidth();
  int64_t lo = -(int64_t(1) << (bits - 1)), hi = (int64_t(1) << (bits - 1)) - 1;
  Value exponent = b.binary("tosa.sub", b.splat(12 + 31 - bits), zeros);
  Value scaled = b.shiftRight(b.highMul(exps, scale), exponent, true);
  Value shifted = b.clamp(b.binary("tosa.add", scaled, b.splat(lo)), lo, hi);
  return imp.create("tosa.cast", outType, {shifted}, {}, loc);
}

/// Checks the output quantization TFLite requires of an int8 softmax: zero
/// point -128 and scale 1/256 for int8, -32768 and 1/65536 (within 0.1%)
/// for int16.
static LogicalResult checkSoftmaxOutput(TFLiteImporter &imp, int32_t out,
                                        unsigned bits) {
  QuantParams q = imp.quant(out);
  bool ok = bits == 8 ? q.zeroPoint() == -128 && q.scale() == 1.0 / 256
                      : q.zeroPoint() == -32768 &&
                            std::abs(q.scale() - 1.0 / 65536) <= 0.001 / 65536;
  if (ok)
    return success();
  return imp.opError() << "an int8 softmax's i" << bits << " output must have "
                       << (bits == 8 ? "zero point -128 and scale 1/256"
                                     : "zero point -32768 and scale 1/65536")
                       << " as in TFLite, not zero point " << q.zeroPoint()
                       << " and scale " << q.scale();
}

/// The float softmax of \p v (f32), as reduce_max, sub, exp, reduce_sum,
/// reciprocal and mul.
static Value floatSoftmax(TFLiteImporter &imp, Value v, double beta,
                          Location loc, Location inner) {
  OpBuilder &builder = imp.getBuilder();
  auto fType = cast<RankedTensorType>(v.getType());
  int64_t rank = fType.getRank();
  SmallVector<int64_t> ones(rank, 1);
  if (beta != 1.0)
    v = imp.create(
        "tosa.mul", fType,
        {v,
         imp.reshape(imp.scalarConst(builder.getF32Type(), beta, inner), ones,
                     inner),
         imp.scalarConst(builder.getI8Type(), 0, inner)},
        {}, inner);
  SmallVector<int64_t> reduced = llvm::to_vector(fType.getShape());
  reduced.back() = 1;
  auto rType = RankedTensorType::get(reduced, builder.getF32Type());
  auto axis = builder.getNamedAttr("axis", builder.getI32IntegerAttr(rank - 1));
  Value mx = imp.create("tosa.reduce_max", rType, {v}, {axis}, inner);
  Value shifted = imp.create("tosa.sub", fType, {v, mx}, {}, inner);
  Value e = imp.create("tosa.exp", fType, {shifted}, {}, inner);
  Value sum = imp.create("tosa.reduce_sum", rType, {e}, {axis}, inner);
  Value inv = imp.create("tosa.reciprocal", rType, {sum}, {}, inner);
  return imp.create("tosa.mul", fType,
                    {e, inv, imp.scalarConst(builder.getI8Type(), 0, inner)},
                    {}, loc);
}

/// SOFTMAX: TFLite's fixed-point kernel for int8 input, the float softmax
/// otherwise (between dequantize and quantize for int16).
static LogicalResult convertSoftmax(TFLiteImporter &imp,
                                    const tfl::Operator *op) {
  if (failed(imp.checkArity(op, 1, 1, 1)))
    return failure();
  int32_t in = TFLiteImporter::input(op, 0), out = TFLiteImporter::output(op);
  RankedTensorType inType = imp.tensorType(in), outType = imp.tensorType(out);
  if (inType.getShape() != outType.getShape() || inType.getRank() == 0)
    return imp.opError() << "input " << inType << " and output " << outType
                         << " do not match";
  Type inElt = inType.getElementType(), outElt = outType.getElementType();
  bool qIn = !isa<FloatType>(inElt), qOut = !isa<FloatType>(outElt);
  if ((!qIn && !inElt.isF32()) || (!qOut && !outElt.isF32()) ||
      (qIn && !imp.isQuantized(in)) || (qOut && !imp.isQuantized(out)))
    return imp.opError() << "unsupported types " << inElt << " -> " << outElt;
  double beta = 1.0;
  if (const auto *o = op->builtin_options_as_SoftmaxOptions())
    beta = o->beta();
  FailureOr<Value> x = imp.getValue(in);
  if (failed(x))
    return failure();
  Location loc = imp.tensorLoc(out), inner = imp.tensorLoc(out, "softmax");
  if (inElt.isInteger(8)) {
    if (!outElt.isInteger(8) && !outElt.isInteger(16))
      return imp.opError() << "an int8 softmax must have an i8 or i16 output, "
                              "not "
                           << outElt;
    if (failed(checkSoftmaxOutput(imp, out, outElt.getIntOrFloatBitWidth())))
      return failure();
    FailureOr<Value> result =
        fixedPointSoftmax(imp, *x, in, outType, beta, loc, inner);
    if (failed(result))
      return failure();
    return imp.define(out, *result);
  }
  Value v = *x;
  if (qIn)
    v = imp.dequantize(v, in, imp.tensorLoc(out, "dequantize"));
  Value result = floatSoftmax(
      imp, v, beta, qOut ? imp.tensorLoc(out, "probabilities") : loc, inner);
  if (qOut)
    result = imp.quantize(result, out, loc);
  return imp.define(out, result);
}

void mlir::memopt::tfliteimport::populateSoftmaxConverters(
    ConverterTable &table) {
  table.onOp(kSoftmax, convertSoftmax);
}
