//===- TFLiteImporter.cpp - TFLite to TOSA
//---------------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Reads a TFLite flatbuffer (through mem-opt's own minimal schema,
// `tflite_schema.fbs`, compiled by flatc at build time) and builds one
// `func.func @main` of TOSA ops. The file is checked by the flatbuffers
// Verifier before anything is read, and every index, shape and buffer size is
// checked before use, so malformed files give a diagnostic instead of a crash.
//
// Conversion rules:
// - Tensors keep TFLite's NHWC layout and shapes (the `shape` field; a -1
//   batch in `shape_signature` is fixed to the stored shape, as TFLite Micro
//   does). Quantized tensors become plain integer tensors (i8, i16, i32);
//   their scales and zero points become rescale parameters.
// - Constants are `tosa.const` with the file's bytes, unchanged. Depthwise
//   filters [1, KH, KW, C*M] are re-typed as [KH, KW, C, M] and fully
//   connected weights [OC, IC] as [OC, 1, 1, IC] (same bytes, same order).
// - Fully connected runs as a 1x1 `tosa.conv2d` between reshapes.
// - int8 conv, depthwise and fully connected accumulate in i32; a
//   `tosa.rescale` (per channel when the filter is) brings the accumulator to
//   the output scale and zero point. Multipliers are computed from the float
//   scales like TFLite's QuantizeMultiplier (see `computeMultiplier`). By
//   default they use SINGLE_ROUND (one rounding, half up), which every LLVM 22
//   tool accepts; TFLite's reference kernels round twice (rounding doubling
//   high multiply, then rounding shift), so outputs can drift by a few units
//   over deep networks. With `doubleRound` they use DOUBLE_ROUND, TOSA's form
//   of TFLite's rounding, and the module declares the `doubleround` extension
//   in its `tosa.target_env` so that TOSA validation accepts it.
// - Fused RELU, RELU6 and RELU_N1_TO_1 become `tosa.clamp`, in the quantized
//   domain for integer outputs (TFLite's CalculateActivationRangeQuantized).
// - Quantized softmax dequantizes to f32, runs a float softmax and quantizes
//   back; it is not TFLite's lookup-table kernel (differences of one unit).
// - SVDF keeps its activation state as an extra function argument and an
//   extra result (the updated state), since TOSA functions have no variables.
// Locations: an op's final TOSA op carries `loc("output tensor name")`;
// helper ops carry the same name with a `#suffix`; unnamed tensors are called
// `tensor_<index>`.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Import/Import.h"

#include "tflite_schema_generated.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TargetEnv.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"

#include <cmath>
#include <cstring>
#include <optional>

using namespace mlir;
using namespace mlir::memopt;
namespace tfl = mlir::memopt::tflite;

/// Largest element count of one tensor the importer accepts (2^31 - 1), so
/// that byte sizes fit comfortably in 64 bits and in MLIR's attributes.
static constexpr int64_t kMaxElements = (int64_t(1) << 31) - 1;

/// Returns the TFLite name of builtin operator \p code, for diagnostics.
static std::string builtinName(int32_t code) {
  switch (code) {
  case 0:
    return "ADD";
  case 1:
    return "AVERAGE_POOL_2D";
  case 2:
    return "CONCATENATION";
  case 3:
    return "CONV_2D";
  case 4:
    return "DEPTHWISE_CONV_2D";
  case 6:
    return "DEQUANTIZE";
  case 9:
    return "FULLY_CONNECTED";
  case 14:
    return "LOGISTIC";
  case 17:
    return "MAX_POOL_2D";
  case 18:
    return "MUL";
  case 19:
    return "RELU";
  case 21:
    return "RELU6";
  case 22:
    return "RESHAPE";
  case 25:
    return "SOFTMAX";
  case 27:
    return "SVDF";
  case 28:
    return "TANH";
  case 32:
    return "CUSTOM";
  case 34:
    return "PAD";
  case 39:
    return "TRANSPOSE";
  case 40:
    return "MEAN";
  case 60:
    return "PADV2";
  case 114:
    return "QUANTIZE";
  default:
    return "BUILTIN_" + std::to_string(code);
  }
}

/// Builtin operator codes the importer converts.
enum BuiltinCode : int32_t {
  kAdd = 0,
  kAveragePool2D = 1,
  kConcatenation = 2,
  kConv2D = 3,
  kDepthwiseConv2D = 4,
  kDequantize = 6,
  kFullyConnected = 9,
  kMaxPool2D = 17,
  kMul = 18,
  kRelu = 19,
  kRelu6 = 21,
  kReshape = 22,
  kSoftmax = 25,
  kSvdf = 27,
  kPad = 34,
  kTranspose = 39,
  kMean = 40,
  kPadV2 = 60,
  kQuantize = 114,
};

/// Computes TOSA rescale parameters for the real factor \p scale: an i32
/// \p multiplier and a \p shift with scale ~= multiplier * 2^-shift. As in
/// TFLite's QuantizeMultiplier, scale = q * 2^e with q in [0.5, 1) (frexp),
/// multiplier = round(q * 2^31) (half away from zero; 2^31 is folded back to
/// 2^30 with e + 1) and shift = 31 - e. TOSA needs 2 <= shift <= 62: smaller
/// factors lose low multiplier bits (rounded), larger ones (>= 2^29) fail.
static LogicalResult computeMultiplier(double scale, int32_t &multiplier,
                                       int32_t &shift) {
  if (!std::isfinite(scale) || scale < 0)
    return failure();
  if (scale == 0) {
    multiplier = 0;
    shift = 2;
    return success();
  }
  int exponent = 0;
  double fraction = std::frexp(scale, &exponent);
  int64_t fixed = std::llround(fraction * double(int64_t(1) << 31));
  if (fixed == (int64_t(1) << 31)) {
    fixed /= 2;
    ++exponent;
  }
  int64_t s = 31 - int64_t(exponent);
  if (s < 2)
    return failure();
  if (s > 62) {
    int64_t drop = s - 62;
    fixed = drop > 31 ? 0 : (fixed + (int64_t(1) << (drop - 1))) >> drop;
    s = 62;
  }
  multiplier = static_cast<int32_t>(fixed);
  shift = static_cast<int32_t>(s);
  return success();
}

namespace {

/// Quantization parameters of one tensor.
struct QuantParams {
  SmallVector<double> scales;
  SmallVector<int64_t> zeroPoints;
  int32_t dimension = 0;
  bool present() const { return !scales.empty(); }
  /// The zero point of a per-tensor quantized tensor (0 when absent).
  int64_t zeroPoint() const { return zeroPoints.empty() ? 0 : zeroPoints[0]; }
  double scale() const { return scales.empty() ? 1.0 : scales[0]; }
};

/// Converts one TFLite subgraph into a function of TOSA ops.
class TFLiteImporter {
public:
  TFLiteImporter(const tfl::Model *model, StringRef fileName,
                 MLIRContext *context, const TFLiteImportOptions &options)
      : model(model), fileName(fileName), context(context), builder(context),
        options(options) {}

  /// Builds the module, or emits a diagnostic and returns null.
  OwningOpRef<ModuleOp> run();

private:
  //===--------------------------------------------------------------------===//
  // Diagnostics and tensors
  //===--------------------------------------------------------------------===//

  /// Emits an error about the file as a whole.
  InFlightDiagnostic fileError() {
    return emitError(FileLineColLoc::get(context, fileName, 0, 0))
           << "tflite: ";
  }
  /// Emits an error about the operator being converted.
  InFlightDiagnostic opError() {
    InFlightDiagnostic diag =
        emitError(FileLineColLoc::get(context, fileName, 0, 0));
    if (!inOperator)
      return std::move(diag << "tflite graph " << opName << ": ");
    return std::move(diag) << "tflite op " << opIndex << " (" << opName << ")"
                           << (opOutput.empty() ? "" : " -> '" + opOutput + "'")
                           << ": ";
  }

  /// Returns the name used in locations for tensor \p index.
  std::string tensorName(int32_t index);
  /// Returns a location naming tensor \p index, with an optional suffix.
  Location tensorLoc(int32_t index, StringRef suffix = "");
  /// Checks tensor \p index: in range, static shape, supported type. Fills the
  /// cache entries.
  LogicalResult checkTensor(int32_t index);
  /// Returns the ranked type of checked tensor \p index.
  RankedTensorType tensorType(int32_t index) { return types[index]; }
  /// Returns the shape of checked tensor \p index.
  ArrayRef<int64_t> shapeOf(int32_t index) { return types[index].getShape(); }
  /// Returns the raw constant bytes of tensor \p index, or std::nullopt if it
  /// has no data (an activation).
  std::optional<ArrayRef<char>> constantData(int32_t index);
  /// Returns the value of tensor \p index: an activation produced earlier, a
  /// function argument, or a `tosa.const` of its data (re-typed to \p shape
  /// when given; the element count must agree).
  FailureOr<Value> getValue(int32_t index,
                            std::optional<ArrayRef<int64_t>> shape = {});
  /// Reads integer constant tensor \p index (i32 or i64) into \p values.
  LogicalResult readIntConstant(int32_t index,
                                SmallVectorImpl<int64_t> &values);
  /// Reads the quantization parameters of tensor \p index.
  QuantParams quant(int32_t index);
  /// Whether tensor \p index is an integer tensor with quantization.
  bool isQuantized(int32_t index) {
    return !isa<FloatType>(types[index].getElementType()) &&
           quant(index).present();
  }

  //===--------------------------------------------------------------------===//
  // TOSA helpers
  //===--------------------------------------------------------------------===//

  /// Creates an op by name with one result.
  Value create(StringRef name, Type type, ValueRange operands,
               ArrayRef<NamedAttribute> attrs, Location loc);
  /// A rank-1 single-element constant of \p elementType holding \p value.
  Value scalarConst(Type elementType, double value, Location loc);
  /// A `tosa.const_shape` holding \p values.
  Value shapeConst(ArrayRef<int64_t> values, Location loc);
  /// `tosa.reshape` of \p value to \p shape (no op if the shape is the same).
  Value reshape(Value value, ArrayRef<int64_t> shape, Location loc);
  /// `tosa.rescale` of \p value to \p resultType, by \p scales (one or one per
  /// channel of the last dimension).
  FailureOr<Value> rescale(Value value, RankedTensorType resultType,
                           ArrayRef<double> scales, int64_t inputZp,
                           int64_t outputZp, Location loc);
  /// Applies fused activation \p act to \p value whose tensor is \p outIndex.
  FailureOr<Value> activation(Value value, tfl::ActivationFunctionType act,
                              int32_t outIndex, Location loc);
  /// Brings \p value (the result of a same-shape op on a quantized tensor
  /// \p from) to the quantization of tensor \p to, if they differ.
  FailureOr<Value> requantize(Value value, int32_t from, int32_t to,
                              Location loc);
  /// Dequantizes integer \p value (tensor \p index) to f32.
  Value dequantize(Value value, int32_t index, Location loc);
  /// Quantizes f32 \p value to tensor \p index's type and parameters.
  Value quantize(Value value, int32_t index, Location loc);
  /// Computes explicit TOSA padding for one spatial dimension, slicing of the
  /// input when TFLite's output size needs fewer rows than stride math gives.
  LogicalResult spatialPadding(int64_t in, int64_t out, int64_t kernel,
                               int64_t stride, int64_t dilation,
                               tfl::Padding padding, int64_t &before,
                               int64_t &after, int64_t &usedIn);
  /// Slices \p value [N, H, W, C] to [N, h, w, C] if smaller.
  Value sliceSpatial(Value value, int64_t h, int64_t w, Location loc);

