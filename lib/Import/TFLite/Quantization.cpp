//===- Quantization.cpp - TFLite quantization helpers ---------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The quantization arithmetic every TFLite converter shares, in one place:
// reading a tensor's scales and zero points, TFLite's QuantizeMultiplier
// (`computeMultiplier`), `tosa.rescale` with the zero-point workarounds TOSA
// needs for non-i8 types, requantization between two tensors, fused
// activations (RELU, RELU6, RELU_N1_TO_1 as `tosa.clamp`, bounds quantized as
// TFLite's CalculateActivationRangeQuantized does) and float
// quantize/dequantize.
//
// Multipliers are computed from the float scales like TFLite's
// QuantizeMultiplier. By default (`doubleRound`) rescales use DOUBLE_ROUND,
// TOSA's form of TFLite's rounding (rounding doubling high multiply, then
// rounding right shift, as MultiplyByQuantizedMultiplier), and the importer
// declares the `doubleround` extension in the module's `tosa.target_env`.
// The single-rounding option uses SINGLE_ROUND (one rounding, half up), which
// every LLVM 22 tool accepts but which is not TFLite's answer: outputs can
// drift by a few units over deep networks.
//
//===----------------------------------------------------------------------===//

#include "TFLiteImporter.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <algorithm>
#include <cassert>
#include <cmath>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::tfliteimport;

LogicalResult mlir::memopt::tfliteimport::computeMultiplier(double scale,
                                                            int32_t &multiplier,
                                                            int32_t &shift) {
  if (!std::isfinite(scale) || scale < 0)
    return failure();
  if (scale == 0) {
    multiplier = 0;
    shift = 2;
    return success();
  }
  int exponent = 0;
  double fraction = std::frexp(scale, &exponent);
  int64_t fixed = std::llround(fraction * double(int64_t(1) << 31));
  if (fixed == (int64_t(1) << 31)) {
    fixed /= 2;
    ++exponent;
  }
  int64_t s = 31 - int64_t(exponent);
  if (s < 2)
    return failure();
  if (s > 62) {
    int64_t drop = s - 62;
    fixed = drop > 31 ? 0 : (fixed + (int64_t(1) << (drop - 1))) >> drop;
    s = 62;
  }
  multiplier = static_cast<int32_t>(fixed);
  shift = static_cast<int32_t>(s);
  return success();
}

/// TOSA's apply_scale_32 with DOUBLE_ROUND: \p v * \p m / 2^\p s.
static int64_t tosaDoubleRound(int64_t v, int64_t m, int64_t s) {
  int64_t round = int64_t(1) << (s - 1);
  if (s > 31)
    round += v >= 0 ? (int64_t(1) << 30) : -(int64_t(1) << 30);
  return (v * m + round) >> s;
}

/// Floor division of \p a by positive \p b.
static int64_t floorDiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

bool mlir::memopt::tfliteimport::findExactRescale(ArrayRef<int64_t> inputs,
                                                  ArrayRef<int64_t> targets,
                                                  int32_t maxShift,
                                                  int32_t &multiplier,
                                                  int32_t &shift) {
  assert(inputs.size() == targets.size() && maxShift <= 55 &&
         "one target per input, shifts that keep target << shift in 64 bits");
  for (int64_t s = maxShift; s >= 2; --s) {
    int64_t lo = 0, hi = (int64_t(1) << 31) - 1;
    for (size_t i = 0; i < inputs.size() && lo <= hi; ++i) {
      int64_t v = inputs[i], f = targets[i];
      // floor((v * m + round) / 2^s) == f, round as tosaDoubleRound.
      int64_t round = int64_t(1) << (s - 1);
      if (s > 31)
        round += v >= 0 ? (int64_t(1) << 30) : -(int64_t(1) << 30);
      int64_t below = f * (int64_t(1) << s) - round,
              above = (f + 1) * (int64_t(1) << s) - round;
      // below <= v * m < above.
      if (v == 0) {
        if (!(below <= 0 && 0 < above))
          lo = hi + 1;
      } else if (v > 0) {
        lo = std::max(lo, -floorDiv(-below, v));
        hi = std::min(hi, floorDiv(above - 1, v));
      } else {
        lo = std::max(lo, -floorDiv(above - 1, -v));
        hi = std::min(hi, floorDiv(-below, -v));
      }
    }
    if (lo > hi)
      continue;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (tosaDoubleRound(inputs[i], lo, s) != targets[i])
        return false;
    multiplier = static_cast<int32_t>(lo);
    shift = static_cast<int32_t>(s);
    return true;
  }
  return false;
}

QuantParams TFLiteImporter::quant(int32_t index) {
  QuantParams q;
  const tfl::QuantizationParameters *p = tensors->Get(index)->quantization();
  if (!p || !p->scale() || p->scale()->size() == 0)
    return q;
  for (float s : *p->scale())
    q.scales.push_back(s);
  if (p->zero_point())
    for (int64_t z : *p->zero_point())
      q.zeroPoints.push_back(z);
  q.dimension = p->quantized_dimension();
  return q;
}

//===----------------------------------------------------------------------===//
// Rescaling
//===----------------------------------------------------------------------===//

