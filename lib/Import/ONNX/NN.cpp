//===- NN.cpp - ONNX convolutions, normalization, pooling, matmul ---------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Converters of the ONNX neural network operators: Conv (plain and
// depthwise, with a following BatchNormalization folded in),
// BatchNormalization, MaxPool, AveragePool, GlobalAveragePool, Gemm and
// MatMul. Activations are NHWC; weights are re-laid out at import time.
//
//===----------------------------------------------------------------------===//

#include "ONNXImporter.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::onnximport;

/// Emits a 2-D sliding window op's padding for one spatial dimension,
/// following PyTorch's output-size rule; returns the end padding to give
/// TOSA and the number of input rows to drop at the end.
static void fitWindow(int64_t in, int64_t kernel, int64_t stride,
                      int64_t dilation, int64_t padBegin, int64_t padEnd,
                      bool ceilMode, int64_t &out, int64_t &tosaPadEnd,
                      int64_t &crop) {
  int64_t span = (kernel - 1) * dilation + 1;
  int64_t room = in + padBegin + padEnd - span;
  out = (ceilMode ? (room + stride - 1) / stride : room / stride) + 1;
  // PyTorch (and ONNX) drop a last window that starts in the end padding.
  if (ceilMode && (out - 1) * stride >= in + padBegin)
    --out;
  int64_t needed = (out - 1) * stride + span - in - padBegin;
  tosaPadEnd = std::max<int64_t>(needed, 0);
  crop = std::max<int64_t>(-needed, 0);
}

//===----------------------------------------------------------------------===//
// Conv
//===----------------------------------------------------------------------===//

namespace {
/// A 2-D convolution as its operands and attributes describe it.
struct ConvParams {
  /// Input channels.
  int64_t cin = 0;
  /// Output channels.
  int64_t cout = 0;
  /// Kernel height and width.
  int64_t kh = 0, kw = 0;
  /// One group per input channel (`tosa.depthwise_conv2d`).
  bool depthwise = false;
  /// Strides and dilations, [H, W].
  SmallVector<int64_t> strides, dilations;
  /// Padding in ONNX order, [top, left, bottom, right].
  SmallVector<int64_t> pads;
};
} // namespace

/// Checks the input, weight and bias of a Conv and its group; fills the
/// channel counts, kernel size and depthwise flag of \p params.
static LogicalResult checkConvOperands(ONNXImporter &importer, const Tensor &x,
                                       const Tensor &w, const Tensor *bias,
                                       ConvParams &params) {
  if (x.shape.size() != 4)
    return importer.nodeError()
           << "only 2-D convolutions (rank-4 input) are supported";
  if (!w.isConst || !w.isFloat || w.shape.size() != 4)
    return importer.nodeError()
           << "the weight must be a constant rank-4 float tensor";
  if (bias && (!bias->isConst || !bias->isFloat || bias->shape.size() != 1 ||
               bias->shape[0] != w.shape[0]))
    return importer.nodeError()
           << "the bias must be a constant of " << w.shape[0] << " floats";
  int64_t group = importer.attrInt("group", 1);
  int64_t cin = x.shape[1], cout = w.shape[0];
  params.cin = cin;
  params.cout = cout;
  params.kh = w.shape[2];
  params.kw = w.shape[3];
  params.depthwise =
      group > 1 && group == cin && w.shape[1] == 1 && cout % cin == 0;
  if (group < 1 || (!params.depthwise && group != 1))
    return importer.nodeError() << "grouped convolution with " << group
                                << " groups is not supported";
  if (!params.depthwise && w.shape[1] != cin)
    return importer.nodeError() << "weight has " << w.shape[1]
                                << " input channels, input has " << cin;
  return success();
}