  //===--------------------------------------------------------------------===//
  // Operators
  //===--------------------------------------------------------------------===//

  /// Converts operator \p op (dispatches on its builtin code).
  LogicalResult importOperator(const tfl::Operator *op);
  /// CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED.
  LogicalResult convLike(const tfl::Operator *op, bool depthwise,
                         bool fullyConnected);
  /// ADD and MUL.
  LogicalResult binary(const tfl::Operator *op, bool isMul);
  /// CONCATENATION.
  LogicalResult concatenation(const tfl::Operator *op);
  /// AVERAGE_POOL_2D and MAX_POOL_2D.
  LogicalResult pool(const tfl::Operator *op, bool isAverage);
  /// RESHAPE.
  LogicalResult reshapeOp(const tfl::Operator *op);
  /// SOFTMAX.
  LogicalResult softmax(const tfl::Operator *op);
  /// QUANTIZE.
  LogicalResult quantizeOp(const tfl::Operator *op);
  /// DEQUANTIZE.
  LogicalResult dequantizeOp(const tfl::Operator *op);
  /// RELU and RELU6.
  LogicalResult reluOp(const tfl::Operator *op, bool six);
  /// PAD and PADV2.
  LogicalResult pad(const tfl::Operator *op, bool v2);
  /// TRANSPOSE.
  LogicalResult transpose(const tfl::Operator *op);
  /// MEAN.
  LogicalResult mean(const tfl::Operator *op);
  /// SVDF (stateful: adds an argument and a result to the function).
  LogicalResult svdf(const tfl::Operator *op);

  /// Checks that \p op has between \p minIn and \p maxIn inputs and exactly
  /// \p numOut outputs, all valid (optional inputs at or after \p minIn may
  /// be -1).
  LogicalResult checkArity(const tfl::Operator *op, unsigned minIn,
                           unsigned maxIn, unsigned numOut);
  /// Input \p i of \p op (-1 when absent).
  int32_t input(const tfl::Operator *op, unsigned i) {
    return i < op->inputs()->size() ? op->inputs()->Get(i) : -1;
  }
  /// Output \p i of \p op.
  int32_t output(const tfl::Operator *op, unsigned i = 0) {
    return op->outputs()->Get(i);
  }
  /// Records \p value as tensor \p index.
  LogicalResult define(int32_t index, Value value);

  /// The verified model, its file name (for locations) and the context.
  const tfl::Model *model;
  StringRef fileName;
  MLIRContext *context;
  /// Builds the function body.
  OpBuilder builder;
  TFLiteImportOptions options;
  /// The imported subgraph (the first and only one) and its tensors.
  const tfl::SubGraph *subgraph = nullptr;
  const flatbuffers::Vector<flatbuffers::Offset<tfl::Tensor>> *tensors =
      nullptr;

  /// Per tensor: the checked type, whether checked, and the current value.
  SmallVector<RankedTensorType> types;
  SmallVector<bool> checked;
  SmallVector<Value> values;
  /// SVDF state tensors: extra arguments and their updated values.
  SmallVector<int32_t> stateTensors;
  SmallVector<Value> stateResults;

  /// The operator being converted.
  unsigned opIndex = 0;
  std::string opName;
  /// The name of its first output, for diagnostics.
  std::string opOutput;
  /// False while the graph's inputs and outputs are read.
  bool inOperator = false;
};

} // namespace

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

std::string TFLiteImporter::tensorName(int32_t index) {
  const tfl::Tensor *tensor = tensors->Get(index);
  if (tensor->name() && tensor->name()->size())
    return tensor->name()->str();
  return "tensor_" + std::to_string(index);
}

Location TFLiteImporter::tensorLoc(int32_t index, StringRef suffix) {
  std::string name = tensorName(index);
  if (!suffix.empty())
    name += ("#" + suffix).str();
  return NameLoc::get(StringAttr::get(context, name));
}

LogicalResult TFLiteImporter::checkTensor(int32_t index) {
  if (index < 0 || static_cast<uint32_t>(index) >= tensors->size())
    return opError() << "tensor index " << index << " out of range ("
                     << tensors->size() << " tensors)";
  if (checked[index])
    return success();
  const tfl::Tensor *tensor = tensors->Get(index);
  std::string name = tensorName(index);
  if (tensor->sparsity())
    return opError() << "tensor " << index << " '" << name
                     << "' is sparse (not supported)";
  if (!tensor->shape() && !tensor->has_rank() && tensor->shape_signature())
    return opError() << "tensor " << index << " '" << name
                     << "' has an unknown rank";
  SmallVector<int64_t> shape;
  int64_t elements = 1;
  if (const auto *dims = tensor->shape()) {
    if (dims->size() > 8)
      return opError() << "tensor " << index << " '" << name << "' has rank "
                       << dims->size() << " (at most 8 supported)";
    for (int32_t d : *dims) {
      if (d < 0)
        return opError() << "tensor " << index << " '" << name
                         << "' has a dynamic shape";
      shape.push_back(d);
      if (d != 0 && elements > kMaxElements / d)
        return opError() << "tensor " << index << " '" << name
                         << "' is too large";
      elements *= d;
    }
  }
  // A -1 anywhere but the batch dimension of the signature is a dynamic
  // dimension the file does not fix.
  if (const auto *sig = tensor->shape_signature()) {
    for (unsigned i = 1; i < sig->size(); ++i)
      if (sig->Get(i) < 0)
        return opError() << "tensor " << index << " '" << name
                         << "' has a dynamic shape (dimension " << i << ")";
  }
  Type elementType;
  switch (tensor->type()) {
  case tfl::TensorType::FLOAT32:
    elementType = builder.getF32Type();
    break;
  case tfl::TensorType::FLOAT16:
    elementType = builder.getF16Type();
    break;
  case tfl::TensorType::INT32:
    elementType = builder.getI32Type();
    break;
  case tfl::TensorType::INT8:
    elementType = builder.getI8Type();
    break;
  case tfl::TensorType::INT16:
    elementType = builder.getI16Type();
    break;
  case tfl::TensorType::INT64:
    elementType = builder.getI64Type();
    break;
  case tfl::TensorType::BOOL:
    elementType = builder.getI1Type();
    break;
  default:
    return opError() << "tensor " << index << " '" << name
                     << "' has unsupported element type "
                     << static_cast<int>(tensor->type());
  }
  if (tensor->is_variable() && elementType.isInteger(1))
    return opError() << "tensor " << index << " '" << name
                     << "' is an unsupported variable";
  types[index] = RankedTensorType::get(shape, elementType);
  checked[index] = true;
  return success();
}

std::optional<ArrayRef<char>> TFLiteImporter::constantData(int32_t index) {
  uint32_t buffer = tensors->Get(index)->buffer();
  if (buffer == 0 || !model->buffers() || buffer >= model->buffers()->size())
    return std::nullopt;
  const tfl::Buffer *b = model->buffers()->Get(buffer);
  if (!b || !b->data() || b->data()->size() == 0)
    return std::nullopt;
  return ArrayRef<char>(reinterpret_cast<const char *>(b->data()->data()),
                        b->data()->size());
}

FailureOr<Value>
TFLiteImporter::getValue(int32_t index,
                         std::optional<ArrayRef<int64_t>> shape) {
  if (failed(checkTensor(index)))
    return failure();
  RankedTensorType type = tensorType(index);
  if (shape) {
    RankedTensorType newType =
        RankedTensorType::get(*shape, type.getElementType());
    if (newType.getNumElements() != type.getNumElements())
      return opError() << "tensor " << index << " '" << tensorName(index)
                       << "' has " << type.getNumElements()
                       << " elements, expected " << newType.getNumElements();
    if (values[index])
      return reshape(values[index], *shape, tensorLoc(index));
    type = newType;
  } else if (values[index]) {
    return values[index];
  }
  std::optional<ArrayRef<char>> data = constantData(index);
  if (tensors->Get(index)->buffer() != 0 && model->buffers() &&
      tensors->Get(index)->buffer() >= model->buffers()->size())
    return opError() << "tensor " << index << " '" << tensorName(index)
                     << "' refers to buffer " << tensors->Get(index)->buffer()
                     << " out of range";
  if (!data)
    return opError() << "tensor " << index << " '" << tensorName(index)
                     << "' is used before it is defined and has no data";
  if (type.getElementType().isInteger(1))
    return opError() << "tensor " << index << " '" << tensorName(index)
                     << "' is a boolean constant (not supported)";
  int64_t bytes = type.getNumElements() *
                  (type.getElementType().getIntOrFloatBitWidth() / 8);
  if (static_cast<int64_t>(data->size()) != bytes)
    return opError() << "tensor " << index << " '" << tensorName(index)
                     << "' has " << data->size() << " bytes of data, expected "
                     << bytes;
  DenseElementsAttr attr = DenseElementsAttr::getFromRawBuffer(type, *data);
  Value constant =
      create("tosa.const", type, {}, {builder.getNamedAttr("values", attr)},
             tensorLoc(index));
  if (!shape)
    values[index] = constant;
  return constant;
}

LogicalResult
TFLiteImporter::readIntConstant(int32_t index,
                                SmallVectorImpl<int64_t> &result) {
  if (failed(checkTensor(index)))
    return failure();
  std::optional<ArrayRef<char>> data = constantData(index);
  Type elt = tensorType(index).getElementType();
  if (!data || !(elt.isInteger(32) || elt.isInteger(64)))
    return opError() << "tensor " << index << " '" << tensorName(index)
                     << "' must be a constant i32 or i64 tensor";
  unsigned width = elt.getIntOrFloatBitWidth() / 8;
  int64_t count = tensorType(index).getNumElements();
  if (static_cast<int64_t>(data->size()) != count * width)
    return opError() << "tensor " << index << " '" << tensorName(index)
                     << "' has " << data->size() << " bytes of data, expected "
                     << count * width;
  for (int64_t i = 0; i < count; ++i) {
    if (width == 4)
      result.push_back(static_cast<int32_t>(
          llvm::support::endian::read32le(data->data() + 4 * i)));
    else
      result.push_back(static_cast<int64_t>(
          llvm::support::endian::read64le(data->data() + 8 * i)));
  }
  return success();
}

