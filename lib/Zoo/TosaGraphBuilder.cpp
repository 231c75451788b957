//===- TosaGraphBuilder.cpp - TOSA builder of the zoo models --------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The TOSA ops of the zoo models: window ops planned with TF "SAME" padding,
// shared splat constants hoisted to the top of the function body, and the
// int8 rescales of docs/Zoo.md.
//
//===----------------------------------------------------------------------===//

#include "TosaGraphBuilder.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::zoo;

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

namespace {
/// How a window op covers one spatial dimension with TF "SAME" semantics.
struct SpatialPlan {
  /// Output size: ceil(input / stride).
  int64_t out = 0;
  /// Padding before and after the input.
  int64_t padBefore = 0, padAfter = 0;
  /// Length the input must be cropped to first (the input length when no
  /// crop is needed). TOSA requires the window to land exactly on the last
  /// padded element, so a strided window that would skip the tail (TF drops
  /// it silently) needs a tosa.slice first.
  int64_t cropTo = 0;
};
} // namespace

/// Plans a window of size \p kernel with \p stride and \p dilation over an
/// input of length \p in so that the output has ceil(in / stride) elements
/// and (in - 1 + padBefore + padAfter - (kernel - 1) * dilation) is a
/// multiple of the stride, as the TOSA verifier requires.
static SpatialPlan planSame(int64_t in, int64_t kernel, int64_t stride,
                            int64_t dilation) {
  SpatialPlan plan;
  int64_t effective = (kernel - 1) * dilation + 1;
  plan.out = llvm::divideCeil(in, stride);
  int64_t total = (plan.out - 1) * stride + effective - in;
  if (total >= 0) {
    plan.padBefore = total / 2;
    plan.padAfter = total - plan.padBefore;
    plan.cropTo = in;
  } else {
    plan.cropTo = (plan.out - 1) * stride + effective;
  }
  return plan;
}

/// Plans a window with explicit padding \p padBefore, \p padAfter: when
/// the window does not land on the last padded element, the input is
/// cropped (or, when too short for one window, the padding after it grows).
static SpatialPlan planExplicit(int64_t in, int64_t kernel, int64_t stride,
                                int64_t dilation, int64_t padBefore,
                                int64_t padAfter) {
  SpatialPlan plan;
  int64_t effective = (kernel - 1) * dilation + 1;
  plan.padBefore = padBefore;
  plan.padAfter = std::max(padAfter, effective - in - padBefore);
  int64_t span = in + plan.padBefore + plan.padAfter - effective;
  int64_t excess = span % stride;
  plan.cropTo = in;
  if (excess && in - excess + plan.padBefore + plan.padAfter >= effective &&
      in - excess >= 1)
    plan.cropTo = in - excess;
  else if (excess)
    plan.padAfter += stride - excess;
  plan.out =
      (plan.cropTo + plan.padBefore + plan.padAfter - effective) / stride + 1;
  return plan;
}

//===----------------------------------------------------------------------===//
// TosaGraphBuilder
//===----------------------------------------------------------------------===//

TosaGraphBuilder::TosaGraphBuilder(ModuleOp module, StringRef funcName,
                                   ZooDType dtype)
    : ctx(module.getContext()), builder(module.getContext()), dtype(dtype) {
  builder.setInsertionPointToEnd(module.getBody());
  func = func::FuncOp::create(builder, loc(funcName), funcName,
                              builder.getFunctionType({}, {}));
  body = func.addEntryBlock();
  builder.setInsertionPointToEnd(body);
}

Value TosaGraphBuilder::addInput(int64_t h, int64_t w, int64_t c) {
  Type type = activationType(h, w, c);
  Value arg =
      body->addArgument(type, loc("input" + Twine(body->getNumArguments())));
  func.setType(FunctionType::get(ctx, body->getArgumentTypes(), {}));
  return arg;
}

void TosaGraphBuilder::finish(ArrayRef<Value> results) {
  func::ReturnOp::create(builder, loc("return"), results);
  SmallVector<Type> resultTypes;
  for (Value result : results)
    resultTypes.push_back(result.getType());
  func.setType(FunctionType::get(ctx, body->getArgumentTypes(), resultTypes));
}

Value TosaGraphBuilder::relu(Value x, const Twine &name) {
  return clamp(x, /*upper=*/-1.0, name);
}

Value TosaGraphBuilder::relu6(Value x, const Twine &name) {
  return clamp(x, 6.0, name);
}

