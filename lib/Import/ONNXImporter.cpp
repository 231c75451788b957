//===- ONNXImporter.cpp - ONNX to TOSA ------------------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Reads an ONNX ModelProto (Debian's libonnx protobuf classes) and emits one
// `func.func @main` of TOSA ops.
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

#include "MemOpt/Import/Import.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Tosa/Utils/ConversionUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Location.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Endian.h"

#include "onnx/onnx_pb.h"

#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::memopt;

namespace {

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

/// Returns the number of elements of `shape`.
static int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Returns the identity permutation of `rank` dimensions.
static SmallVector<int64_t> identityPerm(int64_t rank) {
  return llvm::to_vector(llvm::seq<int64_t>(0, rank));
}

/// Returns the layout the importer prefers for a value of `rank`: NHWC for
/// rank 4, ONNX order otherwise.
static SmallVector<int64_t> preferredPerm(int64_t rank) {
  if (rank == 4)
    return {0, 2, 3, 1};
  return identityPerm(rank);
}

/// Returns `shape` permuted: result[i] = shape[perm[i]].
static SmallVector<int64_t> permuteShape(ArrayRef<int64_t> shape,
                                         ArrayRef<int64_t> perm) {
  SmallVector<int64_t> result;
  for (int64_t p : perm)
    result.push_back(shape[p]);
  return result;
}

/// Returns the row-major strides of `shape`.
static SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// Returns `data` (row-major, of `shape`) transposed so that dimension i of
/// the result is dimension perm[i] of the input.
template <typename T>
static std::vector<T> permuteData(const std::vector<T> &data,
                                  ArrayRef<int64_t> shape,
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

/// Returns the dimensions of `shape` that are not 1, in the order `perm`
/// lists them.
static SmallVector<int64_t> nonUnitOrder(ArrayRef<int64_t> shape,
                                         ArrayRef<int64_t> perm) {
  SmallVector<int64_t> order;
  for (int64_t p : perm)
    if (shape[p] != 1)
      order.push_back(p);
  return order;
}

/// Imports one ONNX model.
class ONNXImporter {
public:
  ONNXImporter(MLIRContext *context, StringRef fileName)
      : context(context), fileName(fileName),
        builder(UnknownLoc::get(context), context) {}

  /// Parses `bytes` and builds the module; returns null after a diagnostic.
  OwningOpRef<ModuleOp> run(StringRef bytes);

private:
  //===--------------------------------------------------------------------===//
  // Diagnostics and helpers
  //===--------------------------------------------------------------------===//

  /// Emits an error at the file (no node involved).
  InFlightDiagnostic fileError() {
    return emitError(FileLineColLoc::get(context, fileName, 0, 0));
  }

  /// Emits an error naming the current node and its op type, located at the
  /// node's name inside the file.
  InFlightDiagnostic nodeError() {
    Location loc = NameLoc::get(builder.getStringAttr(nodeName),
                                FileLineColLoc::get(context, fileName, 0, 0));
    return emitError(loc) << "node '" << node->name() << "' ("
                          << node->op_type() << "): ";
  }

  /// Returns the f32 tensor type of `shape`.
  RankedTensorType f32Type(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, builder.getF32Type());
  }

  /// Returns the type of `t` as emitted.
  RankedTensorType storedType(const Tensor &t) {
    return f32Type(permuteShape(t.shape, t.perm));
  }

  /// Emits a `tosa.const_shape`.
  Value constShape(ArrayRef<int64_t> values) {
    return tosa::getTosaConstShape(builder, values);
  }

  /// Emits an f32 `tosa.const` of `shape` holding `data` (row-major).
  Value constF32(ArrayRef<int64_t> shape, ArrayRef<float> data) {
    RankedTensorType type = f32Type(shape);
    return tosa::ConstOp::create(builder, type,
                                 DenseElementsAttr::get(type, data));
  }

  /// Emits a float zero point operand (conv, matmul, avg_pool).
  Value zeroPoint() {
    return *tosa::createZeroPointTensor(builder, builder.getLoc(),
                                        builder.getF32Type());
  }

  /// Emits the i8 zero shift operand of `tosa.mul`.
  Value mulShift() {
    auto type = RankedTensorType::get({1}, builder.getI8Type());
    return tosa::ConstOp::create(
        builder, type, DenseElementsAttr::get(type, ArrayRef<int8_t>{0}));
  }

  //===--------------------------------------------------------------------===//
  // Values and layouts
  //===--------------------------------------------------------------------===//

  /// Decodes an initializer or Constant attribute into a constant tensor.
  LogicalResult decodeTensor(const onnx::TensorProto &proto, Tensor &result);

  /// Looks up input `index` of the current node; fails (with a diagnostic)
  /// if it is missing and `required`.
  Tensor *getInput(int index, bool required = true);

  /// Returns a constant input's integer data, or fails with a diagnostic.
  FailureOr<std::vector<int64_t>> getConstInts(int index, StringRef what);

  /// Binds output `index` of the current node to `t`.
  void setOutput(int index, Tensor t);

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
  // Node handlers
  //===--------------------------------------------------------------------===//

  LogicalResult importNode(int nodeIndex);
  LogicalResult importConv(int nodeIndex);
  LogicalResult importBatchNorm();
  LogicalResult importPool(bool isMax);
  LogicalResult importGlobalAveragePool();
  LogicalResult importReduceMean();
  LogicalResult importElementwise(StringRef opType);
  LogicalResult importClamp(float minValue, float maxValue);
  LogicalResult importClip();
  LogicalResult importHardSigmoid(bool swish);
  LogicalResult importConcat();
  LogicalResult importGemm(bool isGemm);
  LogicalResult importReshape(StringRef opType);
  LogicalResult importSlice();
  LogicalResult importSplit();
  LogicalResult importPad();
  LogicalResult importConstFold(StringRef opType);

  /// Emits a 2-D sliding window op's padding for one spatial dimension,
  /// following PyTorch's output-size rule; returns the end padding to give
  /// TOSA and the number of input rows to drop at the end.
  static void fitWindow(int64_t in, int64_t kernel, int64_t stride,
                        int64_t dilation, int64_t padBegin, int64_t padEnd,
                        bool ceilMode, int64_t &out, int64_t &tosaPadEnd,
                        int64_t &crop);

  /// Returns attribute `name` of the current node, or null.
  const onnx::AttributeProto *attr(StringRef name);
  /// Returns integer attribute `name` or `def`.
  int64_t attrInt(StringRef name, int64_t def);
  /// Returns float attribute `name` or `def`.
  float attrFloat(StringRef name, float def);
  /// Returns ints attribute `name` (empty if absent).
  SmallVector<int64_t> attrInts(StringRef name);

  MLIRContext *context;
  StringRef fileName;
  ImplicitLocOpBuilder builder;
  onnx::ModelProto model;
  /// The node being imported and its name (or a made-up one if it has none).
  const onnx::NodeProto *node = nullptr;
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

} // namespace

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

const onnx::AttributeProto *ONNXImporter::attr(StringRef name) {
  for (const onnx::AttributeProto &a : node->attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t ONNXImporter::attrInt(StringRef name, int64_t def) {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->i() : def;
}

float ONNXImporter::attrFloat(StringRef name, float def) {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->f() : def;
}

SmallVector<int64_t> ONNXImporter::attrInts(StringRef name) {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return {};
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

LogicalResult ONNXImporter::decodeTensor(const onnx::TensorProto &proto,
                                         Tensor &result) {
  auto fail = [&]() {
    InFlightDiagnostic diag = node ? nodeError() : fileError();
    diag << "tensor '" << proto.name() << "': ";
    return diag;
  };
  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    return fail() << "external data is not supported";
  for (int64_t d : proto.dims())
    if (d < 1 || d > kMaxElements)
      return fail() << "invalid dimension " << d
                    << " (empty tensors are not supported)";
  result.shape.assign(proto.dims().begin(), proto.dims().end());
  int64_t n = 1;
  for (int64_t d : result.shape) {
    n *= d;
    if (n > kMaxElements)
      return fail() << "too many elements";
  }
  result.perm = identityPerm(result.shape.size());
  result.isConst = true;
  const std::string &raw = proto.raw_data();
  switch (proto.data_type()) {
  case onnx::TensorProto::FLOAT: {
    result.isFloat = true;
    if (proto.has_raw_data()) {
      if (static_cast<int64_t>(raw.size()) != n * 4)
        return fail() << "raw data holds " << raw.size() << " bytes, expected "
                      << n * 4;
      result.floats.resize(n);
      for (int64_t i = 0; i < n; ++i) {
        uint32_t bits = llvm::support::endian::read32le(raw.data() + 4 * i);
        std::memcpy(&result.floats[i], &bits, 4);
      }
    } else {
      if (proto.float_data_size() != n)
        return fail() << "holds " << proto.float_data_size()
                      << " floats, expected " << n;
      result.floats.assign(proto.float_data().begin(),
                           proto.float_data().end());
    }
    return success();
  }
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::INT32: {
    result.isFloat = false;
    bool is64 = proto.data_type() == onnx::TensorProto::INT64;
    int64_t width = is64 ? 8 : 4;
    if (proto.has_raw_data()) {
      if (static_cast<int64_t>(raw.size()) != n * width)
        return fail() << "raw data holds " << raw.size() << " bytes, expected "
                      << n * width;
      result.ints.resize(n);
      for (int64_t i = 0; i < n; ++i)
        result.ints[i] =
            is64 ? static_cast<int64_t>(
                       llvm::support::endian::read64le(raw.data() + 8 * i))
                 : static_cast<int32_t>(
                       llvm::support::endian::read32le(raw.data() + 4 * i));
      return success();
    }
    int64_t count = is64 ? proto.int64_data_size() : proto.int32_data_size();
    if (count != n)
      return fail() << "holds " << count << " values, expected " << n;
    if (is64)
      result.ints.assign(proto.int64_data().begin(), proto.int64_data().end());
    else
      result.ints.assign(proto.int32_data().begin(), proto.int32_data().end());
    return success();
  }
  default:
    return fail() << "unsupported element type "
                  << onnx::TensorProto::DataType_Name(
                         static_cast<onnx::TensorProto::DataType>(
                             proto.data_type()));
  }
}

Tensor *ONNXImporter::getInput(int index, bool required) {
  if (index >= node->input_size() || node->input(index).empty()) {
    if (required)
      nodeError() << "missing input " << index;
    return nullptr;
  }
  auto it = values.find(node->input(index));
  if (it == values.end()) {
    nodeError() << "input '" << node->input(index) << "' is not defined";
    return nullptr;
  }
  return &it->second;
}

FailureOr<std::vector<int64_t>> ONNXImporter::getConstInts(int index,
                                                           StringRef what) {
  Tensor *t = getInput(index);
  if (!t)
    return failure();
  if (!t->isConst || t->isFloat) {
    nodeError() << what << " must be a constant integer tensor";
    return failure();
  }
  return t->ints;
}

void ONNXImporter::setOutput(int index, Tensor t) {
  if (index < node->output_size() && !node->output(index).empty())
    values[node->output(index)] = std::move(t);
}

Value ONNXImporter::valueIn(Tensor &t, ArrayRef<int64_t> perm) {
  if (t.isConst && !t.value) {
    // Materialize in ONNX order once; other layouts are permuted copies.
    std::vector<float> data = t.floats;
    if (!t.isFloat)
      data.assign(t.ints.begin(), t.ints.end());
    if (llvm::equal(perm, t.perm) || t.shape.size() <= 1) {
      t.value = constF32(permuteShape(t.shape, t.perm),
                         permuteData(data, t.shape, t.perm));
      return t.value;
    }
    return constF32(permuteShape(t.shape, perm),
                    permuteData(data, t.shape, perm));
  }
  if (llvm::equal(perm, t.perm))
    return t.value;
  SmallVector<int64_t> target = permuteShape(t.shape, perm);
  // Same order of non-unit dimensions: the data in memory is identical.
  if (nonUnitOrder(t.shape, perm) == nonUnitOrder(t.shape, t.perm))
    return tosa::ReshapeOp::create(builder, f32Type(target), t.value,
                                   constShape(target));
  SmallVector<int64_t> position(t.perm.size());
  for (auto [i, p] : llvm::enumerate(t.perm))
    position[p] = i;
  SmallVector<int32_t> perms;
  for (int64_t p : perm)
    perms.push_back(static_cast<int32_t>(position[p]));
  return tosa::TransposeOp::create(builder, f32Type(target), t.value, perms);
}

Tensor ONNXImporter::reshapeTensor(Tensor &t, ArrayRef<int64_t> newShape) {
  Tensor out;
  out.shape.assign(newShape.begin(), newShape.end());
  if (t.isConst && !t.value) {
    out.isConst = true;
    out.isFloat = t.isFloat;
    out.floats =
        t.isFloat ? permuteData(t.floats, t.shape, identityPerm(t.shape.size()))
                  : std::vector<float>();
    out.ints = t.ints;
    out.perm = identityPerm(newShape.size());
    return out;
  }
  // Group the non-unit input dimensions with the non-unit output dimensions
  // they become (equal products).
  SmallVector<int64_t> inDims, outDims;
  for (auto [i, d] : llvm::enumerate(t.shape))
    if (d != 1)
      inDims.push_back(i);
  for (auto [i, d] : llvm::enumerate(newShape))
    if (d != 1)
      outDims.push_back(i);
  SmallVector<SmallVector<int64_t>> inGroups, outGroups;
  SmallVector<int64_t> groupOf(t.shape.size(), -1);
  size_t i = 0, j = 0;
  while (i < inDims.size() || j < outDims.size()) {
    SmallVector<int64_t> ig, og;
    int64_t pi = 1, pj = 1;
    do {
      if (pi <= pj && i < inDims.size()) {
        pi *= t.shape[inDims[i]];
        ig.push_back(inDims[i++]);
      } else if (j < outDims.size()) {
        pj *= newShape[outDims[j]];
        og.push_back(outDims[j++]);
      } else {
        break;
      }
    } while (pi != pj);
    for (int64_t d : ig)
      groupOf[d] = inGroups.size();
    inGroups.push_back(ig);
    outGroups.push_back(og);
  }
  // Order the groups as they first appear in the stored layout.
  SmallVector<int64_t> stored = nonUnitOrder(t.shape, t.perm);
  SmallVector<int64_t> groupOrder;
  for (int64_t d : stored)
    if (!llvm::is_contained(groupOrder, groupOf[d]))
      groupOrder.push_back(groupOf[d]);
  SmallVector<int64_t> wantIn, outOrder;
  for (int64_t g : groupOrder) {
    llvm::append_range(wantIn, inGroups[g]);
    llvm::append_range(outOrder, outGroups[g]);
  }
  Value input = t.value;
  SmallVector<int64_t> inPerm = t.perm;
  // Reshape the source of a reshape directly: the data is the same.
  if (auto prior = input.getDefiningOp<tosa::ReshapeOp>())
    input = prior.getInput1();
  if (wantIn != stored) {
    // Make every group contiguous and in ONNX order: one transpose.
    inPerm = wantIn;
    for (auto [d, size] : llvm::enumerate(t.shape))
      if (size == 1)
        inPerm.push_back(d);
    input = valueIn(t, inPerm);
  }
  SmallVector<int64_t> outPerm = preferredPerm(newShape.size());
  if (nonUnitOrder(newShape, outPerm) != outOrder) {
    outPerm = outOrder;
    for (auto [d, size] : llvm::enumerate(newShape))
      if (size == 1)
        outPerm.push_back(d);
  }
  out.perm = outPerm;
  SmallVector<int64_t> target = permuteShape(newShape, outPerm);
  if (cast<RankedTensorType>(input.getType()).getShape() ==
      ArrayRef<int64_t>(target))
    out.value = input;
  else
    out.value = tosa::ReshapeOp::create(builder, f32Type(target), input,
                                        constShape(target));
  return out;
}

Tensor ONNXImporter::transposeTensor(Tensor &t, ArrayRef<int64_t> perm) {
  Tensor out;
  out.shape = permuteShape(t.shape, perm);
  if (t.isConst && !t.value) {
    out = t;
    out.shape = permuteShape(t.shape, perm);
    out.perm = identityPerm(perm.size());
    if (t.isFloat)
      out.floats = permuteData(t.floats, t.shape, perm);
    else
      out.ints = permuteData(t.ints, t.shape, perm);
    return out;
  }
  // Output dimension k is input dimension perm[k]; input dimension d is
  // output dimension inverse[d]. The stored tensor does not change.
  SmallVector<int64_t> inverse(perm.size());
  for (auto [k, p] : llvm::enumerate(perm))
    inverse[p] = k;
  for (int64_t p : t.perm)
    out.perm.push_back(inverse[p]);
  out.value = t.value;
  return out;
}

LogicalResult ONNXImporter::broadcastOperands(Tensor &a, Tensor &b, Value &va,
                                              Value &vb, Tensor &out) {
  size_t rank = std::max(a.shape.size(), b.shape.size());
  SmallVector<int64_t> sa(rank - a.shape.size(), 1),
      sb(rank - b.shape.size(), 1);
  llvm::append_range(sa, a.shape);
  llvm::append_range(sb, b.shape);
  out.shape.clear();
  for (size_t i = 0; i < rank; ++i) {
    if (sa[i] != sb[i] && sa[i] != 1 && sb[i] != 1)
      return nodeError() << "operand shapes do not broadcast";
    out.shape.push_back(std::max(sa[i], sb[i]));
  }
  // The layout follows the full-rank non-constant operand.
  Tensor *lead = (!a.isConst && a.shape.size() == rank) ? &a : &b;
  if (lead->isConst || lead->shape.size() != rank)
    lead = (!a.isConst) ? &a : &b;
  if (lead->shape.size() == rank)
    out.perm = lead->perm;
  else
    out.perm = preferredPerm(rank);
  auto prepare = [&](Tensor &t, ArrayRef<int64_t> full) -> Value {
    if (t.shape.size() == rank)
      return valueIn(t, out.perm);
    Tensor expanded = reshapeTensor(t, full);
    return valueIn(expanded, out.perm);
  };
  va = prepare(a, sa);
  vb = prepare(b, sb);
  return success();
}

//===----------------------------------------------------------------------===//
// Node handlers
//===----------------------------------------------------------------------===//

void ONNXImporter::fitWindow(int64_t in, int64_t kernel, int64_t stride,
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

LogicalResult ONNXImporter::importConv(int nodeIndex) {
  Tensor *x = getInput(0);
  Tensor *w = x ? getInput(1) : nullptr;
  if (!w)
    return failure();
  Tensor *bias = getInput(2, /*required=*/false);
  if (x->shape.size() != 4)
    return nodeError() << "only 2-D convolutions (rank-4 input) are supported";
  if (!w->isConst || !w->isFloat || w->shape.size() != 4)
    return nodeError() << "the weight must be a constant rank-4 float tensor";
  if (bias && (!bias->isConst || !bias->isFloat || bias->shape.size() != 1 ||
               bias->shape[0] != w->shape[0]))
    return nodeError() << "the bias must be a constant of " << w->shape[0]
                       << " floats";
  int64_t group = attrInt("group", 1);
  int64_t cin = x->shape[1], cout = w->shape[0];
  int64_t kh = w->shape[2], kw = w->shape[3];
  bool depthwise =
      group > 1 && group == cin && w->shape[1] == 1 && cout % cin == 0;
  if (group < 1 || (!depthwise && group != 1))
    return nodeError() << "grouped convolution with " << group
                       << " groups is not supported";
  if (!depthwise && w->shape[1] != cin)
    return nodeError() << "weight has " << w->shape[1]
                       << " input channels, input has " << cin;
  SmallVector<int64_t> strides = attrInts("strides");
  SmallVector<int64_t> dilations = attrInts("dilations");
  SmallVector<int64_t> pads = attrInts("pads");
  if (strides.empty())
    strides = {1, 1};
  if (dilations.empty())
    dilations = {1, 1};
  if (pads.empty())
    pads = {0, 0, 0, 0};
  SmallVector<int64_t> kernel = attrInts("kernel_shape");
  if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4 ||
      (!kernel.empty() && kernel != SmallVector<int64_t>{kh, kw}))
    return nodeError() << "invalid strides, dilations, pads or kernel_shape";
  for (int64_t v : llvm::concat<int64_t>(strides, dilations))
    if (v < 1)
      return nodeError() << "strides and dilations must be positive";
  for (int64_t v : pads)
    if (v < 0)
      return nodeError() << "pads must not be negative";
  std::string autoPad =
      attr("auto_pad") ? attr("auto_pad")->s() : std::string("NOTSET");
  int64_t in[2] = {x->shape[2], x->shape[3]}, k[2] = {kh, kw};
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
    return nodeError() << "unsupported auto_pad '" << autoPad << "'";
  }

  // Fold a BatchNormalization that is the convolution's only user.
  std::vector<float> weights = w->floats;
  std::vector<float> biases(cout, 0.0f);
  if (bias)
    biases = bias->floats;
  const onnx::NodeProto *convNode = node;
  const onnx::NodeProto *bnNode = nullptr;
  int64_t perOut = numElements(w->shape) / cout;
  const std::string &convOut = node->output(0);
  if (useCounts.lookup(convOut) == 1 && !graphOutputs.contains(convOut)) {
    const auto &nodes = model.graph().node();
    for (int n = nodeIndex + 1; n < nodes.size(); ++n) {
      const onnx::NodeProto &cand = nodes[n];
      if (!llvm::is_contained(cand.input(), convOut))
        continue;
      if (cand.op_type() != "BatchNormalization" || cand.input_size() != 5 ||
          cand.input(0) != convOut || cand.output_size() != 1 ||
          cand.output(0).empty())
        break;
      Tensor *params[4];
      bool ok = true;
      for (int p = 0; p < 4; ++p) {
        auto it = values.find(cand.input(p + 1));
        params[p] = it == values.end() ? nullptr : &it->second;
        ok &= params[p] && params[p]->isConst && params[p]->isFloat &&
              params[p]->floats.size() == static_cast<size_t>(cout);
      }
      if (!ok)
        break;
      float epsilon = 1e-5f;
      for (const onnx::AttributeProto &a : cand.attribute())
        if (a.name() == "epsilon")
          epsilon = a.f();
      for (int64_t o = 0; o < cout; ++o) {
        double scale = double(params[0]->floats[o]) /
                       std::sqrt(double(params[3]->floats[o]) + epsilon);
        for (int64_t e = 0; e < perOut; ++e)
          weights[o * perOut + e] =
              static_cast<float>(double(weights[o * perOut + e]) * scale);
        biases[o] = static_cast<float>(
            (double(biases[o]) - params[2]->floats[o]) * scale +
            params[1]->floats[o]);
      }
      bnNode = &cand;
      folded.insert(n);
      break;
    }
  }

  int64_t outHW[2], padEnd[2], crop[2];
  for (int i = 0; i < 2; ++i) {
    fitWindow(in[i], k[i], strides[i], dilations[i], pads[i], pads[i + 2],
              /*ceilMode=*/false, outHW[i], padEnd[i], crop[i]);
    if (outHW[i] < 1)
      return nodeError() << "the kernel does not fit the input";
  }
  if (bnNode)
    builder.setLoc(FusedLoc::get(
        context, {builder.getLoc(),
                  NameLoc::get(builder.getStringAttr(bnNode->name()))}));
  Value input = valueIn(*x, preferredPerm(4));
  int64_t n = x->shape[0];
  if (crop[0] || crop[1]) {
    SmallVector<int64_t> size = {n, in[0] - crop[0], in[1] - crop[1], cin};
    input = tosa::SliceOp::create(builder, f32Type(size), input,
                                  constShape({0, 0, 0, 0}), constShape(size));
  }
  Value biasValue = constF32({cout}, biases);
  RankedTensorType outType = f32Type({n, outHW[0], outHW[1], cout});
  auto pad =
      builder.getDenseI64ArrayAttr({pads[0], padEnd[0], pads[1], padEnd[1]});
  auto stride = builder.getDenseI64ArrayAttr(strides);
  auto dilation = builder.getDenseI64ArrayAttr(dilations);
  auto accType = TypeAttr::get(builder.getF32Type());
  Value result;
  if (depthwise) {
    // ONNX [C*M, 1, KH, KW] -> TOSA [KH, KW, C, M].
    int64_t m = cout / cin;
    std::vector<float> hwcm =
        permuteData(weights, {cin, m, kh, kw}, {2, 3, 0, 1});
    Value weight = constF32({kh, kw, cin, m}, hwcm);
    result = tosa::DepthwiseConv2DOp::create(
        builder, outType, input, weight, biasValue, zeroPoint(), zeroPoint(),
        pad, stride, dilation, accType);
  } else {
    // ONNX [O, I, KH, KW] -> TOSA [O, KH, KW, I].
    std::vector<float> ohwi = permuteData(weights, w->shape, {0, 2, 3, 1});
    Value weight = constF32({cout, kh, kw, cin}, ohwi);
    result = tosa::Conv2DOp::create(builder, outType, input, weight, biasValue,
                                    pad, stride, dilation, accType);
  }
  Tensor out;
  out.shape = {n, cout, outHW[0], outHW[1]};
  out.perm = preferredPerm(4);
  out.value = result;
  if (bnNode) {
    values[bnNode->output(0)] = out;
    node = convNode;
  }
  setOutput(0, std::move(out));
  return success();
}

LogicalResult ONNXImporter::importBatchNorm() {
  Tensor *x = getInput(0);
  if (!x)
    return failure();
  if (x->shape.size() < 2)
    return nodeError() << "the input must have a channel dimension";
  int64_t c = x->shape[1];
  Tensor *params[4];
  for (int p = 0; p < 4; ++p) {
    params[p] = getInput(p + 1);
    if (!params[p])
      return failure();
    if (!params[p]->isConst || !params[p]->isFloat ||
        params[p]->floats.size() != static_cast<size_t>(c))
      return nodeError() << "scale, bias, mean and variance must be constants "
                            "of "
                         << c << " floats";
  }
  float epsilon = attrFloat("epsilon", 1e-5f);
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
  Value input = valueIn(*x, x->perm);
  RankedTensorType type = storedType(*x);
  Value mul = tosa::MulOp::create(builder, type, input, valueIn(scale, x->perm),
                                  mulShift());
  Tensor out;
  out.shape = x->shape;
  out.perm = x->perm;
  out.value = tosa::AddOp::create(builder, type, mul, valueIn(shift, x->perm));
  setOutput(0, std::move(out));
  return success();
}

LogicalResult ONNXImporter::importPool(bool isMax) {
  Tensor *x = getInput(0);
  if (!x)
    return failure();
  if (x->shape.size() != 4)
    return nodeError() << "only 2-D pooling (rank-4 input) is supported";
  SmallVector<int64_t> kernel = attrInts("kernel_shape");
  SmallVector<int64_t> strides = attrInts("strides");
  SmallVector<int64_t> pads = attrInts("pads");
  SmallVector<int64_t> dilations = attrInts("dilations");
  if (strides.empty())
    strides = {1, 1};
  if (pads.empty())
    pads = {0, 0, 0, 0};
  if (kernel.size() != 2 || strides.size() != 2 || pads.size() != 4)
    return nodeError() << "invalid kernel_shape, strides or pads";
  if (!dilations.empty() && dilations != SmallVector<int64_t>{1, 1})
    return nodeError() << "dilated pooling is not supported";
  if (attr("auto_pad") && attr("auto_pad")->s() != "NOTSET" &&
      attr("auto_pad")->s() != "VALID")
    return nodeError() << "unsupported auto_pad '" << attr("auto_pad")->s()
                       << "'";
  if (attrInt("storage_order", 0) != 0 || node->output_size() > 1)
    return nodeError() << "the Indices output is not supported";
  for (int64_t v : llvm::concat<int64_t>(kernel, strides))
    if (v < 1)
      return nodeError() << "kernel_shape and strides must be positive";
  for (int64_t v : pads)
    if (v < 0 || v >= 1 << 20)
      return nodeError() << "invalid pads";
  bool ceilMode = attrInt("ceil_mode", 0) != 0;
  bool countPad = !isMax && attrInt("count_include_pad", 0) != 0;
  // A zero Pad folded into this pool: its pads count in the divisor.
  auto pending = pendingPoolPads.find(node->input(0));
  if (pending != pendingPoolPads.end()) {
    for (int i = 0; i < 4; ++i)
      pads[i] += pending->second[i];
    countPad = true;
  }
  int64_t n = x->shape[0], c = x->shape[1];
  int64_t in[2] = {x->shape[2], x->shape[3]};
  Value input = valueIn(*x, preferredPerm(4));
  int64_t outHW[2], padEnd[2], crop[2];
  for (int i = 0; i < 2; ++i) {
    fitWindow(in[i], kernel[i], strides[i], 1, pads[i], pads[i + 2], ceilMode,
              outHW[i], padEnd[i], crop[i]);
    if (outHW[i] < 1)
      return nodeError() << "the kernel does not fit the input";
  }
  if (crop[0] || crop[1]) {
    SmallVector<int64_t> size = {n, in[0] - crop[0], in[1] - crop[1], c};
    input = tosa::SliceOp::create(builder, f32Type(size), input,
                                  constShape({0, 0, 0, 0}), constShape(size));
  }
  RankedTensorType outType = f32Type({n, outHW[0], outHW[1], c});
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
        builder, outType, input, zeroPoint(), zeroPoint(), kernelAttr,
        strideAttr, padAttr, TypeAttr::get(builder.getF32Type()));
  if (countPad) {
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
      out.value = tosa::MulOp::create(builder, outType, out.value,
                                      valueIn(factor, out.perm), mulShift());
  }
  setOutput(0, std::move(out));
  return success();
}

LogicalResult ONNXImporter::importGlobalAveragePool() {
  Tensor *x = getInput(0);
  if (!x)
    return failure();
  if (x->shape.size() != 4)
    return nodeError() << "only rank-4 inputs are supported";
  int64_t n = x->shape[0], c = x->shape[1], h = x->shape[2], w = x->shape[3];
  Value input = valueIn(*x, preferredPerm(4));
  Tensor out;
  out.shape = {n, c, 1, 1};
  out.perm = preferredPerm(4);
  out.value =
      tosa::AvgPool2dOp::create(builder, f32Type({n, 1, 1, c}), input,
                                builder.getDenseI64ArrayAttr({h, w}),
                                builder.getDenseI64ArrayAttr({1, 1}),
                                builder.getDenseI64ArrayAttr({0, 0, 0, 0}),
                                TypeAttr::get(builder.getF32Type()));
  setOutput(0, std::move(out));
  return success();
}

LogicalResult ONNXImporter::importReduceMean() {
  Tensor *x = getInput(0);
  if (!x)
    return failure();
  int64_t rank = x->shape.size();
  SmallVector<int64_t> axes = attrInts("axes");
  if (node->input_size() > 1 && !node->input(1).empty()) {
    FailureOr<std::vector<int64_t>> ints = getConstInts(1, "axes");
    if (failed(ints))
      return failure();
    axes.assign(ints->begin(), ints->end());
  }
  if (axes.empty())
    axes = identityPerm(rank);
  for (int64_t &a : axes) {
    if (a < -rank || a >= rank)
      return nodeError() << "axis " << a << " is out of range";
    if (a < 0)
      a += rank;
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  bool keepDims = attrInt("keepdims", 1) != 0;
  Tensor reduced;
  reduced.shape = x->shape;
  reduced.perm = x->perm;
  reduced.value = valueIn(*x, x->perm);
  int64_t count = 1;
  for (int64_t a : axes) {
    count *= x->shape[a];
    reduced.shape[a] = 1;
    int32_t storedAxis = llvm::find(x->perm, a) - x->perm.begin();
    reduced.value =
        tosa::ReduceSumOp::create(builder, storedType(reduced), reduced.value,
                                  builder.getI32IntegerAttr(storedAxis));
  }
  Tensor factor;
  factor.isConst = true;
  factor.shape.assign(rank, 1);
  factor.perm = identityPerm(rank);
  factor.floats = {static_cast<float>(1.0 / double(count))};
  reduced.value =
      tosa::MulOp::create(builder, storedType(reduced), reduced.value,
                          valueIn(factor, reduced.perm), mulShift());
  if (keepDims) {
    setOutput(0, std::move(reduced));
    return success();
  }
  SmallVector<int64_t> newShape;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(axes, d))
      newShape.push_back(x->shape[d]);
  setOutput(0, reshapeTensor(reduced, newShape));
  return success();
}

LogicalResult ONNXImporter::importElementwise(StringRef opType) {
  Tensor *a = getInput(0);
  Tensor *b = a ? getInput(1) : nullptr;
  if (!b)
    return failure();
  if (a->isConst && b->isConst && !a->value && !b->value)
    return importConstFold(opType);
  if (opType == "Div") {
    // Only division by a constant: multiply by its reciprocal.
    if (!b->isConst || !b->isFloat)
      return nodeError() << "only division by a float constant is supported";
    Tensor recip = *b;
    recip.value = Value();
    for (float &f : recip.floats)
      f = 1.0f / f;
    Value va, vb;
    Tensor out;
    if (failed(broadcastOperands(*a, recip, va, vb, out)))
      return failure();
    out.value =
        tosa::MulOp::create(builder, storedType(out), va, vb, mulShift());
    setOutput(0, std::move(out));
    return success();
  }
  Value va, vb;
  Tensor out;
  if (failed(broadcastOperands(*a, *b, va, vb, out)))
    return failure();
  RankedTensorType type = storedType(out);
  if (opType == "Add")
    out.value = tosa::AddOp::create(builder, type, va, vb);
  else if (opType == "Sub")
    out.value = tosa::SubOp::create(builder, type, va, vb);
  else
    out.value = tosa::MulOp::create(builder, type, va, vb, mulShift());
  setOutput(0, std::move(out));
  return success();
}

LogicalResult ONNXImporter::importClamp(float minValue, float maxValue) {
  Tensor *x = getInput(0);
  if (!x)
    return failure();
  Tensor out;
  out.shape = x->shape;
  out.perm = x->perm;
  out.value = tosa::ClampOp::create(
      builder, storedType(out), valueIn(*x, x->perm),
      builder.getF32FloatAttr(minValue), builder.getF32FloatAttr(maxValue));
  setOutput(0, std::move(out));
  return success();
}

LogicalResult ONNXImporter::importClip() {
  float lo = std::numeric_limits<float>::lowest();
  float hi = std::numeric_limits<float>::max();
  if (opset < 11) {
    lo = attrFloat("min", lo);
    hi = attrFloat("max", hi);
  } else {
    for (int i = 1; i <= 2; ++i) {
      Tensor *bound = getInput(i, /*required=*/false);
      if (!bound)
        continue;
      if (!bound->isConst || !bound->isFloat || bound->floats.size() != 1)
        return nodeError() << "min and max must be constant scalars";
      (i == 1 ? lo : hi) = bound->floats[0];
    }
  }
  return importClamp(lo, hi);
}

LogicalResult ONNXImporter::importHardSigmoid(bool swish) {
  Tensor *x = getInput(0);
  if (!x)
    return failure();
  float alpha = swish ? 1.0f / 6.0f : attrFloat("alpha", 0.2f);
  float beta = swish ? 0.5f : attrFloat("beta", 0.5f);
  int64_t rank = x->shape.size();
  Tensor alphaT, betaT;
  alphaT.isConst = betaT.isConst = true;
  alphaT.shape.assign(rank, 1);
  alphaT.perm = identityPerm(rank);
  betaT.shape = alphaT.shape;
  betaT.perm = alphaT.perm;
  alphaT.floats = {alpha};
  betaT.floats = {beta};
  RankedTensorType type = storedType(*x);
  Value input = valueIn(*x, x->perm);
  Value scaled = tosa::MulOp::create(builder, type, input,
                                     valueIn(alphaT, x->perm), mulShift());
  Value shifted =
      tosa::AddOp::create(builder, type, scaled, valueIn(betaT, x->perm));
  Value result = tosa::ClampOp::create(builder, type, shifted,
                                       builder.getF32FloatAttr(0.0f),
                                       builder.getF32FloatAttr(1.0f));
  if (swish)
    result = tosa::MulOp::create(builder, type, input, result, mulShift());
  Tensor out;
  out.shape = x->shape;
  out.perm = x->perm;
  out.value = result;
  setOutput(0, std::move(out));
  return success();
}

LogicalResult ONNXImporter::importConcat() {
  if (node->input_size() < 1)
    return nodeError() << "needs at least one input";
  SmallVector<Tensor *> inputs;
  for (int i = 0; i < node->input_size(); ++i) {
    Tensor *t = getInput(i);
    if (!t)
      return failure();
    inputs.push_back(t);
  }
  int64_t rank = inputs[0]->shape.size();
  int64_t axis = attrInt("axis", 0);
  if (axis < -rank || axis >= rank)
    return nodeError() << "axis " << axis << " is out of range";
  if (axis < 0)
    axis += rank;
  SmallVector<int64_t> shape = inputs[0]->shape;
  shape[axis] = 0;
  for (Tensor *t : inputs) {
    if (static_cast<int64_t>(t->shape.size()) != rank)
      return nodeError() << "inputs have different ranks";
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && t->shape[d] != inputs[0]->shape[d])
        return nodeError() << "input shapes differ outside the axis";
    shape[axis] += t->shape[axis];
  }
  if (llvm::all_of(inputs, [](Tensor *t) { return t->isConst && !t->value; }))
    return importConstFold("Concat");
  SmallVector<int64_t> perm = preferredPerm(rank);
  for (Tensor *t : inputs)
    if (!t->isConst) {
      perm = t->perm;
      break;
    }
  SmallVector<Value> operands;
  for (Tensor *t : inputs)
    operands.push_back(valueIn(*t, perm));
  Tensor out;
  out.shape = shape;
  out.perm = perm;
  int32_t storedAxis = llvm::find(perm, axis) - perm.begin();
  out.value = tosa::ConcatOp::create(builder, storedType(out), operands,
                                     builder.getI32IntegerAttr(storedAxis));
  setOutput(0, std::move(out));
  return success();
}

LogicalResult ONNXImporter::importGemm(bool isGemm) {
  Tensor *a = getInput(0);
  Tensor *b = a ? getInput(1) : nullptr;
  if (!b)
    return failure();
  Tensor *c = isGemm ? getInput(2, /*required=*/false) : nullptr;
  if (!b->isConst || !b->isFloat || b->shape.size() != 2)
    return nodeError() << "the second operand must be a constant matrix";
  if (isGemm &&
      (attrInt("transA", 0) != 0 || attrFloat("alpha", 1.0f) != 1.0f ||
       attrFloat("beta", 1.0f) != 1.0f))
    return nodeError() << "only transA = 0, alpha = 1 and beta = 1 are "
                          "supported";
  if (a->shape.size() < 2 || (isGemm && a->shape.size() != 2))
    return nodeError() << "the first operand must be a matrix";
  bool transB = isGemm && attrInt("transB", 0) != 0;
  int64_t k = a->shape.back();
  int64_t bk = transB ? b->shape[1] : b->shape[0];
  int64_t m = transB ? b->shape[0] : b->shape[1];
  if (bk != k)
    return nodeError() << "inner dimensions differ (" << k << " and " << bk
                       << ")";
  int64_t rows = numElements(a->shape) / k;
  // [rows, K] x [K, M] as a batch-1 tosa.matmul.
  Tensor flat = reshapeTensor(*a, {1, rows, k});
  Value lhs = valueIn(flat, identityPerm(3));
  std::vector<float> weights =
      transB ? permuteData(b->floats, b->shape, {1, 0}) : b->floats;
  Value rhs = constF32({1, k, m}, weights);
  Tensor product;
  product.shape = {1, rows, m};
  product.perm = identityPerm(3);
  product.value = tosa::MatMulOp::create(builder, f32Type({1, rows, m}), lhs,
                                         rhs, zeroPoint(), zeroPoint());
  SmallVector<int64_t> outShape(a->shape.begin(), a->shape.end() - 1);
  outShape.push_back(m);
  Tensor out = reshapeTensor(product, outShape);
  if (c) {
    if (!c->isConst || !c->isFloat)
      return nodeError() << "the bias must be a float constant";
    Value va, vb;
    Tensor sum;
    if (failed(broadcastOperands(out, *c, va, vb, sum)))
      return failure();
    if (sum.shape != out.shape)
      return nodeError() << "the bias does not broadcast to the output";
    sum.value = tosa::AddOp::create(builder, storedType(sum), va, vb);
    out = std::move(sum);
  }
  setOutput(0, std::move(out));
  return success();
}

LogicalResult ONNXImporter::importReshape(StringRef opType) {
  Tensor *x = getInput(0);
  if (!x)
    return failure();
  int64_t rank = x->shape.size();
  SmallVector<int64_t> newShape;
  if (opType == "Flatten") {
    int64_t axis = attrInt("axis", 1);
    if (axis < -rank || axis > rank)
      return nodeError() << "axis " << axis << " is out of range";
    if (axis < 0)
      axis += rank;
    int64_t outer = numElements(ArrayRef<int64_t>(x->shape).take_front(axis));
    newShape = {outer, numElements(x->shape) / std::max<int64_t>(outer, 1)};
    if (outer == 0)
      newShape[1] = 0;
  } else if (opType == "Reshape") {
    FailureOr<std::vector<int64_t>> spec = getConstInts(1, "the shape");
    if (failed(spec))
      return failure();
    int64_t known = 1, inferred = -1;
    bool allowZero = attrInt("allowzero", 0) != 0;
    for (auto [i, d] : llvm::enumerate(*spec)) {
      if (d == 0 && !allowZero) {
        if (static_cast<int64_t>(i) >= rank)
          return nodeError() << "shape entry 0 has no input dimension to copy";
        d = x->shape[i];
      }
      if (d == -1) {
        if (inferred >= 0)
          return nodeError() << "more than one -1 in the shape";
        inferred = i;
        newShape.push_back(1);
        continue;
      }
      if (d < 0 || d > kMaxElements)
        return nodeError() << "invalid shape entry " << d;
      known *= d;
      if (known > kMaxElements)
        return nodeError() << "invalid shape";
      newShape.push_back(d);
    }
    if (inferred >= 0) {
      if (known == 0 || numElements(x->shape) % known)
        return nodeError() << "cannot infer the -1 dimension";
      newShape[inferred] = numElements(x->shape) / known;
    }
  } else {
    // Squeeze / Unsqueeze: axes from the attribute (old opsets) or input 1.
    SmallVector<int64_t> axes = attrInts("axes");
    if (node->input_size() > 1 && !node->input(1).empty()) {
      FailureOr<std::vector<int64_t>> ints = getConstInts(1, "axes");
      if (failed(ints))
        return failure();
      axes.assign(ints->begin(), ints->end());
    }
    int64_t outRank = opType == "Unsqueeze" ? rank + axes.size() : rank;
    for (int64_t &a : axes) {
      if (a < -outRank || a >= outRank)
        return nodeError() << "axis " << a << " is out of range";
      if (a < 0)
        a += outRank;
    }
    if (opType == "Unsqueeze") {
      for (int64_t d = 0, src = 0; d < outRank; ++d) {
        if (llvm::is_contained(axes, d))
          newShape.push_back(1);
        else if (src < rank)
          newShape.push_back(x->shape[src++]);
        else
          return nodeError() << "repeated axes";
      }
    } else {
      for (int64_t d = 0; d < rank; ++d) {
        bool drop =
            axes.empty() ? x->shape[d] == 1 : llvm::is_contained(axes, d);
        if (drop && x->shape[d] != 1)
          return nodeError() << "cannot squeeze dimension " << d << " of size "
                             << x->shape[d];
        if (!drop)
          newShape.push_back(x->shape[d]);
      }
    }
  }
  if (numElements(newShape) != numElements(x->shape))
    return nodeError() << "the new shape has " << numElements(newShape)
                       << " elements, the input " << numElements(x->shape);
  setOutput(0, reshapeTensor(*x, newShape));
  return success();
}

LogicalResult ONNXImporter::importSlice() {
  Tensor *x = getInput(0);
  if (!x)
    return failure();
  int64_t rank = x->shape.size();
  SmallVector<int64_t> starts, ends, axes, steps;
  if (opset < 10) {
    starts = attrInts("starts");
    ends = attrInts("ends");
    axes = attrInts("axes");
  } else {
    FailureOr<std::vector<int64_t>> s = getConstInts(1, "starts");
    if (failed(s))
      return failure();
    FailureOr<std::vector<int64_t>> e = getConstInts(2, "ends");
    if (failed(e))
      return failure();
    starts.assign(s->begin(), s->end());
    ends.assign(e->begin(), e->end());
    if (getInput(3, false)) {
      FailureOr<std::vector<int64_t>> a = getConstInts(3, "axes");
      if (failed(a))
        return failure();
      axes.assign(a->begin(), a->end());
    }
    if (getInput(4, false)) {
      FailureOr<std::vector<int64_t>> st = getConstInts(4, "steps");
      if (failed(st))
        return failure();
      steps.assign(st->begin(), st->end());
    }
  }
  if (axes.empty())
    axes = identityPerm(starts.size());
  if (starts.size() != ends.size() || axes.size() != starts.size() ||
      (!steps.empty() && steps.size() != starts.size()))
    return nodeError() << "starts, ends, axes and steps differ in length";
  if (llvm::any_of(steps, [](int64_t s) { return s != 1; }))
    return nodeError() << "only steps of 1 are supported";
  SmallVector<int64_t> begin(rank, 0), size = x->shape;
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (axis < -rank || axis >= rank)
      return nodeError() << "axis " << axis << " is out of range";
    if (axis < 0)
      axis += rank;
    int64_t dim = x->shape[axis];
    auto clampIndex = [dim](int64_t v) {
      if (v < 0)
        v += dim;
      return std::clamp<int64_t>(v, 0, dim);
    };
    int64_t s = clampIndex(starts[i]), e = clampIndex(ends[i]);
    begin[axis] = s;
    size[axis] = std::max<int64_t>(e - s, 0);
    if (size[axis] == 0)
      return nodeError() << "empty slices are not supported";
  }
  Tensor out;
  out.shape = size;
  if (x->isConst && !x->value) {
    // Constant slices (shape computations): copy the elements.
    out.isConst = true;
    out.isFloat = x->isFloat;
    out.perm = identityPerm(rank);
    SmallVector<int64_t> strides = stridesOf(x->shape);
    SmallVector<int64_t> index(rank, 0);
    for (int64_t flat = 0, n = numElements(size); flat < n; ++flat) {
      int64_t src = 0;
      for (int64_t d = 0; d < rank; ++d)
        src += (index[d] + begin[d]) * strides[d];
      if (x->isFloat)
        out.floats.push_back(x->floats[src]);
      else
        out.ints.push_back(x->ints[src]);
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++index[d] < size[d])
          break;
        index[d] = 0;
      }
    }
    setOutput(0, std::move(out));
    return success();
  }
  out.perm = x->perm;
  out.value =
      tosa::SliceOp::create(builder, storedType(out), valueIn(*x, x->perm),
                            constShape(permuteShape(begin, x->perm)),
                            constShape(permuteShape(size, x->perm)));
  setOutput(0, std::move(out));
  return success();
}