QuantParams TFLiteImporter::quant(int32_t index) {
  QuantParams q;
  const tfl::QuantizationParameters *p = tensors->Get(index)->quantization();
  if (!p || !p->scale() || p->scale()->size() == 0)
    return q;
  for (float s : *p->scale())
    q.scales.push_back(s);
  if (p->zero_point())
    for (int64_t z : *p->zero_point())
      q.zeroPoints.push_back(z);
  q.dimension = p->quantized_dimension();
  return q;
}

//===----------------------------------------------------------------------===//
// TOSA helpers
//===----------------------------------------------------------------------===//

Value TFLiteImporter::create(StringRef name, Type type, ValueRange operands,
                             ArrayRef<NamedAttribute> attrs, Location loc) {
  OperationState state(loc, name);
  state.addOperands(operands);
  state.addTypes(type);
  state.addAttributes(attrs);
  return builder.create(state)->getResult(0);
}

Value TFLiteImporter::scalarConst(Type elementType, double value,
                                  Location loc) {
  auto type = RankedTensorType::get({1}, elementType);
  Attribute element;
  if (isa<FloatType>(elementType))
    element = builder.getFloatAttr(elementType, value);
  else
    element = builder.getIntegerAttr(elementType, static_cast<int64_t>(value));
  return create(
      "tosa.const", type, {},
      {builder.getNamedAttr("values", DenseElementsAttr::get(type, element))},
      loc);
}

Value TFLiteImporter::shapeConst(ArrayRef<int64_t> shape, Location loc) {
  auto attrType = RankedTensorType::get({static_cast<int64_t>(shape.size())},
                                        builder.getIndexType());
  return create("tosa.const_shape",
                tosa::shapeType::get(context, static_cast<int>(shape.size())),
                {},
                {builder.getNamedAttr(
                    "values", DenseIntElementsAttr::get(attrType, shape))},
                loc);
}

Value TFLiteImporter::reshape(Value value, ArrayRef<int64_t> shape,
                              Location loc) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  return create("tosa.reshape",
                RankedTensorType::get(shape, type.getElementType()),
                {value, shapeConst(shape, loc)}, {}, loc);
}

FailureOr<Value> TFLiteImporter::rescale(Value value,
                                         RankedTensorType resultType,
                                         ArrayRef<double> scales,
                                         int64_t inputZp, int64_t outputZp,
                                         Location loc) {
  SmallVector<int32_t> multipliers;
  SmallVector<int8_t> shifts;
  for (double scale : scales) {
    int32_t m, s;
    if (failed(computeMultiplier(scale, m, s)))
      return opError() << "cannot represent the requantization factor " << scale
                       << " as a TOSA rescale";
    multipliers.push_back(m);
    shifts.push_back(static_cast<int8_t>(s));
  }
  Type inElt = cast<RankedTensorType>(value.getType()).getElementType();
  Type outElt = resultType.getElementType();
  Type i32 = builder.getI32Type();
  ArrayRef<int64_t> shape = resultType.getShape();
  SmallVector<int64_t> ones(shape.size(), 1);
  // TOSA takes zero points only on i8 operands: others go through i32 with
  // an explicit subtraction or addition (and a clamp before narrowing).
  if (inputZp != 0 && !inElt.isInteger(8)) {
    if (!isa<IntegerType>(inElt) || inElt.getIntOrFloatBitWidth() > 32)
      return opError() << "zero point " << inputZp << " on a " << inElt
                       << " tensor is not supported";
    auto wideType = RankedTensorType::get(
        cast<RankedTensorType>(value.getType()).getShape(), i32);
    FailureOr<Value> wide = rescale(value, wideType, {1.0}, 0, 0, loc);
    if (failed(wide))
      return failure();
    Value centered = create(
        "tosa.sub", wideType,
        {*wide, reshape(scalarConst(i32, static_cast<double>(inputZp), loc),
                        ones, loc)},
        {}, loc);
    return rescale(centered, resultType, scales, 0, outputZp, loc);
  }
  if (outputZp != 0 && !outElt.isInteger(8)) {
    if (!isa<IntegerType>(outElt) || outElt.getIntOrFloatBitWidth() > 32)
      return opError() << "zero point " << outputZp << " on a " << outElt
                       << " tensor is not supported";
    auto wideType = RankedTensorType::get(shape, i32);
    FailureOr<Value> wide = rescale(value, wideType, scales, inputZp, 0, loc);
    if (failed(wide))
      return failure();
    Value shifted = create(
        "tosa.add", wideType,
        {*wide, reshape(scalarConst(i32, static_cast<double>(outputZp), loc),
                        ones, loc)},
        {}, loc);
    if (outElt.isInteger(32))
      return shifted;
    unsigned width = outElt.getIntOrFloatBitWidth();
    Value clamped = create(
        "tosa.clamp", wideType, {shifted},
        {builder.getNamedAttr(
             "min_val",
             builder.getIntegerAttr(i32, -(int64_t(1) << (width - 1)))),
         builder.getNamedAttr(
             "max_val",
             builder.getIntegerAttr(i32, (int64_t(1) << (width - 1)) - 1))},
        loc);
    return create("tosa.cast", resultType, {clamped}, {}, loc);
  }
  auto n = static_cast<int64_t>(scales.size());
  auto mType = RankedTensorType::get({n}, builder.getI32Type());
  auto sType = RankedTensorType::get({n}, builder.getI8Type());
  Value mult =
      create("tosa.const", mType, {},
             {builder.getNamedAttr("values",
                                   DenseElementsAttr::get(
                                       mType, ArrayRef<int32_t>(multipliers)))},
             loc);
  Value shift = create(
      "tosa.const", sType, {},
      {builder.getNamedAttr(
          "values", DenseElementsAttr::get(sType, ArrayRef<int8_t>(shifts)))},
      loc);
  Value izp = scalarConst(inElt, static_cast<double>(inputZp), loc);
  Value ozp = scalarConst(outElt, static_cast<double>(outputZp), loc);
  return create(
      "tosa.rescale", resultType, {value, mult, shift, izp, ozp},
      {builder.getNamedAttr("scale32", builder.getBoolAttr(true)),
       builder.getNamedAttr(
           "rounding_mode",
           tosa::RoundingModeAttr::get(context,
                                       options.doubleRound
                                           ? tosa::RoundingMode::DOUBLE_ROUND
                                           : tosa::RoundingMode::SINGLE_ROUND)),
       builder.getNamedAttr("per_channel", builder.getBoolAttr(n > 1)),
       builder.getNamedAttr("input_unsigned", builder.getBoolAttr(false)),
       builder.getNamedAttr("output_unsigned", builder.getBoolAttr(false))},
      loc);
}

FailureOr<Value> TFLiteImporter::activation(Value value,
                                            tfl::ActivationFunctionType act,
                                            int32_t outIndex, Location loc) {
  if (act == tfl::ActivationFunctionType::NONE)
    return value;
  double lo, hi;
  switch (act) {
  case tfl::ActivationFunctionType::RELU:
    lo = 0;
    hi = INFINITY;
    break;
  case tfl::ActivationFunctionType::RELU6:
    lo = 0;
    hi = 6;
    break;
  case tfl::ActivationFunctionType::RELU_N1_TO_1:
    lo = -1;
    hi = 1;
    break;
  default:
    return opError() << "unsupported fused activation "
                     << static_cast<int>(act);
  }
  auto type = cast<RankedTensorType>(value.getType());
  Type elt = type.getElementType();
  Attribute minAttr, maxAttr;
  if (isa<FloatType>(elt)) {
    if (!elt.isF32())
      return opError() << "fused activation on " << elt << " not supported";
    minAttr = builder.getF32FloatAttr(lo);
    maxAttr = builder.getF32FloatAttr(std::isinf(hi) ? 3.40282347e+38f
                                                     : static_cast<float>(hi));
  } else {
    unsigned width = elt.getIntOrFloatBitWidth();
    int64_t qmin = -(int64_t(1) << (width - 1));
    int64_t qmax = (int64_t(1) << (width - 1)) - 1;
    QuantParams q = quant(outIndex);
    if (!q.present() || !(q.scale() > 0))
      return opError() << "fused activation needs the output's scale";
    int64_t zp = q.zeroPoint();
    auto quantize = [&](double x) {
      return zp + static_cast<int64_t>(std::round(x / q.scale()));
    };
    qmin = std::max(qmin, quantize(lo));
    if (!std::isinf(hi))
      qmax = std::min(qmax, quantize(hi));
    if (qmin > qmax)
      qmin = qmax;
    minAttr = builder.getIntegerAttr(elt, qmin);
    maxAttr = builder.getIntegerAttr(elt, qmax);
  }
  return create("tosa.clamp", type, {value},
                {builder.getNamedAttr("min_val", minAttr),
                 builder.getNamedAttr("max_val", maxAttr)},
                loc);
}

FailureOr<Value> TFLiteImporter::requantize(Value value, int32_t from,
                                            int32_t to, Location loc) {
  if (!isQuantized(from) && !isQuantized(to))
    return value;
  QuantParams qf = quant(from), qt = quant(to);
  if (qf.scales.size() > 1 || qt.scales.size() > 1)
    return opError() << "per-channel activations are not supported";
  if (qf.scale() == qt.scale() && qf.zeroPoint() == qt.zeroPoint() &&
      tensorType(from).getElementType() == tensorType(to).getElementType())
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  return rescale(
      value,
      RankedTensorType::get(type.getShape(), tensorType(to).getElementType()),
      {qf.scale() / qt.scale()}, qf.zeroPoint(), qt.zeroPoint(), loc);
}

Value TFLiteImporter::dequantize(Value value, int32_t index, Location loc) {
  auto type = cast<RankedTensorType>(value.getType());
  auto fType = RankedTensorType::get(type.getShape(), builder.getF32Type());
  QuantParams q = quant(index);
  Value f = create("tosa.cast", fType, {value}, {}, loc);
  if (q.zeroPoint() != 0)
    f = create("tosa.sub", fType,
               {f, reshape(scalarConst(builder.getF32Type(),
                                       static_cast<double>(q.zeroPoint()), loc),
                           SmallVector<int64_t>(type.getRank(), 1), loc)},
               {}, loc);
  Value scale = reshape(scalarConst(builder.getF32Type(), q.scale(), loc),
                        SmallVector<int64_t>(type.getRank(), 1), loc);
  return create("tosa.mul", fType,
                {f, scale, scalarConst(builder.getI8Type(), 0, loc)}, {}, loc);
}

