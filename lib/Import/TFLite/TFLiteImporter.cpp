//===- TFLiteImporter.cpp - TFLite to TOSA --------------------------------===//
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
// This file holds the importer's state (tensors, their values, diagnostics)
// and the driver that reads the graph inputs, looks every operator up in the
// converter table (the per-family files register the converters) and returns
// the graph outputs. Conversion rules:
// - Tensors keep TFLite's NHWC layout and shapes (the `shape` field; a -1
//   batch in `shape_signature` is fixed to the stored shape, as TFLite Micro
//   does). Quantized tensors become plain integer tensors (i8, i16, i32);
//   their scales and zero points become rescale parameters (Quantization.cpp).
// - Constants are `tosa.const` with the file's bytes, unchanged; converters
//   may re-type them (same bytes, same order).
// - SVDF keeps its activation state as an extra function argument and an
//   extra result (the updated state), since TOSA functions have no variables;
//   the argument names its result (kStateAttrName) and carries the state's
//   quantization, so that mem-opt-compile keeps the state outside the arena.
// Locations: an op's final TOSA op carries `loc("output tensor name")`;
// helper ops carry the same name with a `#suffix`; unnamed tensors are called
// `tensor_<index>`. Every op also carries its operator's layer, and the
// constants of the file's tensors a weight mark (MemOpt/Support/Layers.h).
//
//===----------------------------------------------------------------------===//

#include "TFLiteImporter.h"

#include "MemOpt/Support/Layers.h"
#include "MemOpt/Support/StateNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TargetEnv.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Endian.h"

#include <cassert>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::tfliteimport;

std::string mlir::memopt::tfliteimport::builtinName(int32_t code) {
  switch (code) {
  case kAdd:
    return "ADD";
  case kAveragePool2D:
    return "AVERAGE_POOL_2D";
  case kConcatenation:
    return "CONCATENATION";
  case kConv2D:
    return "CONV_2D";
  case kDepthwiseConv2D:
    return "DEPTHWISE_CONV_2D";
  case kDequantize:
    return "DEQUANTIZE";
  case kFullyConnected:
    return "FULLY_CONNECTED";
  case kLogistic:
    return "LOGISTIC";
  case kMaxPool2D:
    return "MAX_POOL_2D";
  case kMul:
    return "MUL";
  case kRelu:
    return "RELU";
  case kRelu6:
    return "RELU6";
  case kReshape:
    return "RESHAPE";
  case kSoftmax:
    return "SOFTMAX";
  case kSvdf:
    return "SVDF";
  case kTanh:
    return "TANH";
  case kCustom:
    return "CUSTOM";
  case kPad:
    return "PAD";
  case kTranspose:
    return "TRANSPOSE";
  case kMean:
    return "MEAN";
  case kPadV2:
    return "PADV2";
  case kQuantize:
    return "QUANTIZE";
  default:
    return "BUILTIN_" + std::to_string(code);
  }
}

//===----------------------------------------------------------------------===//
// Converter table
//===----------------------------------------------------------------------===//

void ConverterTable::onOp(int32_t code, Converter converter) {
  assert(code >= 0 && "builtin operator codes are not negative");
  if (static_cast<size_t>(code) >= converters.size())
    converters.resize(code + 1, nullptr);
  assert(!converters[code] && "two converters for one builtin operator");
  converters[code] = converter;
}

Converter ConverterTable::lookup(int32_t code) const {
  // Any int32 may come from the file.
  if (code < 0 || static_cast<size_t>(code) >= converters.size())
    return nullptr;
  return converters[code];
}

void mlir::memopt::tfliteimport::populateAllConverters(ConverterTable &table) {
  populateConvConverters(table);
  populateElementwiseConverters(table);
  populatePoolingConverters(table);
  populateSoftmaxConverters(table);
  populateSVDFConverters(table);
  populateTensorConverters(table);
}

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

TFLiteImporter::TFLiteImporter(const tfl::Model *model, StringRef fileName,
                               MLIRContext *context,
                               const TFLiteImportOptions &options)
    : model(model), fileName(fileName), context(context), builder(context),
      options(options) {
  populateAllConverters(converters);
}

InFlightDiagnostic TFLiteImporter::fileError() {
  return emitError(FileLineColLoc::get(context, fileName, 0, 0)) << "tflite: ";
}

InFlightDiagnostic TFLiteImporter::opError() {
  InFlightDiagnostic diag =
      emitError(FileLineColLoc::get(context, fileName, 0, 0));
  if (!inOperator)
    return std::move(diag << "tflite graph " << opName << ": ");
  return std::move(diag) << "tflite op " << opIndex << " (" << opName << ")"
                         << (opOutput.empty() ? "" : " -> '" + opOutput + "'")
                         << ": ";
}

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
             getWeightLoc(tensorLoc(index)));
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

