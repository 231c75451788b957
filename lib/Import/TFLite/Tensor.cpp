//===- Tensor.cpp - TFLite shape, layout and type operators ---------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Operators that move or re-type data without arithmetic on it, and the
// conversions between quantized and float tensors:
// - RESHAPE is `tosa.reshape`, CONCATENATION `tosa.concat` (inputs rescaled
//   first when their quantization differs), PAD and PADV2 `tosa.pad`,
//   TRANSPOSE `tosa.transpose`. Except for CONCATENATION, they keep the
//   input's quantization: a change of quantization is an error.
// - QUANTIZE and DEQUANTIZE are cast/mul/add, or `tosa.rescale` between
//   integer types (Quantization.cpp).
//
//===----------------------------------------------------------------------===//

#include "TFLiteImporter.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <cstring>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::tfliteimport;

/// RESHAPE: `tosa.reshape` to the output tensor's shape (the optional shape
/// operand is not read).
static LogicalResult convertReshape(TFLiteImporter &imp,
                                    const tfl::Operator *op) {
  if (failed(imp.checkArity(op, 1, 2, 1)))
    return failure();
  int32_t in = TFLiteImporter::input(op, 0), out = TFLiteImporter::output(op);
  if (imp.tensorType(in).getNumElements() !=
          imp.tensorType(out).getNumElements() ||
      imp.tensorType(in).getElementType() !=
          imp.tensorType(out).getElementType())
    return imp.opError() << "cannot reshape " << imp.tensorType(in) << " to "
                         << imp.tensorType(out);
  if (imp.isQuantized(in) &&
      (imp.quant(in).scale() != imp.quant(out).scale() ||
       imp.quant(in).zeroPoint() != imp.quant(out).zeroPoint()))
    return imp.opError() << "reshape changes the quantization";
  FailureOr<Value> x = imp.getValue(in);
  if (failed(x))
    return failure();
  Value result =
      imp.reshape(*x, imp.tensorType(out).getShape(), imp.tensorLoc(out));
  if (result == *x) // Same shape: keep a distinct value for the output.
    result = imp.create("tosa.reshape", imp.tensorType(out),
                        {*x, imp.shapeConst(imp.tensorType(out).getShape(),
                                            imp.tensorLoc(out))},
                        {}, imp.tensorLoc(out));
  return imp.define(out, result);
}

/// CONCATENATION: `tosa.concat`, inputs rescaled first if their quantization
/// differs from the output's.
static LogicalResult convertConcatenation(TFLiteImporter &imp,
                                          const tfl::Operator *op) {
  unsigned n = op->inputs() ? op->inputs()->size() : 0;
  if (n == 0 || n > 1024 || failed(imp.checkArity(op, n, n, 1)))
    return n == 0 || n > 1024 ? imp.opError() << "expected 1 to 1024 inputs"
                              : failure();
  int32_t out = TFLiteImporter::output(op);
  RankedTensorType outType = imp.tensorType(out);
  int64_t rank = outType.getRank();
  int64_t axis = 0;
  tfl::ActivationFunctionType act = tfl::ActivationFunctionType::NONE;
  if (const auto *o = op->builtin_options_as_ConcatenationOptions()) {
    axis = o->axis();
    act = o->fused_activation_function();
  }
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return imp.opError() << "axis " << axis << " out of range for rank "
                         << rank;
  int64_t total = 0;
  SmallVector<Value> operands;
  for (unsigned i = 0; i < n; ++i) {
    int32_t t = TFLiteImporter::input(op, i);
    RankedTensorType type = imp.tensorType(t);
    if (type.getRank() != rank ||
        type.getElementType() != outType.getElementType())
      return imp.opError() << "input " << i << " has type " << type
                           << ", incompatible with " << outType;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && type.getDimSize(d) != outType.getDimSize(d))
        return imp.opError() << "input " << i << " has type " << type
                             << ", incompatible with " << outType;
    total += type.getDimSize(axis);
    FailureOr<Value> v = imp.getValue(t);
    if (failed(v))
      return failure();
    FailureOr<Value> rq = imp.requantize(
        *v, t, out, imp.tensorLoc(out, "rescale" + std::to_string(i)));
    if (failed(rq))
      return failure();
    operands.push_back(*rq);
  }
  if (total != outType.getDimSize(axis))
    return imp.opError() << "inputs do not add up to the output's dimension";
  OpBuilder &builder = imp.getBuilder();
  Location loc = imp.tensorLoc(out);
  Value result = imp.create(
      "tosa.concat", outType, operands,
      {builder.getNamedAttr("axis", builder.getI32IntegerAttr(axis))},
      act == tfl::ActivationFunctionType::NONE ? loc
                                               : imp.tensorLoc(out, "concat"));
  FailureOr<Value> activated = imp.activation(result, act, out, loc);
  if (failed(activated))
    return failure();
  return imp.define(out, *activated);
}

