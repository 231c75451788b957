//===- Pooling.cpp - TFLite pooling and reductions ------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// AVERAGE_POOL_2D, MAX_POOL_2D and MEAN:
// - The pools are `tosa.avg_pool2d` and `tosa.max_pool2d` with explicit
//   padding (unused input rows sliced off); int8 pools keep the input's
//   quantization and are rescaled to the output's when it differs.
// - With TFLite's arithmetic (the default), an int8 average pool is TFLite
//   Micro's: the window's raw int8 values (zero point included) summed in
//   i32 over the valid positions, divided by their count with halves rounded
//   away from zero, (sum +- count / 2) / count truncated. A global pool sums
//   with `tosa.reduce_sum`, others with a depthwise convolution by ones;
//   when all windows have the same count, one DOUBLE_ROUND rescale found at
//   import divides every possible sum exactly, otherwise `tosa.intdiv`.
//   `tosa.avg_pool2d` rounds after subtracting the zero point: with zero
//   point -128 a raw sum that divides to -121.5 is +6.5, rounded to 7,
//   -121 where TFLite gives -122.
// - MEAN is one `tosa.reduce_sum` per reduced axis times 1 / count; int8
//   widens to i32 minus the zero point, sums, and rescales. With TFLite's
//   arithmetic the rescale is TFLite Micro's: QuantizeMultiplier(s_in /
//   s_out), then the multiplier times 2^k divided by the count (truncated),
//   2^k the largest power of two not above it, and the shift k larger;
//   otherwise one multiplier for s_in / (s_out * count).
//
//===----------------------------------------------------------------------===//

#include "TFLiteImporter.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::tfliteimport;

namespace {

/// A checked 2-D pooling operator, its input ready for the pool op.
struct PoolOperands {
  /// Input and output tensors.
  int32_t in, out;
  /// The output's type.
  RankedTensorType outType;
  /// The element type (f32 or i8).
  Type elt;
  /// Whether the pool is int8.
  bool quantized;
  /// Whether ops follow the pool (a rescale or a fused activation), so the
  /// pool op itself carries a `#pool` location.
  bool followed;
  /// The options table.
  const tfl::Pool2DOptions *options;
  /// The input, sliced to the rows the windows read.
  Value input;
  /// The pool op's kernel, stride and pad attributes.
  SmallVector<NamedAttribute> attrs;
};

} // namespace

/// Checks 2-D pooling operator \p op, computes its window and builds its
/// input.
static FailureOr<PoolOperands> poolOperands(TFLiteImporter &imp,
                                            const tfl::Operator *op) {
  if (failed(imp.checkArity(op, 1, 1, 1)))
    return failure();
  PoolOperands p;
  p.in = TFLiteImporter::input(op, 0);
  p.out = TFLiteImporter::output(op);
  RankedTensorType inType = imp.tensorType(p.in);
  p.outType = imp.tensorType(p.out);
  p.elt = inType.getElementType();
  if (inType.getRank() != 4 || p.outType.getRank() != 4 ||
      p.outType.getElementType() != p.elt ||
      p.outType.getDimSize(0) != inType.getDimSize(0) ||
      p.outType.getDimSize(3) != inType.getDimSize(3))
    return imp.opError() << "input " << inType << " and output " << p.outType
                         << " do not match";
  if (!(p.elt.isF32() || p.elt.isInteger(8)))
    return imp.opError() << "unsupported element type " << p.elt;
  const auto *o = op->builtin_options_as_Pool2DOptions();
  if (!o)
    return imp.opError() << "missing Pool2DOptions";
  p.options = o;
  SmallVector<int64_t> pad = {0, 0, 0, 0};
  SmallVector<int64_t> kernel = {o->filter_height(), o->filter_width()};
  SmallVector<int64_t> stride = {o->stride_h(), o->stride_w()};
  int64_t usedH, usedW;
  if (failed(imp.spatialPadding(inType.getDimSize(1), p.outType.getDimSize(1),
                                kernel[0], stride[0], 1, o->padding(), pad[0],
                                pad[1], usedH)) ||
      failed(imp.spatialPadding(inType.getDimSize(2), p.outType.getDimSize(2),
                                kernel[1], stride[1], 1, o->padding(), pad[2],
                                pad[3], usedW)))
    return failure();
  if (pad[0] >= kernel[0] || pad[1] >= kernel[0] || pad[2] >= kernel[1] ||
      pad[3] >= kernel[1])
    return imp.opError() << "padding as large as the pooling window";
  FailureOr<Value> x = imp.getValue(p.in);
  if (failed(x))
    return failure();
  p.quantized = p.elt.isInteger(8);
  p.followed =
      o->fused_activation_function() != tfl::ActivationFunctionType::NONE ||
      (p.quantized &&
       (imp.quant(p.in).scale() != imp.quant(p.out).scale() ||
        imp.quant(p.in).zeroPoint() != imp.quant(p.out).zeroPoint()));
  p.input = imp.sliceSpatial(*x, usedH, usedW, imp.tensorLoc(p.out, "slice"));
  OpBuilder &builder = imp.getBuilder();
  p.attrs = {
      builder.getNamedAttr("kernel", builder.getDenseI64ArrayAttr(kernel)),
      builder.getNamedAttr("stride", builder.getDenseI64ArrayAttr(stride)),
      builder.getNamedAttr("pad", builder.getDenseI64ArrayAttr(pad))};
  return p;
}

