//===- ONNXImporter.cpp - ONNX to TOSA ------------------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Reads an ONNX ModelProto (Debian's libonnx protobuf classes) and emits one
// `func.func @main` of TOSA ops. This file holds the driver (graph inputs,
// the node loop, graph outputs), the importer's access to attributes and
// values, and the converter table through which every node is dispatched;
// the converters themselves live in the operator family files (NN.cpp,
// Math.cpp, Tensor.cpp, ConstantFolding.cpp). ONNXImporter.h describes the
// layout tracking.
//
//===----------------------------------------------------------------------===//

#include "ONNXImporter.h"

#include "MemOpt/Import/Import.h"
#include "MemOpt/Support/Layers.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Tosa/Utils/ConversionUtils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/Endian.h"

#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::onnximport;

//===----------------------------------------------------------------------===//
// Converter table
//===----------------------------------------------------------------------===//

void ConverterTable::onOp(StringRef opType, int64_t sinceVersion,
                          ONNXConverter converter) {
  SmallVector<Entry, 1> &list = entries[opType];
  auto pos =
      llvm::upper_bound(list, sinceVersion, [](int64_t v, const Entry &e) {
        return v < e.sinceVersion;
      });
  list.insert(pos, Entry{sinceVersion, converter});
}

ONNXConverter ConverterTable::lookup(StringRef opType, int64_t opset) const {
  auto it = entries.find(opType);
  if (it == entries.end() || it->second.empty())
    return nullptr;
  ONNXConverter converter = it->second.front().converter;
  for (const Entry &entry : it->second)
    if (entry.sinceVersion <= opset)
      converter = entry.converter;
  return converter;
}

/// Returns the table of every converter, built once.
static const ConverterTable &getConverters() {
  static const ConverterTable table = [] {
    ConverterTable t;
    populateNNConverters(t);
    populateMathConverters(t);
    populateTensorConverters(t);
    populateConstantFoldingConverters(t);
    return t;
  }();
  return table;
}

//===----------------------------------------------------------------------===//
// Diagnostics and builder helpers
//===----------------------------------------------------------------------===//

InFlightDiagnostic ONNXImporter::fileError() {
  return emitError(FileLineColLoc::get(context, fileName, 0, 0));
}

InFlightDiagnostic ONNXImporter::nodeError() {
  Location loc = NameLoc::get(builder.getStringAttr(nodeName),
                              FileLineColLoc::get(context, fileName, 0, 0));
  return emitError(loc) << "node '" << node->name() << "' (" << node->op_type()
                        << "): ";
}

Value ONNXImporter::constShape(ArrayRef<int64_t> values) {
  return tosa::getTosaConstShape(builder, values);
}

Value ONNXImporter::constF32(ArrayRef<int64_t> shape, ArrayRef<float> data) {
  RankedTensorType type = f32Type(shape);
  return tosa::ConstOp::create(builder, type,
                               DenseElementsAttr::get(type, data));
}

Value ONNXImporter::zeroPoint() {
  return *tosa::createZeroPointTensor(builder, builder.getLoc(),
                                      builder.getF32Type());
}

Value ONNXImporter::mulShift() {
  auto type = RankedTensorType::get({1}, builder.getI8Type());
  return tosa::ConstOp::create(
      builder, type, DenseElementsAttr::get(type, ArrayRef<int8_t>{0}));
}

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

std::string ONNXImporter::attrString(StringRef name, StringRef def) {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->s() : def.str();
}

FailureOr<SmallVector<int64_t>> ONNXImporter::getAxes() {
  SmallVector<int64_t> axes = attrInts("axes");
  if (node->input_size() > 1 && !node->input(1).empty()) {
    FailureOr<std::vector<int64_t>> ints = getConstInts(1, "axes");
    if (failed(ints))
      return failure();
    axes.assign(ints->begin(), ints->end());
  }
  return axes;
}

LogicalResult ONNXImporter::normalizeAxis(int64_t &axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return nodeError() << "axis " << axis << " is out of range";
  if (axis < 0)
    axis += rank;
  return success();
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

Tensor *ONNXImporter::lookupValue(StringRef name) {
  auto it = values.find(name);
  return it == values.end() ? nullptr : &it->second;
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

LogicalResult ONNXImporter::importNode() {
  if (!node->domain().empty() && node->domain() != "ai.onnx")
    return nodeError() << "unsupported operator domain '" << node->domain()
                       << "'";
  if (node->output_size() < 1 || node->output(0).empty())
    return nodeError() << "has no output";
  ONNXConverter convert = converters.lookup(node->op_type(), opset);
  if (!convert)
    return nodeError() << "unsupported operator";
  return convert(*this);
}

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
    nodeIndex = index;
    nodeName =
        n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
    builder.setLoc(NameLoc::get(builder.getStringAttr(nodeName)));
    Operation *last = entry->empty() ? nullptr : &entry->back();
    if (failed(importNode()))
      return nullptr;
    // Every op this node became carries its layer (Layers.h).
    Location layerLoc = getLayerLoc(context, index, n.op_type(), nodeName);
    Block::iterator first =
        last ? std::next(last->getIterator()) : entry->begin();
    for (Operation &created : llvm::make_range(first, entry->end()))
      created.setLoc(addLayerLoc(created.getLoc(), layerLoc));
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
  ONNXImporter importer(context, fileName, getConverters());
  return importer.run(bytes);
}
