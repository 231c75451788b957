//===- TosaGraphBuilder.h - TOSA builder of the zoo models ------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Zoo. The builder every zoo family writes its function
// with: NHWC activations, TF "SAME" padding (cropping with a tosa.slice where
// TOSA needs it), shared splat constants at the top of the body, a NameLoc on
// every other op, and the int8 conventions of docs/Zoo.md (int32
// accumulators rescaled to int8, adds through int32).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_ZOO_TOSAGRAPHBUILDER_H
#define MEMOPT_LIB_ZOO_TOSAGRAPHBUILDER_H

#include "MemOpt/Zoo/Zoo.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>

namespace mlir {
namespace memopt {
namespace zoo {

/// Returns the ranked tensor type of \p value.
inline RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// Returns dimension \p index of the NHWC tensor \p value.
inline int64_t dimOf(Value value, unsigned index) {
  return typeOf(value).getDimSize(index);
}

/// Builds one func.func of TOSA ops on NHWC activations. Constants (splat
/// weights, zero points, rescale parameters and slice shapes) are created
/// once per type at the top of the body and shared; every other op gets a
/// NameLoc with the name it is given. In int8 mode convolutions accumulate
/// in int32 and are followed by a tosa.rescale back to int8.
class TosaGraphBuilder {
public:
  /// Creates the function \p funcName, with no arguments yet, at the end of
  /// \p module.
  TosaGraphBuilder(ModuleOp module, StringRef funcName, ZooDType dtype);

  /// The context of the module being built.
  MLIRContext *getContext() const { return ctx; }

  /// Sets the element type of the activations of the ops built next.
  void setDType(ZooDType newDType) { dtype = newDType; }

  /// Appends a function argument of shape 1 x \p h x \p w x \p c.
  Value addInput(int64_t h, int64_t w, int64_t c);

  /// Returns \p results from the function and sets its type.
  void finish(ArrayRef<Value> results);

  /// ReLU: tosa.clamp to [0, max].
  Value relu(Value x, const Twine &name);

  /// ReLU6: tosa.clamp to [0, 6] (for int8, to [0, 127]).
  Value relu6(Value x, const Twine &name);

  /// KH x KW convolution to \p outC channels with "SAME" padding.
  Value conv(Value x, int64_t outC, int64_t kh, int64_t kw, int64_t strideH,
             int64_t strideW, int64_t dilation, const Twine &name);

  /// Square K x K convolution with the same stride in both dimensions.
  Value conv(Value x, int64_t outC, int64_t k, int64_t stride,
             const Twine &name);

  /// K x K depthwise convolution (channel multiplier 1), "SAME" padding.
  Value depthwise(Value x, int64_t k, int64_t stride, int64_t dilation,
                  const Twine &name);

  /// K x K max pooling with "SAME" padding.
  Value maxPool(Value x, int64_t k, int64_t stride, const Twine &name);

  /// K x K average pooling with "SAME" padding.
  Value avgPool(Value x, int64_t k, int64_t stride, const Twine &name);

  /// Global average pooling: one window over the whole H x W.
  Value globalAvgPool(Value x, const Twine &name);

  /// Elementwise sum of two tensors of the same shape.
  Value add(Value a, Value b, const Twine &name);

  /// Rescales \p x to \p elementType by 2^30 / 2^\p shift (30: unchanged),
  /// with zero points 0.
  Value rescale(Value x, Type elementType, int64_t shift, const Twine &name);

  /// Sum of \p values as a chain of tosa.add named \p name_1, \p name_2, ...
  /// (a single value is returned as is).
  Value sum(ArrayRef<Value> values, const Twine &name);

  /// Concatenation on the channel axis (a single value is returned as is).
  Value concat(ArrayRef<Value> values, const Twine &name);

  /// tosa.slice of \p size elements starting at \p start.
  Value slice(Value x, ArrayRef<int64_t> start, ArrayRef<int64_t> size,
              const Twine &name);

  /// Nearest-neighbour 2x upsampling (tosa.resize).
  Value upsample2x(Value x, const Twine &name);

  //===--------------------------------------------------------------------===//
  // Further ops of the fuzz model (any element type the op accepts)
  //===--------------------------------------------------------------------===//

  /// KH x KW convolution to \p outC channels with explicit padding. The
  /// padding after the input grows, or the input is cropped, so that the
  /// window lands exactly on the last padded element.
  Value convPadded(Value x, int64_t outC, int64_t kh, int64_t kw,
                   int64_t strideH, int64_t strideW, int64_t dilationH,
                   int64_t dilationW, ArrayRef<int64_t> pad, const Twine &name);

  /// Unary float op \p OpTy (tosa.sigmoid, tosa.tanh, tosa.abs, ...).
  template <typename OpTy> Value unary(Value x, const Twine &name) {
    return OpTy::create(builder, loc(name), x.getType(), x).getResult();
  }

  /// Elementwise product of two float tensors of the same shape.
  Value mul(Value a, Value b, const Twine &name);

  /// Elementwise maximum of two float tensors of the same shape.
  Value maximum(Value a, Value b, const Twine &name);

  /// a > b as an i1 tensor.
  Value greater(Value a, Value b, const Twine &name);