/// Returns the location of the pool op of \p p.
static Location poolLoc(TFLiteImporter &imp, const PoolOperands &p) {
  return p.followed ? imp.tensorLoc(p.out, "pool") : imp.tensorLoc(p.out);
}

/// Brings pooled \p result to the output's quantization, applies the fused
/// activation and defines the output of \p p.
static LogicalResult finishPool(TFLiteImporter &imp, const PoolOperands &p,
                                Value result) {
  if (p.quantized) {
    // The pooled value keeps the input's quantization.
    FailureOr<Value> rq =
        imp.requantize(result, p.in, p.out, imp.tensorLoc(p.out, "rescale"));
    if (failed(rq))
      return failure();
    result = *rq;
  }
  FailureOr<Value> activated =
      imp.activation(result, p.options->fused_activation_function(), p.out,
                     imp.tensorLoc(p.out));
  if (failed(activated))
    return failure();
  return imp.define(p.out, *activated);
}

//===----------------------------------------------------------------------===//
// Converters
//===----------------------------------------------------------------------===//

/// Returns an i32 constant of \p shape holding \p values.
static Value i32Const(TFLiteImporter &imp, ArrayRef<int64_t> shape,
                      ArrayRef<int32_t> values, Location loc) {
  OpBuilder &builder = imp.getBuilder();
  auto type = RankedTensorType::get(shape, builder.getI32Type());
  return imp.create(
      "tosa.const", type, {},
      {builder.getNamedAttr("values", DenseElementsAttr::get(type, values))},
      loc);
}

/// Returns the number of input positions of a window of \p kernel at output
/// position \p o (stride \p stride, leading padding \p pad) that lie in
/// an input of \p size, as TFLite's pooling kernels count them.
static int64_t validCount(int64_t o, int64_t stride, int64_t pad,
                          int64_t kernel, int64_t size) {
  int64_t origin = o * stride - pad;
  return std::min(kernel, size - origin) - std::max<int64_t>(0, -origin);
}

/// TFLite's rounded division of the i32 window sums \p sum ([N, OH, OW, C])
/// by the \p counts of their output positions, \p halves their halves:
/// `tosa.greater`, `tosa.add`, `tosa.sub`, `tosa.select`, `tosa.intdiv`,
/// at \p divLoc, then a `tosa.cast` to \p outType at \p loc (the average of
/// int8 values is an int8 value: the cast is exact).
static Value tfliteDivide(TFLiteImporter &imp, Value sum,
                          ArrayRef<int32_t> counts, ArrayRef<int32_t> halves,
                          RankedTensorType outType, Location divLoc,
                          Location loc) {
  OpBuilder &builder = imp.getBuilder();
  auto sumType = cast<RankedTensorType>(sum.getType());
  int64_t oh = sumType.getDimSize(1), ow = sumType.getDimSize(2);
  Value count = i32Const(imp, {1, oh, ow, 1}, counts, divLoc);
  Value half = i32Const(imp, {1, oh, ow, 1}, halves, divLoc);
  Value zero = i32Const(imp, {1, 1, 1, 1}, {0}, divLoc);
  Value positive =
      imp.create("tosa.greater",
                 RankedTensorType::get(sumType.getShape(), builder.getI1Type()),
                 {sum, zero}, {}, divLoc);
  Value up = imp.create("tosa.add", sumType, {sum, half}, {}, divLoc);
  Value down = imp.create("tosa.sub", sumType, {sum, half}, {}, divLoc);
  Value rounded =
      imp.create("tosa.select", sumType, {positive, up, down}, {}, divLoc);
  Value quotient =
      imp.create("tosa.intdiv", sumType, {rounded, count}, {}, divLoc);
  return imp.create("tosa.cast", outType, {quotient}, {}, loc);
}