/// Reads a Conv's strides, dilations and pads (resolving `auto_pad` for the
/// spatial input size \p in) into \p params.
static LogicalResult getConvWindow(ONNXImporter &importer, ArrayRef<int64_t> in,
                                   ConvParams &params) {
  SmallVector<int64_t> strides = importer.attrInts("strides");
  SmallVector<int64_t> dilations = importer.attrInts("dilations");
  SmallVector<int64_t> pads = importer.attrInts("pads");
  if (strides.empty())
    strides = {1, 1};
  if (dilations.empty())
    dilations = {1, 1};
  if (pads.empty())
    pads = {0, 0, 0, 0};
  SmallVector<int64_t> kernel = importer.attrInts("kernel_shape");
  if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4 ||
      (!kernel.empty() && kernel != SmallVector<int64_t>{params.kh, params.kw}))
    return importer.nodeError()
           << "invalid strides, dilations, pads or kernel_shape";
  for (int64_t v : llvm::concat<int64_t>(strides, dilations))
    if (v < 1)
      return importer.nodeError() << "strides and dilations must be positive";
  for (int64_t v : pads)
    if (v < 0)
      return importer.nodeError() << "pads must not be negative";
  std::string autoPad = importer.attrString("auto_pad", "NOTSET");
  int64_t k[2] = {params.kh, params.kw};
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (int i = 0; i < 2; ++i) {
      int64_t out = (in[i] + strides[i] - 1) / strides[i];
      int64_t total = std::max<int64_t>(
          (out - 1) * strides[i] + (k[i] - 1) * dilations[i] + 1 - in[i], 0);
      int64_t small = total / 2;
      pads[i] = autoPad == "SAME_UPPER" ? small : total - small;
      pads[i + 2] = total - pads[i];
    }
  } else if (autoPad == "VALID") {
    pads = {0, 0, 0, 0};
  } else if (autoPad != "NOTSET") {
    return importer.nodeError() << "unsupported auto_pad '" << autoPad << "'";
  }
  params.strides = std::move(strides);
  params.dilations = std::move(dilations);
  params.pads = std::move(pads);
  return success();
}

/// Folds into \p weights and \p biases (of a Conv of \p params with weight
/// shape \p weightShape) a BatchNormalization that is the Conv's only user
/// and marks it imported; returns that node, or null if there is none.
static const onnx::NodeProto *foldBatchNorm(ONNXImporter &importer,
                                            const ConvParams &params,
                                            ArrayRef<int64_t> weightShape,
                                            std::vector<float> &weights,
                                            std::vector<float> &biases) {
  int64_t cout = params.cout;
  int64_t perOut = numElements(weightShape) / cout;
  const std::string &convOut = importer.getNode().output(0);
  if (!importer.hasSingleReader(convOut))
    return nullptr;
  const auto &nodes = importer.getGraphNodes();
  for (int n = importer.getNodeIndex() + 1; n < nodes.size(); ++n) {
    const onnx::NodeProto &cand = nodes[n];
    if (!llvm::is_contained(cand.input(), convOut))
      continue;
    if (cand.op_type() != "BatchNormalization" || cand.input_size() != 5 ||
        cand.input(0) != convOut || cand.output_size() != 1 ||
        cand.output(0).empty())
      return nullptr;
    Tensor *bnParams[4];
    bool ok = true;
    for (int p = 0; p < 4; ++p) {
      bnParams[p] = importer.lookupValue(cand.input(p + 1));
      ok &= bnParams[p] && bnParams[p]->isConst && bnParams[p]->isFloat &&
            bnParams[p]->floats.size() == static_cast<size_t>(cout);
    }
    if (!ok)
      return nullptr;
    float epsilon = 1e-5f;
    for (const onnx::AttributeProto &a : cand.attribute())
      if (a.name() == "epsilon")
        epsilon = a.f();
    for (int64_t o = 0; o < cout; ++o) {
      double scale = double(bnParams[0]->floats[o]) /
                     std::sqrt(double(bnParams[3]->floats[o]) + epsilon);
      for (int64_t e = 0; e < perOut; ++e)
        weights[o * perOut + e] =
            static_cast<float>(double(weights[o * perOut + e]) * scale);
      biases[o] = static_cast<float>(
          (double(biases[o]) - bnParams[2]->floats[o]) * scale +
          bnParams[1]->floats[o]);
    }
    importer.markFolded(n);
    return &cand;
  }
  return nullptr;
}