LogicalResult ONNXImporter::importSplit() {
  Tensor *x = getInput(0);
  if (!x)
    return failure();
  int64_t rank = x->shape.size();
  int64_t axis = attrInt("axis", 0);
  if (axis < -rank || axis >= rank)
    return nodeError() << "axis " << axis << " is out of range";
  if (axis < 0)
    axis += rank;
  SmallVector<int64_t> split = attrInts("split");
  if (getInput(1, false)) {
    FailureOr<std::vector<int64_t>> s = getConstInts(1, "split");
    if (failed(s))
      return failure();
    split.assign(s->begin(), s->end());
  }
  int64_t parts = node->output_size();
  if (split.empty()) {
    if (parts < 1 || x->shape[axis] % parts)
      return nodeError() << "cannot split " << x->shape[axis] << " evenly in "
                         << parts;
    split.assign(parts, x->shape[axis] / parts);
  }
  if (static_cast<int64_t>(split.size()) != parts ||
      llvm::any_of(split, [](int64_t s) { return s < 1; }) ||
      llvm::sum_of(split) != x->shape[axis])
    return nodeError() << "invalid split sizes";
  if (x->isConst && !x->value)
    return nodeError() << "splitting a constant is not supported";
  Value input = valueIn(*x, x->perm);
  int64_t offset = 0;
  for (int64_t p = 0; p < parts; ++p) {
    SmallVector<int64_t> begin(rank, 0), size = x->shape;
    begin[axis] = offset;
    size[axis] = split[p];
    offset += split[p];
    Tensor out;
    out.shape = size;
    out.perm = x->perm;
    out.value = tosa::SliceOp::create(builder, storedType(out), input,
                                      constShape(permuteShape(begin, x->perm)),
                                      constShape(permuteShape(size, x->perm)));
    setOutput(p, std::move(out));
  }
  return success();
}