/// TFLite's rounded division of the window sum \p sum by its count \p count:
/// (sum +- count / 2) / count, the sign that of the sum, truncated.
static int64_t roundedDivide(int64_t sum, int64_t count) {
  return sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
}

/// Finds one DOUBLE_ROUND rescale, \p m and TOSA shift \p s, that divides
/// every sum of \p count int8 values by \p count as TFLite does
/// (roundedDivide). Counts above 4096 are not searched.
static bool findExactDivision(int64_t count, int32_t &m, int32_t &s) {
  if (count > 4096)
    return false;
  SmallVector<int64_t> sums, quotients;
  for (int64_t x = -128 * count; x <= 127 * count; ++x) {
    sums.push_back(x);
    quotients.push_back(roundedDivide(x, count));
  }
  return findExactRescale(sums, quotients, /*maxShift=*/55, m, s);
}

/// TFLite Micro's int8 average pool of \p p: the raw sum of each window in
/// i32 (zero point included), then (sum +- count / 2) / count, the sign that
/// of the sum, truncated: halves rounded away from zero. A global pool sums
/// the input, reshaped to one spatial axis and widened, with one
/// `tosa.reduce_sum`; others with a depthwise convolution by ones. When every
/// window has the same count, one DOUBLE_ROUND rescale that divides each
/// possible sum exactly (findExactDivision) gives the int8 average, so that
/// a depthwise sum is computed one pixel at a time inside it
/// (isFusedAccumulator); otherwise the rounded division is spelled out with
/// `tosa.intdiv`.
static FailureOr<Value> tflitePoolAverage(TFLiteImporter &imp,
                                          const PoolOperands &p, Location loc) {
  OpBuilder &builder = imp.getBuilder();
  Type i32 = builder.getI32Type();
  auto inType = cast<RankedTensorType>(p.input.getType());
  int64_t n = inType.getDimSize(0), h = inType.getDimSize(1),
          w = inType.getDimSize(2), c = inType.getDimSize(3);
  int64_t oh = p.outType.getDimSize(1), ow = p.outType.getDimSize(2);
  ArrayRef<int64_t> kernel, stride, pad;
  for (const NamedAttribute &a : p.attrs) {
    auto v = cast<DenseI64ArrayAttr>(a.getValue()).asArrayRef();
    if (a.getName() == "kernel")
      kernel = v;
    else if (a.getName() == "stride")
      stride = v;
    else
      pad = v;
  }
  // The count of each output position, and half of it.
  SmallVector<int32_t> counts, halves;
  for (int64_t y = 0; y < oh; ++y)
    for (int64_t x = 0; x < ow; ++x) {
      int64_t count = validCount(y, stride[0], pad[0], kernel[0], h) *
                      validCount(x, stride[1], pad[2], kernel[1], w);
      if (count <= 0)
        return imp.opError() << "a pooling window reads no input";
      counts.push_back(static_cast<int32_t>(count));
      halves.push_back(static_cast<int32_t>(count / 2));
    }
  int32_t m = 0, s = 0;
  bool oneRescale =
      llvm::all_equal(counts) && findExactDivision(counts.front(), m, s);

  Location sumLoc = imp.tensorLoc(p.out, "sum");
  Location divLoc = imp.tensorLoc(p.out, "divide");
  auto sumType = RankedTensorType::get({n, oh, ow, c}, i32);
  bool global = oh == 1 && ow == 1 && kernel[0] == h && kernel[1] == w &&
                llvm::all_of(pad, [](int64_t v) { return v == 0; });
  if (global) {
    // [N, H * W, C] (a view), widened inside the sum: one i32 per channel.
    Value v = imp.reshape(p.input, {n, h * w, c}, sumLoc);
    v = imp.create("tosa.cast", RankedTensorType::get({n, h * w, c}, i32), {v},
                   {}, imp.tensorLoc(p.out, "widen"));
    v = imp.create(
        "tosa.reduce_sum", RankedTensorType::get({n, 1, c}, i32), {v},
        {builder.getNamedAttr("axis", builder.getI32IntegerAttr(1))}, sumLoc);
    if (oneRescale) {
      FailureOr<Value> average = imp.rescaleFixed(
          v, RankedTensorType::get({n, 1, c}, p.outType.getElementType()), {m},
          {static_cast<int8_t>(s)}, 0, 0, divLoc);
      if (failed(average))
        return failure();
      return imp.reshape(*average, p.outType.getShape(), loc);
    }
    Value sum = imp.reshape(v, sumType.getShape(), sumLoc);
    return tfliteDivide(imp, sum, counts, halves, p.outType, divLoc, loc);
  }
  // A depthwise convolution by ones, without zero points: padded positions
  // add 0, as TFLite skips them.
  auto onesType = RankedTensorType::get({kernel[0], kernel[1], c, 1}, p.elt);
  Value ones = imp.create(
      "tosa.const", onesType, {},
      {builder.getNamedAttr(
          "values",
          DenseElementsAttr::get(onesType, builder.getIntegerAttr(p.elt, 1)))},
      sumLoc);
  Value bias = i32Const(imp, {c}, SmallVector<int32_t>(c, 0), sumLoc);
  Value zp = imp.scalarConst(p.elt, 0, sumLoc);
  Value sum = imp.create(
      "tosa.depthwise_conv2d", sumType, {p.input, ones, bias, zp, zp},
      {builder.getNamedAttr("acc_type", TypeAttr::get(i32)),
       builder.getNamedAttr("pad", builder.getDenseI64ArrayAttr(pad)),
       builder.getNamedAttr("stride", builder.getDenseI64ArrayAttr(stride)),
       builder.getNamedAttr("dilation", builder.getDenseI64ArrayAttr({1, 1}))},
      sumLoc);
  if (oneRescale)
    return imp.rescaleFixed(sum, p.outType, {m}, {static_cast<int8_t>(s)}, 0, 0,
                            loc);
  return tfliteDivide(imp, sum, counts, halves, p.outType, divLoc, loc);
}

