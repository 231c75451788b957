//===- TFLiteImporter.h - TFLite importer state and converters --*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Import/TFLite. Declares the state of one TFLite import
// (the verified model, the checked tensor types, the value of every tensor,
// diagnostics naming the operator being converted, TOSA builder helpers and
// the shared quantization helpers) and the table of per-operator converters.
//
// Each operator family has its own file (Conv.cpp, Elementwise.cpp,
// Pooling.cpp, Softmax.cpp, SVDF.cpp, Tensor.cpp) with one converter function
// per TFLite builtin operator and a `populate<Family>Converters` that
// registers them, keyed by builtin operator code, in a ConverterTable. The
// importer (TFLiteImporter.cpp) looks every operator up in that table; an
// operator without a converter is "unsupported". The quantization helpers
// (multipliers, rescale, requantize, fused activations, quantize and
// dequantize) are defined in Quantization.cpp, the TOSA builder helpers in
// Builders.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_IMPORT_TFLITE_TFLITEIMPORTER_H
#define MEMOPT_LIB_IMPORT_TFLITE_TFLITEIMPORTER_H

#include "MemOpt/Import/Import.h"

#include "tflite_schema_generated.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
namespace memopt {
namespace tfliteimport {

/// The flatc-generated reader of mem-opt's TFLite schema.
namespace tfl = mlir::memopt::tflite;

/// Largest element count of one tensor the importer accepts (2^31 - 1), so
/// that byte sizes fit comfortably in 64 bits and in MLIR's attributes.
constexpr int64_t kMaxElements = (int64_t(1) << 31) - 1;

/// TFLite builtin operator codes the importer names or converts.
enum BuiltinCode : int32_t {
  kAdd = 0,
  kAveragePool2D = 1,
  kConcatenation = 2,
  kConv2D = 3,
  kDepthwiseConv2D = 4,
  kDequantize = 6,
  kFullyConnected = 9,
  kLogistic = 14,
  kMaxPool2D = 17,
  kMul = 18,
  kRelu = 19,
  kRelu6 = 21,
  kReshape = 22,
  kSoftmax = 25,
  kSvdf = 27,
  kTanh = 28,
  kCustom = 32,
  kPad = 34,
  kTranspose = 39,
  kMean = 40,
  kPadV2 = 60,
  kQuantize = 114,
};

/// Returns the TFLite name of builtin operator \p code, for diagnostics.
std::string builtinName(int32_t code);

/// Quantization parameters of one tensor.
struct QuantParams {
  /// One scale per tensor, or one per channel of `dimension`.
  SmallVector<double> scales;
  /// The zero points, as many as the scales (or none).
  SmallVector<int64_t> zeroPoints;
  /// The quantized dimension of a per-channel tensor.
  int32_t dimension = 0;
  /// Whether the tensor carries quantization parameters.
  bool present() const { return !scales.empty(); }
  /// The zero point of a per-tensor quantized tensor (0 when absent).
  int64_t zeroPoint() const { return zeroPoints.empty() ? 0 : zeroPoints[0]; }
  /// The scale of a per-tensor quantized tensor (1 when absent).
  double scale() const { return scales.empty() ? 1.0 : scales[0]; }
};

/// Computes TOSA rescale parameters for the real factor \p scale: an i32
/// \p multiplier and a \p shift with scale ~= multiplier * 2^-shift. As in
/// TFLite's QuantizeMultiplier, scale = q * 2^e with q in [0.5, 1) (frexp),
/// multiplier = round(q * 2^31) (half away from zero; 2^31 is folded back to
/// 2^30 with e + 1) and shift = 31 - e. TOSA needs 2 <= shift <= 62: smaller
/// factors lose low multiplier bits (rounded), larger ones (>= 2^29) fail.
LogicalResult computeMultiplier(double scale, int32_t &multiplier,
                                int32_t &shift);

/// Finds one TOSA DOUBLE_ROUND rescale of i32 values, an i32 multiplier
/// \p multiplier and a shift \p shift (at most \p maxShift, which must not
/// exceed 55), that maps each of \p inputs to the value at the same index of
/// \p targets, as TOSA's apply_scale_32 computes it. Each input bounds the
/// multiplier of a shift to an interval; the largest shift with an integer
/// in all of them wins. Returns false when no shift from \p maxShift down to
/// 2 has one.
bool findExactRescale(ArrayRef<int64_t> inputs, ArrayRef<int64_t> targets,
                      int32_t maxShift, int32_t &multiplier, int32_t &shift);

class TFLiteImporter;

/// Converts one TFLite operator: checks its operands, builds its TOSA ops at
/// the importer's insertion point and defines its output tensors, or emits a
/// diagnostic (through TFLiteImporter::opError) and fails.
using Converter = LogicalResult (*)(TFLiteImporter &importer,
                                    const tfl::Operator *op);

/// The converters, keyed by TFLite builtin operator code.
class ConverterTable {
public:
  /// Registers \p converter for builtin operator \p code (once per code).
  void onOp(int32_t code, Converter converter);
  /// Returns the converter of builtin operator \p code, or null if none.
  Converter lookup(int32_t code) const;

private:
  /// The registered converters, indexed by code (null where there is none).
  SmallVector<Converter> converters;
};

/// Registers CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED (Conv.cpp).
void populateConvConverters(ConverterTable &table);
/// Registers ADD, MUL, RELU and RELU6 (Elementwise.cpp).
void populateElementwiseConverters(ConverterTable &table);
/// Registers AVERAGE_POOL_2D, MAX_POOL_2D and MEAN (Pooling.cpp).
void populatePoolingConverters(ConverterTable &table);
/// Registers SOFTMAX (Softmax.cpp).
void populateSoftmaxConverters(ConverterTable &table);
/// Registers SVDF (SVDF.cpp).
void populateSVDFConverters(ConverterTable &table);
/// Registers RESHAPE, CONCATENATION, PAD, PADV2, TRANSPOSE, QUANTIZE and
/// DEQUANTIZE (Tensor.cpp).
void populateTensorConverters(ConverterTable &table);
/// Registers the converters of every family.
void populateAllConverters(ConverterTable &table);

/// Converts one TFLite subgraph into a function of TOSA ops: the state the
/// converters share.
class TFLiteImporter {
public:
  /// Prepares the import of verified \p model read from \p fileName.
  TFLiteImporter(const tfl::Model *model, StringRef fileName,
                 MLIRContext *context, const TFLiteImportOptions &options);