/// Emits the `tosa.conv2d` or `tosa.depthwise_conv2d` of \p params on the
/// NHWC \p input (of batch \p n and spatial size \p in): drops the \p crop
/// rows and columns at the end, re-lays out \p weights (ONNX order, of
/// \p weightShape) and pads the end by \p padEnd to give \p outHW.
static Value emitConv(ONNXImporter &importer, const ConvParams &params,
                      Value input, int64_t n, const int64_t in[2],
                      const int64_t crop[2], const int64_t padEnd[2],
                      const int64_t outHW[2], ArrayRef<int64_t> weightShape,
                      const std::vector<float> &weights,
                      const std::vector<float> &biases) {
  ImplicitLocOpBuilder &builder = importer.getBuilder();
  int64_t cin = params.cin, cout = params.cout, kh = params.kh, kw = params.kw;
  ArrayRef<int64_t> pads = params.pads;
  if (crop[0] || crop[1]) {
    SmallVector<int64_t> size = {n, in[0] - crop[0], in[1] - crop[1], cin};
    input = tosa::SliceOp::create(builder, importer.f32Type(size), input,
                                  importer.constShape({0, 0, 0, 0}),
                                  importer.constShape(size));
  }
  Value biasValue = importer.constF32({cout}, biases);
  RankedTensorType outType = importer.f32Type({n, outHW[0], outHW[1], cout});
  auto pad =
      builder.getDenseI64ArrayAttr({pads[0], padEnd[0], pads[1], padEnd[1]});
  auto stride = builder.getDenseI64ArrayAttr(params.strides);
  auto dilation = builder.getDenseI64ArrayAttr(params.dilations);
  auto accType = TypeAttr::get(builder.getF32Type());
  if (params.depthwise) {
    // ONNX [C*M, 1, KH, KW] -> TOSA [KH, KW, C, M].
    int64_t m = cout / cin;
    std::vector<float> hwcm =
        permuteData(weights, {cin, m, kh, kw}, {2, 3, 0, 1});
    Value weight = importer.constF32({kh, kw, cin, m}, hwcm);
    return tosa::DepthwiseConv2DOp::create(
        builder, outType, input, weight, biasValue, importer.zeroPoint(),
        importer.zeroPoint(), pad, stride, dilation, accType);
  }
  // ONNX [O, I, KH, KW] -> TOSA [O, KH, KW, I].
  std::vector<float> ohwi = permuteData(weights, weightShape, {0, 2, 3, 1});
  Value weight = importer.constF32({cout, kh, kw, cin}, ohwi);
  return tosa::Conv2DOp::create(builder, outType, input, weight, biasValue, pad,
                                stride, dilation, accType);
}

/// Conv: 2-D, plain or depthwise; a BatchNormalization that is its only user
/// is folded in (the result carries both nodes' locations).
static LogicalResult convertConv(ONNXImporter &importer) {
  Tensor *x = importer.getInput(0);
  Tensor *w = x ? importer.getInput(1) : nullptr;
  if (!w)
    return failure();
  Tensor *bias = importer.getInput(2, /*required=*/false);
  ConvParams params;
  if (failed(checkConvOperands(importer, *x, *w, bias, params)))
    return failure();
  int64_t in[2] = {x->shape[2], x->shape[3]}, k[2] = {params.kh, params.kw};
  if (failed(getConvWindow(importer, in, params)))
    return failure();

  // Fold a BatchNormalization that is the convolution's only user.
  std::vector<float> weights = w->floats;
  std::vector<float> biases(params.cout, 0.0f);
  if (bias)
    biases = bias->floats;
  const onnx::NodeProto *bnNode =
      foldBatchNorm(importer, params, w->shape, weights, biases);

  int64_t outHW[2], padEnd[2], crop[2];
  for (int i = 0; i < 2; ++i) {
    fitWindow(in[i], k[i], params.strides[i], params.dilations[i],
              params.pads[i], params.pads[i + 2],
              /*ceilMode=*/false, outHW[i], padEnd[i], crop[i]);
    if (outHW[i] < 1)
      return importer.nodeError() << "the kernel does not fit the input";
  }
  ImplicitLocOpBuilder &builder = importer.getBuilder();
  if (bnNode)
    builder.setLoc(
        FusedLoc::get(builder.getContext(),
                      {builder.getLoc(),
                       NameLoc::get(builder.getStringAttr(bnNode->name()))}));
  Value input = importer.valueIn(*x, preferredPerm(4));
  int64_t n = x->shape[0];
  Tensor out;
  out.shape = {n, params.cout, outHW[0], outHW[1]};
  out.perm = preferredPerm(4);
  out.value = emitConv(importer, params, input, n, in, crop, padEnd, outHW,
                       w->shape, weights, biases);
  if (bnNode)
    importer.setValue(bnNode->output(0), out);
  importer.setOutput(0, std::move(out));
  return success();
}

//===----------------------------------------------------------------------===//
// BatchNormalization
//===----------------------------------------------------------------------===//

