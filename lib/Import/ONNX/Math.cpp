//===- Math.cpp - ONNX elementwise operators and reductions ---------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Converters of the ONNX elementwise operators (Add, Sub, Mul, Div by a
// constant, Relu, Clip, Sigmoid, HardSigmoid, HardSwish) and of ReduceMean.
// Elementwise results keep the layout of their leading operand; arithmetic
// on two constants is folded (ConstantFolding.cpp).
//
//===----------------------------------------------------------------------===//

#include "ONNXImporter.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::onnximport;

//===----------------------------------------------------------------------===//
// Binary arithmetic
//===----------------------------------------------------------------------===//

/// Returns true if \p a and \p b are both constants not materialized yet:
/// their binary arithmetic folds at import time.
static bool areFoldable(const Tensor &a, const Tensor &b) {
  return a.isConst && b.isConst && !a.value && !b.value;
}

/// Add, Sub or Mul (\p opType): folded on two constants, otherwise the
/// operands are broadcast and \p build emits the op of the stored type.
static LogicalResult
convertArithmetic(ONNXImporter &importer, StringRef opType,
                  function_ref<Value(RankedTensorType, Value, Value)> build) {
  Tensor *a = importer.getInput(0);
  Tensor *b = a ? importer.getInput(1) : nullptr;
  if (!b)
    return failure();
  if (areFoldable(*a, *b))
    return foldConstantArithmetic(importer, opType);
  Value va, vb;
  Tensor out;
  if (failed(importer.broadcastOperands(*a, *b, va, vb, out)))
    return failure();
  out.value = build(importer.storedType(out), va, vb);
  importer.setOutput(0, std::move(out));
  return success();
}

/// Add: `tosa.add`.
static LogicalResult convertAdd(ONNXImporter &importer) {
  return convertArithmetic(
      importer, "Add", [&](RankedTensorType type, Value a, Value b) -> Value {
        return tosa::AddOp::create(importer.getBuilder(), type, a, b);
      });
}

/// Sub: `tosa.sub`.
static LogicalResult convertSub(ONNXImporter &importer) {
  return convertArithmetic(
      importer, "Sub", [&](RankedTensorType type, Value a, Value b) -> Value {
        return tosa::SubOp::create(importer.getBuilder(), type, a, b);
      });
}

/// Mul: `tosa.mul`.
static LogicalResult convertMul(ONNXImporter &importer) {
  return convertArithmetic(
      importer, "Mul", [&](RankedTensorType type, Value a, Value b) -> Value {
        return tosa::MulOp::create(importer.getBuilder(), type, a, b,
                                   importer.mulShift());
      });
}