LogicalResult ONNXImporter::importPad() {
  Tensor *x = getInput(0);
  if (!x)
    return failure();
  int64_t rank = x->shape.size();
  std::string mode = attr("mode") ? attr("mode")->s() : std::string("constant");
  if (mode != "constant")
    return nodeError() << "only constant padding is supported, not '" << mode
                       << "'";
  SmallVector<int64_t> pads = attrInts("pads");
  float padValue = attrFloat("value", 0.0f);
  if (opset >= 11) {
    FailureOr<std::vector<int64_t>> p = getConstInts(1, "pads");
    if (failed(p))
      return failure();
    pads.assign(p->begin(), p->end());
    if (Tensor *v = getInput(2, false)) {
      if (!v->isConst || !v->isFloat || v->floats.size() != 1)
        return nodeError() << "the pad value must be a constant scalar";
      padValue = v->floats[0];
    }
    if (getInput(3, false))
      return nodeError() << "the axes input is not supported";
  }
  if (static_cast<int64_t>(pads.size()) != 2 * rank)
    return nodeError() << "expected " << 2 * rank << " pads";
  if (llvm::any_of(pads, [](int64_t p) { return p < 0 || p > (1 << 20); }))
    return nodeError() << "only non-negative pads are supported";
  if (llvm::all_of(pads, [](int64_t p) { return p == 0; })) {
    setOutput(0, *x);
    return success();
  }
  // Zero padding of H and W read only by an AveragePool without pads of
  // its own: fold it into the pool (no padded copy).
  const std::string &padOut = node->output(0);
  if (rank == 4 && padValue == 0.0f && pads[0] == 0 && pads[1] == 0 &&
      pads[4] == 0 && pads[5] == 0 && useCounts.lookup(padOut) == 1 &&
      !graphOutputs.contains(padOut) && !x->isConst) {
    for (const onnx::NodeProto &cand : model.graph().node()) {
      if (!llvm::is_contained(cand.input(), padOut))
        continue;
      bool noPads = true;
      for (const onnx::AttributeProto &a : cand.attribute())
        if (a.name() == "pads")
          noPads = llvm::all_of(a.ints(), [](int64_t p) { return p == 0; });
        else if (a.name() == "auto_pad")
          noPads &= a.s() == "NOTSET" || a.s() == "VALID";
      if (cand.op_type() == "AveragePool" && cand.input(0) == padOut &&
          noPads) {
        pendingPoolPads[padOut] = {pads[2], pads[3], pads[6], pads[7]};
        setOutput(0, *x);
        return success();
      }
      break;
    }
  }
  Tensor out;
  out.shape = x->shape;
  for (int64_t d = 0; d < rank; ++d)
    out.shape[d] += pads[d] + pads[d + rank];
  if (numElements(out.shape) > kMaxElements)
    return nodeError() << "the padded tensor is too large";
  out.perm = x->perm;
  // Leave out unpadded unit dimensions: TOSA's level check limits the
  // padding shape to 6 entries (rank 3), so NHWC batch 1 pads as HWC.
  SmallVector<int64_t> padding, reducedIn, reducedOut;
  for (int64_t d : x->perm) {
    if (x->shape[d] == 1 && pads[d] == 0 && pads[d + rank] == 0)
      continue;
    padding.push_back(pads[d]);
    padding.push_back(pads[d + rank]);
    reducedIn.push_back(x->shape[d]);
    reducedOut.push_back(out.shape[d]);
  }
  Value input = valueIn(*x, x->perm);
  bool reduce = static_cast<int64_t>(reducedIn.size()) < rank;
  if (reduce)
    input = tosa::ReshapeOp::create(builder, f32Type(reducedIn), input,
                                    constShape(reducedIn));
  out.value =
      tosa::PadOp::create(builder, f32Type(reducedOut), input,
                          constShape(padding), constF32({1}, {padValue}));
  if (reduce) {
    SmallVector<int64_t> stored = permuteShape(out.shape, out.perm);
    out.value = tosa::ReshapeOp::create(builder, f32Type(stored), out.value,
                                        constShape(stored));
  }
  setOutput(0, std::move(out));
  return success();
}

