//===- ONNXImporter.h - ONNX importer state and converters ------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Import/ONNX. Declares the state of one ONNX import (values,
// their layouts, the node being converted, its attributes, builder helpers),
// the layout and shape utilities of Layout.cpp, and the table of per-operator
// converters that the operator family files (NN.cpp, Math.cpp, Tensor.cpp,
// ConstantFolding.cpp) fill.
//
// Layout. Every ONNX value is tracked with its ONNX shape and a *stored
// layout*: a permutation `perm` such that dimension i of the emitted tensor is
// ONNX dimension perm[i]. Rank-4 activations are kept in NHWC
// (perm = [0, 2, 3, 1]); everything else in ONNX order. Transpose nodes only
// change the recorded layout; a Reshape is emitted directly on the stored
// tensor when its dimension groups are contiguous there, and otherwise after
// the one transpose that makes them so (as in ShuffleNet's channel shuffle).
// So layout transposes appear only at the function boundary: the arguments
// and results keep the ONNX (NCHW) shapes and are transposed on entry and
// exit.
//
// Weights are copied bit-exactly from the initializers and re-laid out by
// permutation (conv weights OIHW -> OHWI, depthwise -> HWCM, Gemm/MatMul
// weights -> [1, K, N]). A BatchNormalization whose input is a Conv used only
// by it is folded into that Conv (scale and shift computed in double, rounded
// once to float); other BatchNormalizations become a per-channel mul and add.
//
// Shape computations over constants (Shape, Gather, arithmetic on int64
// tensors, as in ShuffleNet) are folded at import time. Every emitted op
// carries `loc("node_name")`. Unsupported operators, dynamic dimensions and
// malformed files give an error naming the node and its op type.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_IMPORT_ONNX_ONNXIMPORTER_H
#define MEMOPT_LIB_IMPORT_ONNX_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include "onnx/onnx_pb.h"

#include <array>
#include <string>
#include <vector>