Value TFLiteImporter::quantize(Value value, int32_t index, Location loc) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> ones(type.getRank(), 1);
  QuantParams q = quant(index);
  Value inv = reshape(scalarConst(builder.getF32Type(), 1.0 / q.scale(), loc),
                      ones, loc);
  Value f =
      create("tosa.mul", type,
             {value, inv, scalarConst(builder.getI8Type(), 0, loc)}, {}, loc);
  if (q.zeroPoint() != 0)
    f = create("tosa.add", type,
               {f, reshape(scalarConst(builder.getF32Type(),
                                       static_cast<double>(q.zeroPoint()), loc),
                           ones, loc)},
               {}, loc);
  return create("tosa.cast",
                RankedTensorType::get(type.getShape(),
                                      tensorType(index).getElementType()),
                {f}, {}, loc);
}

LogicalResult TFLiteImporter::spatialPadding(
    int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t dilation,
    tfl::Padding padding, int64_t &before, int64_t &after, int64_t &usedIn) {
  if (stride <= 0 || dilation <= 0 || kernel <= 0 || stride > (1 << 16) ||
      dilation > (1 << 16) || kernel > (1 << 16))
    return opError() << "invalid stride " << stride << ", dilation " << dilation
                     << " or kernel size " << kernel;
  int64_t effective = (kernel - 1) * dilation + 1;
  int64_t expected = padding == tfl::Padding::SAME
                         ? (in + stride - 1) / stride
                         : (in - effective + stride) / stride;
  if (expected <= 0 || expected != out)
    return opError() << "output size " << out << " does not match input size "
                     << in << " with kernel " << kernel << ", stride " << stride
                     << (padding == tfl::Padding::SAME ? " (SAME)" : " (VALID)")
                     << " (expected " << expected << ")";
  int64_t total = 0;
  if (padding == tfl::Padding::SAME)
    total = std::max<int64_t>((out - 1) * stride + effective - in, 0);
  before = total / 2;
  // TOSA wants (in - 1 + pads - (kernel - 1) * dilation) == (out - 1) *
  // stride exactly; drop input rows that no output reads.
  after = (out - 1) * stride + effective - in - before;
  usedIn = in;
  if (after < 0) {
    usedIn = in + after;
    after = 0;
  }
  return success();
}

Value TFLiteImporter::sliceSpatial(Value value, int64_t h, int64_t w,
                                   Location loc) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getDimSize(1) == h && type.getDimSize(2) == w)
    return value;
  SmallVector<int64_t> size = {type.getDimSize(0), h, w, type.getDimSize(3)};
  return create(
      "tosa.slice", RankedTensorType::get(size, type.getElementType()),
      {value, shapeConst({0, 0, 0, 0}, loc), shapeConst(size, loc)}, {}, loc);
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

LogicalResult TFLiteImporter::checkArity(const tfl::Operator *op,
                                         unsigned minIn, unsigned maxIn,
                                         unsigned numOut) {
  unsigned nIn = op->inputs() ? op->inputs()->size() : 0;
  unsigned nOut = op->outputs() ? op->outputs()->size() : 0;
  if (nIn < minIn || nIn > maxIn)
    return opError() << "expected " << minIn
                     << (minIn == maxIn ? "" : " to " + std::to_string(maxIn))
                     << " inputs, got " << nIn;
  if (nOut != numOut)
    return opError() << "expected " << numOut << " outputs, got " << nOut;
  for (unsigned i = 0; i < nIn; ++i) {
    int32_t t = op->inputs()->Get(i);
    if (t == -1 && i >= minIn)
      continue;
    if (failed(checkTensor(t)))
      return failure();
  }
  for (unsigned i = 0; i < nOut; ++i)
    if (failed(checkTensor(op->outputs()->Get(i))))
      return failure();
  return success();
}

LogicalResult TFLiteImporter::define(int32_t index, Value value) {
  if (values[index] || constantData(index))
    return opError() << "tensor " << index << " '" << tensorName(index)
                     << "' is written twice";
  auto type = cast<RankedTensorType>(value.getType());
  if (type != tensorType(index))
    return opError() << "computed " << type << " for tensor " << index << " '"
                     << tensorName(index) << "' of type " << tensorType(index);
  values[index] = value;
  return success();
}