Value TosaGraphBuilder::conv(Value x, int64_t outC, int64_t kh, int64_t kw,
                             int64_t strideH, int64_t strideW, int64_t dilation,
                             const Twine &name) {
  SpatialPlan ph = planSame(dimOf(x, 1), kh, strideH, dilation);
  SpatialPlan pw = planSame(dimOf(x, 2), kw, strideW, dilation);
  x = crop(x, ph.cropTo, pw.cropTo, name);
  int64_t inC = dimOf(x, 3);
  Type acc = accumulatorType();
  Value weight = splat({outC, kh, kw, inC}, storageType(), Role::Weight);
  Value bias = splat({outC}, acc, Role::Zero);
  Value zp = zeroPoint();
  auto type = RankedTensorType::get({1, ph.out, pw.out, outC}, acc);
  SmallVector<int64_t, 4> pad = {ph.padBefore, ph.padAfter, pw.padBefore,
                                 pw.padAfter};
  SmallVector<int64_t, 2> stride = {strideH, strideW};
  SmallVector<int64_t, 2> dilations = {dilation, dilation};
  Value y =
      tosa::Conv2DOp::create(builder, loc(name), type, x, weight, bias, zp, zp,
                             ArrayRef<int64_t>(pad), ArrayRef<int64_t>(stride),
                             ArrayRef<int64_t>(dilations), acc)
          .getOutput();
  return rescaleToInt8(y, name);
}

Value TosaGraphBuilder::conv(Value x, int64_t outC, int64_t k, int64_t stride,
                             const Twine &name) {
  return conv(x, outC, k, k, stride, stride, /*dilation=*/1, name);
}

Value TosaGraphBuilder::depthwise(Value x, int64_t k, int64_t stride,
                                  int64_t dilation, const Twine &name) {
  SpatialPlan ph = planSame(dimOf(x, 1), k, stride, dilation);
  SpatialPlan pw = planSame(dimOf(x, 2), k, stride, dilation);
  x = crop(x, ph.cropTo, pw.cropTo, name);
  int64_t c = dimOf(x, 3);
  Type acc = accumulatorType();
  Value weight = splat({k, k, c, 1}, storageType(), Role::Weight);
  Value bias = splat({c}, acc, Role::Zero);
  Value zp = zeroPoint();
  auto type = RankedTensorType::get({1, ph.out, pw.out, c}, acc);
  SmallVector<int64_t, 4> pad = {ph.padBefore, ph.padAfter, pw.padBefore,
                                 pw.padAfter};
  SmallVector<int64_t, 2> strides = {stride, stride};
  SmallVector<int64_t, 2> dilations = {dilation, dilation};
  Value y = tosa::DepthwiseConv2DOp::create(
                builder, loc(name), type, x, weight, bias, zp, zp,
                ArrayRef<int64_t>(pad), ArrayRef<int64_t>(strides),
                ArrayRef<int64_t>(dilations), acc)
                .getOutput();
  return rescaleToInt8(y, name);
}

Value TosaGraphBuilder::maxPool(Value x, int64_t k, int64_t stride,
                                const Twine &name) {
  SpatialPlan ph = planSame(dimOf(x, 1), k, stride, 1);
  SpatialPlan pw = planSame(dimOf(x, 2), k, stride, 1);
  x = crop(x, ph.cropTo, pw.cropTo, name);
  SmallVector<int64_t, 2> kernel = {k, k}, strides = {stride, stride};
  SmallVector<int64_t, 4> pad = {ph.padBefore, ph.padAfter, pw.padBefore,
                                 pw.padAfter};
  return tosa::MaxPool2dOp::create(
             builder, loc(name), activationType(ph.out, pw.out, dimOf(x, 3)), x,
             ArrayRef<int64_t>(kernel), ArrayRef<int64_t>(strides),
             ArrayRef<int64_t>(pad))
      .getOutput();
}

Value TosaGraphBuilder::avgPool(Value x, int64_t k, int64_t stride,
                                const Twine &name) {
  SpatialPlan ph = planSame(dimOf(x, 1), k, stride, 1);
  SpatialPlan pw = planSame(dimOf(x, 2), k, stride, 1);
  x = crop(x, ph.cropTo, pw.cropTo, name);
  return avgPoolRaw(x, {k, k}, {stride, stride},
                    {ph.padBefore, ph.padAfter, pw.padBefore, pw.padAfter},
                    ph.out, pw.out, name);
}