/// BatchNormalization (not folded into a Conv): a per-channel mul and add.
static LogicalResult convertBatchNormalization(ONNXImporter &importer) {
  ImplicitLocOpBuilder &builder = importer.getBuilder();
  Tensor *x = importer.getInput(0);
  if (!x)
    return failure();
  if (x->shape.size() < 2)
    return importer.nodeError() << "the input must have a channel dimension";
  int64_t c = x->shape[1];
  Tensor *params[4];
  for (int p = 0; p < 4; ++p) {
    params[p] = importer.getInput(p + 1);
    if (!params[p])
      return failure();
    if (!params[p]->isConst || !params[p]->isFloat ||
        params[p]->floats.size() != static_cast<size_t>(c))
      return importer.nodeError()
             << "scale, bias, mean and variance must be constants "
                "of "
             << c << " floats";
  }
  float epsilon = importer.attrFloat("epsilon", 1e-5f);
  Tensor scale, shift;
  scale.isConst = shift.isConst = true;
  scale.shape.assign(x->shape.size(), 1);
  scale.shape[1] = c;
  scale.perm = identityPerm(scale.shape.size());
  shift.shape = scale.shape;
  shift.perm = scale.perm;
  for (int64_t i = 0; i < c; ++i) {
    double s = double(params[0]->floats[i]) /
               std::sqrt(double(params[3]->floats[i]) + epsilon);
    scale.floats.push_back(static_cast<float>(s));
    shift.floats.push_back(static_cast<float>(
        double(params[1]->floats[i]) - double(params[2]->floats[i]) * s));
  }
  Value input = importer.valueIn(*x, x->perm);
  RankedTensorType type = importer.storedType(*x);
  Value mul = tosa::MulOp::create(builder, type, input,
                                  importer.valueIn(scale, x->perm),
                                  importer.mulShift());
  Tensor out;
  out.shape = x->shape;
  out.perm = x->perm;
  out.value =
      tosa::AddOp::create(builder, type, mul, importer.valueIn(shift, x->perm));
  importer.setOutput(0, std::move(out));
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// Multiplies the average pool \p out (NHWC, of \p outType) by the ratio of
/// TOSA's divisor to ONNX's with count_include_pad, per output position.
static void rescaleAvgPool(ONNXImporter &importer, Tensor &out,
                           RankedTensorType outType, const int64_t in[2],
                           const int64_t outHW[2], ArrayRef<int64_t> kernel,
                           ArrayRef<int64_t> strides, ArrayRef<int64_t> pads) {
  // TOSA divides by the elements inside the input; ONNX with
  // count_include_pad by the window clipped to the padded input. Rescale
  // each output position by the ratio of the two counts.
  auto count = [&](int i, int64_t o, int64_t lo, int64_t hi) {
    int64_t start = o * strides[i] - pads[i];
    return std::max<int64_t>(
        std::min(start + kernel[i], hi) - std::max(start, lo), 0);
  };
  Tensor factor;
  factor.isConst = true;
  factor.shape = {1, 1, outHW[0], outHW[1]};
  factor.perm = identityPerm(4);
  bool trivial = true;
  for (int64_t oh = 0; oh < outHW[0]; ++oh) {
    for (int64_t ow = 0; ow < outHW[1]; ++ow) {
      double inside =
          double(count(0, oh, 0, in[0])) * double(count(1, ow, 0, in[1]));
      double padded = double(count(0, oh, -pads[0], in[0] + pads[2])) *
                      double(count(1, ow, -pads[1], in[1] + pads[3]));
      float f = padded > 0 ? static_cast<float>(inside / padded) : 0.0f;
      trivial &= f == 1.0f;
      factor.floats.push_back(f);
    }
  }
  if (!trivial)
    out.value = tosa::MulOp::create(importer.getBuilder(), outType, out.value,
                                    importer.valueIn(factor, out.perm),
                                    importer.mulShift());
}

/// MaxPool (\p isMax) or AveragePool: 2-D, with a zero Pad deferred to an
/// AveragePool counted as its own padding.
static LogicalResult convertPool(ONNXImporter &importer, bool isMax) {
  ImplicitLocOpBuilder &builder = importer.getBuilder();
  Tensor *x = importer.getInput(0);
  if (!x)
    return failure();
  if (x->shape.size() != 4)
    return importer.nodeError()
           << "only 2-D pooling (rank-4 input) is supported";
  SmallVector<int64_t> kernel = importer.attrInts("kernel_shape");
  SmallVector<int64_t> strides = importer.attrInts("strides");
  SmallVector<int64_t> pads = importer.attrInts("pads");
  SmallVector<int64_t> dilations = importer.attrInts("dilations");
  if (strides.empty())
    strides = {1, 1};
  if (pads.empty())
    pads = {0, 0, 0, 0};
  if (kernel.size() != 2 || strides.size() != 2 || pads.size() != 4)
    return importer.nodeError() << "invalid kernel_shape, strides or pads";
  if (!dilations.empty() && dilations != SmallVector<int64_t>{1, 1})
    return importer.nodeError() << "dilated pooling is not supported";
  std::string autoPad = importer.attrString("auto_pad", "NOTSET");
  if (autoPad != "NOTSET" && autoPad != "VALID")
    return importer.nodeError() << "unsupported auto_pad '" << autoPad << "'";
  if (importer.attrInt("storage_order", 0) != 0 ||
      importer.getNode().output_size() > 1)
    return importer.nodeError() << "the Indices output is not supported";
  for (int64_t v : llvm::concat<int64_t>(kernel, strides))
    if (v < 1)
      return importer.nodeError()
             << "kernel_shape and strides must be positive";
  for (int64_t v : pads)
    if (v < 0 || v >= 1 << 20)
      return importer.nodeError() << "invalid pads";
  bool ceilMode = importer.attrInt("ceil_mode", 0) != 0;
  bool countPad = !isMax && importer.attrInt("count_include_pad", 0) != 0;
  // A zero Pad folded into this pool: its pads count in the divisor.
  if (const std::array<int64_t, 4> *pending =
          importer.getDeferredPoolPads(importer.getNode().input(0))) {
    for (int i = 0; i < 4; ++i)
      pads[i] += (*pending)[i];
    countPad = true;
  }
  int64_t n = x->shape[0], c = x->shape[1];
  int64_t in[2] = {x->shape[2], x->shape[3]};
  Value input = importer.valueIn(*x, preferredPerm(4));
  int64_t outHW[2], padEnd[2], crop[2];
  for (int i = 0; i < 2; ++i) {
    fitWindow(in[i], kernel[i], strides[i], 1, pads[i], pads[i + 2], ceilMode,
              outHW[i], padEnd[i], crop[i]);
    if (outHW[i] < 1)
      return importer.nodeError() << "the kernel does not fit the input";
  }
  if (crop[0] || crop[1]) {
    SmallVector<int64_t> size = {n, in[0] - crop[0], in[1] - crop[1], c};
    input = tosa::SliceOp::create(builder, importer.f32Type(size), input,
                                  importer.constShape({0, 0, 0, 0}),
                                  importer.constShape(size));
  }
  RankedTensorType outType = importer.f32Type({n, outHW[0], outHW[1], c});
  auto kernelAttr = builder.getDenseI64ArrayAttr(kernel);
  auto strideAttr = builder.getDenseI64ArrayAttr(strides);
  auto padAttr =
      builder.getDenseI64ArrayAttr({pads[0], padEnd[0], pads[1], padEnd[1]});
  Tensor out;
  out.shape = {n, c, outHW[0], outHW[1]};
  out.perm = preferredPerm(4);
  if (isMax)
    out.value = tosa::MaxPool2dOp::create(builder, outType, input, kernelAttr,
                                          strideAttr, padAttr);
  else
    out.value = tosa::AvgPool2dOp::create(
        builder, outType, input, importer.zeroPoint(), importer.zeroPoint(),
        kernelAttr, strideAttr, padAttr, TypeAttr::get(builder.getF32Type()));
  if (countPad)
    rescaleAvgPool(importer, out, outType, in, outHW, kernel, strides, pads);
  importer.setOutput(0, std::move(out));
  return success();
}

/// MaxPool: `tosa.max_pool2d`.
static LogicalResult convertMaxPool(ONNXImporter &importer) {
  return convertPool(importer, /*isMax=*/true);
}

/// AveragePool: `tosa.avg_pool2d`, rescaled for count_include_pad.
static LogicalResult convertAveragePool(ONNXImporter &importer) {
  return convertPool(importer, /*isMax=*/false);
}

/// GlobalAveragePool: a `tosa.avg_pool2d` over the whole image.
static LogicalResult convertGlobalAveragePool(ONNXImporter &importer) {
  ImplicitLocOpBuilder &builder = importer.getBuilder();
  Tensor *x = importer.getInput(0);
  if (!x)
    return failure();
  if (x->shape.size() != 4)
    return importer.nodeError() << "only rank-4 inputs are supported";
  int64_t n = x->shape[0], c = x->shape[1], h = x->shape[2], w = x->shape[3];
  Value input = importer.valueIn(*x, preferredPerm(4));
  Tensor out;
  out.shape = {n, c, 1, 1};
  out.perm = preferredPerm(4);
  out.value =
      tosa::AvgPool2dOp::create(builder, importer.f32Type({n, 1, 1, c}), input,
                                builder.getDenseI64ArrayAttr({h, w}),
                                builder.getDenseI64ArrayAttr({1, 1}),
                                builder.getDenseI64ArrayAttr({0, 0, 0, 0}),
                                TypeAttr::get(builder.getF32Type()));
  importer.setOutput(0, std::move(out));
  return success();
}

//===----------------------------------------------------------------------===//
// Gemm and MatMul
//===----------------------------------------------------------------------===//

/// Gemm (\p isGemm) or MatMul with a constant right operand: a batch-1
/// `tosa.matmul` between reshapes, plus Gemm's constant bias.
static LogicalResult convertMatrixProduct(ONNXImporter &importer, bool isGemm) {
  ImplicitLocOpBuilder &builder = importer.getBuilder();
  Tensor *a = importer.getInput(0);
  Tensor *b = a ? importer.getInput(1) : nullptr;
  if (!b)
    return failure();
  Tensor *c = isGemm ? importer.getInput(2, /*required=*/false) : nullptr;
  if (!b->isConst || !b->isFloat || b->shape.size() != 2)
    return importer.nodeError()
           << "the second operand must be a constant matrix";
  if (isGemm && (importer.attrInt("transA", 0) != 0 ||
                 importer.attrFloat("alpha", 1.0f) != 1.0f ||
                 importer.attrFloat("beta", 1.0f) != 1.0f))
    return importer.nodeError() << "only transA = 0, alpha = 1 and beta = 1 "
                                   "are supported";
  if (a->shape.size() < 2 || (isGemm && a->shape.size() != 2))
    return importer.nodeError() << "the first operand must be a matrix";
  bool transB = isGemm && importer.attrInt("transB", 0) != 0;
  int64_t k = a->shape.back();
  int64_t bk = transB ? b->shape[1] : b->shape[0];
  int64_t m = transB ? b->shape[0] : b->shape[1];
  if (bk != k)
    return importer.nodeError()
           << "inner dimensions differ (" << k << " and " << bk << ")";
  int64_t rows = numElements(a->shape) / k;
  // [rows, K] x [K, M] as a batch-1 tosa.matmul.
  Tensor flat = importer.reshapeTensor(*a, {1, rows, k});
  Value lhs = importer.valueIn(flat, identityPerm(3));
  std::vector<float> weights =
      transB ? permuteData(b->floats, b->shape, {1, 0}) : b->floats;
  Value rhs = importer.constF32({1, k, m}, weights);
  Tensor product;
  product.shape = {1, rows, m};
  product.perm = identityPerm(3);
  product.value =
      tosa::MatMulOp::create(builder, importer.f32Type({1, rows, m}), lhs, rhs,
                             importer.zeroPoint(), importer.zeroPoint());
  SmallVector<int64_t> outShape(a->shape.begin(), a->shape.end() - 1);
  outShape.push_back(m);
  Tensor out = importer.reshapeTensor(product, outShape);
  if (c) {
    if (!c->isConst || !c->isFloat)
      return importer.nodeError() << "the bias must be a float constant";
    Value va, vb;
    Tensor sum;
    if (failed(importer.broadcastOperands(out, *c, va, vb, sum)))
      return failure();
    if (sum.shape != out.shape)
      return importer.nodeError()
             << "the bias does not broadcast to the output";
    sum.value = tosa::AddOp::create(builder, importer.storedType(sum), va, vb);
    out = std::move(sum);
  }
  importer.setOutput(0, std::move(out));
  return success();
}

/// Gemm: transB and a constant bias; transA = 0, alpha = beta = 1.
static LogicalResult convertGemm(ONNXImporter &importer) {
  return convertMatrixProduct(importer, /*isGemm=*/true);
}

/// MatMul by a constant matrix.
static LogicalResult convertMatMul(ONNXImporter &importer) {
  return convertMatrixProduct(importer, /*isGemm=*/false);
}

void onnximport::populateNNConverters(ConverterTable &table) {
  table.onOp("Conv", 1, convertConv);
  table.onOp("BatchNormalization", 1, convertBatchNormalization);
  table.onOp("MaxPool", 1, convertMaxPool);
  table.onOp("AveragePool", 1, convertAveragePool);
  table.onOp("GlobalAveragePool", 1, convertGlobalAveragePool);
  table.onOp("Gemm", 1, convertGemm);
  table.onOp("MatMul", 1, convertMatMul);
}