LogicalResult TFLiteImporter::convLike(const tfl::Operator *op, bool depthwise,
                                       bool fullyConnected) {
  if (failed(checkArity(op, 2, 3, 1)))
    return failure();
  int32_t in = input(op, 0), filter = input(op, 1), bias = input(op, 2),
          out = output(op);
  RankedTensorType inType = tensorType(in), outType = tensorType(out),
                   fType = tensorType(filter);
  Type inElt = inType.getElementType();
  bool quantized = inElt.isInteger(8);
  if (!(inElt.isF32() || quantized))
    return opError() << "unsupported input type " << inElt;
  if (fType.getElementType() != inElt || outType.getElementType() != inElt)
    return opError() << "input, filter and output types differ";
  if (quantized &&
      (!isQuantized(in) || !isQuantized(filter) || !isQuantized(out)))
    return opError() << "int8 tensors without quantization parameters";
  Type accElt = quantized ? Type(builder.getI32Type()) : builder.getF32Type();
  Location loc = tensorLoc(out);
  Location accLoc = tensorLoc(out, quantized ? "acc" : "conv");

  // Input as NHWC, filter in TOSA's layout.
  Value x;
  SmallVector<int64_t> filterShape;
  int64_t oc;
  SmallVector<int64_t> accShape;
  if (fullyConnected) {
    if (fType.getRank() != 2)
      return opError() << "filter must have rank 2";
    oc = fType.getDimSize(0);
    int64_t ic = fType.getDimSize(1);
    if (ic <= 0 || inType.getNumElements() % ic != 0)
      return opError() << "input of " << inType.getNumElements()
                       << " elements is not a multiple of " << ic;
    int64_t batch = inType.getNumElements() / ic;
    if (outType.getNumElements() != batch * oc)
      return opError() << "output " << outType << " does not hold " << batch
                       << "x" << oc << " elements";
    FailureOr<Value> xv = getValue(in);
    if (failed(xv))
      return failure();
    x = reshape(*xv, {batch, 1, 1, ic}, tensorLoc(out, "flatten"));
    filterShape = {oc, 1, 1, ic};
    accShape = {batch, 1, 1, oc};
  } else {
    if (inType.getRank() != 4 || fType.getRank() != 4 || outType.getRank() != 4)
      return opError() << "input, filter and output must have rank 4";
    FailureOr<Value> xv = getValue(in);
    if (failed(xv))
      return failure();
    x = *xv;
    int64_t c = inType.getDimSize(3);
    if (depthwise) {
      if (fType.getDimSize(0) != 1)
        return opError() << "depthwise filter must have shape [1, KH, KW, C*M]";
      oc = fType.getDimSize(3);
      if (c <= 0 || oc % c != 0)
        return opError() << "depthwise filter channels " << oc
                         << " are not a multiple of the input channels " << c;
      filterShape = {fType.getDimSize(1), fType.getDimSize(2), c, oc / c};
    } else {
      oc = fType.getDimSize(0);
      if (fType.getDimSize(3) != c)
        return opError() << "filter input channels " << fType.getDimSize(3)
                         << " differ from the input's " << c;
      filterShape = llvm::to_vector(fType.getShape());
    }
    if (outType.getDimSize(3) != oc ||
        outType.getDimSize(0) != inType.getDimSize(0))
      return opError() << "output " << outType << " does not match " << oc
                       << " output channels";
    accShape = llvm::to_vector(outType.getShape());
  }
  FailureOr<Value> w = getValue(filter, ArrayRef<int64_t>(filterShape));
  if (failed(w))
    return failure();

  // Bias: given, or zeros.
  Value b;
  Type biasElt = quantized ? Type(builder.getI32Type()) : builder.getF32Type();
  if (bias >= 0) {
    if (tensorType(bias).getElementType() != biasElt ||
        tensorType(bias).getNumElements() != oc)
      return opError() << "bias must be " << oc << " values of " << biasElt;
    FailureOr<Value> bv = getValue(bias, ArrayRef<int64_t>{oc});
    if (failed(bv))
      return failure();
    b = *bv;
  } else {
    auto bType = RankedTensorType::get({oc}, biasElt);
    b = create(
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
  QuantParams qi = quant(in), qf = quant(filter), qo = quant(out);
  if (quantized) {
    if (qi.scales.size() != 1 || qo.scales.size() != 1)
      return opError() << "input and output must be per-tensor quantized";
    if (qf.scales.size() != 1 && static_cast<int64_t>(qf.scales.size()) != oc)
      return opError() << "filter has " << qf.scales.size() << " scales for "
                       << oc << " output channels";
    for (int64_t z : qf.zeroPoints)
      if (z != 0 && qf.scales.size() != 1)
        return opError() << "per-channel filter zero points must be 0";
  }
  double izpVal = quantized ? static_cast<double>(qi.zeroPoint()) : 0.0;
  double wzpVal = quantized ? static_cast<double>(qf.zeroPoint()) : 0.0;
  if (quantized &&
      (izpVal < -128 || izpVal > 127 || wzpVal < -128 || wzpVal > 127))
    return opError() << "zero point out of the int8 range";
  Value izp = scalarConst(inElt, izpVal, accLoc);
  Value wzp = scalarConst(inElt, wzpVal, accLoc);

  // Strides, padding.
  SmallVector<int64_t> pad = {0, 0, 0, 0}, stride = {1, 1}, dilation = {1, 1};
  tfl::ActivationFunctionType act = tfl::ActivationFunctionType::NONE;
  if (fullyConnected) {
    if (const auto *o = op->builtin_options_as_FullyConnectedOptions()) {
      act = o->fused_activation_function();
      if (o->weights_format() != 0)
        return opError() << "shuffled fully connected weights not supported";
    }
  } else {
    tfl::Padding padding = tfl::Padding::SAME;
    if (depthwise) {
      const auto *o = op->builtin_options_as_DepthwiseConv2DOptions();
      if (!o)
        return opError() << "missing DepthwiseConv2DOptions";
      padding = o->padding();
      stride = {o->stride_h(), o->stride_w()};
      dilation = {o->dilation_h_factor(), o->dilation_w_factor()};
      act = o->fused_activation_function();
    } else {
      const auto *o = op->builtin_options_as_Conv2DOptions();
      if (!o)
        return opError() << "missing Conv2DOptions";
      padding = o->padding();
      stride = {o->stride_h(), o->stride_w()};
      dilation = {o->dilation_h_factor(), o->dilation_w_factor()};
      act = o->fused_activation_function();
    }
    int64_t usedH, usedW;
    if (failed(spatialPadding(inType.getDimSize(1), outType.getDimSize(1),
                              filterShape[depthwise ? 0 : 1], stride[0],
                              dilation[0], padding, pad[0], pad[1], usedH)) ||
        failed(spatialPadding(inType.getDimSize(2), outType.getDimSize(2),
                              filterShape[depthwise ? 1 : 2], stride[1],
                              dilation[1], padding, pad[2], pad[3], usedW)))
      return failure();
    x = sliceSpatial(x, usedH, usedW, tensorLoc(out, "slice"));
  }

  auto accType = RankedTensorType::get(accShape, accElt);
  Value acc = create(
      depthwise ? "tosa.depthwise_conv2d" : "tosa.conv2d", accType,
      {x, *w, b, izp, wzp},
      {builder.getNamedAttr("acc_type", TypeAttr::get(accElt)),
       builder.getNamedAttr("pad", builder.getDenseI64ArrayAttr(pad)),
       builder.getNamedAttr("stride", builder.getDenseI64ArrayAttr(stride)),
       builder.getNamedAttr("dilation",
                            builder.getDenseI64ArrayAttr(dilation))},
      quantized || act != tfl::ActivationFunctionType::NONE || fullyConnected
          ? accLoc
          : loc);
  Value result = acc;
  if (quantized) {
    SmallVector<double> scales;
    for (double s : qf.scales)
      scales.push_back(qi.scale() * s / qo.scale());
    FailureOr<Value> r = rescale(
        acc, RankedTensorType::get(accShape, inElt), scales, 0, qo.zeroPoint(),
        act != tfl::ActivationFunctionType::NONE || fullyConnected
            ? tensorLoc(out, "rescale")
            : loc);
    if (failed(r))
      return failure();
    result = *r;
  }
  FailureOr<Value> activated = activation(
      result, act, out, fullyConnected ? tensorLoc(out, "act") : loc);
  if (failed(activated))
    return failure();
  result = *activated;
  if (fullyConnected)
    result = reshape(result, outType.getShape(), loc);
  return define(out, result);
}

LogicalResult TFLiteImporter::binary(const tfl::Operator *op, bool isMul) {
  if (failed(checkArity(op, 2, 2, 1)))
    return failure();
  int32_t a = input(op, 0), b = input(op, 1), out = output(op);
  RankedTensorType outType = tensorType(out);
  Type elt = outType.getElementType();
  if (tensorType(a).getElementType() != elt ||
      tensorType(b).getElementType() != elt)
    return opError() << "operand and result types differ";
  if (!(elt.isF32() || elt.isInteger(8)))
    return opError() << "unsupported element type " << elt;
  tfl::ActivationFunctionType act = tfl::ActivationFunctionType::NONE;
  if (isMul) {
    if (const auto *o = op->builtin_options_as_MulOptions())
      act = o->fused_activation_function();
  } else if (const auto *o = op->builtin_options_as_AddOptions()) {
    act = o->fused_activation_function();
  }
  Location loc = tensorLoc(out);
  int64_t rank = outType.getRank();
  // Operands to the output's rank (leading ones), as TOSA broadcasts only
  // between equal ranks.
  auto operand = [&](int32_t t) -> FailureOr<Value> {
    FailureOr<Value> v = getValue(t);
    if (failed(v))
      return failure();
    ArrayRef<int64_t> shape = shapeOf(t);
    if (static_cast<int64_t>(shape.size()) > rank)
      return opError() << "operand rank exceeds the result's";
    SmallVector<int64_t> full(rank - shape.size(), 1);
    llvm::append_range(full, shape);
    for (int64_t i = 0; i < rank; ++i)
      if (full[i] != outType.getDimSize(i) && full[i] != 1)
        return opError() << "operand shape does not broadcast to the result";
    return reshape(*v, full, tensorLoc(out, "broadcast"));
  };
  FailureOr<Value> va = operand(a), vb = operand(b);
  if (failed(va) || failed(vb))
    return failure();
  bool quantized = elt.isInteger(8);
  Location innerLoc = quantized || act != tfl::ActivationFunctionType::NONE
                          ? tensorLoc(out, isMul ? "mul" : "add")
                          : loc;
  auto shapeLike = [&](Value v, Type e) {
    return RankedTensorType::get(cast<RankedTensorType>(v.getType()).getShape(),
                                 e);
  };
  Value result;
  if (!quantized) {
    if (isMul)
      result = create("tosa.mul", outType,
                      {*va, *vb, scalarConst(builder.getI8Type(), 0, innerLoc)},
                      {}, innerLoc);
    else
      result = create("tosa.add", outType, {*va, *vb}, {}, innerLoc);
  } else {
    QuantParams qa = quant(a), qb = quant(b), qo = quant(out);
    if (qa.scales.size() != 1 || qb.scales.size() != 1 || qo.scales.size() != 1)
      return opError() << "operands and result must be per-tensor quantized";
    Type i32 = builder.getI32Type();
    auto accType = RankedTensorType::get(outType.getShape(), i32);
    if (isMul) {
      // (a - za) * (b - zb) in i32, then one rescale by sa * sb / so.
      FailureOr<Value> ra = rescale(*va, shapeLike(*va, i32), {1.0},
                                    qa.zeroPoint(), 0, tensorLoc(out, "lhs"));
      FailureOr<Value> rb = rescale(*vb, shapeLike(*vb, i32), {1.0},
                                    qb.zeroPoint(), 0, tensorLoc(out, "rhs"));
      if (failed(ra) || failed(rb))
        return failure();
      Value prod =
          create("tosa.mul", accType,
                 {*ra, *rb, scalarConst(builder.getI8Type(), 0, innerLoc)}, {},
                 innerLoc);
      FailureOr<Value> r = rescale(
          prod, outType, {qa.scale() * qb.scale() / qo.scale()}, 0,
          qo.zeroPoint(),
          act != tfl::ActivationFunctionType::NONE ? tensorLoc(out, "rescale")
                                                   : loc);
      if (failed(r))
        return failure();
      result = *r;
    } else {
      // TFLite's int8 add: both operands to a common scale 2 * max(sa, sb)
      // with 20 extra bits, add in i32, rescale to the output.
      double twiceMax = 2 * std::max(qa.scale(), qb.scale());
      double shift = double(1 << 20);
      FailureOr<Value> ra =
          rescale(*va, shapeLike(*va, i32), {qa.scale() / twiceMax * shift},
                  qa.zeroPoint(), 0, tensorLoc(out, "lhs"));
      FailureOr<Value> rb =
          rescale(*vb, shapeLike(*vb, i32), {qb.scale() / twiceMax * shift},
                  qb.zeroPoint(), 0, tensorLoc(out, "rhs"));
      if (failed(ra) || failed(rb))
        return failure();
      Value sum = create("tosa.add", accType, {*ra, *rb}, {}, innerLoc);
      FailureOr<Value> r = rescale(
          sum, outType, {twiceMax / (shift * qo.scale())}, 0, qo.zeroPoint(),
          act != tfl::ActivationFunctionType::NONE ? tensorLoc(out, "rescale")
                                                   : loc);
      if (failed(r))
        return failure();
      result = *r;
    }
  }
  FailureOr<Value> activated = activation(result, act, out, loc);
  if (failed(activated))
    return failure();
  return define(out, *activated);
}

LogicalResult TFLiteImporter::concatenation(const tfl::Operator *op) {
  unsigned n = op->inputs() ? op->inputs()->size() : 0;
  if (n == 0 || n > 1024 || failed(checkArity(op, n, n, 1)))
    return n == 0 || n > 1024 ? opError() << "expected 1 to 1024 inputs"
                              : failure();
  int32_t out = output(op);
  RankedTensorType outType = tensorType(out);
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
    return opError() << "axis " << axis << " out of range for rank " << rank;
  int64_t total = 0;
  SmallVector<Value> operands;
  for (unsigned i = 0; i < n; ++i) {
    int32_t t = input(op, i);
    RankedTensorType type = tensorType(t);
    if (type.getRank() != rank ||
        type.getElementType() != outType.getElementType())
      return opError() << "input " << i << " has type " << type
                       << ", incompatible with " << outType;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && type.getDimSize(d) != outType.getDimSize(d))
        return opError() << "input " << i << " has type " << type
                         << ", incompatible with " << outType;
    total += type.getDimSize(axis);
    FailureOr<Value> v = getValue(t);
    if (failed(v))
      return failure();
    FailureOr<Value> rq =
        requantize(*v, t, out, tensorLoc(out, "rescale" + std::to_string(i)));
    if (failed(rq))
      return failure();
    operands.push_back(*rq);
  }
  if (total != outType.getDimSize(axis))
    return opError() << "inputs do not add up to the output's dimension";
  Location loc = tensorLoc(out);
  Value result = create(
      "tosa.concat", outType, operands,
      {builder.getNamedAttr("axis", builder.getI32IntegerAttr(axis))},
      act == tfl::ActivationFunctionType::NONE ? loc
                                               : tensorLoc(out, "concat"));
  FailureOr<Value> activated = activation(result, act, out, loc);
  if (failed(activated))
    return failure();
  return define(out, *activated);
}

LogicalResult TFLiteImporter::pool(const tfl::Operator *op, bool isAverage) {
  if (failed(checkArity(op, 1, 1, 1)))
    return failure();
  int32_t in = input(op, 0), out = output(op);
  RankedTensorType inType = tensorType(in), outType = tensorType(out);
  Type elt = inType.getElementType();
  if (inType.getRank() != 4 || outType.getRank() != 4 ||
      outType.getElementType() != elt ||
      outType.getDimSize(0) != inType.getDimSize(0) ||
      outType.getDimSize(3) != inType.getDimSize(3))
    return opError() << "input " << inType << " and output " << outType
                     << " do not match";
  if (!(elt.isF32() || elt.isInteger(8)))
    return opError() << "unsupported element type " << elt;
  const auto *o = op->builtin_options_as_Pool2DOptions();
  if (!o)
    return opError() << "missing Pool2DOptions";
  SmallVector<int64_t> pad = {0, 0, 0, 0};
  SmallVector<int64_t> kernel = {o->filter_height(), o->filter_width()};
  SmallVector<int64_t> stride = {o->stride_h(), o->stride_w()};
  int64_t usedH, usedW;
  if (failed(spatialPadding(inType.getDimSize(1), outType.getDimSize(1),
                            kernel[0], stride[0], 1, o->padding(), pad[0],
                            pad[1], usedH)) ||
      failed(spatialPadding(inType.getDimSize(2), outType.getDimSize(2),
                            kernel[1], stride[1], 1, o->padding(), pad[2],
                            pad[3], usedW)))
    return failure();
  if (pad[0] >= kernel[0] || pad[1] >= kernel[0] || pad[2] >= kernel[1] ||
      pad[3] >= kernel[1])
    return opError() << "padding as large as the pooling window";
  FailureOr<Value> x = getValue(in);
  if (failed(x))
    return failure();
  Location loc = tensorLoc(out);
  bool quantized = elt.isInteger(8);
  bool extra =
      o->fused_activation_function() != tfl::ActivationFunctionType::NONE ||
      (quantized && (quant(in).scale() != quant(out).scale() ||
                     quant(in).zeroPoint() != quant(out).zeroPoint()));
  Location poolLoc = extra ? tensorLoc(out, "pool") : loc;
  Value v = sliceSpatial(*x, usedH, usedW, tensorLoc(out, "slice"));
  SmallVector<NamedAttribute> attrs = {
      builder.getNamedAttr("kernel", builder.getDenseI64ArrayAttr(kernel)),
      builder.getNamedAttr("stride", builder.getDenseI64ArrayAttr(stride)),
      builder.getNamedAttr("pad", builder.getDenseI64ArrayAttr(pad))};
  Value result;
  if (isAverage) {
    attrs.push_back(builder.getNamedAttr(
        "acc_type",
        TypeAttr::get(quantized ? Type(builder.getI32Type()) : elt)));
    double zp = quantized ? static_cast<double>(quant(in).zeroPoint()) : 0.0;
    result = create(
        "tosa.avg_pool2d", outType,
        {v, scalarConst(elt, zp, poolLoc), scalarConst(elt, zp, poolLoc)},
        attrs, poolLoc);
  } else {
    result = create("tosa.max_pool2d", outType, {v}, attrs, poolLoc);
  }
  if (quantized) {
    // The pooled value keeps the input's quantization.
    FailureOr<Value> rq =
        requantize(result, in, out, tensorLoc(out, "rescale"));
    if (failed(rq))
      return failure();
    result = *rq;
  }
  FailureOr<Value> activated =
      activation(result, o->fused_activation_function(), out, loc);
  if (failed(activated))
    return failure();
  return define(out, *activated);
}

LogicalResult TFLiteImporter::reshapeOp(const tfl::Operator *op) {
  if (failed(checkArity(op, 1, 2, 1)))
    return failure();
  int32_t in = input(op, 0), out = output(op);
  if (tensorType(in).getNumElements() != tensorType(out).getNumElements() ||
      tensorType(in).getElementType() != tensorType(out).getElementType())
    return opError() << "cannot reshape " << tensorType(in) << " to "
                     << tensorType(out);
  if (isQuantized(in) && (quant(in).scale() != quant(out).scale() ||
                          quant(in).zeroPoint() != quant(out).zeroPoint()))
    return opError() << "reshape changes the quantization";
  FailureOr<Value> x = getValue(in);
  if (failed(x))
    return failure();
  Value result = reshape(*x, tensorType(out).getShape(), tensorLoc(out));
  if (result == *x) // Same shape: keep a distinct value for the output.
    result =
        create("tosa.reshape", tensorType(out),
               {*x, shapeConst(tensorType(out).getShape(), tensorLoc(out))}, {},
               tensorLoc(out));
  return define(out, result);
}

LogicalResult TFLiteImporter::softmax(const tfl::Operator *op) {
  if (failed(checkArity(op, 1, 1, 1)))
    return failure();
  int32_t in = input(op, 0), out = output(op);
  RankedTensorType inType = tensorType(in), outType = tensorType(out);
  if (inType.getShape() != outType.getShape() || inType.getRank() == 0)
    return opError() << "input " << inType << " and output " << outType
                     << " do not match";
  Type inElt = inType.getElementType(), outElt = outType.getElementType();
  bool qIn = !isa<FloatType>(inElt), qOut = !isa<FloatType>(outElt);
  if ((!qIn && !inElt.isF32()) || (!qOut && !outElt.isF32()) ||
      (qIn && !isQuantized(in)) || (qOut && !isQuantized(out)))
    return opError() << "unsupported types " << inElt << " -> " << outElt;
  double beta = 1.0;
  if (const auto *o = op->builtin_options_as_SoftmaxOptions())
    beta = o->beta();
  FailureOr<Value> x = getValue(in);
  if (failed(x))
    return failure();
  Location loc = tensorLoc(out), inner = tensorLoc(out, "softmax");
  Value v = *x;
  if (qIn)
    v = dequantize(v, in, tensorLoc(out, "dequantize"));
  auto fType = RankedTensorType::get(inType.getShape(), builder.getF32Type());
  int64_t rank = inType.getRank();
  SmallVector<int64_t> ones(rank, 1);
  if (beta != 1.0)
    v = create(
        "tosa.mul", fType,
        {v,
         reshape(scalarConst(builder.getF32Type(), beta, inner), ones, inner),
         scalarConst(builder.getI8Type(), 0, inner)},
        {}, inner);
  SmallVector<int64_t> reduced = llvm::to_vector(inType.getShape());
  reduced.back() = 1;
  auto rType = RankedTensorType::get(reduced, builder.getF32Type());
  auto axis = builder.getNamedAttr("axis", builder.getI32IntegerAttr(rank - 1));
  Value mx = create("tosa.reduce_max", rType, {v}, {axis}, inner);
  Value shifted = create("tosa.sub", fType, {v, mx}, {}, inner);
  Value e = create("tosa.exp", fType, {shifted}, {}, inner);
  Value sum = create("tosa.reduce_sum", rType, {e}, {axis}, inner);
  Value inv = create("tosa.reciprocal", rType, {sum}, {}, inner);
  Value result = create("tosa.mul", fType,
                        {e, inv, scalarConst(builder.getI8Type(), 0, inner)},
                        {}, qOut ? tensorLoc(out, "probabilities") : loc);
  if (qOut)
    result = quantize(result, out, loc);
  return define(out, result);
}

LogicalResult TFLiteImporter::quantizeOp(const tfl::Operator *op) {
  if (failed(checkArity(op, 1, 1, 1)))
    return failure();
  int32_t in = input(op, 0), out = output(op);
  RankedTensorType inType = tensorType(in), outType = tensorType(out);
  if (inType.getShape() != outType.getShape())
    return opError() << "input and output shapes differ";
  Type inElt = inType.getElementType(), outElt = outType.getElementType();
  if (isa<FloatType>(outElt) || !isQuantized(out) ||
      (!inElt.isF32() && (isa<FloatType>(inElt) || !isQuantized(in))))
    return opError() << "unsupported types " << inElt << " -> " << outElt;
  if (quant(out).scales.size() != 1 || !(quant(out).scale() > 0))
    return opError() << "output must be per-tensor quantized";
  FailureOr<Value> x = getValue(in);
  if (failed(x))
    return failure();
  Location loc = tensorLoc(out);
  if (inElt.isF32())
    return define(out, quantize(*x, out, loc));
  if (quant(in).scales.size() != 1)
    return opError() << "input must be per-tensor quantized";
  FailureOr<Value> r =
      rescale(*x, outType, {quant(in).scale() / quant(out).scale()},
              quant(in).zeroPoint(), quant(out).zeroPoint(), loc);
  if (failed(r))
    return failure();
  return define(out, *r);
}

LogicalResult TFLiteImporter::dequantizeOp(const tfl::Operator *op) {
  if (failed(checkArity(op, 1, 1, 1)))
    return failure();
  int32_t in = input(op, 0), out = output(op);
  RankedTensorType inType = tensorType(in), outType = tensorType(out);
  if (inType.getShape() != outType.getShape() ||
      !outType.getElementType().isF32())
    return opError() << "input and output do not match";
  FailureOr<Value> x = getValue(in);
  if (failed(x))
    return failure();
  Location loc = tensorLoc(out);
  if (inType.getElementType().isF16())
    return define(out, create("tosa.cast", outType, {*x}, {}, loc));
  if (!isQuantized(in) || quant(in).scales.size() != 1)
    return opError() << "input must be per-tensor quantized";
  return define(out, dequantize(*x, in, loc));
}

LogicalResult TFLiteImporter::reluOp(const tfl::Operator *op, bool six) {
  if (failed(checkArity(op, 1, 1, 1)))
    return failure();
  int32_t in = input(op, 0), out = output(op);
  if (tensorType(in) != tensorType(out))
    return opError() << "input and output types differ";
  FailureOr<Value> x = getValue(in);
  if (failed(x))
    return failure();
  Value v = *x;
  if (isQuantized(in)) {
    FailureOr<Value> rq = requantize(v, in, out, tensorLoc(out, "rescale"));
    if (failed(rq))
      return failure();
    v = *rq;
  }
  FailureOr<Value> r = activation(v,
                                  six ? tfl::ActivationFunctionType::RELU6
                                      : tfl::ActivationFunctionType::RELU,
                                  out, tensorLoc(out));
  if (failed(r))
    return failure();
  return define(out, *r);
}

LogicalResult TFLiteImporter::pad(const tfl::Operator *op, bool v2) {
  if (failed(checkArity(op, 2, v2 ? 3 : 2, 1)))
    return failure();
  int32_t in = input(op, 0), out = output(op);
  RankedTensorType inType = tensorType(in), outType = tensorType(out);
  SmallVector<int64_t> paddings;
  if (failed(readIntConstant(input(op, 1), paddings)))
    return failure();
  int64_t rank = inType.getRank();
  if (static_cast<int64_t>(paddings.size()) != 2 * rank ||
      outType.getRank() != rank ||
      outType.getElementType() != inType.getElementType())
    return opError() << "paddings do not match the input's rank " << rank;
  for (int64_t d = 0; d < rank; ++d)
    if (paddings[2 * d] < 0 || paddings[2 * d + 1] < 0 ||
        inType.getDimSize(d) + paddings[2 * d] + paddings[2 * d + 1] !=
            outType.getDimSize(d))
      return opError() << "paddings do not produce the output's shape";
  Type elt = inType.getElementType();
  double padValue = 0;
  if (isQuantized(in)) {
    if (quant(in).scale() != quant(out).scale() ||
        quant(in).zeroPoint() != quant(out).zeroPoint())
      return opError() << "pad changes the quantization";
    padValue = static_cast<double>(quant(in).zeroPoint());
  }
  if (v2 && input(op, 2) >= 0) {
    int32_t c = input(op, 2);
    std::optional<ArrayRef<char>> data = constantData(c);
    if (!data || tensorType(c).getElementType() != elt ||
        data->size() < elt.getIntOrFloatBitWidth() / 8)
      return opError() << "the pad value must be a constant of " << elt;
    if (elt.isF32()) {
      float f;
      std::memcpy(&f, data->data(), 4);
      padValue = f;
    } else if (elt.isInteger(8)) {
      padValue = static_cast<int8_t>((*data)[0]);
    } else {
      return opError() << "unsupported pad value type " << elt;
    }
  }
  if (!(elt.isF32() || elt.isInteger(8) || elt.isInteger(16) ||
        elt.isInteger(32)))
    return opError() << "unsupported element type " << elt;
  FailureOr<Value> x = getValue(in);
  if (failed(x))
    return failure();
  Location loc = tensorLoc(out);
  return define(out, create("tosa.pad", outType,
                            {*x, shapeConst(paddings, loc),
                             scalarConst(elt, padValue, loc)},
                            {}, loc));
}

LogicalResult TFLiteImporter::transpose(const tfl::Operator *op) {
  if (failed(checkArity(op, 2, 2, 1)))
    return failure();
  int32_t in = input(op, 0), out = output(op);
  RankedTensorType inType = tensorType(in), outType = tensorType(out);
  SmallVector<int64_t> perm;
  if (failed(readIntConstant(input(op, 1), perm)))
    return failure();
  int64_t rank = inType.getRank();
  if (static_cast<int64_t>(perm.size()) != rank || outType.getRank() != rank ||
      outType.getElementType() != inType.getElementType())
    return opError() << "permutation does not match the input's rank";
  SmallVector<bool> seen(rank, false);
  SmallVector<int32_t> perms;
  for (int64_t d = 0; d < rank; ++d) {
    if (perm[d] < 0 || perm[d] >= rank || seen[perm[d]] ||
        inType.getDimSize(perm[d]) != outType.getDimSize(d))
      return opError() << "invalid permutation";
    seen[perm[d]] = true;
    perms.push_back(static_cast<int32_t>(perm[d]));
  }
  if (isQuantized(in) && (quant(in).scale() != quant(out).scale() ||
                          quant(in).zeroPoint() != quant(out).zeroPoint()))
    return opError() << "transpose changes the quantization";
  FailureOr<Value> x = getValue(in);
  if (failed(x))
    return failure();
  return define(out, create("tosa.transpose", outType, {*x},
                            {builder.getNamedAttr(
                                "perms", builder.getDenseI32ArrayAttr(perms))},
                            tensorLoc(out)));
}

LogicalResult TFLiteImporter::mean(const tfl::Operator *op) {
  if (failed(checkArity(op, 2, 2, 1)))
    return failure();
  int32_t in = input(op, 0), out = output(op);
  RankedTensorType inType = tensorType(in), outType = tensorType(out);
  SmallVector<int64_t> axes;
  if (failed(readIntConstant(input(op, 1), axes)))
    return failure();
  int64_t rank = inType.getRank();
  Type elt = inType.getElementType();
  if (!(elt.isF32() || elt.isInteger(8)) || outType.getElementType() != elt)
    return opError() << "unsupported types";
  SmallVector<bool> reduce(rank, false);
  for (int64_t a : axes) {
    if (a < 0)
      a += rank;
    if (a < 0 || a >= rank)
      return opError() << "axis out of range";
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
    return opError() << "output " << outType << " does not match the reduction";
  FailureOr<Value> x = getValue(in);
  if (failed(x))
    return failure();
  Location loc = tensorLoc(out), inner = tensorLoc(out, "sum");
  bool quantized = elt.isInteger(8);
  Value v = *x;
  Type accElt = quantized ? builder.getI32Type() : elt;
  if (quantized) {
    if (!isQuantized(in) || !isQuantized(out))
      return opError() << "int8 tensors without quantization parameters";
    FailureOr<Value> r =
        rescale(v, RankedTensorType::get(inType.getShape(), accElt), {1.0},
                quant(in).zeroPoint(), 0, tensorLoc(out, "widen"));
    if (failed(r))
      return failure();
    v = *r;
  }
  SmallVector<int64_t> cur = llvm::to_vector(inType.getShape());
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduce[d])
      continue;
    cur[d] = 1;
    v = create("tosa.reduce_sum", RankedTensorType::get(cur, accElt), {v},
               {builder.getNamedAttr("axis", builder.getI32IntegerAttr(d))},
               inner);
  }
  Value result;
  if (quantized) {
    FailureOr<Value> r = rescale(
        v, RankedTensorType::get(cur, elt),
        {quant(in).scale() / (quant(out).scale() * double(count))}, 0,
        quant(out).zeroPoint(),
        outType.getShape() == ArrayRef<int64_t>(cur) ? loc
                                                     : tensorLoc(out, "mean"));
    if (failed(r))
      return failure();
    result = *r;
  } else {
    result = create("tosa.mul", RankedTensorType::get(cur, elt),
                    {v,
                     reshape(scalarConst(elt, 1.0 / double(count), inner),
                             SmallVector<int64_t>(rank, 1), inner),
                     scalarConst(builder.getI8Type(), 0, inner)},
                    {},
                    outType.getShape() == ArrayRef<int64_t>(cur)
                        ? loc
                        : tensorLoc(out, "mean"));
  }
  if (outType.getShape() != ArrayRef<int64_t>(cur))
    result = reshape(result, outType.getShape(), loc);
  return define(out, result);
}

