//===- Conv.cpp - TFLite convolutions and fully connected -----------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED:
// - CONV_2D is `tosa.conv2d` (TFLite filters are already [OC, KH, KW, IC]).
// - DEPTHWISE_CONV_2D is `tosa.depthwise_conv2d`; the [1, KH, KW, C*M] filter
//   is re-typed [KH, KW, C, M] (same bytes, same order).
// - FULLY_CONNECTED runs as a 1x1 `tosa.conv2d` between reshapes; the
//   [OC, IC] weights are re-typed [OC, 1, 1, IC].
// int8 operators take the input zero point as `input_zp` (per-channel filter
// zero points must be 0), accumulate in i32, and a `tosa.rescale` (per
// channel when the filter is) brings the accumulator to the output scale and
// zero point. SAME/VALID padding becomes explicit `pad`, with unused input
// rows sliced off (TFLiteImporter::spatialPadding).
//
//===----------------------------------------------------------------------===//

#include "TFLiteImporter.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::tfliteimport;

namespace {

/// The tensors of a convolution-like operator, checked for types.
struct ConvOperands {
  /// Input, filter, bias (-1 when absent) and output tensors.
  int32_t in, filter, bias, out;
  /// Their types.
  RankedTensorType inType, outType, filterType;
  /// The input (and filter and output) element type: f32 or i8.
  Type inElt;
  /// The accumulator's element type: f32, or i32 for int8.
  Type accElt;
  /// Whether the operator is int8.
  bool quantized;
};

/// The TOSA operands of a convolution besides its input, and the
/// quantization of its tensors.
struct ConvWeights {
  /// The filter in TOSA's layout, the bias and the two zero points.
  Value filter, bias, inputZp, weightZp;
  /// Quantization of the input, the filter and the output.
  QuantParams qi, qf, qo;
};

/// The window of a 2-D convolution, from its options table.
struct ConvWindow {
  /// SAME or VALID.
  tfl::Padding padding;
  /// Strides and dilations, height first.
  SmallVector<int64_t> stride, dilation;
  /// The fused activation.
  tfl::ActivationFunctionType act;
};

} // namespace

/// Checks the arity and the element types of convolution-like \p op.
static FailureOr<ConvOperands> checkConvOperands(TFLiteImporter &imp,
                                                 const tfl::Operator *op) {
  if (failed(imp.checkArity(op, 2, 3, 1)))
    return failure();
  ConvOperands c;
  c.in = TFLiteImporter::input(op, 0);
  c.filter = TFLiteImporter::input(op, 1);
  c.bias = TFLiteImporter::input(op, 2);
  c.out = TFLiteImporter::output(op);
  c.inType = imp.tensorType(c.in);
  c.outType = imp.tensorType(c.out);
  c.filterType = imp.tensorType(c.filter);
  c.inElt = c.inType.getElementType();
  c.quantized = c.inElt.isInteger(8);
  if (!(c.inElt.isF32() || c.quantized))
    return imp.opError() << "unsupported input type " << c.inElt;
  // Dynamic-range ("hybrid") quantization: float activations, int8 weights
  // that the kernel dequantizes at run time.
  if (c.inElt.isF32() && c.filterType.getElementType().isInteger(8))
    return imp.opError()
           << "hybrid quantization (float activations, int8 weights) is "
              "not supported: quantize the activations too, with "
              "full-integer post-training quantization (int8 inputs and "
              "outputs)";
  if (c.filterType.getElementType() != c.inElt ||
      c.outType.getElementType() != c.inElt)
    return imp.opError() << "input, filter and output types differ";
  if (c.quantized && (!imp.isQuantized(c.in) || !imp.isQuantized(c.filter) ||
                      !imp.isQuantized(c.out)))
    return imp.opError() << "int8 tensors without quantization parameters";
  OpBuilder &builder = imp.getBuilder();
  c.accElt = c.quantized ? Type(builder.getI32Type()) : builder.getF32Type();
  return c;
}

/// Returns the location of the accumulating op of \p c.
static Location accumulatorLoc(TFLiteImporter &imp, const ConvOperands &c) {
  return imp.tensorLoc(c.out, c.quantized ? "acc" : "conv");
}

/// Checks the ranks of a 2-D convolution and returns its input.
static FailureOr<Value> spatialInput(TFLiteImporter &imp,
                                     const ConvOperands &c) {
  if (c.inType.getRank() != 4 || c.filterType.getRank() != 4 ||
      c.outType.getRank() != 4)
    return imp.opError() << "input, filter and output must have rank 4";
  return imp.getValue(c.in);
}