/// PAD (\p v2 false) and PADV2 (\p v2 true, with an optional constant pad
/// value): `tosa.pad`; a quantized tensor is padded with its zero point
/// unless PADV2 gives the value.
static LogicalResult convertPadding(TFLiteImporter &imp,
                                    const tfl::Operator *op, bool v2) {
  if (failed(imp.checkArity(op, 2, v2 ? 3 : 2, 1)))
    return failure();
  int32_t in = TFLiteImporter::input(op, 0), out = TFLiteImporter::output(op);
  RankedTensorType inType = imp.tensorType(in), outType = imp.tensorType(out);
  SmallVector<int64_t> paddings;
  if (failed(imp.readIntConstant(TFLiteImporter::input(op, 1), paddings)))
    return failure();
  int64_t rank = inType.getRank();
  if (static_cast<int64_t>(paddings.size()) != 2 * rank ||
      outType.getRank() != rank ||
      outType.getElementType() != inType.getElementType())
    return imp.opError() << "paddings do not match the input's rank " << rank;
  for (int64_t d = 0; d < rank; ++d)
    if (paddings[2 * d] < 0 || paddings[2 * d + 1] < 0 ||
        inType.getDimSize(d) + paddings[2 * d] + paddings[2 * d + 1] !=
            outType.getDimSize(d))
      return imp.opError() << "paddings do not produce the output's shape";
  Type elt = inType.getElementType();
  double padValue = 0;
  if (imp.isQuantized(in)) {
    if (imp.quant(in).scale() != imp.quant(out).scale() ||
        imp.quant(in).zeroPoint() != imp.quant(out).zeroPoint())
      return imp.opError() << "pad changes the quantization";
    padValue = static_cast<double>(imp.quant(in).zeroPoint());
  }
  if (v2 && TFLiteImporter::input(op, 2) >= 0) {
    int32_t c = TFLiteImporter::input(op, 2);
    std::optional<ArrayRef<char>> data = imp.constantData(c);
    if (!data || imp.tensorType(c).getElementType() != elt ||
        data->size() < elt.getIntOrFloatBitWidth() / 8)
      return imp.opError() << "the pad value must be a constant of " << elt;
    if (elt.isF32()) {
      float f;
      std::memcpy(&f, data->data(), 4);
      padValue = f;
    } else if (elt.isInteger(8)) {
      padValue = static_cast<int8_t>((*data)[0]);
    } else {
      return imp.opError() << "unsupported pad value type " << elt;
    }
  }
  if (!(elt.isF32() || elt.isInteger(8) || elt.isInteger(16) ||
        elt.isInteger(32)))
    return imp.opError() << "unsupported element type " << elt;
  FailureOr<Value> x = imp.getValue(in);
  if (failed(x))
    return failure();
  Location loc = imp.tensorLoc(out);
  return imp.define(out, imp.create("tosa.pad", outType,
                                    {*x, imp.shapeConst(paddings, loc),
                                     imp.scalarConst(elt, padValue, loc)},
                                    {}, loc));
}

/// PAD: `tosa.pad` with zeros (the zero point for quantized tensors).
static LogicalResult convertPad(TFLiteImporter &imp, const tfl::Operator *op) {
  return convertPadding(imp, op, /*v2=*/false);
}

/// PADV2: `tosa.pad` with the given pad value.
static LogicalResult convertPadV2(TFLiteImporter &imp,
                                  const tfl::Operator *op) {
  return convertPadding(imp, op, /*v2=*/true);
}