namespace mlir {
namespace memopt {
namespace onnximport {

/// Largest number of elements a tensor may have; bigger (usually corrupt)
/// shapes are rejected before anything is allocated.
constexpr int64_t kMaxElements = int64_t(1) << 31;

/// An ONNX value during import: its ONNX shape, the layout of the emitted
/// tensor, and either the emitted SSA value or compile-time constant data.
struct Tensor {
  /// ONNX dimensions.
  SmallVector<int64_t> shape;
  /// Dimension i of the emitted tensor is ONNX dimension perm[i].
  SmallVector<int64_t> perm;
  /// The emitted tensor (null for constants not materialized yet).
  Value value;
  /// Whether the data is known at import time (in ONNX row-major order).
  bool isConst = false;
  /// Element kind of constant data: floats or integers.
  bool isFloat = true;
  /// Constant float data.
  std::vector<float> floats;
  /// Constant integer data (int64 and int32 tensors, shape computations).
  std::vector<int64_t> ints;
};

//===----------------------------------------------------------------------===//
// Layout and shape utilities (Layout.cpp)
//===----------------------------------------------------------------------===//

/// Returns the number of elements of `shape`.
int64_t numElements(ArrayRef<int64_t> shape);

/// Returns the identity permutation of `rank` dimensions.
SmallVector<int64_t> identityPerm(int64_t rank);

/// Returns the layout the importer prefers for a value of `rank`: NHWC for
/// rank 4, ONNX order otherwise.
SmallVector<int64_t> preferredPerm(int64_t rank);

/// Returns `shape` permuted: result[i] = shape[perm[i]].
SmallVector<int64_t> permuteShape(ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> perm);

/// Returns the row-major strides of `shape`.
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape);

/// Returns the dimensions of `shape` that are not 1, in the order `perm`
/// lists them.
SmallVector<int64_t> nonUnitOrder(ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> perm);

/// Returns `data` (row-major, of `shape`) transposed so that dimension i of
/// the result is dimension perm[i] of the input.
template <typename T>
std::vector<T> permuteData(const std::vector<T> &data, ArrayRef<int64_t> shape,
                           ArrayRef<int64_t> perm) {
  if (llvm::equal(perm, identityPerm(perm.size())))
    return data;
  SmallVector<int64_t> outShape = permuteShape(shape, perm);
  SmallVector<int64_t> inStrides = stridesOf(shape);
  std::vector<T> result(data.size());
  SmallVector<int64_t> index(outShape.size(), 0);
  for (size_t flat = 0; flat < data.size(); ++flat) {
    int64_t src = 0;
    for (size_t i = 0; i < index.size(); ++i)
      src += index[i] * inStrides[perm[i]];
    result[flat] = data[src];
    for (int64_t i = static_cast<int64_t>(index.size()) - 1; i >= 0; --i) {
      if (++index[i] < outShape[i])
        break;
      index[i] = 0;
    }
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Converters
//===----------------------------------------------------------------------===//

class ONNXImporter;

/// Converts the importer's current node (ONNXImporter::getNode()): binds its
/// outputs, or emits a diagnostic naming the node and fails.
using ONNXConverter = LogicalResult (*)(ONNXImporter &importer);

/// The converters of the ONNX operators, keyed by op type and by the opset
/// version from which each applies (in the manner of torch-mlir's
/// `patterns.onOp(name, version, fn)`).
class ConverterTable {
public:
  /// Registers `converter` for `opType` in models of opset `sinceVersion` and
  /// later (until a newer registration of the same op type).
  void onOp(StringRef opType, int64_t sinceVersion, ONNXConverter converter);

  /// Returns the converter of `opType` in a model of `opset`: the one with
  /// the newest since-version not above `opset`. A model whose opset
  /// precedes every registered version (a malformed file: ONNX opsets start
  /// at 1) gets the oldest. Returns null for an unknown op type.
  ONNXConverter lookup(StringRef opType, int64_t opset) const;

private:
  /// One registration: a converter and the opset it applies from.
  struct Entry {
    /// First opset the converter applies to.
    int64_t sinceVersion;
    /// The converter.
    ONNXConverter converter;
  };
  /// Op type -> registrations, sorted by since-version.
  llvm::StringMap<SmallVector<Entry, 1>> entries;
};

/// Registers Conv, BatchNormalization, MaxPool, AveragePool,
/// GlobalAveragePool, Gemm and MatMul (NN.cpp).
void populateNNConverters(ConverterTable &table);

/// Registers the elementwise operators (Add, Sub, Mul, Div, Relu, Clip,
/// Sigmoid, HardSigmoid, HardSwish) and ReduceMean (Math.cpp).
void populateMathConverters(ConverterTable &table);

/// Registers the data movement operators: Concat, Reshape, Flatten,
/// Squeeze, Unsqueeze, Transpose, Slice, Split, Pad, Identity and Dropout
/// (Tensor.cpp).
void populateTensorConverters(ConverterTable &table);

/// Registers Constant and the operators only folded on constants: Shape,
/// Gather and Cast (ConstantFolding.cpp).
void populateConstantFoldingConverters(ConverterTable &table);

/// Folds the current Concat node over constant inputs (shape vectors).
LogicalResult foldConstantConcat(ONNXImporter &importer);

/// Folds the current binary arithmetic node (`opType` is Add, Sub, Mul or
/// Div) over two constant inputs, with broadcasting.
LogicalResult foldConstantArithmetic(ONNXImporter &importer, StringRef opType);

//===----------------------------------------------------------------------===//
// ONNXImporter
//===----------------------------------------------------------------------===//

/// The state of one ONNX import: the model, the values imported so far and
/// the node being converted. The converters read and bind values through it.
class ONNXImporter {
public:
  /// Creates an importer that converts nodes with `converters`.
  ONNXImporter(MLIRContext *context, StringRef fileName,
               const ConverterTable &converters)
      : context(context), fileName(fileName),
        builder(UnknownLoc::get(context), context), converters(converters) {}

  /// Parses `bytes` and builds the module; returns null after a diagnostic.
  OwningOpRef<ModuleOp> run(StringRef bytes);

  //===--------------------------------------------------------------------===//
  // Diagnostics and builder helpers
  //===--------------------------------------------------------------------===//

  /// Emits an error at the file (no node involved).
  InFlightDiagnostic fileError();

  /// Emits an error naming the current node and its op type, located at the
  /// node's name inside the file.
  InFlightDiagnostic nodeError();

  /// Returns the builder; its location is the current node's.
  ImplicitLocOpBuilder &getBuilder() { return builder; }

  /// Returns the f32 tensor type of `shape`.
  RankedTensorType f32Type(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, builder.getF32Type());
  }

  /// Returns the type of `t` as emitted.
  RankedTensorType storedType(const Tensor &t) {
    return f32Type(permuteShape(t.shape, t.perm));
  }

  /// Emits a `tosa.const_shape`.
  Value constShape(ArrayRef<int64_t> values);

  /// Emits an f32 `tosa.const` of `shape` holding `data` (row-major).
  Value constF32(ArrayRef<int64_t> shape, ArrayRef<float> data);

  /// Emits a float zero point operand (conv, matmul, avg_pool).
  Value zeroPoint();

  /// Emits the i8 zero shift operand of `tosa.mul`.
  Value mulShift();

  //===--------------------------------------------------------------------===//
  // The current node and its attributes
  //===--------------------------------------------------------------------===//

  /// Returns the node being converted.
  const onnx::NodeProto &getNode() const { return *node; }

  /// Returns the index of the node being converted in the graph.
  int getNodeIndex() const { return nodeIndex; }

  /// Returns attribute `name` of the current node, or null.
  const onnx::AttributeProto *attr(StringRef name);
  /// Returns integer attribute `name` or `def`.
  int64_t attrInt(StringRef name, int64_t def);
  /// Returns float attribute `name` or `def`.
  float attrFloat(StringRef name, float def);
  /// Returns ints attribute `name` (empty if absent).
  SmallVector<int64_t> attrInts(StringRef name);
  /// Returns string attribute `name` or `def`.
  std::string attrString(StringRef name, StringRef def);

  /// Returns the axes of the current node: the constant input 1 when it is
  /// given, else the `axes` attribute (empty if absent). Fails with a
  /// diagnostic if input 1 is not a constant integer tensor.
  FailureOr<SmallVector<int64_t>> getAxes();

  /// Maps `axis` in [-rank, rank) to [0, rank); fails with a diagnostic
  /// outside that range.
  LogicalResult normalizeAxis(int64_t &axis, int64_t rank);

  //===--------------------------------------------------------------------===//
  // Values
  //===--------------------------------------------------------------------===//

  /// Decodes an initializer or Constant attribute into a constant tensor.
  LogicalResult decodeTensor(const onnx::TensorProto &proto, Tensor &result);

  /// Looks up input `index` of the current node; fails (with a diagnostic)
  /// if it is missing and `required`, or if it names no value.
  Tensor *getInput(int index, bool required = true);

  /// Returns a constant input's integer data, or fails with a diagnostic.
  FailureOr<std::vector<int64_t>> getConstInts(int index, StringRef what);

  /// Binds output `index` of the current node to `t`.
  void setOutput(int index, Tensor t);

  /// Returns the value named `name`, or null.
  Tensor *lookupValue(StringRef name);

  /// Binds the value named `name` (an output of a folded node) to `t`.
  void setValue(StringRef name, Tensor t) { values[name] = std::move(t); }

  //===--------------------------------------------------------------------===//
  // Layouts (Layout.cpp)
  //===--------------------------------------------------------------------===//

  /// Returns the emitted value of `t` in layout `perm`, materializing
  /// constants and transposing or reshaping as needed.
  Value valueIn(Tensor &t, ArrayRef<int64_t> perm);

  /// Returns a tensor with the ONNX shape `newShape` holding `t`'s data
  /// (ONNX Reshape semantics), choosing the layout that avoids a transpose.
  Tensor reshapeTensor(Tensor &t, ArrayRef<int64_t> newShape);

  /// Returns `t` viewed with ONNX dimensions permuted (ONNX Transpose).
  Tensor transposeTensor(Tensor &t, ArrayRef<int64_t> perm);

  /// Converts two operands to a common rank and layout for an elementwise
  /// op; returns the output tensor skeleton (shape and layout).
  LogicalResult broadcastOperands(Tensor &a, Tensor &b, Value &va, Value &vb,
                                  Tensor &out);

  //===--------------------------------------------------------------------===//
  // The graph around the current node (folding one node into another)
  //===--------------------------------------------------------------------===//

  /// Returns the nodes of the graph, in file order.
  const google::protobuf::RepeatedPtrField<onnx::NodeProto> &
  getGraphNodes() const {
    return model.graph().node();
  }

  /// Returns true if value `name` is read by exactly one node input and is
  /// not a graph output.
  bool hasSingleReader(StringRef name) const {
    return useCounts.lookup(name) == 1 && !graphOutputs.contains(name);
  }

  /// Marks the node at `index` as imported already (folded into the current
  /// one): the driver skips it.
  void markFolded(int index) { folded.insert(index); }

  /// Records the spatial padding [top, left, bottom, right] of a zero Pad
  /// whose output `name` is left to the AveragePool that reads it.
  void deferPoolPads(StringRef name, std::array<int64_t, 4> pads) {
    pendingPoolPads[name] = pads;
  }

  /// Returns the padding deferred to the pool that reads `name`, or null.
  const std::array<int64_t, 4> *getDeferredPoolPads(StringRef name) const {
    auto it = pendingPoolPads.find(name);
    return it == pendingPoolPads.end() ? nullptr : &it->second;
  }

private:
  /// Converts the current node through the converter table.
  LogicalResult importNode();

  /// The context of the module being built.
  MLIRContext *context;
  /// The model file's name, for locations and diagnostics.
  StringRef fileName;
  /// Builds the function; its location is the current node's name.
  ImplicitLocOpBuilder builder;
  /// The converters by op type and opset.
  const ConverterTable &converters;
  /// The parsed model.
  onnx::ModelProto model;
  /// The node being imported.
  const onnx::NodeProto *node = nullptr;
  /// Index of the node being imported in the graph.
  int nodeIndex = 0;
  /// The current node's name (or a made-up one if it has none).
  std::string nodeName;
  /// ONNX value name -> tensor.
  llvm::StringMap<Tensor> values;
  /// ONNX value name -> number of node inputs reading it.
  llvm::StringMap<int> useCounts;
  /// Names of graph outputs.
  llvm::StringSet<> graphOutputs;
  /// Indices of nodes already imported as part of another (folded BN).
  llvm::DenseSet<int> folded;
  /// Zero Pad nodes folded into the AveragePool that reads them: the Pad's
  /// output name -> [top, left, bottom, right].
  llvm::StringMap<std::array<int64_t, 4>> pendingPoolPads;
  /// Opset of the default ONNX domain.
  int64_t opset = 13;
};

} // namespace onnximport
} // namespace memopt
} // namespace mlir

#endif // MEMOPT_LIB_IMPORT_ONNX_ONNXIMPORTER_H