FailureOr<Value> TFLiteImporter::rescale(Value value,
                                         RankedTensorType resultType,
                                         ArrayRef<double> scales,
                                         int64_t inputZp, int64_t outputZp,
                                         Location loc) {
  SmallVector<int32_t> multipliers;
  SmallVector<int8_t> shifts;
  for (double scale : scales) {
    int32_t m, s;
    if (failed(computeMultiplier(scale, m, s)))
      return opError() << "cannot represent the requantization factor " << scale
                       << " as a TOSA rescale";
    multipliers.push_back(m);
    shifts.push_back(static_cast<int8_t>(s));
  }
  return rescaleFixed(value, resultType, multipliers, shifts, inputZp, outputZp,
                      loc);
}

FailureOr<Value> TFLiteImporter::rescaleFixed(
    Value value, RankedTensorType resultType, ArrayRef<int32_t> multipliers,
    ArrayRef<int8_t> shifts, int64_t inputZp, int64_t outputZp, Location loc) {
  Type inElt = cast<RankedTensorType>(value.getType()).getElementType();
  Type outElt = resultType.getElementType();
  Type i32 = builder.getI32Type();
  ArrayRef<int64_t> shape = resultType.getShape();
  SmallVector<int64_t> ones(shape.size(), 1);
  // TOSA takes zero points only on i8 operands: others go through i32 with
  // an explicit subtraction or addition (and a clamp before narrowing).
  if (inputZp != 0 && !inElt.isInteger(8)) {
    if (!isa<IntegerType>(inElt) || inElt.getIntOrFloatBitWidth() > 32)
      return opError() << "zero point " << inputZp << " on a " << inElt
                       << " tensor is not supported";
    auto wideType = RankedTensorType::get(
        cast<RankedTensorType>(value.getType()).getShape(), i32);
    FailureOr<Value> wide = rescale(value, wideType, {1.0}, 0, 0, loc);
    if (failed(wide))
      return failure();
    Value centered = create(
        "tosa.sub", wideType,
        {*wide, reshape(scalarConst(i32, static_cast<double>(inputZp), loc),
                        ones, loc)},
        {}, loc);
    return rescaleFixed(centered, resultType, multipliers, shifts, 0, outputZp,
                        loc);
  }
  if (outputZp != 0 && !outElt.isInteger(8)) {
    if (!isa<IntegerType>(outElt) || outElt.getIntOrFloatBitWidth() > 32)
      return opError() << "zero point " << outputZp << " on a " << outElt
                       << " tensor is not supported";
    auto wideType = RankedTensorType::get(shape, i32);
    FailureOr<Value> wide =
        rescaleFixed(value, wideType, multipliers, shifts, inputZp, 0, loc);
    if (failed(wide))
      return failure();
    Value shifted = create(
        "tosa.add", wideType,
        {*wide, reshape(scalarConst(i32, static_cast<double>(outputZp), loc),
                        ones, loc)},
        {}, loc);
    if (outElt.isInteger(32))
      return shifted;
    unsigned width = outElt.getIntOrFloatBitWidth();
    Value clamped = create(
        "tosa.clamp", wideType, {shifted},
        {builder.getNamedAttr(
             "min_val",
             builder.getIntegerAttr(i32, -(int64_t(1) << (width - 1)))),
         builder.getNamedAttr(
             "max_val",
             builder.getIntegerAttr(i32, (int64_t(1) << (width - 1)) - 1))},
        loc);
    return create("tosa.cast", resultType, {clamped}, {}, loc);
  }
  auto n = static_cast<int64_t>(multipliers.size());
  auto mType = RankedTensorType::get({n}, builder.getI32Type());
  auto sType = RankedTensorType::get({n}, builder.getI8Type());
  Value mult =
      create("tosa.const", mType, {},
             {builder.getNamedAttr("values",
                                   DenseElementsAttr::get(
                                       mType, ArrayRef<int32_t>(multipliers)))},
             loc);
  Value shift = create(
      "tosa.const", sType, {},
      {builder.getNamedAttr(
          "values", DenseElementsAttr::get(sType, ArrayRef<int8_t>(shifts)))},
      loc);
  Value izp = scalarConst(inElt, static_cast<double>(inputZp), loc);
  Value ozp = scalarConst(outElt, static_cast<double>(outputZp), loc);
  return create(
      "tosa.rescale", resultType, {value, mult, shift, izp, ozp},
      {builder.getNamedAttr("scale32", builder.getBoolAttr(true)),
       builder.getNamedAttr(
           "rounding_mode",
           tosa::RoundingModeAttr::get(context,
                                       options.doubleRound
                                           ? tosa::RoundingMode::DOUBLE_ROUND
                                           : tosa::RoundingMode::SINGLE_ROUND)),
       builder.getNamedAttr("per_channel", builder.getBoolAttr(n > 1)),
       builder.getNamedAttr("input_unsigned", builder.getBoolAttr(false)),
       builder.getNamedAttr("output_unsigned", builder.getBoolAttr(false))},
      loc);
}