//===----------------------------------------------------------------------===//
// Operands and results of the operator being converted
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

Value TFLiteImporter::addStateArgument(int32_t index) {
  Block *body = builder.getInsertionBlock();
  Value argument = body->addArgument(tensorType(index), tensorLoc(index));
  values[index] = argument;
  return argument;
}

void TFLiteImporter::addStateResult(int32_t index, Value next) {
  stateTensors.push_back(index);
  stateResults.push_back(next);
}

std::optional<NamedAttrList> TFLiteImporter::getIOQuantAttrs(int32_t index) {
  if (!isQuantized(index))
    return std::nullopt;
  QuantParams q = quant(index);
  // Per-channel parameters do not describe a whole input or output.
  if (q.scales.size() != 1 || q.zeroPoints.size() > 1)
    return std::nullopt;
  NamedAttrList attrs;
  attrs.append(kQuantScaleAttrName,
               builder.getF32FloatAttr(static_cast<float>(q.scale())));
  attrs.append(kQuantZeroPointAttrName,
               builder.getI64IntegerAttr(q.zeroPoint()));
  return attrs;
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

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
  if (builtin == kCustom && code->custom_code())
    opName += " '" + code->custom_code()->str() + "'";
  if (!op->outputs() || op->outputs()->size() == 0)
    return opError() << "operator has no outputs";
  if (!op->inputs())
    return opError() << "operator has no inputs";
  int32_t firstOut = op->outputs()->Get(0);
  if (firstOut >= 0 && static_cast<uint32_t>(firstOut) < tensors->size())
    opOutput = tensorName(firstOut);
  Converter convert = converters.lookup(builtin);
  if (!convert)
    return opError() << "unsupported operator";
  return convert(*this, op);
}

/// Erases the reshapes and shape constants no op uses (a reshape that
/// reshape() bypassed). An erased reshape named a tensor, a view of its
/// source's result: the source takes the name, so every tensor of the model
/// keeps an op that carries it. A source that helped define the same tensor
/// (`name#act`) gives its location up; one that defines another tensor
/// holds both names, its own first.
static void eraseDeadViews(Block &body) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body))) {
    StringRef kind = op.getName().getStringRef();
    if ((kind != "tosa.reshape" && kind != "tosa.const_shape") ||
        !op.use_empty())
      continue;
    Operation *source =
        kind == "tosa.reshape" ? op.getOperand(0).getDefiningOp() : nullptr;
    auto view = dyn_cast<NameLoc>(op.getLoc());
    if (source && view) {
      auto own = dyn_cast<NameLoc>(source->getLoc());
      bool helper = !own || own.getName().getValue().starts_with(
                                (view.getName().getValue() + "#").str());
      source->setLoc(helper ? op.getLoc()
                            : FusedLoc::get(op.getContext(),
                                            {source->getLoc(), op.getLoc()}));
    }
    op.erase();
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
    Operation *last = body->empty() ? nullptr : &body->back();
    if (failed(importOperator(op)))
      return nullptr;
    // Every op this operator became carries its layer (Layers.h).
    Location layerLoc = getLayerLoc(context, i, opName, opOutput);
    Block::iterator first =
        last ? std::next(last->getIterator()) : body->begin();
    for (Operation &created : llvm::make_range(first, body->end()))
      created.setLoc(addLayerLoc(created.getLoc(), layerLoc));
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
  eraseDeadViews(*body);
  SmallVector<Type> finalArgs = llvm::to_vector(body->getArgumentTypes());
  func.setFunctionType(
      builder.getFunctionType(finalArgs, ValueRange(results).getTypes()));
  // The quantization of the graph's inputs and outputs, for the callers
  // that quantize real data (mem-opt-compile's header).
  for (auto [i, t] : llvm::enumerate(*subgraph->inputs()))
    if (std::optional<NamedAttrList> attrs = getIOQuantAttrs(t))
      func.setArgAttrs(i, attrs->getDictionary(context));
  for (auto [i, t] : llvm::enumerate(*subgraph->outputs()))
    if (std::optional<NamedAttrList> attrs = getIOQuantAttrs(t))
      func.setResultAttrs(i, attrs->getDictionary(context));
  // Each SVDF state argument names its new value (kStateAttrName), and
  // carries its quantization: its zero point is the state's reset value
  // (TFLite Micro resets an int8 variable tensor to its real value 0).
  for (auto [k, t] : llvm::enumerate(stateTensors)) {
    unsigned number = cast<BlockArgument>(values[t]).getArgNumber();
    func.setArgAttr(number, kStateAttrName,
                    builder.getI64IntegerAttr(subgraph->outputs()->size() + k));
    if (std::optional<NamedAttrList> attrs = getIOQuantAttrs(t))
      for (NamedAttribute attr : *attrs)
        func.setArgAttr(number, attr.getName(), attr.getValue());
  }
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