Value TosaGraphBuilder::globalAvgPool(Value x, const Twine &name) {
  int64_t h = dimOf(x, 1), w = dimOf(x, 2);
  return avgPoolRaw(x, {h, w}, {1, 1}, {0, 0, 0, 0}, 1, 1, name);
}

Value TosaGraphBuilder::add(Value a, Value b, const Twine &name) {
  if (!isInteger())
    return tosa::AddOp::create(builder, loc(name), a.getType(), a, b)
        .getOutput();
  // As imported TFLite models do: each int8 operand is rescaled to int32,
  // the sum is taken in int32 and rescaled back to int8 (halved, so that
  // it stays in range).
  Type i32 = builder.getIntegerType(32), i8 = builder.getIntegerType(8);
  Value lhs = rescale(a, i32, /*shift=*/30, name + "_lhs");
  Value rhs = rescale(b, i32, /*shift=*/30, name + "_rhs");
  Value sum = tosa::AddOp::create(builder, loc(name), typeOf(lhs), lhs, rhs)
                  .getOutput();
  return rescale(sum, isInt8() ? i8 : storageType(), /*shift=*/31,
                 name + "_rescale");
}

Value TosaGraphBuilder::rescale(Value x, Type elementType, int64_t shift,
                                const Twine &name) {
  Type i8 = builder.getIntegerType(8), i32 = builder.getIntegerType(32);
  auto type = RankedTensorType::get(typeOf(x).getShape(), elementType);
  auto scalar = [&](Type element, int64_t value) {
    auto type = RankedTensorType::get({1}, element);
    auto values = DenseElementsAttr::get(
        type, ArrayRef<Attribute>(builder.getIntegerAttr(element, value)));
    return constant(values, [&](OpBuilder &b, Location l) {
      return tosa::ConstOp::create(b, l, type, values).getOutput();
    });
  };
  Type inElement = typeOf(x).getElementType();
  return tosa::RescaleOp::create(
             builder, loc(name), type, x, scalar(i32, int64_t(1) << 30),
             scalar(i8, shift), scalar(inElement, 0), scalar(elementType, 0),
             /*scale32=*/true, tosa::RoundingMode::SINGLE_ROUND,
             /*per_channel=*/false,
             /*input_unsigned=*/false, /*output_unsigned=*/false)
      .getOutput();
}

Value TosaGraphBuilder::sum(ArrayRef<Value> values, const Twine &name) {
  Value result = values.front();
  for (auto [index, value] : llvm::enumerate(values.drop_front()))
    result = add(result, value, name + "_" + Twine(index + 1));
  return result;
}

Value TosaGraphBuilder::concat(ArrayRef<Value> values, const Twine &name) {
  if (values.size() == 1)
    return values.front();
  int64_t c = 0;
  for (Value value : values)
    c += dimOf(value, 3);
  Type type =
      activationType(dimOf(values.front(), 1), dimOf(values.front(), 2), c);
  return tosa::ConcatOp::create(builder, loc(name), type, values,
                                /*axis=*/3u)
      .getOutput();
}

Value TosaGraphBuilder::slice(Value x, ArrayRef<int64_t> start,
                              ArrayRef<int64_t> size, const Twine &name) {
  Value startShape = constShape(start);
  Value sizeShape = constShape(size);
  auto type = RankedTensorType::get(size, typeOf(x).getElementType());
  return tosa::SliceOp::create(builder, loc(name), type, x, startShape,
                               sizeShape)
      .getOutput();
}

Value TosaGraphBuilder::upsample2x(Value x, const Twine &name) {
  Value scale = constShape({2, 1, 2, 1});
  Value offset = constShape({0, 0});
  Value border = constShape({1, 1});
  Type type = activationType(2 * dimOf(x, 1), 2 * dimOf(x, 2), dimOf(x, 3));
  return tosa::ResizeOp::create(builder, loc(name), type, x, scale, offset,
                                border, tosa::ResizeMode::NEAREST_NEIGHBOR)
      .getOutput();
}

