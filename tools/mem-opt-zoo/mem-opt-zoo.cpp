//===- mem-opt-zoo.cpp - Seeded generator of TOSA benchmark models --------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The `mem-opt-zoo` tool: writes TOSA models (LLVM 22 syntax, NHWC, batch 1)
// whose graphs follow published architectures -- NAS cells from their
// published genotypes, CIFAR-style stacks of those cells, RandWire random
// graphs and a few hand-designed classics -- to benchmark memory-aware
// operator scheduling. Only tensor shapes matter: weights are splat
// constants. Every compute op gets a readable NameLoc, the module is verified
// before it is printed, and the same options always give the same bytes.
// docs/Zoo.md lists the models and where each architecture comes from.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Support/Version.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace mlir;

namespace mlir {
namespace memopt {

/// Element type of the activations of a generated model. F16 and I16 are
/// used by the `fuzz` model only: f16 activations accumulate in f16; i16
/// activations have no convolutions (TOSA would need i48 accumulators), and
/// their pools accumulate in i32.
enum class ZooDType { F32, I8, F16, I16 };

} // namespace memopt
} // namespace mlir

using mlir::memopt::ZooDType;

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

static llvm::cl::OptionCategory zooCategory("mem-opt-zoo options");

static llvm::cl::opt<std::string>
    modelName("model", llvm::cl::desc("Model to generate (see --list)"),
              llvm::cl::value_desc("name"), llvm::cl::cat(zooCategory));

static llvm::cl::opt<unsigned> numCells(
    "cells",
    llvm::cl::desc("Number of cells, blocks, modules or layers (the meaning "
                   "depends on the model; default: the model's own)"),
    llvm::cl::init(0), llvm::cl::cat(zooCategory));

static llvm::cl::opt<unsigned>
    numChannels("channels",
                llvm::cl::desc("Base channel count C (default: 16, or the "
                               "model's own; see --list)"),
                llvm::cl::init(16), llvm::cl::cat(zooCategory));

static llvm::cl::opt<unsigned>
    inputResolution("resolution",
                    llvm::cl::desc("Input height and width R (default: 32, "
                                   "or the model's own; see --list)"),
                    llvm::cl::init(32), llvm::cl::cat(zooCategory));

static llvm::cl::opt<uint64_t>
    randomSeed("seed",
               llvm::cl::desc("Seed of the random graph generators "
                              "(randwire-ws; default: 1)"),
               llvm::cl::init(1), llvm::cl::cat(zooCategory));

static llvm::cl::opt<unsigned>
    numNodes("nodes",
             llvm::cl::desc("Nodes N of each Watts-Strogatz WS(N, 4, 0.75) "
                            "graph (randwire-ws, randwire-ws-net; default "
                            "32)"),
             llvm::cl::init(32), llvm::cl::cat(zooCategory));

static llvm::cl::opt<ZooDType> elementType(
    "dtype", llvm::cl::desc("Activation element type (default: f32)"),
    llvm::cl::values(
        clEnumValN(ZooDType::F32, "f32", "float32 activations and weights"),
        clEnumValN(ZooDType::I8, "i8",
                   "int8 activations and weights, int32 accumulators "
                   "rescaled to int8")),
    llvm::cl::init(ZooDType::F32), llvm::cl::cat(zooCategory));

static llvm::cl::opt<std::string>
    outputFilename("o", llvm::cl::desc("Output file (default: stdout)"),
                   llvm::cl::value_desc("filename"), llvm::cl::init("-"),
                   llvm::cl::cat(zooCategory));

static llvm::cl::opt<bool>
    listModels("list", llvm::cl::desc("List the models and exit"),
               llvm::cl::init(false), llvm::cl::cat(zooCategory));

// `--stats` (print the number of compute ops to stderr) is LLVM's own
// statistics flag, which every LLVM tool registers; it is read back with
// llvm::AreStatisticsEnabled().

namespace mlir {
namespace memopt {

/// Number of classes of the classifier heads.
static constexpr int64_t numClasses = 10;

//===----------------------------------------------------------------------===//
// Deterministic random numbers
//===----------------------------------------------------------------------===//

namespace {
/// A seeded random source whose output is the same on every platform:
/// std::mt19937_64's sequence is fixed by the C++ standard, and the mappings
/// to doubles and bounded integers are our own (the std distributions are
/// implementation-defined).
class ZooRandom {
public:
  /// Seeds the engine with \p seed.
  explicit ZooRandom(uint64_t seed) : engine(seed) {}

  /// Returns a double uniformly distributed in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(engine() >> 11) * 0x1.0p-53; }

  /// Returns an integer uniformly distributed in [0, \p bound), without
  /// modulo bias (rejection sampling).
  uint64_t uniformInt(uint64_t bound) {
    const uint64_t max = std::numeric_limits<uint64_t>::max();
    const uint64_t limit = max - max % bound;
    uint64_t value;
    do {
      value = engine();
    } while (value >= limit);
    return value % bound;
  }

private:
  /// The underlying engine.
  std::mt19937_64 engine;
};
} // namespace

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

/// Returns the ranked tensor type of \p value.
static RankedTensorType typeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// Returns dimension \p index of the NHWC tensor \p value.
static int64_t dimOf(Value value, unsigned index) {
  return typeOf(value).getDimSize(index);
}

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

namespace {
/// Builds one func.func of TOSA ops on NHWC activations. Constants (splat
/// weights, zero points, rescale parameters and slice shapes) are created
/// once per type at the top of the body and shared; every other op gets a
/// NameLoc with the name it is given. In int8 mode convolutions accumulate
/// in int32 and are followed by a tosa.rescale back to int8.
class TosaGraphBuilder {
public:
  /// Creates the function \p funcName, with no arguments yet, at the end of
  /// \p module.
  TosaGraphBuilder(ModuleOp module, StringRef funcName, ZooDType dtype)
      : ctx(module.getContext()), builder(module.getContext()), dtype(dtype) {
    builder.setInsertionPointToEnd(module.getBody());
    func = func::FuncOp::create(builder, loc(funcName), funcName,
                                builder.getFunctionType({}, {}));
    body = func.addEntryBlock();
    builder.setInsertionPointToEnd(body);
  }

  /// The context of the module being built.
  MLIRContext *getContext() const { return ctx; }

  /// Sets the element type of the activations of the ops built next.
  void setDType(ZooDType newDType) { dtype = newDType; }

  /// Appends a function argument of shape 1 x \p h x \p w x \p c.
  Value addInput(int64_t h, int64_t w, int64_t c) {
    Type type = activationType(h, w, c);
    Value arg =
        body->addArgument(type, loc("input" + Twine(body->getNumArguments())));
    func.setType(FunctionType::get(ctx, body->getArgumentTypes(), {}));
    return arg;
  }

  /// Returns \p results from the function and sets its type.
  void finish(ArrayRef<Value> results) {
    func::ReturnOp::create(builder, loc("return"), results);
    SmallVector<Type> resultTypes;
    for (Value result : results)
      resultTypes.push_back(result.getType());
    func.setType(FunctionType::get(ctx, body->getArgumentTypes(), resultTypes));
  }

  /// ReLU: tosa.clamp to [0, max].
  Value relu(Value x, const Twine &name) {
    return clamp(x, /*upper=*/-1.0, name);
  }

  /// ReLU6: tosa.clamp to [0, 6] (for int8, to [0, 127]).
  Value relu6(Value x, const Twine &name) { return clamp(x, 6.0, name); }

  /// KH x KW convolution to \p outC channels with "SAME" padding.
  Value conv(Value x, int64_t outC, int64_t kh, int64_t kw, int64_t strideH,
             int64_t strideW, int64_t dilation, const Twine &name) {
    SpatialPlan ph = planSame(dimOf(x, 1), kh, strideH, dilation);
    SpatialPlan pw = planSame(dimOf(x, 2), kw, strideW, dilation);
    x = cropFor(x, ph, pw, name);
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
    Value y = tosa::Conv2DOp::create(builder, loc(name), type, x, weight, bias,
                                     zp, zp, ArrayRef<int64_t>(pad),
                                     ArrayRef<int64_t>(stride),
                                     ArrayRef<int64_t>(dilations), acc)
                  .getOutput();
    return rescaleToInt8(y, name);
  }

  /// Square K x K convolution with the same stride in both dimensions.
  Value conv(Value x, int64_t outC, int64_t k, int64_t stride,
             const Twine &name) {
    return conv(x, outC, k, k, stride, stride, /*dilation=*/1, name);
  }

