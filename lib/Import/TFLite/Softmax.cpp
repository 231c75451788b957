//===- Softmax.cpp - TFLite softmax ---------------------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// SOFTMAX over the last axis, in f32: reduce_max, sub, exp, reduce_sum,
// reciprocal, mul (with a first mul by beta when it is not 1). A quantized
// softmax dequantizes its input to f32, runs the float softmax and quantizes
// back; it is not TFLite's lookup-table kernel (differences of one unit).
//
//===----------------------------------------------------------------------===//

#include "TFLiteImporter.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::tfliteimport;

/// SOFTMAX: the float softmax, between dequantize and quantize for integer
/// tensors.
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
  OpBuilder &builder = imp.getBuilder();
  Location loc = imp.tensorLoc(out), inner = imp.tensorLoc(out, "softmax");
  Value v = *x;
  if (qIn)
    v = imp.dequantize(v, in, imp.tensorLoc(out, "dequantize"));
  auto fType = RankedTensorType::get(inType.getShape(), builder.getF32Type());
  int64_t rank = inType.getRank();
  SmallVector<int64_t> ones(rank, 1);
  if (beta != 1.0)
    v = imp.create(
        "tosa.mul", fType,
        {v,
         imp.reshape(imp.scalarConst(builder.getF32Type(), beta, inner), ones,
                     inner),
         imp.scalarConst(builder.getI8Type(), 0, inner)},
        {}, inner);
  SmallVector<int64_t> reduced = llvm::to_vector(inType.getShape());
  reduced.back() = 1;
  auto rType = RankedTensorType::get(reduced, builder.getF32Type());
  auto axis = builder.getNamedAttr("axis", builder.getI32IntegerAttr(rank - 1));
  Value mx = imp.create("tosa.reduce_max", rType, {v}, {axis}, inner);
  Value shifted = imp.create("tosa.sub", fType, {v, mx}, {}, inner);
  Value e = imp.create("tosa.exp", fType, {shifted}, {}, inner);
  Value sum = imp.create("tosa.reduce_sum", rType, {e}, {axis}, inner);
  Value inv = imp.create("tosa.reciprocal", rType, {sum}, {}, inner);
  Value result =
      imp.create("tosa.mul", fType,
                 {e, inv, imp.scalarConst(builder.getI8Type(), 0, inner)}, {},
                 qOut ? imp.tensorLoc(out, "probabilities") : loc);
  if (qOut)
    result = imp.quantize(result, out, loc);
  return imp.define(out, result);
}

void mlir::memopt::tfliteimport::populateSoftmaxConverters(
    ConverterTable &table) {
  table.onOp(kSoftmax, convertSoftmax);
}