/// Checks that the output of a 2-D convolution has \p oc channels and the
/// input's batch.
static LogicalResult checkSpatialOutput(TFLiteImporter &imp,
                                        const ConvOperands &c, int64_t oc) {
  if (c.outType.getDimSize(3) != oc ||
      c.outType.getDimSize(0) != c.inType.getDimSize(0))
    return imp.opError() << "output " << c.outType << " does not match " << oc
                         << " output channels";
  return success();
}

/// Builds the filter (re-typed to \p filterShape), the bias (given, or zeros)
/// and the zero points of \p c, with \p oc output channels.
static FailureOr<ConvWeights> convWeights(TFLiteImporter &imp,
                                          const ConvOperands &c,
                                          ArrayRef<int64_t> filterShape,
                                          int64_t oc) {
  OpBuilder &builder = imp.getBuilder();
  Location accLoc = accumulatorLoc(imp, c);
  ConvWeights w;
  FailureOr<Value> filter = imp.getValue(c.filter, filterShape);
  if (failed(filter))
    return failure();
  w.filter = *filter;

  // Bias: given, or zeros.
  Type biasElt =
      c.quantized ? Type(builder.getI32Type()) : builder.getF32Type();
  if (c.bias >= 0) {
    if (imp.tensorType(c.bias).getElementType() != biasElt ||
        imp.tensorType(c.bias).getNumElements() != oc)
      return imp.opError() << "bias must be " << oc << " values of " << biasElt;
    FailureOr<Value> bv = imp.getValue(c.bias, ArrayRef<int64_t>{oc});
    if (failed(bv))
      return failure();
    w.bias = *bv;
  } else {
    auto bType = RankedTensorType::get({oc}, biasElt);
    w.bias = imp.create(
        "tosa.const", bType, {},
        {builder.getNamedAttr(
            "values",
            DenseElementsAttr::get(
                bType, isa<FloatType>(biasElt)
                           ? Attribute(builder.getFloatAttr(biasElt, 0.0))
                           : builder.getIntegerAttr(biasElt, 0)))},
        accLoc);
  }

  // Quantization of input and filter.
  w.qi = imp.quant(c.in);
  w.qf = imp.quant(c.filter);
  w.qo = imp.quant(c.out);
  if (c.quantized) {
    if (w.qi.scales.size() != 1 || w.qo.scales.size() != 1)
      return imp.opError() << "input and output must be per-tensor quantized";
    if (w.qf.scales.size() != 1 &&
        static_cast<int64_t>(w.qf.scales.size()) != oc)
      return imp.opError() << "filter has " << w.qf.scales.size()
                           << " scales for " << oc << " output channels";
    for (int64_t z : w.qf.zeroPoints)
      if (z != 0 && w.qf.scales.size() != 1)
        return imp.opError() << "per-channel filter zero points must be 0";
  }
  double izpVal = c.quantized ? static_cast<double>(w.qi.zeroPoint()) : 0.0;
  double wzpVal = c.quantized ? static_cast<double>(w.qf.zeroPoint()) : 0.0;
  if (c.quantized &&
      (izpVal < -128 || izpVal > 127 || wzpVal < -128 || wzpVal > 127))
    return imp.opError() << "zero point out of the int8 range";
  w.inputZp = imp.scalarConst(c.inElt, izpVal, accLoc);
  w.weightZp = imp.scalarConst(c.inElt, wzpVal, accLoc);
  return w;
}

/// Creates the accumulating op \p name (`tosa.conv2d` or
/// `tosa.depthwise_conv2d`) of input \p x, with result shape \p accShape.
static Value emitAccumulator(TFLiteImporter &imp, const ConvOperands &c,
                             StringRef name, Value x, const ConvWeights &w,
                             ArrayRef<int64_t> accShape, ArrayRef<int64_t> pad,
                             ArrayRef<int64_t> stride,
                             ArrayRef<int64_t> dilation, Location loc) {
  OpBuilder &builder = imp.getBuilder();
  auto accType = RankedTensorType::get(accShape, c.accElt);
  return imp.create(
      name, accType, {x, w.filter, w.bias, w.inputZp, w.weightZp},
      {builder.getNamedAttr("acc_type", TypeAttr::get(c.accElt)),
       builder.getNamedAttr("pad", builder.getDenseI64ArrayAttr(pad)),
       builder.getNamedAttr("stride", builder.getDenseI64ArrayAttr(stride)),
       builder.getNamedAttr("dilation",
                            builder.getDenseI64ArrayAttr(dilation))},
      loc);
}