//===----------------------------------------------------------------------===//
// Further ops of the fuzz model
//===----------------------------------------------------------------------===//
Value TosaGraphBuilder::convPadded(Value x, int64_t outC, int64_t kh,
                                   int64_t kw, int64_t strideH, int64_t strideW,
                                   int64_t dilationH, int64_t dilationW,
                                   ArrayRef<int64_t> pad, const Twine &name) {
  SpatialPlan ph =
      planExplicit(dimOf(x, 1), kh, strideH, dilationH, pad[0], pad[1]);
  SpatialPlan pw =
      planExplicit(dimOf(x, 2), kw, strideW, dilationW, pad[2], pad[3]);
  x = crop(x, ph.cropTo, pw.cropTo, name);
  Type acc = accumulatorType();
  Value weight =
      splat({outC, kh, kw, dimOf(x, 3)}, storageType(), Role::Weight);
  Value bias = splat({outC}, acc, Role::Zero);
  Value zp = zeroPoint();
  auto type = RankedTensorType::get({1, ph.out, pw.out, outC}, acc);
  SmallVector<int64_t, 4> pads = {ph.padBefore, ph.padAfter, pw.padBefore,
                                  pw.padAfter};
  SmallVector<int64_t, 2> strides = {strideH, strideW};
  SmallVector<int64_t, 2> dilations = {dilationH, dilationW};
  Value y = tosa::Conv2DOp::create(builder, loc(name), type, x, weight, bias,
                                   zp, zp, ArrayRef<int64_t>(pads),
                                   ArrayRef<int64_t>(strides),
                                   ArrayRef<int64_t>(dilations), acc)
                .getOutput();
  return rescaleToInt8(y, name);
}

Value TosaGraphBuilder::mul(Value a, Value b, const Twine &name) {
  auto shiftType = RankedTensorType::get({1}, builder.getIntegerType(8));
  auto values = DenseElementsAttr::get(
      shiftType, ArrayRef<Attribute>(
                     builder.getIntegerAttr(builder.getIntegerType(8), 0)));
  Value shift = constant(values, [&](OpBuilder &b, Location l) {
    return tosa::ConstOp::create(b, l, shiftType, values).getOutput();
  });
  return tosa::MulOp::create(builder, loc(name), a.getType(), a, b, shift)
      .getOutput();
}

Value TosaGraphBuilder::maximum(Value a, Value b, const Twine &name) {
  return tosa::MaximumOp::create(builder, loc(name), a.getType(), a, b,
                                 tosa::NanPropagationModeAttr::get(
                                     ctx, tosa::NanPropagationMode::PROPAGATE))
      .getOutput();
}

Value TosaGraphBuilder::greater(Value a, Value b, const Twine &name) {
  auto type = RankedTensorType::get(typeOf(a).getShape(), builder.getI1Type());
  return tosa::GreaterOp::create(builder, loc(name), type, a, b).getOutput();
}

Value TosaGraphBuilder::logicalAnd(Value a, Value b, const Twine &name) {
  return tosa::LogicalAndOp::create(builder, loc(name), a.getType(), a, b)
      .getOutput();
}

Value TosaGraphBuilder::select(Value cond, Value a, Value b,
                               const Twine &name) {
  return tosa::SelectOp::create(builder, loc(name), a.getType(), cond, a, b)
      .getOutput();
}

Value TosaGraphBuilder::castTo(Value x, Type elementType, const Twine &name) {
  auto type = RankedTensorType::get(typeOf(x).getShape(), elementType);
  return tosa::CastOp::create(builder, loc(name), type, x).getOutput();
}

Value TosaGraphBuilder::reshape(Value x, ArrayRef<int64_t> shape,
                                const Twine &name) {
  auto type = RankedTensorType::get(shape, typeOf(x).getElementType());
  return tosa::ReshapeOp::create(builder, loc(name), type, x, constShape(shape))
      .getOutput();
}

Value TosaGraphBuilder::transpose(Value x, ArrayRef<int32_t> perms,
                                  const Twine &name) {
  SmallVector<int64_t> shape;
  for (int32_t perm : perms)
    shape.push_back(typeOf(x).getDimSize(perm));
  auto type = RankedTensorType::get(shape, typeOf(x).getElementType());
  return tosa::TransposeOp::create(builder, loc(name), type, x,
                                   builder.getDenseI32ArrayAttr(perms))
      .getOutput();
}

Value TosaGraphBuilder::concatOn(ArrayRef<Value> values, unsigned axis,
                                 const Twine &name) {
  SmallVector<int64_t> shape(typeOf(values.front()).getShape());
  shape[axis] = 0;
  for (Value value : values)
    shape[axis] += typeOf(value).getDimSize(axis);
  auto type =
      RankedTensorType::get(shape, typeOf(values.front()).getElementType());
  return tosa::ConcatOp::create(builder, loc(name), type, values, axis)
      .getOutput();
}