FailureOr<Value> TFLiteImporter::activation(Value value,
                                            tfl::ActivationFunctionType act,
                                            int32_t outIndex, Location loc) {
  if (act == tfl::ActivationFunctionType::NONE)
    return value;
  double lo, hi;
  switch (act) {
  case tfl::ActivationFunctionType::RELU:
    lo = 0;
    hi = INFINITY;
    break;
  case tfl::ActivationFunctionType::RELU6:
    lo = 0;
    hi = 6;
    break;
  case tfl::ActivationFunctionType::RELU_N1_TO_1:
    lo = -1;
    hi = 1;
    break;
  default:
    return opError() << "unsupported fused activation "
                     << static_cast<int>(act);
  }
  auto type = cast<RankedTensorType>(value.getType());
  Type elt = type.getElementType();
  Attribute minAttr, maxAttr;
  if (isa<FloatType>(elt)) {
    if (!elt.isF32())
      return opError() << "fused activation on " << elt << " not supported";
    minAttr = builder.getF32FloatAttr(lo);
    maxAttr = builder.getF32FloatAttr(std::isinf(hi) ? 3.40282347e+38f
                                                     : static_cast<float>(hi));
  } else {
    unsigned width = elt.getIntOrFloatBitWidth();
    int64_t qmin = -(int64_t(1) << (width - 1));
    int64_t qmax = (int64_t(1) << (width - 1)) - 1;
    QuantParams q = quant(outIndex);
    if (!q.present() || !(q.scale() > 0))
      return opError() << "fused activation needs the output's scale";
    int64_t zp = q.zeroPoint();
    auto quantize = [&](double x) {
      return zp + static_cast<int64_t>(std::round(x / q.scale()));
    };
    qmin = std::max(qmin, quantize(lo));
    if (!std::isinf(hi))
      qmax = std::min(qmax, quantize(hi));
    if (qmin > qmax)
      qmin = qmax;
    // A clamp to the whole range (RELU with the lowest zero point) changes
    // nothing: emit none, so every tool sees the ops the compile pipeline
    // sees, and give its location (the output tensor's name) to the op it
    // would have followed.
    if (qmin == -(int64_t(1) << (width - 1)) &&
        qmax == (int64_t(1) << (width - 1)) - 1) {
      if (Operation *def = value.getDefiningOp())
        def->setLoc(loc);
      return value;
    }
    minAttr = builder.getIntegerAttr(elt, qmin);
    maxAttr = builder.getIntegerAttr(elt, qmax);
  }
  return create("tosa.clamp", type, {value},
                {builder.getNamedAttr("min_val", minAttr),
                 builder.getNamedAttr("max_val", maxAttr)},
                loc);
}

FailureOr<Value> TFLiteImporter::requantize(Value value, int32_t from,
                                            int32_t to, Location loc) {
  if (!isQuantized(from) && !isQuantized(to))
    return value;
  QuantParams qf = quant(from), qt = quant(to);
  if (qf.scales.size() > 1 || qt.scales.size() > 1)
    return opError() << "per-channel activations are not supported";
  if (qf.scale() == qt.scale() && qf.zeroPoint() == qt.zeroPoint() &&
      tensorType(from).getElementType() == tensorType(to).getElementType())
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  return rescale(
      value,
      RankedTensorType::get(type.getShape(), tensorType(to).getElementType()),
      {qf.scale() / qt.scale()}, qf.zeroPoint(), qt.zeroPoint(), loc);
}

Value TFLiteImporter::dequantize(Value value, int32_t index, Location loc) {
  auto type = cast<RankedTensorType>(value.getType());
  auto fType = RankedTensorType::get(type.getShape(), builder.getF32Type());
  QuantParams q = quant(index);
  Value f = create("tosa.cast", fType, {value}, {}, loc);
  if (q.zeroPoint() != 0)
    f = create("tosa.sub", fType,
               {f, reshape(scalarConst(builder.getF32Type(),
                                       static_cast<double>(q.zeroPoint()), loc),
                           SmallVector<int64_t>(type.getRank(), 1), loc)},
               {}, loc);
  Value scale = reshape(scalarConst(builder.getF32Type(), q.scale(), loc),
                        SmallVector<int64_t>(type.getRank(), 1), loc);
  return create("tosa.mul", fType,
                {f, scale, scalarConst(builder.getI8Type(), 0, loc)}, {}, loc);
}

Value TFLiteImporter::quantize(Value value, int32_t index, Location loc) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> ones(type.getRank(), 1);
  QuantParams q = quant(index);
  Value inv = reshape(scalarConst(builder.getF32Type(), 1.0 / q.scale(), loc),
                      ones, loc);
  Value f =
      create("tosa.mul", type,
             {value, inv, scalarConst(builder.getI8Type(), 0, loc)}, {}, loc);
  if (q.zeroPoint() != 0)
    f = create("tosa.add", type,
               {f, reshape(scalarConst(builder.getF32Type(),
                                       static_cast<double>(q.zeroPoint()), loc),
                           ones, loc)},
               {}, loc);
  return create("tosa.cast",
                RankedTensorType::get(type.getShape(),
                                      tensorType(index).getElementType()),
                {f}, {}, loc);
}
