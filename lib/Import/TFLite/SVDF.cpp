//===- SVDF.cpp - TFLite SVDF ---------------------------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// SVDF (singular value decomposition filter, the stateful layer of
// keyword-spotting models). TOSA functions have no variables, so the
// activation-state tensor becomes an extra function argument and its updated
// value an extra result, after the graph outputs; the argument names the
// result (`memopt.state`, MemOpt/CostModel/States.h), and the update is the
// shift that mem-opt-compile computes in place in the state's own buffer
// (getInPlaceStateUpdate). The feature stage is a 1x1
// `tosa.conv2d`, the state shift a `tosa.slice` and `tosa.concat`, the time
// stage a `tosa.matmul` per filter for one batch of an int8 or float state
// (`tosa.mul` and `tosa.reduce_sum` otherwise). The int8 arithmetic is TFLite
// Micro's reference kernel (svdf_common.cc, EvalIntegerSvdfReference) step
// for step: its float scale products, the feature product clamped to the
// state type before the state's zero point is added (a sum that wraps on
// narrowing), the time stage on (state - zero point) without a time-weight
// zero point, the bias, the rank reduction, and the output rescale with no
// fused activation.
//
//===----------------------------------------------------------------------===//

#include "TFLiteImporter.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::tfliteimport;

/// The real factor a * b / c as TFLite Micro's SVDF computes it: in float
/// (its scales are floats and its Prepare multiplies them as such), widened
/// to double only for QuantizeMultiplier. Computing in double can round to
/// another multiplier.
static double tfliteScale(double a, double b, double c) {
  float product = static_cast<float>(a) * static_cast<float>(b);
  float quotient = product / static_cast<float>(c);
  return static_cast<double>(quotient);
}

/// Requantizes the feature stage's i32 accumulator \p acc ([B, 1, 1, F]) to
/// the state type \p stElt (i8 or i16) as TFLite Micro's integer SVDF does:
/// MultiplyByQuantizedMultiplier by \p scale and a clamp to the range of
/// \p stElt (one saturating `tosa.rescale`), and only then the state's zero
/// point \p stateZp, added in i32 and narrowed to \p stElt by `tosa.cast`,
/// which keeps the low bits (TOSA's CAST between integers truncates). The
/// sum wraps as TFLite Micro's store into the state buffer does: with zero
/// point -13, 127 becomes 114 and -128 becomes 115, where a rescale with the
/// zero point as output zero point would saturate to 127 and -128.
static FailureOr<Value> requantizeFeature(TFLiteImporter &imp, Value acc,
                                          Type stElt, double scale,
                                          int64_t stateZp, Location loc) {
  auto accType = cast<RankedTensorType>(acc.getType());
  auto stateType = RankedTensorType::get(accType.getShape(), stElt);
  FailureOr<Value> clamped = imp.rescale(acc, stateType, {scale}, 0, 0, loc);
  if (failed(clamped) || stateZp == 0)
    return clamped;
  Type i32 = imp.getBuilder().getI32Type();
  SmallVector<int64_t> ones(accType.getRank(), 1);
  Value wide = imp.create("tosa.cast", accType, {*clamped}, {}, loc);
  Value zp = imp.reshape(
      imp.scalarConst(i32, static_cast<double>(stateZp), loc), ones, loc);
  Value sum = imp.create("tosa.add", accType, {wide, zp}, {}, loc);
  return imp.create("tosa.cast", stateType, {sum}, {}, loc);
}