  /// Logical and of two i1 tensors.
  Value logicalAnd(Value a, Value b, const Twine &name);

  /// \p cond ? \p a : \p b, elementwise.
  Value select(Value cond, Value a, Value b, const Twine &name);

  /// tosa.cast of \p x to \p elementType.
  Value castTo(Value x, Type elementType, const Twine &name);

  /// tosa.reshape of \p x to \p shape (same element count).
  Value reshape(Value x, ArrayRef<int64_t> shape, const Twine &name);

  /// tosa.transpose of \p x: output dimension i is input dimension
  /// \p perms[i].
  Value transpose(Value x, ArrayRef<int32_t> perms, const Twine &name);

  /// Concatenation of tensors that agree outside \p axis.
  Value concatOn(ArrayRef<Value> values, unsigned axis, const Twine &name);

  /// tosa.pad of \p x by \p padding (before and after each dimension) with
  /// zeros.
  Value pad(Value x, ArrayRef<int64_t> padding, const Twine &name);

  /// tosa.reduce_sum of a float tensor on \p axis (kept with size 1).
  Value reduceSum(Value x, unsigned axis, const Twine &name);

  //===--------------------------------------------------------------------===//
  // Composite operations of the NAS search spaces
  //===--------------------------------------------------------------------===//

  /// ReLU followed by a K x K convolution (ReLU-Conv-BN without the BN).
  Value reluConv(Value x, int64_t outC, int64_t k, int64_t stride,
                 const Twine &name);

  /// Separable convolution applied twice, as in NASNet and DARTS:
  /// (ReLU, K x K depthwise with \p stride, 1x1 conv), then (ReLU, K x K
  /// depthwise, 1x1 conv). Keeps the channel count.
  Value sepConv(Value x, int64_t k, int64_t stride, const Twine &name);

  /// Dilated separable convolution (DARTS dil_conv): ReLU, K x K depthwise
  /// with \p dilation, 1x1 conv.
  Value dilConv(Value x, int64_t k, int64_t stride, int64_t dilation,
                const Twine &name);

  /// Factorized reduce (DARTS FactorizedReduce, NASNet factorized_reduction):
  /// ReLU, then two 1x1 stride-2 convolutions, one on the input and one on
  /// the input shifted by one pixel, concatenated to \p outC channels.
  Value factorizedReduce(Value x, int64_t outC, const Twine &name);

private:
  /// What a shared splat constant holds.
  enum class Role { Weight, Zero, Multiplier, Shift };

  /// Returns a NameLoc called \p name.
  Location loc(const Twine &name) {
    return NameLoc::get(StringAttr::get(ctx, name));
  }

  /// True when generating an int8 model.
  bool isInt8() const { return dtype == ZooDType::I8; }

  /// True when the activations are integers (int8 or int16).
  bool isInteger() const {
    return dtype == ZooDType::I8 || dtype == ZooDType::I16;
  }

  /// Element type of activations and weights.
  Type storageType();

  /// Element type of convolution and pooling accumulators and biases.
  Type accumulatorType();

  /// Activation type of shape 1 x \p h x \p w x \p c.
  RankedTensorType activationType(int64_t h, int64_t w, int64_t c);

  /// The zero point of activations and weights (a rank-1 splat).
  Value zeroPoint();

  /// Returns the shared tosa.const of the given shape and element type,
  /// creating it at the top of the body on first use.
  Value splat(ArrayRef<int64_t> shape, Type elementType, Role role);

  /// Returns the shared tosa.const_shape holding \p values.
  Value constShape(ArrayRef<int64_t> values);

  /// Returns the constant cached under \p key, or creates it with \p create
  /// after the constants created so far.
  Value constant(Attribute key,
                 llvm::function_ref<Value(OpBuilder &, Location)> create);

  /// tosa.clamp from 0 to \p upper (\p upper < 0: the largest value).
  Value clamp(Value x, double upper, const Twine &name);

  /// Crops \p x to \p cropH x \p cropW with a tosa.slice named
  /// \p name_crop, unless it already has that size.
  Value crop(Value x, int64_t cropH, int64_t cropW, const Twine &name);

  /// tosa.avg_pool2d with explicit window parameters.
  Value avgPoolRaw(Value x, SmallVector<int64_t, 2> kernel,
                   SmallVector<int64_t, 2> stride, SmallVector<int64_t, 4> pad,
                   int64_t outH, int64_t outW, const Twine &name);

  /// In int8 mode, rescales the int32 accumulator \p acc to int8 with an op
  /// named \p name_rescale; in f32 mode returns \p acc.
  Value rescaleToInt8(Value acc, const Twine &name);

  /// The context of the module being built.
  MLIRContext *ctx;
  /// Inserts compute ops at the end of the body.
  OpBuilder builder;
  /// Element type of the model.
  ZooDType dtype;
  /// The function being built.
  func::FuncOp func;
  /// Its single block.
  Block *body = nullptr;
  /// The last constant created; the next one goes after it.
  Operation *lastConstant = nullptr;
  /// Shared constants by their value attribute.
  DenseMap<Attribute, Value> constants;
};

} // namespace zoo
} // namespace memopt
} // namespace mlir

#endif // MEMOPT_LIB_ZOO_TOSAGRAPHBUILDER_H