  /// Builds the module, or emits a diagnostic and returns null.
  OwningOpRef<ModuleOp> run();

  //===--------------------------------------------------------------------===//
  // Diagnostics and tensors (TFLiteImporter.cpp)
  //===--------------------------------------------------------------------===//

  /// Emits an error about the file as a whole.
  InFlightDiagnostic fileError();
  /// Emits an error about the operator being converted.
  InFlightDiagnostic opError();

  /// Returns the context the module is built in.
  MLIRContext *getContext() const { return context; }
  /// Returns the builder of the function body.
  OpBuilder &getBuilder() { return builder; }
  /// Returns the flatbuffer table of tensor \p index (in range).
  const tfl::Tensor *getTensor(int32_t index) const {
    return tensors->Get(index);
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
  /// Whether tensor \p index already has a value (it was written, or it is a
  /// graph input or a constant already materialized).
  bool hasValue(int32_t index) const {
    return static_cast<bool>(values[index]);
  }
  /// Reads integer constant tensor \p index (i32 or i64) into \p values.
  LogicalResult readIntConstant(int32_t index,
                                SmallVectorImpl<int64_t> &values);
  /// Reads the quantization parameters of tensor \p index (defined in
  /// Quantization.cpp).
  QuantParams quant(int32_t index);
  /// The kQuantScaleAttrName and kQuantZeroPointAttrName attributes of
  /// graph input or output \p index, if it is quantized per tensor.
  std::optional<NamedAttrList> getIOQuantAttrs(int32_t index);
  /// Whether tensor \p index is an integer tensor with quantization.
  bool isQuantized(int32_t index) {
    return !isa<FloatType>(types[index].getElementType()) &&
           quant(index).present();
  }

  //===--------------------------------------------------------------------===//
  // Operands and results of the operator being converted (TFLiteImporter.cpp)
  //===--------------------------------------------------------------------===//

  /// Checks that \p op has between \p minIn and \p maxIn inputs and exactly
  /// \p numOut outputs, all valid (optional inputs at or after \p minIn may
  /// be -1).
  LogicalResult checkArity(const tfl::Operator *op, unsigned minIn,
                           unsigned maxIn, unsigned numOut);
  /// Input \p i of \p op (-1 when absent).
  static int32_t input(const tfl::Operator *op, unsigned i) {
    return i < op->inputs()->size() ? op->inputs()->Get(i) : -1;
  }
  /// Output \p i of \p op.
  static int32_t output(const tfl::Operator *op, unsigned i = 0) {
    return op->outputs()->Get(i);
  }
  /// Records \p value as tensor \p index.
  LogicalResult define(int32_t index, Value value);
  /// Adds variable tensor \p index (an SVDF activation state) to the function
  /// as an argument and returns it as the tensor's value.
  Value addStateArgument(int32_t index);
  /// Records \p next as the updated value of state tensor \p index, returned
  /// by the function after the graph outputs.
  void addStateResult(int32_t index, Value next);

  //===--------------------------------------------------------------------===//
  // TOSA helpers (Builders.cpp)
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
  /// Computes explicit TOSA padding for one spatial dimension, slicing of the
  /// input when TFLite's output size needs fewer rows than stride math gives.
  LogicalResult spatialPadding(int64_t in, int64_t out, int64_t kernel,
                               int64_t stride, int64_t dilation,
                               tfl::Padding padding, int64_t &before,
                               int64_t &after, int64_t &usedIn);
  /// Slices \p value [N, H, W, C] to [N, h, w, C] if smaller.
  Value sliceSpatial(Value value, int64_t h, int64_t w, Location loc);

  //===--------------------------------------------------------------------===//
  // Quantization (Quantization.cpp)
  //===--------------------------------------------------------------------===//

  /// `tosa.rescale` of \p value to \p resultType, by \p scales (one or one per
  /// channel of the last dimension).
  FailureOr<Value> rescale(Value value, RankedTensorType resultType,
                           ArrayRef<double> scales, int64_t inputZp,
                           int64_t outputZp, Location loc);
  /// `tosa.rescale` of \p value to \p resultType by given \p multipliers and
  /// TOSA \p shifts (one pair, or one per channel of the last dimension), for
  /// the operators whose TFLite kernel computes its multiplier otherwise than
  /// from one real factor.
  FailureOr<Value> rescaleFixed(Value value, RankedTensorType resultType,
                                ArrayRef<int32_t> multipliers,
                                ArrayRef<int8_t> shifts, int64_t inputZp,
                                int64_t outputZp, Location loc);
  /// Whether the import reproduces TFLite's arithmetic (double rounding,
  /// TFLite's pooling and add); otherwise TOSA's single rounding.
  bool tfliteArithmetic() const { return options.doubleRound; }
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

private:
  /// Converts operator \p op (looks its builtin code up in the table).
  LogicalResult importOperator(const tfl::Operator *op);

  /// The verified model, its file name (for locations) and the context.
  const tfl::Model *model;
  StringRef fileName;
  MLIRContext *context;
  /// Builds the function body.
  OpBuilder builder;
  /// The import options (rounding mode).
  TFLiteImportOptions options;
  /// The converters of every supported operator.
  ConverterTable converters;
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

} // namespace tfliteimport
} // namespace memopt
} // namespace mlir

#endif // MEMOPT_LIB_IMPORT_TFLITE_TFLITEIMPORTER_H