/// AVERAGE_POOL_2D: `tosa.avg_pool2d` (i32 accumulator for int8, the input
/// zero point as both zero points); int8 with TFLite's arithmetic as TFLite
/// Micro's kernel (tflitePoolAverage).
static LogicalResult convertAveragePool2D(TFLiteImporter &imp,
                                          const tfl::Operator *op) {
  FailureOr<PoolOperands> p = poolOperands(imp, op);
  if (failed(p))
    return failure();
  OpBuilder &builder = imp.getBuilder();
  Location loc = poolLoc(imp, *p);
  if (p->quantized && imp.tfliteArithmetic()) {
    FailureOr<Value> average = tflitePoolAverage(imp, *p, loc);
    if (failed(average))
      return failure();
    return finishPool(imp, *p, *average);
  }
  SmallVector<NamedAttribute> attrs = p->attrs;
  attrs.push_back(builder.getNamedAttr(
      "acc_type",
      TypeAttr::get(p->quantized ? Type(builder.getI32Type()) : p->elt)));
  double zp =
      p->quantized ? static_cast<double>(imp.quant(p->in).zeroPoint()) : 0.0;
  Value result = imp.create("tosa.avg_pool2d", p->outType,
                            {p->input, imp.scalarConst(p->elt, zp, loc),
                             imp.scalarConst(p->elt, zp, loc)},
                            attrs, loc);
  return finishPool(imp, *p, result);
}

/// MAX_POOL_2D: `tosa.max_pool2d`.
static LogicalResult convertMaxPool2D(TFLiteImporter &imp,
                                      const tfl::Operator *op) {
  FailureOr<PoolOperands> p = poolOperands(imp, op);
  if (failed(p))
    return failure();
  Value result = imp.create("tosa.max_pool2d", p->outType, {p->input}, p->attrs,
                            poolLoc(imp, *p));
  return finishPool(imp, *p, result);
}

/// Rescales the i32 sums \p sum of \p count values of int8 tensor \p in
/// (zero point subtracted) to the mean in tensor \p out's quantization, as
/// TFLite Micro's MEAN: QuantizeMultiplier(s_in / s_out) gives multiplier m
/// and TOSA shift s; with k = floor(log2(count)), at most 32 and keeping
/// s + k <= 62, the rescale is by (m * 2^k) / count (truncated) and shift
/// s + k.
static FailureOr<Value> tfliteMeanRescale(TFLiteImporter &imp, Value sum,
                                          RankedTensorType resultType,
                                          int32_t in, int32_t out,
                                          int64_t count, Location loc) {
  double ratio = imp.quant(in).scale() / imp.quant(out).scale();
  int32_t m, s;
  if (failed(computeMultiplier(ratio, m, s)))
    return imp.opError() << "cannot represent the requantization factor "
                         << ratio << " as a TOSA rescale";
  int64_t k = std::min<int64_t>(
      {static_cast<int64_t>(llvm::Log2_64(static_cast<uint64_t>(count))), 32,
       62 - int64_t(s)});
  int64_t scaled = (static_cast<int64_t>(m) << k) / count;
  return imp.rescaleFixed(sum, resultType, {static_cast<int32_t>(scaled)},
                          {static_cast<int8_t>(s + k)}, 0,
                          imp.quant(out).zeroPoint(), loc);
}