LogicalResult TFLiteImporter::svdf(const tfl::Operator *op) {
  // Inputs: input [B, I], weights_feature [F, I], weights_time [F, M],
  // bias [U] (optional), activation state [B, M * F] (a variable tensor).
  // As in TFLite Micro's reference kernel: shift the state left by one step,
  // write x . weights_feature (requantized to the state) into the last step,
  // then out[b, u] = bias[u] + sum over the R filters of unit u of
  // sum_m (state - zp) * weights_time, requantized to the output. The integer
  // kernel applies no fused activation (TFLite Micro's neither).
  if (failed(checkArity(op, 3, 5, 1)))
    return failure();
  if (op->inputs()->size() != 5)
    return opError() << "expected 5 inputs, got " << op->inputs()->size();
  int32_t in = input(op, 0), wf = input(op, 1), wt = input(op, 2),
          bias = input(op, 3), state = input(op, 4), out = output(op);
  if (state < 0)
    return opError() << "missing activation state";
  const auto *o = op->builtin_options_as_SVDFOptions();
  if (!o || o->rank() <= 0)
    return opError() << "missing SVDFOptions or invalid rank";
  RankedTensorType inType = tensorType(in), wfType = tensorType(wf),
                   wtType = tensorType(wt), stType = tensorType(state),
                   outType = tensorType(out);
  if (inType.getRank() != 2 || wfType.getRank() != 2 || wtType.getRank() != 2 ||
      stType.getRank() != 2 || outType.getRank() != 2)
    return opError() << "input, weights, state and output must have rank 2";
  int64_t b = inType.getDimSize(0), i = inType.getDimSize(1),
          f = wfType.getDimSize(0), m = wtType.getDimSize(1), r = o->rank();
  if (wfType.getDimSize(1) != i || wtType.getDimSize(0) != f || f % r != 0 ||
      m < 1 || stType.getDimSize(0) != b || stType.getDimSize(1) != m * f ||
      outType.getDimSize(0) != b || outType.getDimSize(1) != f / r)
    return opError() << "inconsistent SVDF shapes";
  int64_t u = f / r;
  if (!tensors->Get(state)->is_variable() || constantData(state))
    return opError() << "the activation state must be a variable tensor";
  if (values[state])
    return opError() << "the activation state is shared between operators";
  Type inElt = inType.getElementType(), stElt = stType.getElementType();
  bool quantized = inElt.isInteger(8);
  if (!(inElt.isF32() || quantized) || wfType.getElementType() != inElt ||
      wtType.getElementType() != stElt || outType.getElementType() != inElt ||
      (quantized && !(stElt.isInteger(8) || stElt.isInteger(16))) ||
      (!quantized && !stElt.isF32()))
    return opError() << "unsupported SVDF types";
  if (quantized &&
      (!isQuantized(in) || !isQuantized(wf) || !isQuantized(wt) ||
       !isQuantized(state) || !isQuantized(out) ||
       quant(wf).scales.size() != 1 || quant(wt).scales.size() != 1))
    return opError() << "int8 SVDF needs per-tensor quantization parameters";
  Location loc = tensorLoc(out);
  Type i32 = builder.getI32Type();
  Type accElt = quantized ? i32 : inElt;

  // The state joins the function as an argument.
  Block *body = builder.getInsertionBlock();
  Value stateArg = body->addArgument(stType, tensorLoc(state));
  values[state] = stateArg;

  // Feature: x . weights_feature as a 1x1 convolution.
  FailureOr<Value> x = getValue(in);
  FailureOr<Value> w = getValue(wf, ArrayRef<int64_t>{f, 1, 1, i});
  if (failed(x) || failed(w))
    return failure();
  Location featLoc = tensorLoc(out, "feature");
  auto zeros = RankedTensorType::get({f}, accElt);
  Value zeroBias = create(
      "tosa.const", zeros, {},
      {builder.getNamedAttr(
          "values",
          DenseElementsAttr::get(
              zeros, quantized ? Attribute(builder.getIntegerAttr(i32, 0))
                               : builder.getFloatAttr(inElt, 0.0)))},
      featLoc);
  double izp = quantized ? static_cast<double>(quant(in).zeroPoint()) : 0;
  Value feature = create(
      "tosa.conv2d", RankedTensorType::get({b, 1, 1, f}, accElt),
      {reshape(*x, {b, 1, 1, i}, featLoc), *w, zeroBias,
       scalarConst(inElt, izp, featLoc), scalarConst(inElt, 0, featLoc)},
      {builder.getNamedAttr("acc_type", TypeAttr::get(accElt)),
       builder.getNamedAttr("pad", builder.getDenseI64ArrayAttr({0, 0, 0, 0})),
       builder.getNamedAttr("stride", builder.getDenseI64ArrayAttr({1, 1})),
       builder.getNamedAttr("dilation", builder.getDenseI64ArrayAttr({1, 1}))},
      featLoc);
  if (quantized) {
    FailureOr<Value> rq =
        rescale(feature, RankedTensorType::get({b, 1, 1, f}, stElt),
                {quant(in).scale() * quant(wf).scale() / quant(state).scale()},
                0, quant(state).zeroPoint(), tensorLoc(out, "feature_rescale"));
    if (failed(rq))
      return failure();
    feature = *rq;
  }
  feature = reshape(feature, {b, f, 1}, featLoc);

  // New state: drop the oldest step, append the feature.
  Location stLoc = tensorLoc(state, "next");
  Value st = reshape(stateArg, {b, f, m}, stLoc);
  Value next = feature;
  if (m > 1) {
    Value kept = create(
        "tosa.slice", RankedTensorType::get({b, f, m - 1}, stElt),
        {st, shapeConst({0, 0, 1}, stLoc), shapeConst({b, f, m - 1}, stLoc)},
        {}, stLoc);
    next = create(
        "tosa.concat", RankedTensorType::get({b, f, m}, stElt), {kept, feature},
        {builder.getNamedAttr("axis", builder.getI32IntegerAttr(2))}, stLoc);
  }
  stateTensors.push_back(state);
  stateResults.push_back(reshape(next, {b, m * f}, stLoc));

  // Time: sum over memory of (state - zp) * weights_time.
  Location timeLoc = tensorLoc(out, "time");
  FailureOr<Value> wtv = getValue(wt, ArrayRef<int64_t>{1, f, m});
  if (failed(wtv))
    return failure();
  Value lhs = next, rhs = *wtv;
  if (quantized) {
    FailureOr<Value> l = rescale(next, RankedTensorType::get({b, f, m}, i32),
                                 {1.0}, quant(state).zeroPoint(), 0, timeLoc);
    FailureOr<Value> rr = rescale(*wtv, RankedTensorType::get({1, f, m}, i32),
                                  {1.0}, 0, 0, timeLoc);
    if (failed(l) || failed(rr))
      return failure();
    lhs = *l;
    rhs = *rr;
  }
  Value prod = create("tosa.mul", RankedTensorType::get({b, f, m}, accElt),
                      {lhs, rhs, scalarConst(builder.getI8Type(), 0, timeLoc)},
                      {}, timeLoc);
  Value perFilter = create(
      "tosa.reduce_sum", RankedTensorType::get({b, f, 1}, accElt), {prod},
      {builder.getNamedAttr("axis", builder.getI32IntegerAttr(2))}, timeLoc);
  Value perUnit = create(
      "tosa.reduce_sum", RankedTensorType::get({b, u, 1}, accElt),
      {reshape(perFilter, {b, u, r}, timeLoc)},
      {builder.getNamedAttr("axis", builder.getI32IntegerAttr(2))}, timeLoc);
  Value result = reshape(perUnit, {b, u}, timeLoc);
  if (bias >= 0) {
    if (tensorType(bias).getElementType() != accElt ||
        tensorType(bias).getNumElements() != u)
      return opError() << "bias must be " << u << " values of " << accElt;
    FailureOr<Value> bv = getValue(bias, ArrayRef<int64_t>{1, u});
    if (failed(bv))
      return failure();
    result = create("tosa.add", RankedTensorType::get({b, u}, accElt),
                    {result, *bv}, {}, tensorLoc(out, "bias"));
  }
  if (quantized) {
    FailureOr<Value> rq =
        rescale(result, outType,
                {quant(state).scale() * quant(wt).scale() / quant(out).scale()},
                0, quant(out).zeroPoint(), loc);
    if (failed(rq))
      return failure();
    return define(out, *rq);
  }
  FailureOr<Value> activated =
      activation(result, o->fused_activation_function(), out, loc);
  if (failed(activated))
    return failure();
  return define(out, *activated);
}