/// Div: only by a float constant, as a `tosa.mul` by its reciprocal.
static LogicalResult convertDiv(ONNXImporter &importer) {
  Tensor *a = importer.getInput(0);
  Tensor *b = a ? importer.getInput(1) : nullptr;
  if (!b)
    return failure();
  if (areFoldable(*a, *b))
    return foldConstantArithmetic(importer, "Div");
  if (!b->isConst || !b->isFloat)
    return importer.nodeError()
           << "only division by a float constant is supported";
  Tensor recip = *b;
  recip.value = Value();
  for (float &f : recip.floats)
    f = 1.0f / f;
  Value va, vb;
  Tensor out;
  if (failed(importer.broadcastOperands(*a, recip, va, vb, out)))
    return failure();
  out.value =
      tosa::MulOp::create(importer.getBuilder(), importer.storedType(out), va,
                          vb, importer.mulShift());
  importer.setOutput(0, std::move(out));
  return success();
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

/// Emits input 0 clamped to [\p minValue, \p maxValue].
static LogicalResult emitClamp(ONNXImporter &importer, float minValue,
                               float maxValue) {
  ImplicitLocOpBuilder &builder = importer.getBuilder();
  Tensor *x = importer.getInput(0);
  if (!x)
    return failure();
  Tensor out;
  out.shape = x->shape;
  out.perm = x->perm;
  out.value = tosa::ClampOp::create(
      builder, importer.storedType(out), importer.valueIn(*x, x->perm),
      builder.getF32FloatAttr(minValue), builder.getF32FloatAttr(maxValue));
  importer.setOutput(0, std::move(out));
  return success();
}

/// Relu: a `tosa.clamp` at 0.
static LogicalResult convertRelu(ONNXImporter &importer) {
  return emitClamp(importer, 0.0f, std::numeric_limits<float>::max());
}

/// Clip before opset 11: bounds from the `min` and `max` attributes.
static LogicalResult convertClipAttributes(ONNXImporter &importer) {
  float lo = importer.attrFloat("min", std::numeric_limits<float>::lowest());
  float hi = importer.attrFloat("max", std::numeric_limits<float>::max());
  return emitClamp(importer, lo, hi);
}

/// Clip from opset 11: bounds from the optional constant inputs 1 and 2.
static LogicalResult convertClipInputs(ONNXImporter &importer) {
  float lo = std::numeric_limits<float>::lowest();
  float hi = std::numeric_limits<float>::max();
  for (int i = 1; i <= 2; ++i) {
    Tensor *bound = importer.getInput(i, /*required=*/false);
    if (!bound)
      continue;
    if (!bound->isConst || !bound->isFloat || bound->floats.size() != 1)
      return importer.nodeError() << "min and max must be constant scalars";
    (i == 1 ? lo : hi) = bound->floats[0];
  }
  return emitClamp(importer, lo, hi);
}

/// Sigmoid: `tosa.sigmoid`.
static LogicalResult convertSigmoid(ONNXImporter &importer) {
  Tensor *x = importer.getInput(0);
  if (!x)
    return failure();
  Tensor out;
  out.shape = x->shape;
  out.perm = x->perm;
  out.value =
      tosa::SigmoidOp::create(importer.getBuilder(), importer.storedType(out),
                              importer.valueIn(*x, x->perm));
  importer.setOutput(0, std::move(out));
  return success();
}

/// Emits clamp(alpha x + beta, 0, 1) of input 0, times x if \p swish.
static LogicalResult emitHardSigmoid(ONNXImporter &importer, float alpha,
                                     float beta, bool swish) {
  ImplicitLocOpBuilder &builder = importer.getBuilder();
  Tensor *x = importer.getInput(0);
  if (!x)
    return failure();
  int64_t rank = x->shape.size();
  Tensor alphaT, betaT;
  alphaT.isConst = betaT.isConst = true;
  alphaT.shape.assign(rank, 1);
  alphaT.perm = identityPerm(rank);
  betaT.shape = alphaT.shape;
  betaT.perm = alphaT.perm;
  alphaT.floats = {alpha};
  betaT.floats = {beta};
  RankedTensorType type = importer.storedType(*x);
  Value input = importer.valueIn(*x, x->perm);
  Value scaled = tosa::MulOp::create(builder, type, input,
                                     importer.valueIn(alphaT, x->perm),
                                     importer.mulShift());
  Value shifted = tosa::AddOp::create(builder, type, scaled,
                                      importer.valueIn(betaT, x->perm));
  Value result = tosa::ClampOp::create(builder, type, shifted,
                                       builder.getF32FloatAttr(0.0f),
                                       builder.getF32FloatAttr(1.0f));
  if (swish)
    result =
        tosa::MulOp::create(builder, type, input, result, importer.mulShift());
  Tensor out;
  out.shape = x->shape;
  out.perm = x->perm;
  out.value = result;
  importer.setOutput(0, std::move(out));
  return success();
}

/// HardSigmoid: clamp(alpha x + beta, 0, 1).
static LogicalResult convertHardSigmoid(ONNXImporter &importer) {
  return emitHardSigmoid(importer, importer.attrFloat("alpha", 0.2f),
                         importer.attrFloat("beta", 0.5f), /*swish=*/false);
}

/// HardSwish: x * clamp(x / 6 + 1 / 2, 0, 1).
static LogicalResult convertHardSwish(ONNXImporter &importer) {
  return emitHardSigmoid(importer, 1.0f / 6.0f, 0.5f, /*swish=*/true);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// ReduceMean: one `tosa.reduce_sum` per axis and a `tosa.mul` by
/// 1 / count; without keepdims, a reshape drops the reduced dimensions.
static LogicalResult convertReduceMean(ONNXImporter &importer) {
  ImplicitLocOpBuilder &builder = importer.getBuilder();
  Tensor *x = importer.getInput(0);
  if (!x)
    return failure();
  int64_t rank = x->shape.size();
  FailureOr<SmallVector<int64_t>> maybeAxes = importer.getAxes();
  if (failed(maybeAxes))
    return failure();
  SmallVector<int64_t> axes = std::move(*maybeAxes);
  if (axes.empty())
    axes = identityPerm(rank);
  for (int64_t &a : axes)
    if (failed(importer.normalizeAxis(a, rank)))
      return failure();
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  bool keepDims = importer.attrInt("keepdims", 1) != 0;
  Tensor reduced;
  reduced.shape = x->shape;
  reduced.perm = x->perm;
  reduced.value = importer.valueIn(*x, x->perm);
  int64_t count = 1;
  for (int64_t a : axes) {
    count *= x->shape[a];
    reduced.shape[a] = 1;
    int32_t storedAxis = llvm::find(x->perm, a) - x->perm.begin();
    reduced.value = tosa::ReduceSumOp::create(
        builder, importer.storedType(reduced), reduced.value,
        builder.getI32IntegerAttr(storedAxis));
  }
  Tensor factor;
  factor.isConst = true;
  factor.shape.assign(rank, 1);
  factor.perm = identityPerm(rank);
  factor.floats = {static_cast<float>(1.0 / double(count))};
  reduced.value = tosa::MulOp::create(
      builder, importer.storedType(reduced), reduced.value,
      importer.valueIn(factor, reduced.perm), importer.mulShift());
  if (keepDims) {
    importer.setOutput(0, std::move(reduced));
    return success();
  }
  SmallVector<int64_t> newShape;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(axes, d))
      newShape.push_back(x->shape[d]);
  importer.setOutput(0, importer.reshapeTensor(reduced, newShape));
  return success();
}

void onnximport::populateMathConverters(ConverterTable &table) {
  table.onOp("Add", 1, convertAdd);
  table.onOp("Sub", 1, convertSub);
  table.onOp("Mul", 1, convertMul);
  table.onOp("Div", 1, convertDiv);
  table.onOp("Relu", 1, convertRelu);
  table.onOp("Clip", 1, convertClipAttributes);
  table.onOp("Clip", 11, convertClipInputs);
  table.onOp("Sigmoid", 1, convertSigmoid);
  table.onOp("HardSigmoid", 1, convertHardSigmoid);
  table.onOp("HardSwish", 1, convertHardSwish);
  table.onOp("ReduceMean", 1, convertReduceMean);
}