/// Rescales int8 accumulator \p acc to the output's scale and zero point, by
/// s_in * s_w[c] / s_out (per channel when the filter is); float accumulators
/// are returned as they are.
static FailureOr<Value> rescaleAccumulator(TFLiteImporter &imp,
                                           const ConvOperands &c,
                                           const ConvWeights &w, Value acc,
                                           ArrayRef<int64_t> accShape,
                                           Location loc) {
  if (!c.quantized)
    return acc;
  SmallVector<double> scales;
  for (double s : w.qf.scales)
    scales.push_back(w.qi.scale() * s / w.qo.scale());
  return imp.rescale(acc, RankedTensorType::get(accShape, c.inElt), scales, 0,
                     w.qo.zeroPoint(), loc);
}

/// Reads the window of a Conv2DOptions or DepthwiseConv2DOptions table.
template <typename OptionsT> static ConvWindow readWindow(const OptionsT *o) {
  return {o->padding(),
          {o->stride_h(), o->stride_w()},
          {o->dilation_h_factor(), o->dilation_w_factor()},
          o->fused_activation_function()};
}

/// Pads (or slices) input \p x of 2-D convolution \p c with a
/// \p kernelH x \p kernelW filter, creates its accumulating op \p name,
/// rescales, applies the fused activation and defines the output.
static LogicalResult finishSpatialConv(TFLiteImporter &imp,
                                       const ConvOperands &c, StringRef name,
                                       Value x, const ConvWeights &w,
                                       int64_t kernelH, int64_t kernelW,
                                       const ConvWindow &window) {
  SmallVector<int64_t> pad = {0, 0, 0, 0};
  int64_t usedH, usedW;
  if (failed(imp.spatialPadding(c.inType.getDimSize(1), c.outType.getDimSize(1),
                                kernelH, window.stride[0], window.dilation[0],
                                window.padding, pad[0], pad[1], usedH)) ||
      failed(imp.spatialPadding(c.inType.getDimSize(2), c.outType.getDimSize(2),
                                kernelW, window.stride[1], window.dilation[1],
                                window.padding, pad[2], pad[3], usedW)))
    return failure();
  x = imp.sliceSpatial(x, usedH, usedW, imp.tensorLoc(c.out, "slice"));

  Location loc = imp.tensorLoc(c.out);
  bool fused = window.act != tfl::ActivationFunctionType::NONE;
  SmallVector<int64_t> accShape = llvm::to_vector(c.outType.getShape());
  Value acc = emitAccumulator(
      imp, c, name, x, w, accShape, pad, window.stride, window.dilation,
      c.quantized || fused ? accumulatorLoc(imp, c) : loc);
  FailureOr<Value> result = rescaleAccumulator(
      imp, c, w, acc, accShape, fused ? imp.tensorLoc(c.out, "rescale") : loc);
  if (failed(result))
    return failure();
  FailureOr<Value> activated = imp.activation(*result, window.act, c.out, loc);
  if (failed(activated))
    return failure();
  return imp.define(c.out, *activated);
}

//===----------------------------------------------------------------------===//
// Converters
//===----------------------------------------------------------------------===//

/// CONV_2D: `tosa.conv2d`.
static LogicalResult convertConv2D(TFLiteImporter &imp,
                                   const tfl::Operator *op) {
  FailureOr<ConvOperands> c = checkConvOperands(imp, op);
  if (failed(c))
    return failure();
  FailureOr<Value> x = spatialInput(imp, *c);
  if (failed(x))
    return failure();
  int64_t channels = c->inType.getDimSize(3);
  int64_t oc = c->filterType.getDimSize(0);
  if (c->filterType.getDimSize(3) != channels)
    return imp.opError() << "filter input channels "
                         << c->filterType.getDimSize(3)
                         << " differ from the input's " << channels;
  SmallVector<int64_t> filterShape = llvm::to_vector(c->filterType.getShape());
  if (failed(checkSpatialOutput(imp, *c, oc)))
    return failure();
  FailureOr<ConvWeights> w = convWeights(imp, *c, filterShape, oc);
  if (failed(w))
    return failure();
  const auto *o = op->builtin_options_as_Conv2DOptions();
  if (!o)
    return imp.opError() << "missing Conv2DOptions";
  // Filter [OC, KH, KW, IC].
  return finishSpatialConv(imp, *c, "tosa.conv2d", *x, *w, filterShape[1],
                           filterShape[2], readWindow(o));
}