LogicalResult TFLiteImporter::importOperator(const tfl::Operator *op) {
  uint32_t opcodeIndex = op->opcode_index();
  if (!model->operator_codes() ||
      opcodeIndex >= model->operator_codes()->size()) {
    opName = "?";
    return opError() << "operator code index " << opcodeIndex
                     << " out of range";
  }
  const tfl::OperatorCode *code = model->operator_codes()->Get(opcodeIndex);
  int32_t builtin =
      std::max<int32_t>(code->deprecated_builtin_code(), code->builtin_code());
  opName = builtinName(builtin);
  if (builtin == 32 && code->custom_code())
    opName += " '" + code->custom_code()->str() + "'";
  if (!op->outputs() || op->outputs()->size() == 0)
    return opError() << "operator has no outputs";
  if (!op->inputs())
    return opError() << "operator has no inputs";
  int32_t firstOut = op->outputs()->Get(0);
  if (firstOut >= 0 && static_cast<uint32_t>(firstOut) < tensors->size())
    opOutput = tensorName(firstOut);
  switch (builtin) {
  case kConv2D:
    return convLike(op, /*depthwise=*/false, /*fullyConnected=*/false);
  case kDepthwiseConv2D:
    return convLike(op, /*depthwise=*/true, /*fullyConnected=*/false);
  case kFullyConnected:
    return convLike(op, /*depthwise=*/false, /*fullyConnected=*/true);
  case kAdd:
    return binary(op, /*isMul=*/false);
  case kMul:
    return binary(op, /*isMul=*/true);
  case kConcatenation:
    return concatenation(op);
  case kAveragePool2D:
    return pool(op, /*isAverage=*/true);
  case kMaxPool2D:
    return pool(op, /*isAverage=*/false);
  case kReshape:
    return reshapeOp(op);
  case kSoftmax:
    return softmax(op);
  case kQuantize:
    return quantizeOp(op);
  case kDequantize:
    return dequantizeOp(op);
  case kRelu:
    return reluOp(op, /*six=*/false);
  case kRelu6:
    return reluOp(op, /*six=*/true);
  case kPad:
    return pad(op, /*v2=*/false);
  case kPadV2:
    return pad(op, /*v2=*/true);
  case kTranspose:
    return transpose(op);
  case kMean:
    return mean(op);
  case kSvdf:
    return svdf(op);
  default:
    return opError() << "unsupported operator";
  }
}