Value TosaGraphBuilder::pad(Value x, ArrayRef<int64_t> padding,
                            const Twine &name) {
  Type elementType = typeOf(x).getElementType();
  SmallVector<int64_t> shape(typeOf(x).getShape());
  for (auto [index, size] : llvm::enumerate(shape))
    size += padding[2 * index] + padding[2 * index + 1];
  auto padType = RankedTensorType::get({1}, elementType);
  Attribute zero = isa<FloatType>(elementType)
                       ? Attribute(builder.getFloatAttr(elementType, 0.0))
                       : Attribute(builder.getIntegerAttr(elementType, 0));
  auto values = DenseElementsAttr::get(padType, ArrayRef<Attribute>(zero));
  Value padConst = constant(values, [&](OpBuilder &b, Location l) {
    return tosa::ConstOp::create(b, l, padType, values).getOutput();
  });
  return tosa::PadOp::create(builder, loc(name),
                             RankedTensorType::get(shape, elementType), x,
                             constShape(padding), padConst)
      .getOutput();
}

Value TosaGraphBuilder::reduceSum(Value x, unsigned axis, const Twine &name) {
  SmallVector<int64_t> shape(typeOf(x).getShape());
  shape[axis] = 1;
  auto type = RankedTensorType::get(shape, typeOf(x).getElementType());
  return tosa::ReduceSumOp::create(builder, loc(name), type, x,
                                   builder.getI32IntegerAttr(axis))
      .getOutput();
}

//===----------------------------------------------------------------------===//
// Composite operations of the NAS search spaces
//===----------------------------------------------------------------------===//
Value TosaGraphBuilder::reluConv(Value x, int64_t outC, int64_t k,
                                 int64_t stride, const Twine &name) {
  Value y = relu(x, name + "_relu");
  return conv(y, outC, k, stride, name + "_conv");
}

Value TosaGraphBuilder::sepConv(Value x, int64_t k, int64_t stride,
                                const Twine &name) {
  int64_t c = dimOf(x, 3);
  Value y = relu(x, name + "_relu1");
  y = depthwise(y, k, stride, 1, name + "_dw1");
  y = conv(y, c, 1, 1, name + "_pw1");
  y = relu(y, name + "_relu2");
  y = depthwise(y, k, 1, 1, name + "_dw2");
  return conv(y, c, 1, 1, name + "_pw2");
}

Value TosaGraphBuilder::dilConv(Value x, int64_t k, int64_t stride,
                                int64_t dilation, const Twine &name) {
  int64_t c = dimOf(x, 3);
  Value y = relu(x, name + "_relu");
  y = depthwise(y, k, stride, dilation, name + "_dw");
  return conv(y, c, 1, 1, name + "_pw");
}

Value TosaGraphBuilder::factorizedReduce(Value x, int64_t outC,
                                         const Twine &name) {
  int64_t h = dimOf(x, 1), w = dimOf(x, 2), c = dimOf(x, 3);
  Value y = relu(x, name + "_relu");
  Value a = conv(y, outC / 2, 1, 2, name + "_conv1");
  // The shifted path drops the first row and column; with odd sizes both
  // paths read the whole input so that their outputs agree.
  Value shifted = y;
  if (h % 2 == 0 && w % 2 == 0 && h > 1 && w > 1)
    shifted = slice(y, {0, 1, 1, 0}, {1, h - 1, w - 1, c}, name + "_shift");
  Value b = conv(shifted, outC - outC / 2, 1, 2, name + "_conv2");
  return concat({a, b}, name + "_concat");
}

Type TosaGraphBuilder::storageType() {
  switch (dtype) {
  case ZooDType::I8:
    return builder.getIntegerType(8);
  case ZooDType::I16:
    return builder.getIntegerType(16);
  case ZooDType::F16:
    return builder.getF16Type();
  case ZooDType::F32:
    break;
  }
  return builder.getF32Type();
}

Type TosaGraphBuilder::accumulatorType() {
  if (isInteger())
    return builder.getIntegerType(32);
  return dtype == ZooDType::F16 ? Type(builder.getF16Type())
                                : builder.getF32Type();
}

RankedTensorType TosaGraphBuilder::activationType(int64_t h, int64_t w,
                                                  int64_t c) {
  return RankedTensorType::get({1, h, w, c}, storageType());
}

Value TosaGraphBuilder::zeroPoint() {
  return splat({1}, storageType(), Role::Zero);
}