LogicalResult ONNXImporter::importConstFold(StringRef opType) {
  auto fail = [&]() {
    return nodeError() << "cannot fold this operator on constants";
  };
  if (opType == "Shape") {
    Tensor *x = getInput(0);
    if (!x)
      return failure();
    Tensor out;
    out.isConst = true;
    out.isFloat = false;
    out.shape = {static_cast<int64_t>(x->shape.size())};
    out.perm = {0};
    out.ints.assign(x->shape.begin(), x->shape.end());
    setOutput(0, std::move(out));
    return success();
  }
  if (opType == "Gather") {
    Tensor *x = getInput(0);
    Tensor *idx = x ? getInput(1) : nullptr;
    if (!idx)
      return failure();
    if (!x->isConst || x->value || !idx->isConst || idx->isFloat ||
        x->shape.size() != 1 || attrInt("axis", 0) != 0)
      return nodeError() << "only gathers from constant vectors are supported";
    Tensor out;
    out.isConst = true;
    out.isFloat = x->isFloat;
    out.shape = idx->shape;
    out.perm = identityPerm(idx->shape.size());
    int64_t n = x->shape[0];
    for (int64_t i : idx->ints) {
      if (i < -n || i >= n)
        return nodeError() << "index " << i << " is out of range";
      if (i < 0)
        i += n;
      if (x->isFloat)
        out.floats.push_back(x->floats[i]);
      else
        out.ints.push_back(x->ints[i]);
    }
    setOutput(0, std::move(out));
    return success();
  }
  if (opType == "Cast") {
    Tensor *x = getInput(0);
    if (!x)
      return failure();
    if (!x->isConst || x->value)
      return nodeError() << "only casts of constants are supported";
    int64_t to = attrInt("to", 0);
    Tensor out = *x;
    if (to == onnx::TensorProto::FLOAT && !x->isFloat) {
      out.isFloat = true;
      out.floats.assign(x->ints.begin(), x->ints.end());
      out.ints.clear();
    } else if ((to == onnx::TensorProto::INT64 ||
                to == onnx::TensorProto::INT32) &&
               x->isFloat) {
      out.isFloat = false;
      for (float f : x->floats)
        out.ints.push_back(static_cast<int64_t>(f));
      out.floats.clear();
    } else if (to != onnx::TensorProto::FLOAT &&
               to != onnx::TensorProto::INT64 &&
               to != onnx::TensorProto::INT32) {
      return nodeError() << "unsupported cast target type " << to;
    }
    setOutput(0, std::move(out));
    return success();
  }
  if (opType == "Concat") {
    // Constant concatenation (shape vectors).
    Tensor out;
    out.isConst = true;
    for (int i = 0; i < node->input_size(); ++i) {
      Tensor *t = getInput(i);
      if (!t)
        return failure();
      if (t->shape.size() != 1 || (i > 0 && t->isFloat != out.isFloat))
        return fail();
      out.isFloat = t->isFloat;
      llvm::append_range(out.floats, t->floats);
      llvm::append_range(out.ints, t->ints);
    }
    out.shape = {static_cast<int64_t>(out.isFloat ? out.floats.size()
                                                  : out.ints.size())};
    out.perm = {0};
    setOutput(0, std::move(out));
    return success();
  }
  // Binary arithmetic on constants, with broadcasting.
  Tensor *a = getInput(0);
  Tensor *b = a ? getInput(1) : nullptr;
  if (!b)
    return failure();
  if (a->isFloat != b->isFloat)
    return nodeError() << "operands have different element types";
  size_t rank = std::max(a->shape.size(), b->shape.size());
  SmallVector<int64_t> sa(rank - a->shape.size(), 1),
      sb(rank - b->shape.size(), 1), shape;
  llvm::append_range(sa, a->shape);
  llvm::append_range(sb, b->shape);
  for (size_t i = 0; i < rank; ++i) {
    if (sa[i] != sb[i] && sa[i] != 1 && sb[i] != 1)
      return nodeError() << "operand shapes do not broadcast";
    shape.push_back(std::max(sa[i], sb[i]));
  }
  SmallVector<int64_t> stA = stridesOf(sa), stB = stridesOf(sb);
  Tensor out;
  out.isConst = true;
  out.isFloat = a->isFloat;
  out.shape = shape;
  out.perm = identityPerm(rank);
  SmallVector<int64_t> index(rank, 0);
  for (int64_t flat = 0, n = numElements(shape); flat < n; ++flat) {
    int64_t ia = 0, ib = 0;
    for (size_t d = 0; d < rank; ++d) {
      ia += (sa[d] == 1 ? 0 : index[d]) * stA[d];
      ib += (sb[d] == 1 ? 0 : index[d]) * stB[d];
    }
    if (out.isFloat) {
      float x = a->floats[ia], y = b->floats[ib];
      out.floats.push_back(opType == "Add"   ? x + y
                           : opType == "Sub" ? x - y
                           : opType == "Mul" ? x * y
                                             : x / y);
    } else {
      int64_t x = a->ints[ia], y = b->ints[ib];
      if (opType == "Div" && y == 0)
        return nodeError() << "integer division by zero";
      // Wrapping arithmetic: corrupt files must not reach undefined
      // behaviour.
      uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
      if (opType == "Div" && y == -1)
        out.ints.push_back(static_cast<int64_t>(0 - ux));
      else
        out.ints.push_back(opType == "Add"   ? static_cast<int64_t>(ux + uy)
                           : opType == "Sub" ? static_cast<int64_t>(ux - uy)
                           : opType == "Mul" ? static_cast<int64_t>(ux * uy)
                                             : x / y);
    }
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  setOutput(0, std::move(out));
  return success();
}

LogicalResult ONNXImporter::importNode(int nodeIndex) {
  StringRef op = node->op_type();
  if (!node->domain().empty() && node->domain() != "ai.onnx")
    return nodeError() << "unsupported operator domain '" << node->domain()
                       << "'";
  if (node->output_size() < 1 || node->output(0).empty())
    return nodeError() << "has no output";
  if (op == "Conv")
    return importConv(nodeIndex);
  if (op == "BatchNormalization")
    return importBatchNorm();
  if (op == "Relu")
    return importClamp(0.0f, std::numeric_limits<float>::max());
  if (op == "Clip")
    return importClip();
  if (op == "MaxPool" || op == "AveragePool")
    return importPool(op == "MaxPool");
  if (op == "GlobalAveragePool")
    return importGlobalAveragePool();
  if (op == "ReduceMean")
    return importReduceMean();
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div")
    return importElementwise(op);
  if (op == "HardSigmoid" || op == "HardSwish")
    return importHardSigmoid(op == "HardSwish");
  if (op == "Sigmoid") {
    Tensor *x = getInput(0);
    if (!x)
      return failure();
    Tensor out;
    out.shape = x->shape;
    out.perm = x->perm;
    out.value =
        tosa::SigmoidOp::create(builder, storedType(out), valueIn(*x, x->perm));
    setOutput(0, std::move(out));
    return success();
  }
  if (op == "Concat")
    return importConcat();
  if (op == "Gemm" || op == "MatMul")
    return importGemm(op == "Gemm");
  if (op == "Reshape" || op == "Flatten" || op == "Squeeze" ||
      op == "Unsqueeze")
    return importReshape(op);
  if (op == "Transpose") {
    Tensor *x = getInput(0);
    if (!x)
      return failure();
    int64_t rank = x->shape.size();
    SmallVector<int64_t> perm = attrInts("perm");
    if (perm.empty())
      for (int64_t d = rank - 1; d >= 0; --d)
        perm.push_back(d);
    SmallVector<int64_t> sorted = perm;
    llvm::sort(sorted);
    if (sorted != identityPerm(rank))
      return nodeError() << "perm is not a permutation of " << rank
                         << " dimensions";
    setOutput(0, transposeTensor(*x, perm));
    return success();
  }
  if (op == "Slice")
    return importSlice();
  if (op == "Split")
    return importSplit();
  if (op == "Pad")
    return importPad();
  if (op == "Identity" || op == "Dropout") {
    Tensor *x = getInput(0);
    if (!x)
      return failure();
    if (op == "Dropout" && node->output_size() > 1 && !node->output(1).empty())
      return nodeError() << "the mask output is not supported";
    setOutput(0, *x);
    return success();
  }
  if (op == "Constant") {
    const onnx::AttributeProto *value = attr("value");
    if (!value || !value->has_t())
      return nodeError() << "only tensor constants ('value') are supported";
    Tensor out;
    if (failed(decodeTensor(value->t(), out)))
      return failure();
    setOutput(0, std::move(out));
    return success();
  }
  if (op == "Shape" || op == "Gather" || op == "Cast")
    return importConstFold(op);
  return nodeError() << "unsupported operator";
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp> ONNXImporter::run(StringRef bytes) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    fileError() << "not a valid ONNX model (malformed or truncated protobuf)";
    return nullptr;
  }
  if (!model.has_graph()) {
    fileError() << "the ONNX model has no graph";
    return nullptr;
  }
  for (const onnx::OperatorSetIdProto &set : model.opset_import())
    if (set.domain().empty() || set.domain() == "ai.onnx")
      opset = set.version();
  const onnx::GraphProto &graph = model.graph();

  for (const onnx::TensorProto &init : graph.initializer()) {
    Tensor t;
    if (failed(decodeTensor(init, t)))
      return nullptr;
    values[init.name()] = std::move(t);
  }
  for (const onnx::NodeProto &n : graph.node())
    for (const std::string &in : n.input())
      ++useCounts[in];
  for (const onnx::ValueInfoProto &out : graph.output()) {
    graphOutputs.insert(out.name());
    ++useCounts[out.name()];
  }

  // Function arguments: ONNX (NCHW) shapes, transposed to NHWC on entry.
  OwningOpRef<ModuleOp> module = ModuleOp::create(builder.getLoc());
  builder.setInsertionPointToEnd(module->getBody());
  SmallVector<Type> argTypes;
  SmallVector<const onnx::ValueInfoProto *> inputs;
  for (const onnx::ValueInfoProto &in : graph.input()) {
    if (values.count(in.name()))
      continue; // An initializer also listed as an input.
    const onnx::TypeProto &type = in.type();
    if (!type.has_tensor_type() ||
        type.tensor_type().elem_type() != onnx::TensorProto::FLOAT) {
      fileError() << "graph input '" << in.name()
                  << "': only float tensors are supported";
      return nullptr;
    }
    SmallVector<int64_t> shape;
    for (const onnx::TensorShapeProto::Dimension &d :
         type.tensor_type().shape().dim()) {
      if (!d.has_dim_value() || d.dim_value() < 1 ||
          d.dim_value() > kMaxElements) {
        fileError() << "graph input '" << in.name() << "': dimension "
                    << shape.size() << " is dynamic ('" << d.dim_param()
                    << "'); only static shapes are supported";
        return nullptr;
      }
      shape.push_back(d.dim_value());
    }
    if (numElements(shape) > kMaxElements) {
      fileError() << "graph input '" << in.name() << "' is too large";
      return nullptr;
    }
    argTypes.push_back(f32Type(shape));
    inputs.push_back(&in);
  }
  auto func = func::FuncOp::create(builder, "main",
                                   builder.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  for (auto [i, in] : llvm::enumerate(inputs)) {
    builder.setLoc(NameLoc::get(builder.getStringAttr(in->name())));
    entry->getArgument(i).setLoc(builder.getLoc());
    Tensor t;
    t.shape = llvm::to_vector(cast<RankedTensorType>(argTypes[i]).getShape());
    t.perm = identityPerm(t.shape.size());
    t.value = entry->getArgument(i);
    Tensor laidOut = t;
    laidOut.perm = preferredPerm(t.shape.size());
    laidOut.value = valueIn(t, laidOut.perm);
    values[in->name()] = std::move(laidOut);
  }

  for (auto [index, n] : llvm::enumerate(graph.node())) {
    if (folded.contains(index))
      continue;
    node = &n;
    nodeName =
        n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
    builder.setLoc(NameLoc::get(builder.getStringAttr(nodeName)));
    if (failed(importNode(index)))
      return nullptr;
    for (const std::string &out : n.output()) {
      if (out.empty())
        continue;
      auto it = values.find(out);
      if (it == values.end()) {
        nodeError() << "output '" << out << "' was not produced";
        return nullptr;
      }
      // Every tensor must be non-empty and of a sane size.
      int64_t elements = 1;
      for (int64_t d : it->second.shape) {
        if (d < 1 || d > kMaxElements || (elements *= d) > kMaxElements) {
          nodeError() << "output '" << out << "' would be empty or too large";
          return nullptr;
        }
      }
    }
  }
  node = nullptr;

  // Results: back to ONNX layout.
  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &out : graph.output()) {
    auto it = values.find(out.name());
    if (it == values.end()) {
      fileError() << "graph output '" << out.name() << "' is not defined";
      return nullptr;
    }
    builder.setLoc(NameLoc::get(builder.getStringAttr(out.name())));
    Tensor &t = it->second;
    if (!t.isFloat) {
      fileError() << "graph output '" << out.name()
                  << "' is an integer tensor; only float outputs are "
                     "supported";
      return nullptr;
    }
    results.push_back(valueIn(t, identityPerm(t.shape.size())));
  }
  func::ReturnOp::create(builder, results);
  // Drop what nothing uses (constants materialized in a layout that was not
  // needed in the end, reshapes superseded by a later one).
  SmallVector<Operation *> ops;
  for (Operation &op : entry->without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty() && isMemoryEffectFree(op))
      op->erase();
  func.setFunctionType(
      builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  return module;
}

OwningOpRef<ModuleOp> mlir::memopt::importONNX(llvm::StringRef bytes,
                                               llvm::StringRef fileName,
                                               MLIRContext *context) {
  context->loadDialect<func::FuncDialect, tosa::TosaDialect>();
  ONNXImporter importer(context, fileName);
  return importer.run(bytes);
}