OwningOpRef<ModuleOp> TFLiteImporter::run() {
  if (!model->subgraphs() || model->subgraphs()->size() == 0) {
    fileError() << "the model has no subgraph";
    return nullptr;
  }
  if (model->subgraphs()->size() > 1) {
    fileError() << "the model has " << model->subgraphs()->size()
                << " subgraphs; only single-subgraph models are supported";
    return nullptr;
  }
  subgraph = model->subgraphs()->Get(0);
  tensors = subgraph->tensors();
  if (!tensors || !subgraph->inputs() || !subgraph->outputs() ||
      !subgraph->operators()) {
    fileError() << "the subgraph lacks tensors, inputs, outputs or operators";
    return nullptr;
  }
  if (model->buffers())
    for (const tfl::Buffer *b : *model->buffers())
      if (b->offset() > 1) {
        fileError() << "buffers stored outside the flatbuffer are not "
                       "supported";
        return nullptr;
      }
  types.assign(tensors->size(), RankedTensorType());
  checked.assign(tensors->size(), false);
  values.assign(tensors->size(), Value());

  Location fileLoc = FileLineColLoc::get(context, fileName, 0, 0);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  builder.setInsertionPointToEnd(module->getBody());

  // Inputs. Variable tensors (SVDF state) join as extra arguments later.
  opName = "inputs";
  SmallVector<Type> argTypes;
  SmallVector<Location> argLocs;
  for (int32_t t : *subgraph->inputs()) {
    if (failed(checkTensor(t)))
      return nullptr;
    if (constantData(t)) {
      emitError(tensorLoc(t))
          << "tflite: graph input " << t << " has constant data";
      return nullptr;
    }
    argTypes.push_back(tensorType(t));
    argLocs.push_back(tensorLoc(t));
  }
  auto func = func::FuncOp::create(fileLoc, "main",
                                   builder.getFunctionType(argTypes, {}));
  module->push_back(func);
  Block *body = func.addEntryBlock();
  for (auto [i, t] : llvm::enumerate(*subgraph->inputs())) {
    body->getArgument(i).setLoc(argLocs[i]);
    if (values[t]) {
      emitError(tensorLoc(t))
          << "tflite: graph input " << t << " is listed twice";
      return nullptr;
    }
    values[t] = body->getArgument(i);
  }
  builder.setInsertionPointToEnd(body);

  for (auto [i, op] : llvm::enumerate(*subgraph->operators())) {
    opIndex = i;
    opName = "?";
    opOutput.clear();
    inOperator = true;
    if (failed(importOperator(op)))
      return nullptr;
  }

  // Results: the graph outputs, then updated SVDF states.
  SmallVector<Value> results;
  inOperator = false;
  for (int32_t t : *subgraph->outputs()) {
    opName = "outputs";
    FailureOr<Value> v =
        failed(checkTensor(t)) ? FailureOr<Value>(failure()) : getValue(t);
    if (failed(v))
      return nullptr;
    results.push_back(*v);
  }
  // SVDF states: their arguments were added when first used.
  llvm::append_range(results, stateResults);
  func::ReturnOp::create(builder, fileLoc, results);
  SmallVector<Type> finalArgs = llvm::to_vector(body->getArgumentTypes());
  func.setFunctionType(
      builder.getFunctionType(finalArgs, ValueRange(results).getTypes()));
  // DOUBLE_ROUND rescales (TFLite's rounding) need the TOSA `doubleround`
  // extension on top of the default target environment for validation.
  if (options.doubleRound) {
    tosa::TargetEnvAttr env = tosa::getDefaultTargetEnv(context);
    SmallVector<tosa::Extension> extensions(env.getExtensions());
    if (!llvm::is_contained(extensions, tosa::Extension::doubleround))
      extensions.push_back(tosa::Extension::doubleround);
    (*module)->setAttr("tosa.target_env",
                       tosa::TargetEnvAttr::get(
                           context, env.getSpecificationVersion(),
                           env.getLevel(), env.getProfiles(), extensions));
  }
  if (failed(verify(*module))) {
    fileError() << "the imported module does not verify";
    return nullptr;
  }
  return module;
}

OwningOpRef<ModuleOp> mlir::memopt::importTFLite(llvm::StringRef bytes,
                                                 llvm::StringRef fileName,
                                                 MLIRContext *context) {
  return importTFLite(bytes, fileName, context, TFLiteImportOptions());
}

OwningOpRef<ModuleOp>
mlir::memopt::importTFLite(llvm::StringRef bytes, llvm::StringRef fileName,
                           MLIRContext *context,
                           const TFLiteImportOptions &options) {
  context->loadDialect<func::FuncDialect, tosa::TosaDialect>();
  Location fileLoc = FileLineColLoc::get(context, fileName, 0, 0);
  if (bytes.size() < 8 || !tfl::ModelBufferHasIdentifier(bytes.data())) {
    emitError(fileLoc) << "tflite: not a TFLite flatbuffer (no 'TFL3' "
                          "identifier)";
    return nullptr;
  }
  if (bytes.size() >= (uint64_t(1) << 31)) {
    emitError(fileLoc) << "tflite: files of 2 GiB or more are not supported";
    return nullptr;
  }
  flatbuffers::Verifier verifier(
      reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size(),
      /*max_depth=*/64, /*max_tables=*/10000000);
  if (!tfl::VerifyModelBuffer(verifier)) {
    emitError(fileLoc) << "tflite: malformed or truncated file (flatbuffer "
                          "verification failed)";
    return nullptr;
  }
  const tfl::Model *model = tfl::GetModel(bytes.data());
  TFLiteImporter importer(model, fileName, context, options);
  return importer.run();
}