  /// K x K depthwise convolution (channel multiplier 1), "SAME" padding.
  Value depthwise(Value x, int64_t k, int64_t stride, int64_t dilation,
                  const Twine &name) {
    SpatialPlan ph = planSame(dimOf(x, 1), k, stride, dilation);
    SpatialPlan pw = planSame(dimOf(x, 2), k, stride, dilation);
    x = cropFor(x, ph, pw, name);
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

  /// K x K max pooling with "SAME" padding.
  Value maxPool(Value x, int64_t k, int64_t stride, const Twine &name) {
    SpatialPlan ph = planSame(dimOf(x, 1), k, stride, 1);
    SpatialPlan pw = planSame(dimOf(x, 2), k, stride, 1);
    x = cropFor(x, ph, pw, name);
    SmallVector<int64_t, 2> kernel = {k, k}, strides = {stride, stride};
    SmallVector<int64_t, 4> pad = {ph.padBefore, ph.padAfter, pw.padBefore,
                                   pw.padAfter};
    return tosa::MaxPool2dOp::create(
               builder, loc(name), activationType(ph.out, pw.out, dimOf(x, 3)),
               x, ArrayRef<int64_t>(kernel), ArrayRef<int64_t>(strides),
               ArrayRef<int64_t>(pad))
        .getOutput();
  }

  /// K x K average pooling with "SAME" padding.
  Value avgPool(Value x, int64_t k, int64_t stride, const Twine &name) {
    SpatialPlan ph = planSame(dimOf(x, 1), k, stride, 1);
    SpatialPlan pw = planSame(dimOf(x, 2), k, stride, 1);
    x = cropFor(x, ph, pw, name);
    return avgPoolRaw(x, {k, k}, {stride, stride},
                      {ph.padBefore, ph.padAfter, pw.padBefore, pw.padAfter},
                      ph.out, pw.out, name);
  }

  /// Global average pooling: one window over the whole H x W.
  Value globalAvgPool(Value x, const Twine &name) {
    int64_t h = dimOf(x, 1), w = dimOf(x, 2);
    return avgPoolRaw(x, {h, w}, {1, 1}, {0, 0, 0, 0}, 1, 1, name);
  }

  /// Elementwise sum of two tensors of the same shape.
  Value add(Value a, Value b, const Twine &name) {
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

  /// Rescales \p x to \p elementType by 2^30 / 2^\p shift (30: unchanged),
  /// with zero points 0.
  Value rescale(Value x, Type elementType, int64_t shift, const Twine &name) {
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

  /// Sum of \p values as a chain of tosa.add named \p name_1, \p name_2, ...
  /// (a single value is returned as is).
  Value sum(ArrayRef<Value> values, const Twine &name) {
    Value result = values.front();
    for (auto [index, value] : llvm::enumerate(values.drop_front()))
      result = add(result, value, name + "_" + Twine(index + 1));
    return result;
  }

  /// Concatenation on the channel axis (a single value is returned as is).
  Value concat(ArrayRef<Value> values, const Twine &name) {
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

  /// tosa.slice of \p size elements starting at \p start.
  Value slice(Value x, ArrayRef<int64_t> start, ArrayRef<int64_t> size,
              const Twine &name) {
    Value startShape = constShape(start);
    Value sizeShape = constShape(size);
    auto type = RankedTensorType::get(size, typeOf(x).getElementType());
    return tosa::SliceOp::create(builder, loc(name), type, x, startShape,
                                 sizeShape)
        .getOutput();
  }

  /// Nearest-neighbour 2x upsampling (tosa.resize).
  Value upsample2x(Value x, const Twine &name) {
    Value scale = constShape({2, 1, 2, 1});
    Value offset = constShape({0, 0});
    Value border = constShape({1, 1});
    Type type = activationType(2 * dimOf(x, 1), 2 * dimOf(x, 2), dimOf(x, 3));
    return tosa::ResizeOp::create(builder, loc(name), type, x, scale, offset,
                                  border, tosa::ResizeMode::NEAREST_NEIGHBOR)
        .getOutput();
  }

  //===--------------------------------------------------------------------===//
  // Further ops of the fuzz model (any element type the op accepts)
  //===--------------------------------------------------------------------===//

  /// KH x KW convolution to \p outC channels with explicit padding. The
  /// padding after the input grows, or the input is cropped, so that the
  /// window lands exactly on the last padded element.
  Value convPadded(Value x, int64_t outC, int64_t kh, int64_t kw,
                   int64_t strideH, int64_t strideW, int64_t dilationH,
                   int64_t dilationW, ArrayRef<int64_t> pad,
                   const Twine &name) {
    SpatialPlan ph =
        planExplicit(dimOf(x, 1), kh, strideH, dilationH, pad[0], pad[1]);
    SpatialPlan pw =
        planExplicit(dimOf(x, 2), kw, strideW, dilationW, pad[2], pad[3]);
    x = cropFor(x, ph, pw, name);
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

  /// Unary float op \p OpTy (tosa.sigmoid, tosa.tanh, tosa.abs, ...).
  template <typename OpTy> Value unary(Value x, const Twine &name) {
    return OpTy::create(builder, loc(name), x.getType(), x).getResult();
  }

  /// Elementwise product of two float tensors of the same shape.
  Value mul(Value a, Value b, const Twine &name) {
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

  /// Elementwise maximum of two float tensors of the same shape.
  Value maximum(Value a, Value b, const Twine &name) {
    return tosa::MaximumOp::create(
               builder, loc(name), a.getType(), a, b,
               tosa::NanPropagationModeAttr::get(
                   ctx, tosa::NanPropagationMode::PROPAGATE))
        .getOutput();
  }

  /// a > b as an i1 tensor.
  Value greater(Value a, Value b, const Twine &name) {
    auto type =
        RankedTensorType::get(typeOf(a).getShape(), builder.getI1Type());
    return tosa::GreaterOp::create(builder, loc(name), type, a, b).getOutput();
  }

  /// Logical and of two i1 tensors.
  Value logicalAnd(Value a, Value b, const Twine &name) {
    return tosa::LogicalAndOp::create(builder, loc(name), a.getType(), a, b)
        .getOutput();
  }

  /// \p cond ? \p a : \p b, elementwise.
  Value select(Value cond, Value a, Value b, const Twine &name) {
    return tosa::SelectOp::create(builder, loc(name), a.getType(), cond, a, b)
        .getOutput();
  }

  /// tosa.cast of \p x to \p elementType.
  Value castTo(Value x, Type elementType, const Twine &name) {
    auto type = RankedTensorType::get(typeOf(x).getShape(), elementType);
    return tosa::CastOp::create(builder, loc(name), type, x).getOutput();
  }

  /// tosa.reshape of \p x to \p shape (same element count).
  Value reshape(Value x, ArrayRef<int64_t> shape, const Twine &name) {
    auto type = RankedTensorType::get(shape, typeOf(x).getElementType());
    return tosa::ReshapeOp::create(builder, loc(name), type, x,
                                   constShape(shape))
        .getOutput();
  }

  /// tosa.transpose of \p x: output dimension i is input dimension
  /// \p perms[i].
  Value transpose(Value x, ArrayRef<int32_t> perms, const Twine &name) {
    SmallVector<int64_t> shape;
    for (int32_t perm : perms)
      shape.push_back(typeOf(x).getDimSize(perm));
    auto type = RankedTensorType::get(shape, typeOf(x).getElementType());
    return tosa::TransposeOp::create(builder, loc(name), type, x,
                                     builder.getDenseI32ArrayAttr(perms))
        .getOutput();
  }

  /// Concatenation of tensors that agree outside \p axis.
  Value concatOn(ArrayRef<Value> values, unsigned axis, const Twine &name) {
    SmallVector<int64_t> shape(typeOf(values.front()).getShape());
    shape[axis] = 0;
    for (Value value : values)
      shape[axis] += typeOf(value).getDimSize(axis);
    auto type =
        RankedTensorType::get(shape, typeOf(values.front()).getElementType());
    return tosa::ConcatOp::create(builder, loc(name), type, values, axis)
        .getOutput();
  }

  /// tosa.pad of \p x by \p padding (before and after each dimension) with
  /// zeros.
  Value pad(Value x, ArrayRef<int64_t> padding, const Twine &name) {
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

  /// tosa.reduce_sum of a float tensor on \p axis (kept with size 1).
  Value reduceSum(Value x, unsigned axis, const Twine &name) {
    SmallVector<int64_t> shape(typeOf(x).getShape());
    shape[axis] = 1;
    auto type = RankedTensorType::get(shape, typeOf(x).getElementType());
    return tosa::ReduceSumOp::create(builder, loc(name), type, x,
                                     builder.getI32IntegerAttr(axis))
        .getOutput();
  }

  //===--------------------------------------------------------------------===//
  // Composite operations of the NAS search spaces
  //===--------------------------------------------------------------------===//

  /// ReLU followed by a K x K convolution (ReLU-Conv-BN without the BN).
  Value reluConv(Value x, int64_t outC, int64_t k, int64_t stride,
                 const Twine &name) {
    Value y = relu(x, name + "_relu");
    return conv(y, outC, k, stride, name + "_conv");
  }

  /// Separable convolution applied twice, as in NASNet and DARTS:
  /// (ReLU, K x K depthwise with \p stride, 1x1 conv), then (ReLU, K x K
  /// depthwise, 1x1 conv). Keeps the channel count.
  Value sepConv(Value x, int64_t k, int64_t stride, const Twine &name) {
    int64_t c = dimOf(x, 3);
    Value y = relu(x, name + "_relu1");
    y = depthwise(y, k, stride, 1, name + "_dw1");
    y = conv(y, c, 1, 1, name + "_pw1");
    y = relu(y, name + "_relu2");
    y = depthwise(y, k, 1, 1, name + "_dw2");
    return conv(y, c, 1, 1, name + "_pw2");
  }

  /// Dilated separable convolution (DARTS dil_conv): ReLU, K x K depthwise
  /// with \p dilation, 1x1 conv.
  Value dilConv(Value x, int64_t k, int64_t stride, int64_t dilation,
                const Twine &name) {
    int64_t c = dimOf(x, 3);
    Value y = relu(x, name + "_relu");
    y = depthwise(y, k, stride, dilation, name + "_dw");
    return conv(y, c, 1, 1, name + "_pw");
  }

  /// Factorized reduce (DARTS FactorizedReduce, NASNet factorized_reduction):
  /// ReLU, then two 1x1 stride-2 convolutions, one on the input and one on
  /// the input shifted by one pixel, concatenated to \p outC channels.
  Value factorizedReduce(Value x, int64_t outC, const Twine &name) {
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
  Type storageType() {
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

  /// Element type of convolution and pooling accumulators and biases.
  Type accumulatorType() {
    if (isInteger())
      return builder.getIntegerType(32);
    return dtype == ZooDType::F16 ? Type(builder.getF16Type())
                                  : builder.getF32Type();
  }

  /// Activation type of shape 1 x \p h x \p w x \p c.
  RankedTensorType activationType(int64_t h, int64_t w, int64_t c) {
    return RankedTensorType::get({1, h, w, c}, storageType());
  }

  /// The zero point of activations and weights (a rank-1 splat).
  Value zeroPoint() { return splat({1}, storageType(), Role::Zero); }

  /// Returns the shared tosa.const of the given shape and element type,
  /// creating it at the top of the body on first use.
  Value splat(ArrayRef<int64_t> shape, Type elementType, Role role) {
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

  /// Returns the shared tosa.const_shape holding \p values.
  Value constShape(ArrayRef<int64_t> values) {
    auto type =
        RankedTensorType::get({int64_t(values.size())}, builder.getIndexType());
    auto attr =
        cast<DenseIntElementsAttr>(DenseElementsAttr::get(type, values));
    return constant(attr, [&](OpBuilder &b, Location l) {
      return tosa::ConstShapeOp::create(
                 b, l, tosa::shapeType::get(ctx, values.size()), attr)
          .getResult();
    });
  }

  /// Returns the constant cached under \p key, or creates it with \p create
  /// after the constants created so far.
  Value constant(Attribute key,
                 llvm::function_ref<Value(OpBuilder &, Location)> create) {
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

  /// tosa.clamp from 0 to \p upper (\p upper < 0: the largest value).
  Value clamp(Value x, double upper, const Twine &name) {
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

  /// Crops \p x with a tosa.slice when \p ph or \p pw asks for it.
  Value cropFor(Value x, const SpatialPlan &ph, const SpatialPlan &pw,
                const Twine &name) {
    if (ph.cropTo == dimOf(x, 1) && pw.cropTo == dimOf(x, 2))
      return x;
    return slice(x, {0, 0, 0, 0}, {1, ph.cropTo, pw.cropTo, dimOf(x, 3)},
                 name + "_crop");
  }

  /// tosa.avg_pool2d with explicit window parameters.
  Value avgPoolRaw(Value x, SmallVector<int64_t, 2> kernel,
                   SmallVector<int64_t, 2> stride, SmallVector<int64_t, 4> pad,
                   int64_t outH, int64_t outW, const Twine &name) {
    Value zp = zeroPoint();
    return tosa::AvgPool2dOp::create(
               builder, loc(name), activationType(outH, outW, dimOf(x, 3)), x,
               zp, zp, ArrayRef<int64_t>(kernel), ArrayRef<int64_t>(stride),
               ArrayRef<int64_t>(pad), accumulatorType())
        .getOutput();
  }

  /// In int8 mode, rescales the int32 accumulator \p acc to int8 with an op
  /// named \p name_rescale; in f32 mode returns \p acc.
  Value rescaleToInt8(Value acc, const Twine &name) {
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
} // namespace

//===----------------------------------------------------------------------===//
// NAS cells
//===----------------------------------------------------------------------===//

namespace {
/// The operations of the NASNet/AmoebaNet/PNAS/DARTS search spaces.
enum class CellOpKind {
  Skip,       ///< identity (factorized reduce when strided)
  SepConv,    ///< separable conv applied twice
  DilConv,    ///< dilated (rate 2) separable conv
  MaxPool,    ///< 3x3 max pooling
  AvgPool,    ///< 3x3 average pooling
  Conv1x7x7x1 ///< AmoebaNet 1x7 then 7x1 conv with a 1x1 bottleneck
};

/// One operation of a cell node. \p input indexes the cell states: 0 is
/// h_{k-2}, 1 is h_{k-1} (both after preprocessing), i >= 2 is node i
/// (DARTS numbering).
struct CellOp {
  /// What the operation computes.
  CellOpKind kind;
  /// Kernel size (KxK; 7 for the 1x7/7x1 conv).
  int kernel;
  /// The state it reads.
  int input;
};

/// A cell as published: two operations per node (their sum is the node) and
/// the states concatenated into the cell output.
struct CellGenotype {
  /// Two operations per node, for nodes 2, 3, ... in order.
  ArrayRef<CellOp> ops;
  /// The states concatenated (on channels) into the cell output.
  ArrayRef<int> concat;
};

/// A family of cells: the normal and the reduction cell.
struct NasFamily {
  /// The cell that keeps the resolution.
  CellGenotype normal;
  /// The cell that halves it (stride 2 on the cell inputs).
  CellGenotype reduction;
};
} // namespace

/// Genotype shorthand: KxK separable conv reading state \p in.
static constexpr CellOp sep(int k, int in) {
  return {CellOpKind::SepConv, k, in};
}
/// Genotype shorthand: KxK dilated separable conv reading state \p in.
static constexpr CellOp dil(int k, int in) {
  return {CellOpKind::DilConv, k, in};
}
/// Genotype shorthand: 3x3 max pooling of state \p in.
static constexpr CellOp maxp(int in) { return {CellOpKind::MaxPool, 3, in}; }
/// Genotype shorthand: 3x3 average pooling of state \p in.
static constexpr CellOp avgp(int in) { return {CellOpKind::AvgPool, 3, in}; }
/// Genotype shorthand: identity of state \p in.
static constexpr CellOp skip(int in) { return {CellOpKind::Skip, 1, in}; }
/// Genotype shorthand: AmoebaNet 1x7/7x1 bottleneck on state \p in.
static constexpr CellOp conv1x7(int in) {
  return {CellOpKind::Conv1x7x7x1, 7, in};
}

// NASNet-A (Zoph et al. 2018), from NasNetANormalCell/NasNetAReductionCell
// of TF-slim nasnet_utils.py, re-indexed from slim (0 = h_{k-1}) to DARTS
// (0 = h_{k-2}). The concat is slim's "unused hidden states".
static const CellOp nasnetANormalOps[] = {
    sep(5, 1), sep(3, 0), // node 2
    sep(5, 0), sep(3, 0), // node 3
    avgp(1),   skip(0),   // node 4
    avgp(0),   avgp(0),   // node 5
    sep(3, 1), skip(1),   // node 6
};
static const int nasnetANormalConcat[] = {0, 2, 3, 4, 5, 6};
static const CellOp nasnetAReductionOps[] = {
    sep(5, 1), sep(7, 0), // node 2
    maxp(1),   sep(7, 0), // node 3
    avgp(1),   sep(5, 0), // node 4
    skip(3),   avgp(2),   // node 5
    sep(3, 2), maxp(1),   // node 6
};
static const int nasnetAReductionConcat[] = {3, 4, 5, 6};

// AmoebaNet-A (Real et al. 2019), from get_normal_cell/get_reduction_cell
// ('amoeba_net_a') of tensorflow/tpu models/official/amoeba_net/
// model_specs.py, re-indexed like NASNet-A.
static const CellOp amoebaANormalOps[] = {
    avgp(1),   maxp(1),   // node 2
    sep(3, 0), skip(0),   // node 3
    skip(1),   avgp(0),   // node 4
    sep(3, 1), sep(5, 2), // node 5
    avgp(5),   sep(3, 1), // node 6
};
static const int amoebaANormalConcat[] = {0, 3, 4, 6};
static const CellOp amoebaAReductionOps[] = {
    sep(3, 0), avgp(1),    // node 2
    maxp(1),   sep(7, 2),  // node 3
    maxp(0),   maxp(1),    // node 4
    sep(3, 4), conv1x7(1), // node 5
    avgp(0),   sep(7, 1),  // node 6
};
static const int amoebaAReductionConcat[] = {2, 3, 4, 5, 6};

// PNASNet-5 (Liu et al. 2018), from PNasNetNormalCell of TF-slim
// pnasnet.py, re-indexed like NASNet-A. PNASNet uses the same cell with
// stride 2 as its reduction cell.
static const CellOp pnasOps[] = {
    sep(5, 0), maxp(0),   // node 2
    sep(7, 1), maxp(1),   // node 3
    sep(5, 1), sep(3, 1), // node 4
    sep(3, 4), maxp(1),   // node 5
    sep(3, 0), skip(1),   // node 6
};
static const int pnasConcat[] = {2, 3, 4, 5, 6};

// DARTS (second order), genotype DARTS_V2 of quark0/darts cnn/genotypes.py
// (Liu et al. 2019).
static const CellOp dartsV2NormalOps[] = {
    sep(3, 0), sep(3, 1), // node 2
    sep(3, 0), sep(3, 1), // node 3
    sep(3, 1), skip(0),   // node 4
    skip(0),   dil(3, 2), // node 5
};
static const int dartsV2NormalConcat[] = {2, 3, 4, 5};
static const CellOp dartsV2ReductionOps[] = {
    maxp(0), maxp(1), // node 2
    skip(2), maxp(1), // node 3
    maxp(0), skip(2), // node 4
    skip(2), maxp(1), // node 5
};
static const int dartsV2ReductionConcat[] = {2, 3, 4, 5};

static const NasFamily nasnetA = {
    {nasnetANormalOps, nasnetANormalConcat},
    {nasnetAReductionOps, nasnetAReductionConcat}};
static const NasFamily amoebaA = {
    {amoebaANormalOps, amoebaANormalConcat},
    {amoebaAReductionOps, amoebaAReductionConcat}};
static const NasFamily pnas = {{pnasOps, pnasConcat}, {pnasOps, pnasConcat}};
static const NasFamily dartsV2 = {
    {dartsV2NormalOps, dartsV2NormalConcat},
    {dartsV2ReductionOps, dartsV2ReductionConcat}};

/// Returns the short name of a cell op used in op names (e.g. "sep3x3").
static std::string cellOpName(const CellOp &op) {
  std::string k = std::to_string(op.kernel);
  switch (op.kind) {
  case CellOpKind::Skip:
    return "skip";
  case CellOpKind::SepConv:
    return "sep" + k + "x" + k;
  case CellOpKind::DilConv:
    return "dil" + k + "x" + k;
  case CellOpKind::MaxPool:
    return "maxpool" + k + "x" + k;
  case CellOpKind::AvgPool:
    return "avgpool" + k + "x" + k;
  case CellOpKind::Conv1x7x7x1:
    return "conv1x7_7x1";
  }
  llvm_unreachable("unknown cell op");
}

/// Applies \p op with \p stride to \p x (C channels), naming its ops \p name.
static Value applyCellOp(TosaGraphBuilder &g, const CellOp &op, Value x,
                         int64_t stride, const Twine &name) {
  int64_t c = dimOf(x, 3);
  switch (op.kind) {
  case CellOpKind::Skip:
    return stride == 1 ? x : g.factorizedReduce(x, c, name);
  case CellOpKind::SepConv:
    return g.sepConv(x, op.kernel, stride, name);
  case CellOpKind::DilConv:
    return g.dilConv(x, op.kernel, stride, /*dilation=*/2, name);
  case CellOpKind::MaxPool:
    return g.maxPool(x, op.kernel, stride, name);
  case CellOpKind::AvgPool:
    return g.avgPool(x, op.kernel, stride, name);
  case CellOpKind::Conv1x7x7x1: {
    // AmoebaNet: ReLU, 1x1 to C/4, ReLU, 1x7, ReLU, 7x1, ReLU, 1x1 to C.
    int64_t reduced = std::max<int64_t>(c / 4, 1);
    Value y = g.relu(x, name + "_relu1");
    y = g.conv(y, reduced, 1, 1, name + "_pre1x1");
    y = g.relu(y, name + "_relu2");
    y = g.conv(y, reduced, 1, 7, 1, stride, 1, name + "_conv1x7");
    y = g.relu(y, name + "_relu3");
    y = g.conv(y, reduced, 7, 1, stride, 1, 1, name + "_conv7x1");
    y = g.relu(y, name + "_relu4");
    return g.conv(y, c, 1, 1, name + "_post1x1");
  }
  }
  llvm_unreachable("unknown cell op");
}

/// Builds one cell on the raw inputs \p h0 = h_{k-2} and \p h1 = h_{k-1}:
/// preprocessing (ReLU + 1x1 conv to \p c channels on each input, or a
/// factorized reduce on h_{k-2} when \p reducePrev says it is twice as
/// large), the nodes, and the output concat. In a reduction cell the ops
/// reading the cell inputs have stride 2. Op names start with \p prefix.
static Value buildCell(TosaGraphBuilder &g, const CellGenotype &genotype,
                       Value h0, Value h1, int64_t c, bool reduction,
                       bool reducePrev, const std::string &prefix) {
  Value s0 = reducePrev ? g.factorizedReduce(h0, c, prefix + "pre0_fr")
                        : g.reluConv(h0, c, 1, 1, prefix + "pre0");
  Value s1 = g.reluConv(h1, c, 1, 1, prefix + "pre1");
  SmallVector<Value> states = {s0, s1};
  for (size_t i = 0; i + 1 < genotype.ops.size(); i += 2) {
    std::string node = prefix + "n" + std::to_string(states.size());
    Value operands[2];
    for (int side = 0; side < 2; ++side) {
      const CellOp &op = genotype.ops[i + side];
      int64_t stride = reduction && op.input < 2 ? 2 : 1;
      operands[side] =
          applyCellOp(g, op, states[op.input], stride,
                      node + (side == 0 ? "_l_" : "_r_") + cellOpName(op));
    }
    states.push_back(g.add(operands[0], operands[1], node + "_add"));
  }
  SmallVector<Value> outputs;
  for (int index : genotype.concat)
    outputs.push_back(states[index]);
  return g.concat(outputs, prefix + "concat");
}

namespace {
/// Parameters of a generated model.
struct ZooParams {
  /// Base channel count C.
  int64_t channels;
  /// Input height and width R.
  int64_t resolution;
  /// Number of cells, blocks, modules or layers (model-specific).
  unsigned cells;
  /// Seed of the random graph generators.
  uint64_t seed;
  /// Nodes of each random graph (RandWire).
  unsigned nodes;
};
} // namespace

/// A single cell with two 1 x R x R x C inputs (h_{k-2}, h_{k-1}).
static void buildSingleCell(TosaGraphBuilder &g, const ZooParams &p,
                            const CellGenotype &genotype, bool reduction) {
  Value h0 = g.addInput(p.resolution, p.resolution, p.channels);
  Value h1 = g.addInput(p.resolution, p.resolution, p.channels);
  g.finish(buildCell(g, genotype, h0, h1, p.channels, reduction,
                     /*reducePrev=*/false, ""));
}

/// A CIFAR-style network: 3x3 stem conv to C channels, p.cells cells with
/// reduction cells (channels doubled) at 1/3 and 2/3 of the depth, global
/// average pooling and a 1x1 conv classifier.
static void buildStackedNetwork(TosaGraphBuilder &g, const ZooParams &p,
                                const NasFamily &family) {
  Value image = g.addInput(p.resolution, p.resolution, 3);
  Value stem = g.conv(image, p.channels, 3, 1, "stem_conv");
  Value prevPrev = stem, prev = stem;
  int64_t c = p.channels;
  bool reducePrev = false;
  for (unsigned i = 0; i < p.cells; ++i) {
    bool reduction = i == p.cells / 3 || i == 2 * p.cells / 3;
    if (reduction)
      c *= 2;
    Value out = buildCell(g, reduction ? family.reduction : family.normal,
                          prevPrev, prev, c, reduction, reducePrev,
                          "c" + std::to_string(i) + "_");
    reducePrev = reduction;
    prevPrev = prev;
    prev = out;
  }
  Value pooled = g.globalAvgPool(prev, "gap");
  g.finish(g.conv(pooled, numClasses, 1, 1, "classifier"));
}

/// An ImageNet-style network (DARTS NetworkImageNet layout): stem0 = 3x3
/// stride-2 conv to C/2, ReLU, 3x3 stride-2 conv to C (R/4); stem1 = ReLU,
/// 3x3 stride-2 conv to C (R/8); p.cells cells with reductions at 1/3 and
/// 2/3 of the depth, the first cell reading stem0 through a factorized
/// reduce; global average pooling and a 1x1 conv classifier to 1000 classes.
static void buildImageNetNetwork(TosaGraphBuilder &g, const ZooParams &p,
                                 const NasFamily &family) {
  Value image = g.addInput(p.resolution, p.resolution, 3);
  int64_t c = p.channels;
  Value stem0 = g.conv(image, std::max<int64_t>(c / 2, 1), 3, 2, "stem0_conv1");
  stem0 = g.relu(stem0, "stem0_relu");
  stem0 = g.conv(stem0, c, 3, 2, "stem0_conv2");
  Value stem1 = g.reluConv(stem0, c, 3, 2, "stem1");
  Value prevPrev = stem0, prev = stem1;
  bool reducePrev = true;
  for (unsigned i = 0; i < p.cells; ++i) {
    bool reduction = i == p.cells / 3 || i == 2 * p.cells / 3;
    if (reduction)
      c *= 2;
    Value out = buildCell(g, reduction ? family.reduction : family.normal,
                          prevPrev, prev, c, reduction, reducePrev,
                          "c" + std::to_string(i) + "_");
    reducePrev = reduction;
    prevPrev = prev;
    prev = out;
  }
  Value pooled = g.globalAvgPool(prev, "gap");
  g.finish(g.conv(pooled, 1000, 1, 1, "classifier"));
}

//===----------------------------------------------------------------------===//
// RandWire
//===----------------------------------------------------------------------===//

/// Undirected Watts-Strogatz small-world graph WS(n, k, p) as networkx
/// builds it: a ring lattice where each node links to its k/2 neighbours on
/// each side, then, for each lattice edge (u, u + j), with probability p the
/// edge is replaced by (u, w) for a uniformly chosen w that is neither u nor
/// already a neighbour of u. Returns the adjacency matrix.
static std::vector<std::vector<bool>>
wattsStrogatz(unsigned n, unsigned k, double p, ZooRandom &random) {
  std::vector<std::vector<bool>> adjacent(n, std::vector<bool>(n, false));
  std::vector<unsigned> degree(n, 0);
  auto link = [&](unsigned a, unsigned b, bool present) {
    adjacent[a][b] = adjacent[b][a] = present;
    if (present) {
      ++degree[a];
      ++degree[b];
    } else {
      --degree[a];
      --degree[b];
    }
  };
  for (unsigned j = 1; j <= k / 2; ++j)
    for (unsigned u = 0; u < n; ++u)
      link(u, (u + j) % n, true);
  for (unsigned j = 1; j <= k / 2; ++j) {
    for (unsigned u = 0; u < n; ++u) {
      unsigned v = (u + j) % n;
      if (random.uniform() >= p || degree[u] >= n - 1)
        continue;
      unsigned w;
      do {
        w = static_cast<unsigned>(random.uniformInt(n));
      } while (w == u || adjacent[u][w]);
      link(u, v, false);
      link(u, w, true);
    }
  }
  return adjacent;
}

/// One RandWire stage on a WS(p.nodes, 4, 0.75) graph drawn from \p random:
/// edges point from the lower to the higher node index; a node sums its
/// inputs (or reads \p input if it has none, with \p stride), then applies
/// ReLU and a 3x3 separable conv to \p channels; the stage output is the
/// sum of the nodes without outputs. Op names start with \p prefix.
static Value buildRandWireStage(TosaGraphBuilder &g, const ZooParams &p,
                                Value input, int64_t channels, int64_t stride,
                                ZooRandom &random, const std::string &prefix) {
  constexpr unsigned k = 4;
  constexpr double rewire = 0.75;
  unsigned n = p.nodes;
  std::vector<std::vector<bool>> adjacent = wattsStrogatz(n, k, rewire, random);
  std::vector<Value> nodes(n);
  SmallVector<Value> sinks;
  for (unsigned i = 0; i < n; ++i) {
    std::string name = prefix + "n" + std::to_string(i);
    SmallVector<Value> inputs;
    for (unsigned j = 0; j < i; ++j)
      if (adjacent[i][j])
        inputs.push_back(nodes[j]);
    int64_t nodeStride = inputs.empty() ? stride : 1;
    if (inputs.empty())
      inputs.push_back(input);
    Value x = g.sum(inputs, name + "_agg");
    x = g.relu(x, name + "_relu");
    x = g.depthwise(x, 3, nodeStride, 1, name + "_dw");
    nodes[i] = g.conv(x, channels, 1, 1, name + "_pw");
    bool hasOutput = false;
    for (unsigned j = i + 1; j < n; ++j)
      hasOutput |= adjacent[i][j];
    if (!hasOutput)
      sinks.push_back(nodes[i]);
  }
  return g.sum(sinks, prefix + "out_add");
}

/// One RandWire cell (a single stage at stride 1) on the 1 x R x R x C input.
static void buildRandWire(TosaGraphBuilder &g, const ZooParams &p) {
  ZooRandom random(p.seed);
  Value input = g.addInput(p.resolution, p.resolution, p.channels);
  g.finish(
      buildRandWireStage(g, p, input, p.channels, 1, random, /*prefix=*/""));
}

/// A RandWire network: 3x3 stem conv to C channels on the 1 x R x R x 3
/// image, p.cells random stages (each its own WS graph from one seeded
/// stream), global average pooling and a 1x1 classifier. Stage i > 0 halves
/// the resolution (stride 2 where a node reads the stage input) and doubles
/// the channels while the resolution is at least 8, as the paper's
/// conv3..conv5 stages do; deeper stages keep both.
static void buildRandWireNet(TosaGraphBuilder &g, const ZooParams &p) {
  ZooRandom random(p.seed);
  Value image = g.addInput(p.resolution, p.resolution, 3);
  Value x = g.conv(image, p.channels, 3, 1, "stem_conv");
  int64_t c = p.channels, resolution = p.resolution;
  for (unsigned i = 0; i < p.cells; ++i) {
    int64_t stride = 1;
    if (i > 0 && resolution >= 8) {
      stride = 2;
      c *= 2;
      resolution = (resolution + 1) / 2;
    }
    x = buildRandWireStage(g, p, x, c, stride, random,
                           "s" + std::to_string(i) + "_");
  }
  Value pooled = g.globalAvgPool(x, "gap");
  g.finish(g.conv(pooled, numClasses, 1, 1, "classifier"));
}

//===----------------------------------------------------------------------===//
// Other architectures
//===----------------------------------------------------------------------===//

/// Scales a width published for C = 16 to the requested channel count.
static int64_t scaled(int64_t width, const ZooParams &p) {
  return std::max<int64_t>(width * p.channels / 16, 1);
}

/// An irregular SwiftNet-like cell (an approximation, see docs/Zoo.md):
/// four branches of different widths and kernels off the input and off an
/// expanded copy of it, joined by concats and adds, with the expanded tensor
/// and a narrow branch kept alive until the end (long skip connections).
static void buildSwiftNetCell(TosaGraphBuilder &g, const ZooParams &p) {
  int64_t c = p.channels, half = std::max<int64_t>(c / 2, 1);
  Value input = g.addInput(p.resolution, p.resolution, c);
  Value expanded =
      g.relu(g.conv(input, 2 * c, 1, 1, "expand_pw"), "expand_relu");
  // Branch 1: separable 3x3 on the expanded tensor.
  Value branch1 = g.depthwise(expanded, 3, 1, 1, "b1_dw3x3");
  branch1 = g.relu(g.conv(branch1, c, 1, 1, "b1_pw"), "b1_relu");
  // Branch 2: narrow full 3x3 conv on the input, reused by the output.
  Value narrow = g.relu(g.conv(input, half, 3, 1, "b2_conv3x3"), "b2_relu");
  // Branch 3: separable 5x5 on the input.
  Value branch3 = g.depthwise(input, 5, 1, 1, "b3_dw5x5");
  branch3 = g.conv(branch3, c, 1, 1, "b3_pw");
  // First merge: concat(branch1, narrow) -> 1x1 conv, plus branch 3.
  Value mixed = g.concat({branch1, narrow}, "mix1_concat");
  mixed = g.relu(g.conv(mixed, c, 1, 1, "mix1_pw"), "mix1_relu");
  mixed = g.add(mixed, branch3, "mix1_add");
  // Branch 4: max pool of the expanded tensor, projected to C/2.
  Value branch4 = g.maxPool(expanded, 3, 1, "b4_maxpool3x3");
  branch4 = g.conv(branch4, half, 1, 1, "b4_pw");
  // Second merge: separable 3x3 of the first merge, concat with branch 4
  // and the narrow branch, 1x1 conv, residual add of the expanded tensor.
  Value refined = g.depthwise(mixed, 3, 1, 1, "mix2_dw3x3");
  refined = g.relu(g.conv(refined, c, 1, 1, "mix2_pw"), "mix2_relu");
  Value out = g.concat({refined, branch4, narrow}, "out_concat");
  out = g.conv(out, 2 * c, 1, 1, "out_pw");
  g.finish(g.relu(g.add(out, expanded, "out_add"), "out_relu"));
}

/// Inception-A blocks (Inception-v3 Mixed_5b/5c/5d, torchvision InceptionA),
/// every conv followed by ReLU. At C = 16 the widths are the published ones
/// (input 192 channels, pool features 32 then 64).
static void buildInceptionA(TosaGraphBuilder &g, const ZooParams &p) {
  Value x = g.addInput(p.resolution, p.resolution, scaled(192, p));
  for (unsigned block = 0; block < p.cells; ++block) {
    std::string name = "b" + std::to_string(block) + "_";
    auto convRelu = [&](Value in, int64_t width, int64_t k,
                        const std::string &suffix) {
      return g.relu(g.conv(in, scaled(width, p), k, 1, name + suffix),
                    name + suffix + "_relu");
    };
    Value b1 = convRelu(x, 64, 1, "1x1");
    Value b5 = convRelu(x, 48, 1, "5x5_reduce");
    b5 = convRelu(b5, 64, 5, "5x5");
    Value b3 = convRelu(x, 64, 1, "3x3dbl_reduce");
    b3 = convRelu(b3, 96, 3, "3x3dbl_1");
    b3 = convRelu(b3, 96, 3, "3x3dbl_2");
    Value pool = g.avgPool(x, 3, 1, name + "pool_avg3x3");
    pool = convRelu(pool, block == 0 ? 32 : 64, 1, "pool_proj");
    x = g.concat({b1, b5, b3, pool}, name + "concat");
  }
  g.finish(x);
}

/// SqueezeNet 1.1: 3x3 stride-2 stem, max pools, p.cells fire modules
/// (squeeze 1x1, expand 1x1 and 3x3, concat), 1x1 classifier and global
/// average pooling. Widths are the published ones at C = 16.
static void buildSqueezeNet(TosaGraphBuilder &g, const ZooParams &p) {
  // (squeeze, expand) of fire2..fire9; max pools follow fire3 and fire5.
  static const int64_t fires[][2] = {{16, 64},  {16, 64},  {32, 128},
                                     {32, 128}, {48, 192}, {48, 192},
                                     {64, 256}, {64, 256}};
  Value x = g.addInput(p.resolution, p.resolution, 3);
  x = g.relu(g.conv(x, scaled(64, p), 3, 2, "conv1"), "conv1_relu");
  x = g.maxPool(x, 3, 2, "pool1");
  unsigned count = p.cells;
  assert(count <= std::size(fires) && "checked against maxCells");
  for (unsigned i = 0; i < count; ++i) {
    std::string name = "fire" + std::to_string(i + 2);
    int64_t squeeze = scaled(fires[i][0], p), expand = scaled(fires[i][1], p);
    Value s = g.relu(g.conv(x, squeeze, 1, 1, name + "_squeeze"),
                     name + "_squeeze_relu");
    Value e1 = g.relu(g.conv(s, expand, 1, 1, name + "_expand1x1"),
                      name + "_expand1x1_relu");
    Value e3 = g.relu(g.conv(s, expand, 3, 1, name + "_expand3x3"),
                      name + "_expand3x3_relu");
    x = g.concat({e1, e3}, name + "_concat");
    if ((i == 1 || i == 3) && i + 1 < count)
      x = g.maxPool(x, 3, 2, "pool" + std::to_string(i == 1 ? 3 : 5));
  }
  x = g.relu(g.conv(x, numClasses, 1, 1, "conv10"), "conv10_relu");
  g.finish(g.globalAvgPool(x, "gap"));
}

/// A DenseNet dense block (DenseNet-121 block 1 at C = 16: 64 input
/// channels, growth 32, bottleneck 128): each layer concatenates all
/// previous feature maps, then ReLU, 1x1 conv, ReLU, 3x3 conv.
static void buildDenseBlock(TosaGraphBuilder &g, const ZooParams &p) {
  int64_t growth = 2 * p.channels;
  SmallVector<Value> features = {
      g.addInput(p.resolution, p.resolution, 4 * p.channels)};
  for (unsigned i = 0; i < p.cells; ++i) {
    std::string name = "l" + std::to_string(i + 1);
    Value x = g.concat(features, name + "_concat");
    x = g.relu(x, name + "_relu1");
    x = g.conv(x, 4 * growth, 1, 1, name + "_conv1x1");
    x = g.relu(x, name + "_relu2");
    features.push_back(g.conv(x, growth, 3, 1, name + "_conv3x3"));
  }
  g.finish(g.concat(features, "out_concat"));
}

/// Rounds \p value to a multiple of 8 as torchvision's _make_divisible.
static int64_t makeDivisible(double value) {
  int64_t rounded = std::max<int64_t>(8, int64_t(value + 4) / 8 * 8);
  if (rounded < 0.9 * value)
    rounded += 8;
  return rounded;
}

/// MobileNetV2 with width multiplier C / 32 (0.5 at C = 16): stem, the
/// 17 inverted-residual blocks, 1x1 conv to 1280, pooling and classifier.
static void buildMobileNetV2(TosaGraphBuilder &g, const ZooParams &p) {
  // Expansion t, output channels c, repeats n, first stride s.
  static const int64_t settings[][4] = {
      {1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
      {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  double width = double(p.channels) / 32.0;
  Value x = g.addInput(p.resolution, p.resolution, 3);
  x = g.relu6(g.conv(x, makeDivisible(32 * width), 3, 2, "stem_conv"),
              "stem_relu6");
  unsigned block = 0;
  for (const auto &setting : settings) {
    int64_t outC = makeDivisible(setting[1] * width);
    for (int64_t r = 0; r < setting[2]; ++r, ++block) {
      std::string name = "b" + std::to_string(block);
      int64_t stride = r == 0 ? setting[3] : 1;
      int64_t inC = dimOf(x, 3);
      Value y = x;
      if (setting[0] != 1)
        y = g.relu6(g.conv(y, inC * setting[0], 1, 1, name + "_expand"),
                    name + "_expand_relu6");
      y = g.relu6(g.depthwise(y, 3, stride, 1, name + "_dw"),
                  name + "_dw_relu6");
      y = g.conv(y, outC, 1, 1, name + "_project");
      x = stride == 1 && inC == outC ? g.add(x, y, name + "_add") : y;
    }
  }
  int64_t last = makeDivisible(1280 * std::max(1.0, width));
  x = g.relu6(g.conv(x, last, 1, 1, "head_conv"), "head_relu6");
  x = g.globalAvgPool(x, "gap");
  g.finish(g.conv(x, numClasses, 1, 1, "classifier"));
}

/// An MCUNet-style network (Lin et al., "MCUNet: Tiny Deep Learning on IoT
/// Devices", NeurIPS 2020): a chain of MobileNetV2 inverted-residual blocks
/// from TinyNAS's search space, whose blocks mix kernel sizes 3, 5 and 7 and
/// expansion ratios 3, 4 and 6, on a small input. The block list is this
/// zoo's own pick in that space (not a published searched model); widths
/// scale with C / 16 (16 stem channels by default).
static void buildMcuNet(TosaGraphBuilder &g, const ZooParams &p) {
  // Expansion, kernel, output channels at C = 16, stride.
  static const int64_t blocks[][4] = {
      {1, 3, 8, 1},  {6, 7, 16, 2}, {3, 3, 16, 1}, {6, 7, 24, 2},
      {4, 5, 24, 1}, {3, 3, 24, 1}, {6, 5, 40, 2}, {4, 5, 40, 1},
      {3, 7, 40, 1}, {6, 5, 48, 1}, {4, 3, 48, 1}, {6, 7, 96, 2},
      {4, 5, 96, 1}, {3, 3, 96, 1}, {6, 3, 160, 1}};
  double width = double(p.channels) / 16.0;
  Value x = g.addInput(p.resolution, p.resolution, 3);
  x = g.relu6(g.conv(x, makeDivisible(16 * width), 3, 2, "stem_conv"),
              "stem_relu6");
  for (auto [index, block] : llvm::enumerate(blocks)) {
    std::string name = "b" + std::to_string(index);
    int64_t inC = dimOf(x, 3), outC = makeDivisible(block[2] * width);
    Value y = x;
    if (block[0] != 1)
      y = g.relu6(g.conv(y, inC * block[0], 1, 1, name + "_expand"),
                  name + "_expand_relu6");
    y = g.relu6(g.depthwise(y, block[1], block[3], 1, name + "_dw"),
                name + "_dw_relu6");
    y = g.conv(y, outC, 1, 1, name + "_project");
    x = block[3] == 1 && inC == outC ? g.add(x, y, name + "_add") : y;
  }
  x = g.globalAvgPool(x, "gap");
  g.finish(g.conv(x, numClasses, 1, 1, "classifier"));
}

/// ResNet basic blocks (ResNet-18 layer1/layer2 pattern): two blocks per
/// stage, channels doubling with a stride-2 first block and a 1x1
/// projection shortcut.
static void buildResNetBlocks(TosaGraphBuilder &g, const ZooParams &p) {
  Value x = g.addInput(p.resolution, p.resolution, p.channels);
  for (unsigned i = 0; i < p.cells; ++i) {
    std::string name = "b" + std::to_string(i);
    unsigned stage = i / 2;
    int64_t c = p.channels << stage;
    int64_t stride = (stage > 0 && i % 2 == 0) ? 2 : 1;
    Value y = g.relu(g.conv(x, c, 3, stride, name + "_conv1"), name + "_relu1");
    y = g.conv(y, c, 3, 1, name + "_conv2");
    Value shortcut = x;
    if (stride != 1 || dimOf(x, 3) != c)
      shortcut = g.conv(x, c, 1, stride, name + "_proj");
    x = g.relu(g.add(y, shortcut, name + "_add"), name + "_relu2");
  }
  g.finish(x);
}

/// HRNet-W18-small-like stage: a transition to two branches (R at C and R/2
/// at 2C), then p.cells modules of two basic blocks per branch followed by
/// the fuse layer (upsampled 1x1 conv low->high, strided 3x3 conv
/// high->low). Returns both branches.
static void buildHrNet(TosaGraphBuilder &g, const ZooParams &p) {
  int64_t c = p.channels;
  Value x = g.addInput(p.resolution, p.resolution, c);
  Value high = g.relu(g.conv(x, c, 3, 1, "t_high_conv"), "t_high_relu");
  Value low = g.relu(g.conv(x, 2 * c, 3, 2, "t_low_conv"), "t_low_relu");
  auto basicBlock = [&](Value in, const std::string &name) {
    int64_t width = dimOf(in, 3);
    Value y = g.relu(g.conv(in, width, 3, 1, name + "_conv1"), name + "_relu1");
    y = g.conv(y, width, 3, 1, name + "_conv2");
    return g.relu(g.add(y, in, name + "_add"), name + "_relu2");
  };
  for (unsigned m = 0; m < p.cells; ++m) {
    std::string name = "m" + std::to_string(m);
    for (int b = 0; b < 2; ++b) {
      high = basicBlock(high, name + "_high_b" + std::to_string(b));
      low = basicBlock(low, name + "_low_b" + std::to_string(b));
    }
    Value up = g.conv(low, c, 1, 1, name + "_fuse_low2high_conv");
    up = g.upsample2x(up, name + "_fuse_low2high_up");
    Value down = g.conv(high, 2 * c, 3, 2, name + "_fuse_high2low_conv");
    Value newHigh = g.relu(g.add(high, up, name + "_fuse_high_add"),
                           name + "_fuse_high_relu");
    low = g.relu(g.add(low, down, name + "_fuse_low_add"),
                 name + "_fuse_low_relu");
    high = newHigh;
  }
  g.finish({high, low});
}

//===----------------------------------------------------------------------===//
// Fuzz model
//===----------------------------------------------------------------------===//

namespace {
/// Random valid TOSA functions for the pass fuzzer (test/fuzz/pass_fuzz.py):
/// every tensor is 1 x H x W x C (rank 2 and 3 only inside reshape
/// round trips) of f32, f16, i8 (convolutions and adds rescaled through
/// i32), i16 or i1; ops are drawn at random with random kernels, strides,
/// dilations and paddings, and read either the newest value (chains) or any
/// earlier one (fan-outs). The values nobody reads are the results.
class FuzzModel {
public:
  /// Draws the function's ops from \p p.seed into \p g.
  FuzzModel(TosaGraphBuilder &g, const ZooParams &p)
      : g(g), p(p), random(p.seed), ctx(g.getContext()) {}

  /// Builds the inputs, p.nodes random ops and the results.
  void build() {
    // The element types this function starts from.
    static const ZooDType starts[] = {ZooDType::F32, ZooDType::F32,
                                      ZooDType::I8,  ZooDType::I8,
                                      ZooDType::F16, ZooDType::I16};
    unsigned numInputs = 1 + pick(2);
    for (unsigned i = 0; i < numInputs; ++i) {
      ZooDType dtype = starts[pick(std::size(starts))];
      if (i > 0 && pick(2))
        dtype = dtypeOf(pool.front());
      // f16 tensors mostly come from f32 arguments (mem-opt-run, the host
      // check, calls f32 but not f16 functions).
      bool viaF32 = dtype == ZooDType::F16 && pick(4);
      g.setDType(viaF32 ? ZooDType::F32 : dtype);
      Value arg = g.addInput(1 + pick(p.resolution), 1 + pick(p.resolution),
                             1 + pick(p.channels));
      arguments.push_back(arg);
      if (viaF32)
        arg = g.castTo(arg, Float16Type::get(ctx), "input" + Twine(i) + "_f16");
      pool.push_back(arg);
    }
    for (unsigned i = 0; i < p.nodes; ++i)
      addNode("n" + std::to_string(i));
    SmallVector<Value> results;
    for (Value value : pool)
      if (value.use_empty() && !llvm::is_contained(arguments, value))
        results.push_back(value);
    if (results.empty())
      results.push_back(pool.back());
    bool f16Results = !pick(4);
    for (auto [index, result] : llvm::enumerate(results))
      if (elementOf(result).isF16() && !f16Results)
        result = g.castTo(result, Float32Type::get(ctx),
                          "result" + Twine(index) + "_f32");
    g.finish(results);
  }

private:
  /// Ops of the fuzz model.
  enum Kind {
    Conv,
    ConvPadded,
    Depthwise,
    MaxPool,
    AvgPool,
    Add,
    Mul,
    Maximum,
    Clamp,
    Unary,
    Concat,
    Slice,
    Reshape,
    ReshapeRoundTrip,
    Transpose,
    Pad,
    Reduce,
    Upsample,
    Cast,
    Greater,
    LogicalAnd,
    Select,
    NumKinds
  };

  /// Returns a random integer in [0, \p bound).
  uint64_t pick(uint64_t bound) { return random.uniformInt(bound); }

  // Shorthands for the type of a value.
  static RankedTensorType typeOf(Value v) {
    return cast<RankedTensorType>(v.getType());
  }
  static Type elementOf(Value v) { return typeOf(v).getElementType(); }
  static int64_t dim(Value v, unsigned i) { return typeOf(v).getDimSize(i); }
  static bool isFloat(Value v) { return isa<FloatType>(elementOf(v)); }
  static bool isBool(Value v) { return elementOf(v).isInteger(1); }
  static bool isI8(Value v) { return elementOf(v).isInteger(8); }
  static bool isI16(Value v) { return elementOf(v).isInteger(16); }

  /// The builder's element mode for the non-boolean value \p v.
  static ZooDType dtypeOf(Value v) {
    Type t = elementOf(v);
    if (t.isF16())
      return ZooDType::F16;
    if (t.isInteger(8))
      return ZooDType::I8;
    if (t.isInteger(16))
      return ZooDType::I16;
    return ZooDType::F32;
  }

  /// An operand: the newest value (a chain) or any value (a fan-out),
  /// among those that satisfy \p accept; null when there is none.
  Value operand(llvm::function_ref<bool(Value)> accept) {
    if (pick(5) < 3 && accept(pool.back()))
      return pool.back();
    SmallVector<Value> candidates;
    for (Value v : pool)
      if (accept(v))
        candidates.push_back(v);
    if (candidates.empty())
      return {};
    return candidates[pick(candidates.size())];
  }

  /// A value other than \p x of the same type, or \p x itself.
  Value partner(Value x) {
    Value other =
        operand([&](Value v) { return v != x && v.getType() == x.getType(); });
    return other ? other : x;
  }

  /// Adds one random op named \p name to the pool (or nothing when the
  /// drawn op has no operand or would make a tensor too large).
  void addNode(const std::string &name) {
    Kind kind = Kind(pick(NumKinds));
    auto any = [](Value) { return true; };
    auto notBool = [](Value v) { return !isBool(v); };
    auto floatOrI8 = [](Value v) { return isFloat(v) || isI8(v); };
    Value x;
    switch (kind) {
    case Conv:
    case ConvPadded:
    case Depthwise:
      x = operand(floatOrI8);
      break;
    case MaxPool:
    case AvgPool:
    case Add:
    case Clamp:
    case Upsample:
      x = operand(notBool);
      break;
    case Mul:
    case Maximum:
    case Unary:
    case Reduce:
    case Greater:
      x = operand(isFloat);
      break;
    case LogicalAnd:
    case Select:
      x = operand(isBool);
      break;
    case Cast:
      x = operand(notBool);
      break;
    default:
      x = operand(any);
      break;
    }
    if (!x)
      return;
    if (!isBool(x))
      g.setDType(dtypeOf(x));
    Value y = build(kind, x, name);
    if (!y || typeOf(y).getNumElements() > maxElements)
      return;
    pool.push_back(y);
  }

  /// Builds an op of \p kind reading \p x (and, for ops with more
  /// operands, values drawn from the pool); null when there is none.
  Value build(Kind kind, Value x, const std::string &name) {
    int64_t h = dim(x, 1), w = dim(x, 2), c = dim(x, 3);
    switch (kind) {
    case Conv: {
      static const int64_t kernels[] = {1, 1, 2, 3, 3, 5};
      int64_t kh = kernels[pick(6)], kw = pick(3) ? kh : kernels[pick(6)];
      int64_t stride = 1 + pick(3), dilation = pick(4) ? 1 : 2;
      return g.conv(x, 1 + pick(2 * p.channels), kh, kw, stride,
                    pick(3) ? stride : 1 + pick(2), dilation, name + "_conv");
    }
    case ConvPadded: {
      int64_t kh = 1 + pick(4), kw = 1 + pick(4);
      SmallVector<int64_t, 4> pads = {int64_t(pick(kh)), int64_t(pick(kh)),
                                      int64_t(pick(kw)), int64_t(pick(kw))};
      return g.convPadded(x, 1 + pick(2 * p.channels), kh, kw, 1 + pick(2),
                          1 + pick(2), 1 + pick(2), 1 + pick(2), pads,
                          name + "_convp");
    }
    case Depthwise:
      return g.depthwise(x, 1 + pick(3), 1 + pick(2), 1 + pick(2),
                         name + "_dw");
    case MaxPool:
      return g.maxPool(x, 2 + pick(2), 1 + pick(2), name + "_maxpool");
    case AvgPool:
      if (pick(4) == 0)
        return g.globalAvgPool(x, name + "_gap");
      return g.avgPool(x, 2 + pick(2), 1 + pick(2), name + "_avgpool");
    case Add:
      return g.add(x, partner(x), name + "_add");
    case Mul:
      return g.mul(x, partner(x), name + "_mul");
    case Maximum:
      return g.maximum(x, partner(x), name + "_max");
    case Clamp:
      return pick(2) ? g.relu(x, name + "_relu") : g.relu6(x, name + "_relu6");
    case Unary:
      switch (pick(3)) {
      case 0:
        return g.unary<tosa::SigmoidOp>(x, name + "_sigmoid");
      case 1:
        return g.unary<tosa::TanhOp>(x, name + "_tanh");
      default:
        return g.unary<tosa::AbsOp>(x, name + "_abs");
      }
    case Concat: {
      unsigned axis = 1 + pick(3);
      SmallVector<Value> values = {x};
      unsigned count = 1 + pick(3);
      for (unsigned i = 0; i < count; ++i) {
        Value other = operand([&](Value v) {
          if (elementOf(v) != elementOf(x))
            return false;
          for (unsigned d = 0; d < 4; ++d)
            if (d != axis && dim(v, d) != dim(x, d))
              return false;
          return true;
        });
        values.push_back(other ? other : x);
      }
      return g.concatOn(values, axis, name + "_concat");
    }
    case Slice: {
      int64_t sh = 1 + pick(h), sw = 1 + pick(w), sc = 1 + pick(c);
      return g.slice(x,
                     {0, int64_t(pick(h - sh + 1)), int64_t(pick(w - sw + 1)),
                      int64_t(pick(c - sc + 1))},
                     {1, sh, sw, sc}, name + "_slice");
    }
    case Reshape: {
      int64_t total = h * w * c;
      SmallVector<int64_t> divisors;
      for (int64_t d = 1; d <= std::min<int64_t>(total, 4 * p.channels); ++d)
        if (total % d == 0)
          divisors.push_back(d);
      int64_t nc = divisors[pick(divisors.size())];
      int64_t rest = total / nc;
      SmallVector<int64_t> hs;
      for (int64_t d = 1; d <= rest; ++d)
        if (rest % d == 0)
          hs.push_back(d);
      int64_t nh = hs[pick(hs.size())];
      return g.reshape(x, {1, nh, rest / nh, nc}, name + "_reshape");
    }
    case ReshapeRoundTrip: {
      // Through rank 2 or 3 and back, with an op in between when one fits.
      Value flat = pick(2) ? g.reshape(x, {h * w, c}, name + "_flat")
                           : g.reshape(x, {1, h * w, c}, name + "_flat");
      if (!isBool(flat))
        flat = g.relu(flat, name + "_flat_relu");
      return g.reshape(flat, {1, h, w, c}, name + "_unflat");
    }
    case Transpose: {
      static const int32_t perms[][4] = {
          {0, 2, 1, 3}, {0, 3, 1, 2}, {0, 1, 3, 2}, {0, 2, 3, 1}, {0, 3, 2, 1}};
      return g.transpose(x, perms[pick(5)], name + "_transpose");
    }
    case Pad: {
      // On the rank-3 view H x W x C: LLVM 22's tosa-validate rejects the
      // !tosa.shape<8> padding of a rank-4 tosa.pad (its MAX_RANK level
      // check counts the shape's length), which would fail every pipeline
      // run of a function that has one.
      SmallVector<int64_t, 6> padding;
      for (unsigned d = 0; d < 3; ++d) {
        padding.push_back(pick(3));
        padding.push_back(pick(3));
      }
      Value padded = g.pad(g.reshape(x, {h, w, c}, name + "_rank3"), padding,
                           name + "_pad");
      return g.reshape(padded,
                       {1, h + padding[0] + padding[1],
                        w + padding[2] + padding[3],
                        c + padding[4] + padding[5]},
                       name + "_rank4");
    }
    case Reduce:
      return g.reduceSum(x, 1 + pick(3), name + "_reduce");
    case Upsample:
      return g.upsample2x(x, name + "_upsample");
    case Cast: {
      Type f32 = Float32Type::get(ctx), f16 = Float16Type::get(ctx);
      Type i8 = IntegerType::get(ctx, 8), i16 = IntegerType::get(ctx, 16);
      if (isFloat(x))
        return g.castTo(x, elementOf(x).isF16() ? f32 : f16, name + "_cast");
      if (pick(2))
        return g.castTo(x, pick(2) ? f32 : f16, name + "_cast");
      // Integer to integer through tosa.rescale (unchanged, saturating).
      return g.rescale(x, isI8(x) ? i16 : i8, /*shift=*/30, name + "_rescale");
    }
    case Greater:
      return g.greater(x, partner(x), name + "_greater");
    case LogicalAnd:
      return g.logicalAnd(x, partner(x), name + "_and");
    case Select: {
      Value a = operand([&](Value v) {
        return !isBool(v) && typeOf(v).getShape() == typeOf(x).getShape();
      });
      if (!a)
        return {};
      g.setDType(dtypeOf(a));
      return g.select(x, a, partner(a), name + "_select");
    }
    case NumKinds:
      break;
    }
    return {};
  }

  /// Largest tensor the generator keeps (elements), so that host execution
  /// stays fast.
  static constexpr int64_t maxElements = 4096;

  /// The builder of the function.
  TosaGraphBuilder &g;
  /// Sizes, seed and op count.
  const ZooParams &p;
  /// The seeded random source of every choice.
  ZooRandom random;
  /// The context of the function.
  MLIRContext *ctx;
  /// Every value built so far, arguments first.
  SmallVector<Value> pool;
  /// The function's arguments.
  SmallVector<Value> arguments;
};
} // namespace

/// The `fuzz` model: a random valid TOSA function (see FuzzModel).
static void buildFuzz(TosaGraphBuilder &g, const ZooParams &p) {
  FuzzModel(g, p).build();
}

//===----------------------------------------------------------------------===//
// Model registry
//===----------------------------------------------------------------------===//

namespace {
/// Builds the body of a model's function.
using ModelBuildFn = void (*)(TosaGraphBuilder &, const ZooParams &);

/// One model of the zoo.
struct ModelInfo {
  /// The --model name.
  const char *name;
  /// One line for --list and the output header.
  const char *description;
  /// Default for --cells; 0 when --cells does not apply.
  unsigned defaultCells;
  /// Defaults for --channels and --resolution.
  int64_t defaultChannels;
  int64_t defaultResolution;
  /// Builds the function body.
  ModelBuildFn build;
  /// Largest --cells the model accepts; 0 for no limit.
  unsigned maxCells = 0;
  /// --resolution must be a multiple of this.
  int64_t resolutionMultiple = 1;
  /// Whether --list shows it (the benchmark scripts generate every listed
  /// model; the fuzz model is for the pass fuzzer only).
  bool listed = true;
};
} // namespace

static const ModelInfo models[] = {
    {"nasnet-a-normal", "NASNet-A normal cell (Zoph et al. 2018), 5 blocks", 0,
     16, 32,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildSingleCell(g, p, nasnetA.normal, false);
     }},
    {"nasnet-a-reduction",
     "NASNet-A reduction cell (Zoph et al. 2018), 5 blocks", 0, 16, 32,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildSingleCell(g, p, nasnetA.reduction, true);
     }},
    {"amoebanet-a-normal", "AmoebaNet-A normal cell (Real et al. 2019)", 0, 16,
     32,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildSingleCell(g, p, amoebaA.normal, false);
     }},
    {"amoebanet-a-reduction", "AmoebaNet-A reduction cell (Real et al. 2019)",
     0, 16, 32,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildSingleCell(g, p, amoebaA.reduction, true);
     }},
    {"pnas-cell", "PNASNet-5 cell (Liu et al. 2018)", 0, 16, 32,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildSingleCell(g, p, pnas.normal, false);
     }},
    {"darts-v2-normal", "DARTS_V2 normal cell (Liu et al. 2019)", 0, 16, 32,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildSingleCell(g, p, dartsV2.normal, false);
     }},
    {"darts-v2-reduction", "DARTS_V2 reduction cell (Liu et al. 2019)", 0, 16,
     32,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildSingleCell(g, p, dartsV2.reduction, true);
     }},
    {"nasnet-a-cifar", "CIFAR-style stack of NASNet-A cells", 5, 16, 32,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildStackedNetwork(g, p, nasnetA);
     }},
    {"amoebanet-a-cifar", "CIFAR-style stack of AmoebaNet-A cells", 5, 16, 32,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildStackedNetwork(g, p, amoebaA);
     }},
    {"darts-v2-cifar", "CIFAR-style stack of DARTS_V2 cells", 6, 16, 32,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildStackedNetwork(g, p, dartsV2);
     }},
    {"pnas-cifar", "CIFAR-style stack of PNASNet-5 cells", 4, 16, 32,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildStackedNetwork(g, p, pnas);
     }},
    {"nasnet-a-imagenet", "ImageNet-style stack of NASNet-A cells", 5, 16, 224,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildImageNetNetwork(g, p, nasnetA);
     }},
    {"amoebanet-a-imagenet", "ImageNet-style stack of AmoebaNet-A cells", 5, 16,
     224,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildImageNetNetwork(g, p, amoebaA);
     }},
    {"darts-v2-imagenet", "ImageNet-style stack of DARTS_V2 cells", 6, 16, 224,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildImageNetNetwork(g, p, dartsV2);
     }},
    {"pnas-imagenet", "ImageNet-style stack of PNASNet-5 cells", 4, 16, 224,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildImageNetNetwork(g, p, pnas);
     }},
    {"randwire-ws",
     "RandWire cell on a seeded Watts-Strogatz WS(32, 4, 0.75) graph (Xie et "
     "al. 2019)",
     0, 16, 32, buildRandWire},
    {"randwire-ws-net",
     "RandWire network: stem, --cells WS(N, 4, 0.75) stages, classifier", 3, 16,
     32, buildRandWireNet},
    {"swiftnet-vww-cell",
     "SwiftNet-like irregular multi-branch cell (approximation)", 0, 16, 32,
     buildSwiftNetCell},
    {"inception-v3-block", "Inception-v3 Inception-A blocks (Mixed_5b..)", 1,
     16, 35, buildInceptionA},
    {"squeezenet-fire", "SqueezeNet 1.1 with its fire modules", 8, 16, 64,
     buildSqueezeNet, /*maxCells=*/8},
    {"densenet-block", "DenseNet-121 dense block (6 layers by default)", 6, 16,
     32, buildDenseBlock},
    {"mobilenet-v2", "MobileNetV2, width multiplier C/32 (0.5 by default)", 0,
     16, 96, buildMobileNetV2},
    {"mcunet",
     "MCUNet-style inverted residuals, kernels 3/5/7, expansions 3/4/6", 0, 16,
     96, buildMcuNet},
    {"resnet-block", "ResNet-18 basic blocks, two per stage", 4, 16, 32,
     buildResNetBlocks},
    {"hrnet-w18-small-block",
     "HRNet-W18-small-like two-resolution stage with fuse layers", 1, 18, 32,
     buildHrNet, /*maxCells=*/0,
     /*resolutionMultiple=*/2},
    {"fuzz",
     "Random valid TOSA function for the pass fuzzer: --nodes ops, tensors "
     "up to R x R x C (f32, f16, i8, i16, i1; test/fuzz/pass_fuzz.py)",
     0, 8, 8, buildFuzz, /*maxCells=*/0, /*resolutionMultiple=*/1,
     /*listed=*/false},
};

/// Returns the model called \p name, or nullptr.
static const ModelInfo *lookupModel(StringRef name) {
  for (const ModelInfo &model : models)
    if (name == model.name)
      return &model;
  return nullptr;
}

/// Prints the models with their descriptions and defaults to \p os.
static void printModelList(raw_ostream &os) {
  for (const ModelInfo &model : models) {
    if (!model.listed)
      continue;
    os << llvm::left_justify(model.name, 24) << model.description
       << " [C=" << model.defaultChannels << ", R=" << model.defaultResolution;
    if (model.defaultCells)
      os << ", cells=" << model.defaultCells;
    os << "]\n";
  }
}

/// Counts the compute ops (everything but constants and the terminator) of
/// every function in \p module, per op name.
static std::map<std::string, unsigned> countComputeOps(ModuleOp module) {
  std::map<std::string, unsigned> counts;
  module.walk([&](Operation *op) {
    if (isa<ModuleOp, func::FuncOp, func::ReturnOp>(op) ||
        op->hasTrait<OpTrait::ConstantLike>())
      return;
    ++counts[op->getName().getStringRef().str()];
  });
  return counts;
}

/// Fills \p params from the command line and the defaults of \p model;
/// reports invalid values and returns false.
static bool resolveParams(const ModelInfo &model, ZooParams &params) {
  params.channels = numChannels.getNumOccurrences() ? int64_t(numChannels)
                                                    : model.defaultChannels;
  params.resolution = inputResolution.getNumOccurrences()
                          ? int64_t(inputResolution)
                          : model.defaultResolution;
  params.cells = numCells ? unsigned(numCells) : model.defaultCells;
  params.seed = randomSeed;
  params.nodes = numNodes;
  bool isFuzz = StringRef(model.name) == "fuzz";
  bool isRandWire = StringRef(model.name).starts_with("randwire");
  if (numNodes.getNumOccurrences() && !isRandWire && !isFuzz)
    llvm::errs() << "mem-opt-zoo: warning: --nodes does not apply to '"
                 << model.name << "' and is ignored\n";
  unsigned minNodes = isFuzz ? 1 : 5;
  if (params.nodes < minNodes || params.nodes > 2000) {
    llvm::errs() << "mem-opt-zoo: --nodes must be in [" << minNodes
                 << ", 2000]\n";
    return false;
  }
  if (numCells && !model.defaultCells)
    llvm::errs() << "mem-opt-zoo: warning: --cells does not apply to '"
                 << model.name << "' and is ignored\n";
  if (params.channels < 2 || params.channels > 4096) {
    llvm::errs() << "mem-opt-zoo: --channels must be in [2, 4096]\n";
    return false;
  }
  if (params.resolution < 4 || params.resolution > 4096) {
    llvm::errs() << "mem-opt-zoo: --resolution must be in [4, 4096]\n";
    return false;
  }
  unsigned maxCells = model.maxCells ? model.maxCells : 1000;
  if (params.cells > maxCells) {
    llvm::errs() << "mem-opt-zoo: --cells must be at most " << maxCells
                 << " for '" << model.name << "'\n";
    return false;
  }
  if (params.resolution % model.resolutionMultiple != 0) {
    llvm::errs() << "mem-opt-zoo: '" << model.name
                 << "' needs --resolution to be a multiple of "
                 << model.resolutionMultiple << "\n";
    return false;
  }
  return true;
}

/// Prints the total and per-kind compute op counts of \p modelName.
static void printStats(raw_ostream &os, StringRef modelName,
                       const std::map<std::string, unsigned> &counts) {
  unsigned total = 0;
  for (const auto &entry : counts)
    total += entry.second;
  os << modelName << ": " << total << " compute ops (";
  llvm::ListSeparator separator(", ");
  for (const auto &entry : counts)
    os << separator << entry.first << " " << entry.second;
  os << ")\n";
}

} // namespace memopt
} // namespace mlir

int main(int argc, char **argv) {
  mlir::memopt::registerVersionPrinter();
  using namespace mlir::memopt;
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::cl::HideUnrelatedOptions(zooCategory);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "mem-opt-zoo: seeded generator of TOSA models for benchmarking "
      "memory-aware operator scheduling\n\n"
      "  mem-opt-zoo --model=<name> [--cells=N] [--channels=C] "
      "[--resolution=R]\n"
      "              [--seed=S] [--nodes=N] [--dtype=f32|i8] [--stats] "
      "[-o out.mlir]\n"
      "  mem-opt-zoo --list\n\n"
      "--stats prints the number of compute ops per op kind to stderr.\n"
      "--model=fuzz (not in --list) writes a random valid TOSA function of\n"
      "--nodes ops for the pass fuzzer (test/fuzz/pass_fuzz.py).\n");