Value TosaGraphBuilder::splat(ArrayRef<int64_t> shape, Type elementType,
                              Role role) {
  auto type = RankedTensorType::get(shape, elementType);
  Attribute element;
  if (isa<FloatType>(elementType)) {
    element =
        builder.getFloatAttr(elementType, role == Role::Weight ? 0.01 : 0.0);
  } else {
    int64_t value = 0;
    if (role == Role::Weight)
      value = 1;
    else if (role == Role::Multiplier)
      value = int64_t(1) << 30;
    else if (role == Role::Shift)
      value = 38;
    element = builder.getIntegerAttr(elementType, value);
  }
  auto values = DenseElementsAttr::get(type, ArrayRef<Attribute>(element));
  return constant(values, [&](OpBuilder &b, Location l) {
    return tosa::ConstOp::create(b, l, type, values).getOutput();
  });
}

Value TosaGraphBuilder::constShape(ArrayRef<int64_t> values) {
  auto type =
      RankedTensorType::get({int64_t(values.size())}, builder.getIndexType());
  auto attr = cast<DenseIntElementsAttr>(DenseElementsAttr::get(type, values));
  return constant(attr, [&](OpBuilder &b, Location l) {
    return tosa::ConstShapeOp::create(
               b, l, tosa::shapeType::get(ctx, values.size()), attr)
        .getResult();
  });
}

Value TosaGraphBuilder::constant(
    Attribute key, llvm::function_ref<Value(OpBuilder &, Location)> create) {
  if (Value cached = constants.lookup(key))
    return cached;
  OpBuilder::InsertionGuard guard(builder);
  if (lastConstant)
    builder.setInsertionPointAfter(lastConstant);
  else
    builder.setInsertionPointToStart(body);
  Value value = create(builder, UnknownLoc::get(ctx));
  lastConstant = value.getDefiningOp();
  constants[key] = value;
  return value;
}

Value TosaGraphBuilder::clamp(Value x, double upper, const Twine &name) {
  Attribute minAttr, maxAttr;
  Type elementType = typeOf(x).getElementType();
  if (isa<IntegerType>(elementType)) {
    minAttr = builder.getIntegerAttr(elementType, 0);
    maxAttr = builder.getIntegerAttr(elementType, 127);
  } else {
    double largest = elementType.isF16()
                         ? 65504.0
                         : double(std::numeric_limits<float>::max());
    minAttr = builder.getFloatAttr(elementType, 0.0);
    maxAttr = builder.getFloatAttr(elementType, upper < 0 ? largest : upper);
  }
  return tosa::ClampOp::create(builder, loc(name), x.getType(), x, minAttr,
                               maxAttr)
      .getOutput();
}

Value TosaGraphBuilder::crop(Value x, int64_t cropH, int64_t cropW,
                             const Twine &name) {
  if (cropH == dimOf(x, 1) && cropW == dimOf(x, 2))
    return x;
  return slice(x, {0, 0, 0, 0}, {1, cropH, cropW, dimOf(x, 3)}, name + "_crop");
}

Value TosaGraphBuilder::avgPoolRaw(Value x, SmallVector<int64_t, 2> kernel,
                                   SmallVector<int64_t, 2> stride,
                                   SmallVector<int64_t, 4> pad, int64_t outH,
                                   int64_t outW, const Twine &name) {
  Value zp = zeroPoint();
  return tosa::AvgPool2dOp::create(
             builder, loc(name), activationType(outH, outW, dimOf(x, 3)), x, zp,
             zp, ArrayRef<int64_t>(kernel), ArrayRef<int64_t>(stride),
             ArrayRef<int64_t>(pad), accumulatorType())
      .getOutput();
}

Value TosaGraphBuilder::rescaleToInt8(Value acc, const Twine &name) {
  if (!isInt8())
    return acc;
  Type i8 = builder.getIntegerType(8), i32 = builder.getIntegerType(32);
  auto type = RankedTensorType::get(typeOf(acc).getShape(), i8);
  Value multiplier = splat({1}, i32, Role::Multiplier);
  Value shift = splat({1}, i8, Role::Shift);
  Value inputZp = splat({1}, i32, Role::Zero);
  Value outputZp = splat({1}, i8, Role::Zero);
  return tosa::RescaleOp::create(builder, loc(name + "_rescale"), type, acc,
                                 multiplier, shift, inputZp, outputZp,
                                 /*scale32=*/true,
                                 tosa::RoundingMode::SINGLE_ROUND,
                                 /*per_channel=*/false,
                                 /*input_unsigned=*/false,
                                 /*output_unsigned=*/false)
      .getOutput();
}
