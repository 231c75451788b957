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
// - MEAN is one `tosa.reduce_sum` per reduced axis times 1 / count; int8
//   widens to i32 minus the zero point, sums, and rescales by
//   s_in / (s_out * count).
//
//===----------------------------------------------------------------------===//

#include "TFLiteImporter.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"

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

/// AVERAGE_POOL_2D: `tosa.avg_pool2d` (i32 accumulator for int8, the input
/// zero point as both zero points).
static LogicalResult convertAveragePool2D(TFLiteImporter &imp,
                                          const tfl::Operator *op) {
  FailureOr<PoolOperands> p = poolOperands(imp, op);
  if (failed(p))
    return failure();
  OpBuilder &builder = imp.getBuilder();
  Location loc = poolLoc(imp, *p);
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
  if (quantized) {
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