  if (listModels) {
    printModelList(llvm::outs());
    return 0;
  }
  if (modelName.empty()) {
    llvm::errs() << "mem-opt-zoo: no model given; use --model=<name> (--list "
                    "shows the models)\n";
    return 1;
  }
  const ModelInfo *model = lookupModel(modelName);
  if (!model) {
    llvm::errs() << "mem-opt-zoo: unknown model '" << modelName
                 << "'; the models are:\n";
    printModelList(llvm::errs());
    return 1;
  }

  ZooParams params;
  if (!resolveParams(*model, params))
    return 1;

  mlir::MLIRContext context;
  context.loadDialect<mlir::func::FuncDialect, mlir::tosa::TosaDialect>();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::ModuleOp::create(mlir::UnknownLoc::get(&context));
  std::string funcName = llvm::StringRef(model->name).str();
  std::replace(funcName.begin(), funcName.end(), '-', '_');
  {
    TosaGraphBuilder builder(*module, funcName, elementType);
    model->build(builder, params);
  }

  if (mlir::failed(mlir::verify(*module))) {
    llvm::errs() << "mem-opt-zoo: internal error: the generated '"
                 << model->name << "' model does not verify\n";
    return 1;
  }

  std::map<std::string, unsigned> counts = countComputeOps(*module);
  unsigned total = 0;
  for (const auto &entry : counts)
    total += entry.second;
  if (llvm::AreStatisticsEnabled())
    printStats(llvm::errs(), model->name, counts);

  std::string errorMessage;
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << "mem-opt-zoo: " << errorMessage << "\n";
    return 1;
  }
  llvm::raw_ostream &os = output->os();
  os << "// Generated by mem-opt-zoo --model=" << model->name;
  if (model->defaultCells)
    os << " --cells=" << params.cells;
  os << " --channels=" << params.channels
     << " --resolution=" << params.resolution << " --seed=" << params.seed;
  if ((StringRef(model->name).starts_with("randwire") && params.nodes != 32) ||
      StringRef(model->name) == "fuzz")
    os << " --nodes=" << params.nodes;
  os << " --dtype=" << (elementType == ZooDType::I8 ? "i8" : "f32") << "\n"
     << "// " << model->description << "; " << total
     << " compute ops. See docs/Zoo.md.\n";
  // Locations inline (`loc("name")`, no aliases) so that the names stay
  // next to their ops.
  module->print(os, mlir::OpPrintingFlags()
                        .enableDebugInfo(/*enable=*/true, /*prettyForm=*/false)
                        .useLocalScope());
  os << "\n";
  output->keep();
  return 0;
}