/// MEAN over constant axes: `tosa.reduce_sum` per axis, then the scale.
static LogicalResult convertMean(TFLiteImporter &imp, const tfl::Operator *op) {
  if (failed(imp.checkArity(op, 2, 2, 1)))
    return failure();
  int32_t in = TFLiteImporter::input(op, 0), out = TFLiteImporter::output(op);
  RankedTensorType inType = imp.tensorType(in), outType = imp.tensorType(out);
  SmallVector<int64_t> axes;
  if (failed(imp.readIntConstant(TFLiteImporter::input(op, 1), axes)))
    return failure();
  int64_t rank = inType.getRank();
  Type elt = inType.getElementType();
  if (!(elt.isF32() || elt.isInteger(8)) || outType.getElementType() != elt)
    return imp.opError() << "unsupported types";
  SmallVector<bool> reduce(rank, false);
  for (int64_t a : axes) {
    if (a < 0)
      a += rank;
    if (a < 0 || a >= rank)
      return imp.opError() << "axis out of range";
    reduce[a] = true;
  }
  SmallVector<int64_t> shape = llvm::to_vector(inType.getShape());
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d)
    if (reduce[d]) {
      count *= shape[d];
      shape[d] = 1;
    }
  if (count <= 0 || RankedTensorType::get(shape, elt).getNumElements() !=
                        outType.getNumElements())
    return imp.opError() << "output " << outType
                         << " does not match the reduction";
  FailureOr<Value> x = imp.getValue(in);
  if (failed(x))
    return failure();
  OpBuilder &builder = imp.getBuilder();
  Location loc = imp.tensorLoc(out), inner = imp.tensorLoc(out, "sum");
  bool quantized = elt.isInteger(8);
  Value v = *x;
  Type accElt = quantized ? builder.getI32Type() : elt;
  if (quantized) {
    if (!imp.isQuantized(in) || !imp.isQuantized(out))
      return imp.opError() << "int8 tensors without quantization parameters";
    FailureOr<Value> r =
        imp.rescale(v, RankedTensorType::get(inType.getShape(), accElt), {1.0},
                    imp.quant(in).zeroPoint(), 0, imp.tensorLoc(out, "widen"));
    if (failed(r))
      return failure();
    v = *r;
  }
  SmallVector<int64_t> cur = llvm::to_vector(inType.getShape());
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduce[d])
      continue;
    cur[d] = 1;
    v = imp.create("tosa.reduce_sum", RankedTensorType::get(cur, accElt), {v},
                   {builder.getNamedAttr("axis", builder.getI32IntegerAttr(d))},
                   inner);
  }
  bool sameShape = outType.getShape() == ArrayRef<int64_t>(cur);
  Value result;
  if (quantized && imp.tfliteArithmetic()) {
    FailureOr<Value> r =
        tfliteMeanRescale(imp, v, RankedTensorType::get(cur, elt), in, out,
                          count, sameShape ? loc : imp.tensorLoc(out, "mean"));
    if (failed(r))
      return failure();
    result = *r;
  } else if (quantized) {
    FailureOr<Value> r = imp.rescale(
        v, RankedTensorType::get(cur, elt),
        {imp.quant(in).scale() / (imp.quant(out).scale() * double(count))}, 0,
        imp.quant(out).zeroPoint(),
        sameShape ? loc : imp.tensorLoc(out, "mean"));
    if (failed(r))
      return failure();
    result = *r;
  } else {
    result = imp.create(
        "tosa.mul", RankedTensorType::get(cur, elt),
        {v,
         imp.reshape(imp.scalarConst(elt, 1.0 / double(count), inner),
                     SmallVector<int64_t>(rank, 1), inner),
         imp.scalarConst(builder.getI8Type(), 0, inner)},
        {}, sameShape ? loc : imp.tensorLoc(out, "mean"));
  }
  if (!sameShape)
    result = imp.reshape(result, outType.getShape(), loc);
  return imp.define(out, result);
}

void mlir::memopt::tfliteimport::populatePoolingConverters(
    ConverterTable &table) {
  table.onOp(kAveragePool2D, convertAveragePool2D);
  table.onOp(kMaxPool2D, convertMaxPool2D);
  table.onOp(kMean, convertMean);
}