/// SVDF: feature (1x1 conv2d), state shift (slice + concat) and time
/// (mul + reduce_sum) stages; the state is an extra argument and result.
static LogicalResult convertSvdf(TFLiteImporter &imp, const tfl::Operator *op) {
  // Inputs: input [B, I], weights_feature [F, I], weights_time [F, M],
  // bias [U] (optional), activation state [B, M * F] (a variable tensor).
  // As in TFLite Micro's reference kernel: shift the state left by one step,
  // write x . weights_feature (requantized to the state by
  // requantizeFeature) into the last step, then out[b, u] = bias[u] + sum
  // over the R filters of unit u of sum_m (state - zp) * weights_time,
  // requantized to the output. The integer kernel applies no fused
  // activation (TFLite Micro's neither).
  if (failed(imp.checkArity(op, 3, 5, 1)))
    return failure();
  if (op->inputs()->size() != 5)
    return imp.opError() << "expected 5 inputs, got " << op->inputs()->size();
  int32_t in = TFLiteImporter::input(op, 0), wf = TFLiteImporter::input(op, 1),
          wt = TFLiteImporter::input(op, 2),
          bias = TFLiteImporter::input(op, 3),
          state = TFLiteImporter::input(op, 4),
          out = TFLiteImporter::output(op);
  if (state < 0)
    return imp.opError() << "missing activation state";
  const auto *o = op->builtin_options_as_SVDFOptions();
  if (!o || o->rank() <= 0)
    return imp.opError() << "missing SVDFOptions or invalid rank";
  RankedTensorType inType = imp.tensorType(in), wfType = imp.tensorType(wf),
                   wtType = imp.tensorType(wt), stType = imp.tensorType(state),
                   outType = imp.tensorType(out);
  if (inType.getRank() != 2 || wfType.getRank() != 2 || wtType.getRank() != 2 ||
      stType.getRank() != 2 || outType.getRank() != 2)
    return imp.opError() << "input, weights, state and output must have rank 2";
  int64_t b = inType.getDimSize(0), i = inType.getDimSize(1),
          f = wfType.getDimSize(0), m = wtType.getDimSize(1), r = o->rank();
  if (wfType.getDimSize(1) != i || wtType.getDimSize(0) != f || f % r != 0 ||
      m < 1 || stType.getDimSize(0) != b || stType.getDimSize(1) != m * f ||
      outType.getDimSize(0) != b || outType.getDimSize(1) != f / r)
    return imp.opError() << "inconsistent SVDF shapes";
  int64_t u = f / r;
  if (!imp.getTensor(state)->is_variable() || imp.constantData(state))
    return imp.opError() << "the activation state must be a variable tensor";
  if (imp.hasValue(state))
    return imp.opError() << "the activation state is shared between operators";
  Type inElt = inType.getElementType(), stElt = stType.getElementType();
  bool quantized = inElt.isInteger(8);
  if (!(inElt.isF32() || quantized) || wfType.getElementType() != inElt ||
      wtType.getElementType() != stElt || outType.getElementType() != inElt ||
      (quantized && !(stElt.isInteger(8) || stElt.isInteger(16))) ||
      (!quantized && !stElt.isF32()))
    return imp.opError() << "unsupported SVDF types";
  if (quantized &&
      (!imp.isQuantized(in) || !imp.isQuantized(wf) || !imp.isQuantized(wt) ||
       !imp.isQuantized(state) || !imp.isQuantized(out) ||
       imp.quant(wf).scales.size() != 1 || imp.quant(wt).scales.size() != 1))
    return imp.opError()
           << "int8 SVDF needs per-tensor quantization parameters";
  Location loc = imp.tensorLoc(out);
  OpBuilder &builder = imp.getBuilder();
  Type i32 = builder.getI32Type();
  Type accElt = quantized ? i32 : inElt;

  // The state joins the function as an argument.
  Value stateArg = imp.addStateArgument(state);

  // Feature: x . weights_feature as a 1x1 convolution.
  FailureOr<Value> x = imp.getValue(in);
  FailureOr<Value> w = imp.getValue(wf, ArrayRef<int64_t>{f, 1, 1, i});
  if (failed(x) || failed(w))
    return failure();
  Location featLoc = imp.tensorLoc(out, "feature");
  auto zeros = RankedTensorType::get({f}, accElt);
  Value zeroBias = imp.create(
      "tosa.const", zeros, {},
      {builder.getNamedAttr(
          "values",
          DenseElementsAttr::get(
              zeros, quantized ? Attribute(builder.getIntegerAttr(i32, 0))
                               : builder.getFloatAttr(inElt, 0.0)))},
      featLoc);
  double izp = quantized ? static_cast<double>(imp.quant(in).zeroPoint()) : 0;
  Value feature = imp.create(
      "tosa.conv2d", RankedTensorType::get({b, 1, 1, f}, accElt),
      {imp.reshape(*x, {b, 1, 1, i}, featLoc), *w, zeroBias,
       imp.scalarConst(inElt, izp, featLoc),
       imp.scalarConst(inElt, 0, featLoc)},
      {builder.getNamedAttr("acc_type", TypeAttr::get(accElt)),
       builder.getNamedAttr("pad", builder.getDenseI64ArrayAttr({0, 0, 0, 0})),
       builder.getNamedAttr("stride", builder.getDenseI64ArrayAttr({1, 1})),
       builder.getNamedAttr("dilation", builder.getDenseI64ArrayAttr({1, 1}))},
      featLoc);
  if (quantized) {
    FailureOr<Value> rq = requantizeFeature(
        imp, feature, stElt,
        tfliteScale(imp.quant(in).scale(), imp.quant(wf).scale(),
                    imp.quant(state).scale()),
        imp.quant(state).zeroPoint(), imp.tensorLoc(out, "feature_rescale"));
    if (failed(rq))
      return failure();
    feature = *rq;
  }
  feature = imp.reshape(feature, {b, f, 1}, featLoc);

  // New state: drop the oldest step, append the feature.
  Location stLoc = imp.tensorLoc(state, "next");
  Value st = imp.reshape(stateArg, {b, f, m}, stLoc);
  Value next = feature;
  if (m > 1) {
    Value kept =
        imp.create("tosa.slice", RankedTensorType::get({b, f, m - 1}, stElt),
                   {st, imp.shapeConst({0, 0, 1}, stLoc),
                    imp.shapeConst({b, f, m - 1}, stLoc)},
                   {}, stLoc);
    next = imp.create(
        "tosa.concat", RankedTensorType::get({b, f, m}, stElt), {kept, feature},
        {builder.getNamedAttr("axis", builder.getI32IntegerAttr(2))}, stLoc);
  }
  imp.addStateResult(state, imp.reshape(next, {b, m * f}, stLoc));

  // Time: sum over memory of (state - zp) * weights_time.
  Location timeLoc = imp.tensorLoc(out, "time");
  Value perFilter;
  if (b == 1 && (stElt.isInteger(8) || stElt.isF32())) {
    // One batch: a matmul with one product per filter (the matmul's batch),
    // the filter's state row [1, M] times its weights column [M, 1], the
    // state's zero point the matmul's A zero point. The products and the
    // widened state are never tensors (a 1 x F x M tensor of i32 each), as
    // in TFLite Micro's kernel. (int16 states would need TOSA's i48
    // accumulator.)
    FailureOr<Value> wtv = imp.getValue(wt, ArrayRef<int64_t>{f, m, 1});
    if (failed(wtv))
      return failure();
    double zp = quantized ? static_cast<double>(imp.quant(state).zeroPoint())
                          : 0.0;
    Value product = imp.create(
        "tosa.matmul", RankedTensorType::get({f, 1, 1}, accElt),
        {imp.reshape(next, {f, 1, m}, timeLoc), *wtv,
         imp.scalarConst(stElt, zp, timeLoc),
         imp.scalarConst(stElt, 0, timeLoc)},
        {}, timeLoc);
    perFilter = imp.reshape(product, {b, f, 1}, timeLoc);
  } else {
    FailureOr<Value> wtv = imp.getValue(wt, ArrayRef<int64_t>{1, f, m});
    if (failed(wtv))
      return failure();
    Value lhs = next, rhs = *wtv;
    if (quantized) {
      FailureOr<Value> l =
          imp.rescale(next, RankedTensorType::get({b, f, m}, i32), {1.0},
                      imp.quant(state).zeroPoint(), 0, timeLoc);
      FailureOr<Value> rr = imp.rescale(
          *wtv, RankedTensorType::get({1, f, m}, i32), {1.0}, 0, 0, timeLoc);
      if (failed(l) || failed(rr))
        return failure();
      lhs = *l;
      rhs = *rr;
    }
    Value prod =
        imp.create("tosa.mul", RankedTensorType::get({b, f, m}, accElt),
                   {lhs, rhs, imp.scalarConst(builder.getI8Type(), 0, timeLoc)},
                   {}, timeLoc);
    perFilter = imp.create(
        "tosa.reduce_sum", RankedTensorType::get({b, f, 1}, accElt), {prod},
        {builder.getNamedAttr("axis", builder.getI32IntegerAttr(2))}, timeLoc);
  }
  // Rank 1 has one filter per unit: nothing to sum (canonicalize would fold
  // the sum over an axis of size 1).
  Value perUnit =
      r == 1 ? perFilter
             : imp.create("tosa.reduce_sum",
                          RankedTensorType::get({b, u, 1}, accElt),
                          {imp.reshape(perFilter, {b, u, r}, timeLoc)},
                          {builder.getNamedAttr(
                              "axis", builder.getI32IntegerAttr(2))},
                          timeLoc);
  Value result = imp.reshape(perUnit, {b, u}, timeLoc);
  if (bias >= 0) {
    if (imp.tensorType(bias).getElementType() != accElt ||
        imp.tensorType(bias).getNumElements() != u)
      return imp.opError() << "bias must be " << u << " values of " << accElt;
    FailureOr<Value> bv = imp.getValue(bias, ArrayRef<int64_t>{1, u});
    if (failed(bv))
      return failure();
    result = imp.create("tosa.add", RankedTensorType::get({b, u}, accElt),
                        {result, *bv}, {}, imp.tensorLoc(out, "bias"));
  }
  if (quantized) {
    FailureOr<Value> rq = imp.rescale(
        result, outType,
        {tfliteScale(imp.quant(state).scale(), imp.quant(wt).scale(),
                     imp.quant(out).scale())},
        0, imp.quant(out).zeroPoint(), loc);
    if (failed(rq))
      return failure();
    return imp.define(out, *rq);
  }
  FailureOr<Value> activated =
      imp.activation(result, o->fused_activation_function(), out, loc);
  if (failed(activated))
    return failure();
  return imp.define(out, *activated);
}

void mlir::memopt::tfliteimport::populateSVDFConverters(ConverterTable &table) {
  table.onOp(kSvdf, convertSvdf);
}