/// DEPTHWISE_CONV_2D: `tosa.depthwise_conv2d` with the filter re-typed
/// [KH, KW, C, M].
static LogicalResult convertDepthwiseConv2D(TFLiteImporter &imp,
                                            const tfl::Operator *op) {
  FailureOr<ConvOperands> c = checkConvOperands(imp, op);
  if (failed(c))
    return failure();
  FailureOr<Value> x = spatialInput(imp, *c);
  if (failed(x))
    return failure();
  int64_t channels = c->inType.getDimSize(3);
  if (c->filterType.getDimSize(0) != 1)
    return imp.opError() << "depthwise filter must have shape [1, KH, KW, C*M]";
  int64_t oc = c->filterType.getDimSize(3);
  if (channels <= 0 || oc % channels != 0)
    return imp.opError() << "depthwise filter channels " << oc
                         << " are not a multiple of the input channels "
                         << channels;
  SmallVector<int64_t> filterShape = {c->filterType.getDimSize(1),
                                      c->filterType.getDimSize(2), channels,
                                      oc / channels};
  if (failed(checkSpatialOutput(imp, *c, oc)))
    return failure();
  FailureOr<ConvWeights> w = convWeights(imp, *c, filterShape, oc);
  if (failed(w))
    return failure();
  const auto *o = op->builtin_options_as_DepthwiseConv2DOptions();
  if (!o)
    return imp.opError() << "missing DepthwiseConv2DOptions";
  // Filter [KH, KW, C, M].
  return finishSpatialConv(imp, *c, "tosa.depthwise_conv2d", *x, *w,
                           filterShape[0], filterShape[1], readWindow(o));
}

/// FULLY_CONNECTED: a 1x1 `tosa.conv2d` of the input flattened to
/// [batch, 1, 1, IC], reshaped to the output's shape.
static LogicalResult convertFullyConnected(TFLiteImporter &imp,
                                           const tfl::Operator *op) {
  FailureOr<ConvOperands> c = checkConvOperands(imp, op);
  if (failed(c))
    return failure();
  if (c->filterType.getRank() != 2)
    return imp.opError() << "filter must have rank 2";
  int64_t oc = c->filterType.getDimSize(0);
  int64_t ic = c->filterType.getDimSize(1);
  if (ic <= 0 || c->inType.getNumElements() % ic != 0)
    return imp.opError() << "input of " << c->inType.getNumElements()
                         << " elements is not a multiple of " << ic;
  int64_t batch = c->inType.getNumElements() / ic;
  if (c->outType.getNumElements() != batch * oc)
    return imp.opError() << "output " << c->outType << " does not hold "
                         << batch << "x" << oc << " elements";
  FailureOr<Value> xv = imp.getValue(c->in);
  if (failed(xv))
    return failure();
  Value x =
      imp.reshape(*xv, {batch, 1, 1, ic}, imp.tensorLoc(c->out, "flatten"));
  SmallVector<int64_t> filterShape = {oc, 1, 1, ic};
  SmallVector<int64_t> accShape = {batch, 1, 1, oc};
  FailureOr<ConvWeights> w = convWeights(imp, *c, filterShape, oc);
  if (failed(w))
    return failure();

  tfl::ActivationFunctionType act = tfl::ActivationFunctionType::NONE;
  if (const auto *o = op->builtin_options_as_FullyConnectedOptions()) {
    act = o->fused_activation_function();
    if (o->weights_format() != 0)
      return imp.opError() << "shuffled fully connected weights not supported";
  }
  Value acc =
      emitAccumulator(imp, *c, "tosa.conv2d", x, *w, accShape, {0, 0, 0, 0},
                      {1, 1}, {1, 1}, accumulatorLoc(imp, *c));
  FailureOr<Value> result = rescaleAccumulator(
      imp, *c, *w, acc, accShape, imp.tensorLoc(c->out, "rescale"));
  if (failed(result))
    return failure();
  FailureOr<Value> activated =
      imp.activation(*result, act, c->out, imp.tensorLoc(c->out, "act"));
  if (failed(activated))
    return failure();
  return imp.define(c->out, imp.reshape(*activated, c->outType.getShape(),
                                        imp.tensorLoc(c->out)));
}

void mlir::memopt::tfliteimport::populateConvConverters(ConverterTable &table) {
  table.onOp(kConv2D, convertConv2D);
  table.onOp(kDepthwiseConv2D, convertDepthwiseConv2D);
  table.onOp(kFullyConnected, convertFullyConnected);
}