/// TRANSPOSE by a constant permutation: `tosa.transpose`.
static LogicalResult convertTranspose(TFLiteImporter &imp,
                                      const tfl::Operator *op) {
  if (failed(imp.checkArity(op, 2, 2, 1)))
    return failure();
  int32_t in = TFLiteImporter::input(op, 0), out = TFLiteImporter::output(op);
  RankedTensorType inType = imp.tensorType(in), outType = imp.tensorType(out);
  SmallVector<int64_t> perm;
  if (failed(imp.readIntConstant(TFLiteImporter::input(op, 1), perm)))
    return failure();
  int64_t rank = inType.getRank();
  if (static_cast<int64_t>(perm.size()) != rank || outType.getRank() != rank ||
      outType.getElementType() != inType.getElementType())
    return imp.opError() << "permutation does not match the input's rank";
  SmallVector<bool> seen(rank, false);
  SmallVector<int32_t> perms;
  for (int64_t d = 0; d < rank; ++d) {
    if (perm[d] < 0 || perm[d] >= rank || seen[perm[d]] ||
        inType.getDimSize(perm[d]) != outType.getDimSize(d))
      return imp.opError() << "invalid permutation";
    seen[perm[d]] = true;
    perms.push_back(static_cast<int32_t>(perm[d]));
  }
  if (imp.isQuantized(in) &&
      (imp.quant(in).scale() != imp.quant(out).scale() ||
       imp.quant(in).zeroPoint() != imp.quant(out).zeroPoint()))
    return imp.opError() << "transpose changes the quantization";
  FailureOr<Value> x = imp.getValue(in);
  if (failed(x))
    return failure();
  OpBuilder &builder = imp.getBuilder();
  return imp.define(
      out, imp.create("tosa.transpose", outType, {*x},
                      {builder.getNamedAttr(
                          "perms", builder.getDenseI32ArrayAttr(perms))},
                      imp.tensorLoc(out)));
}

/// QUANTIZE: f32 to an integer type (mul, add, cast), or a `tosa.rescale`
/// between two quantized integer tensors.
static LogicalResult convertQuantize(TFLiteImporter &imp,
                                     const tfl::Operator *op) {
  if (failed(imp.checkArity(op, 1, 1, 1)))
    return failure();
  int32_t in = TFLiteImporter::input(op, 0), out = TFLiteImporter::output(op);
  RankedTensorType inType = imp.tensorType(in), outType = imp.tensorType(out);
  if (inType.getShape() != outType.getShape())
    return imp.opError() << "input and output shapes differ";
  Type inElt = inType.getElementType(), outElt = outType.getElementType();
  if (isa<FloatType>(outElt) || !imp.isQuantized(out) ||
      (!inElt.isF32() && (isa<FloatType>(inElt) || !imp.isQuantized(in))))
    return imp.opError() << "unsupported types " << inElt << " -> " << outElt;
  if (imp.quant(out).scales.size() != 1 || !(imp.quant(out).scale() > 0))
    return imp.opError() << "output must be per-tensor quantized";
  FailureOr<Value> x = imp.getValue(in);
  if (failed(x))
    return failure();
  Location loc = imp.tensorLoc(out);
  if (inElt.isF32())
    return imp.define(out, imp.quantize(*x, out, loc));
  if (imp.quant(in).scales.size() != 1)
    return imp.opError() << "input must be per-tensor quantized";
  FailureOr<Value> r =
      imp.rescale(*x, outType, {imp.quant(in).scale() / imp.quant(out).scale()},
                  imp.quant(in).zeroPoint(), imp.quant(out).zeroPoint(), loc);
  if (failed(r))
    return failure();
  return imp.define(out, *r);
}

/// DEQUANTIZE: a quantized integer tensor (cast, sub, mul) or an f16 tensor
/// (cast) to f32.
static LogicalResult convertDequantize(TFLiteImporter &imp,
                                       const tfl::Operator *op) {
  if (failed(imp.checkArity(op, 1, 1, 1)))
    return failure();
  int32_t in = TFLiteImporter::input(op, 0), out = TFLiteImporter::output(op);
  RankedTensorType inType = imp.tensorType(in), outType = imp.tensorType(out);
  if (inType.getShape() != outType.getShape() ||
      !outType.getElementType().isF32())
    return imp.opError() << "input and output do not match";
  FailureOr<Value> x = imp.getValue(in);
  if (failed(x))
    return failure();
  Location loc = imp.tensorLoc(out);
  if (inType.getElementType().isF16())
    return imp.define(out, imp.create("tosa.cast", outType, {*x}, {}, loc));
  if (!imp.isQuantized(in) || imp.quant(in).scales.size() != 1)
    return imp.opError() << "input must be per-tensor quantized";
  return imp.define(out, imp.dequantize(*x, in, loc));
}

void mlir::memopt::tfliteimport::populateTensorConverters(
    ConverterTable &table) {
  table.onOp(kReshape, convertReshape);
  table.onOp(kConcatenation, convertConcatenation);
  table.onOp(kPad, convertPad);
  table.onOp(kPadV2, convertPadV2);
  table.onOp(kTranspose, convertTranspose);
  table.onOp(kQuantize, convertQuantize);
  table.onOp(kDequantize, convertDequantize);
}
