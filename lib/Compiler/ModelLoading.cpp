//===- ModelLoading.cpp - A model's bytes to TOSA with C names ------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Reads a model for the compile driver: TFLite and ONNX are recognised from
// their bytes and imported, MLIR text or bytecode is parsed. Then gives the
// public functions their C names and checks that a C header can describe their
// signatures and that every tensor fits the target.
//
//===----------------------------------------------------------------------===//

#include "CompilerInternal.h"

#include "MemOpt/CostModel/States.h"
#include "MemOpt/Import/Import.h"
#include "MemOpt/Support/Diagnostics.h"
#include "MemOpt/Utils/StorageSize.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <cmath>

using namespace mlir;
using namespace mlir::memopt;

//===----------------------------------------------------------------------===//
// Reading the model
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp>
mlir::memopt::loadModel(std::unique_ptr<llvm::MemoryBuffer> buffer,
                        MLIRContext *context, const CompileOptions &options,
                        llvm::SourceMgr *sourceMgr) {
  StringRef path = options.modelPath;
  StringRef bytes = buffer->getBuffer();
  // An empty file (or only white space) would parse as an empty module.
  if (bytes.trim().empty()) {
    emitError(UnknownLoc::get(context))
        << (path == "-" ? StringRef("<stdin>") : path) << ": the file is empty";
    return nullptr;
  }
  std::optional<OwningOpRef<ModuleOp>> imported = importModel(
      bytes, path, context, TFLiteImportOptions{options.tfliteDoubleRound});
  if (imported)
    return std::move(*imported);
  if (isUnrecognizedBinary(bytes)) {
    emitError(UnknownLoc::get(context))
        << path
        << ": not a TFLite, ONNX or MLIR model (binary content that is "
           "neither a TFLite flatbuffer nor an ONNX protobuf)";
    return nullptr;
  }
  llvm::SourceMgr localSourceMgr;
  llvm::SourceMgr &mgr = sourceMgr ? *sourceMgr : localSourceMgr;
  mgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(mgr, context);
  if (!module)
    diagnoseSilentParseFailure(mgr, context);
  return module;
}

OwningOpRef<ModuleOp> mlir::memopt::loadModelFile(MLIRContext *context,
                                                  const CompileOptions &options,
                                                  llvm::SourceMgr *sourceMgr) {
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(options.modelPath, &errorMessage);
  if (!input) {
    emitError(UnknownLoc::get(context)) << errorMessage;
    return nullptr;
  }
  return loadModel(std::move(input), context, options, sourceMgr);
}

//===----------------------------------------------------------------------===//
// C names and signatures
//===----------------------------------------------------------------------===//

StringRef mlir::memopt::getCType(Type type) {
  if (type.isF32())
    return "float";
  if (type.isF64())
    return "double";
  if (type.isF16())
    return "_Float16";
  if (auto intType = dyn_cast<IntegerType>(type)) {
    bool isUnsigned = intType.isUnsigned();
    switch (intType.getWidth()) {
    case 1:
    case 8:
      return isUnsigned || intType.getWidth() == 1 ? "uint8_t" : "int8_t";
    case 16:
      return isUnsigned ? "uint16_t" : "int16_t";
    case 32:
      return isUnsigned ? "uint32_t" : "int32_t";
    case 64:
      return isUnsigned ? "uint64_t" : "int64_t";
    default:
      return "";
    }
  }
  return "";
}

/// Returns true if \p name is a valid C identifier.
static bool isCIdentifier(StringRef name) {
  if (name.empty() || llvm::isDigit(name.front()))
    return false;
  return llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// Returns \p text as a C identifier: other characters become '_', and a
/// leading digit gets a '_' in front. Empty text gives "model".
static std::string toCIdentifier(StringRef text) {
  std::string name;
  for (char c : text)
    name += llvm::isAlnum(c) || c == '_' ? c : '_';
  if (name.empty())
    return "model";
  if (llvm::isDigit(name.front()))
    name.insert(name.begin(), '_');
  return name;
}

LogicalResult
mlir::memopt::renamePublicFunctions(ModuleOp module,
                                    const CompileOptions &options) {
  StringRef symbolName = options.functionName;
  StringRef inputFilename = options.modelPath;
  SmallVector<func::FuncOp> publics;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && func.isPublic())
      publics.push_back(func);
  if (!symbolName.empty() && publics.size() != 1)
    return module.emitError("--name needs exactly one public function, the "
                            "model has ")
           << publics.size();
  for (func::FuncOp func : publics) {
    std::string name = func.getSymName().str();
    if (!symbolName.empty())
      name = symbolName.str();
    else if (publics.size() == 1 && inputFilename != "-")
      name = toCIdentifier(llvm::sys::path::stem(inputFilename));
    else if (name == "main")
      name = "model";
    name = options.symbolPrefix + name;
    if (name == "main")
      name = "model_main";
    if (name == func.getSymName())
      continue;
    auto newName = StringAttr::get(module.getContext(), name);
    if (module.lookupSymbol(newName))
      return func.emitError("cannot rename @")
             << func.getSymName() << " to @" << name
             << ": the module has a symbol of that name";
    if (failed(SymbolTable::replaceAllSymbolUses(func, newName, module)))
      return func.emitError("cannot rename the uses of @") << func.getSymName();
    func.setSymName(newName);
  }
  return success();
}

/// Reads the quantization of input or output #\p index of \p func from its
/// attributes \p attrs (the importers' kQuantScaleAttrName and
/// kQuantZeroPointAttrName). Returns std::nullopt without a scale, failure
/// after an error when the attributes cannot describe a quantization.
static FailureOr<std::optional<IOQuantization>>
getIOQuantization(func::FuncOp func, DictionaryAttr attrs, StringRef what,
                  unsigned index) {
  Attribute scaleAttr = attrs ? attrs.get(kQuantScaleAttrName) : Attribute();
  Attribute zeroAttr = attrs ? attrs.get(kQuantZeroPointAttrName) : Attribute();
  if (!scaleAttr && !zeroAttr)
    return std::optional<IOQuantization>();
  auto scale = dyn_cast_or_null<FloatAttr>(scaleAttr);
  if (!scale || !scale.getType().isF32())
    return func.emitError()
           << what << " #" << index << ": " << kQuantScaleAttrName
           << " must be an f32 float attribute (with "
           << kQuantZeroPointAttrName << " an integer)";
  IOQuantization quantization;
  quantization.scale = scale.getValue().convertToFloat();
  if (!std::isfinite(quantization.scale) || quantization.scale <= 0.0f)
    return func.emitError()
           << what << " #" << index << ": the scale "
           << llvm::formatv(
                  "{0}",
                  llvm::format("%.9g", static_cast<double>(quantization.scale)))
                  .str()
           << " is not a positive finite number";
  if (zeroAttr) {
    auto zero = dyn_cast<IntegerAttr>(zeroAttr);
    if (!zero)
      return func.emitError()
             << what << " #" << index << ": " << kQuantZeroPointAttrName
             << " must be an integer attribute";
    quantization.zeroPoint = zero.getInt();
  }
  return std::optional<IOQuantization>(quantization);
}

FailureOr<SmallVector<FunctionInfo>>
mlir::memopt::collectFunctions(ModuleOp module) {
  SmallVector<FunctionInfo> infos;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal() || func.isPrivate())
      continue;
    FunctionInfo info;
    info.name = func.getSymName().str();
    if (!isCIdentifier(info.name))
      return func.emitError("function name '")
             << info.name << "' is not a C identifier";
    auto collect = [&](TypeRange types, StringRef what,
                       SmallVector<RankedTensorType> &out) -> LogicalResult {
      for (Type type : types) {
        auto tensor = dyn_cast<RankedTensorType>(type);
        if (!tensor || !tensor.hasStaticShape())
          return func.emitError("expected statically shaped tensor ")
                 << what << "s, got " << type;
        if (getCType(tensor.getElementType()).empty())
          return func.emitError("no C type for element type ")
                 << tensor.getElementType() << " of " << what << " " << type;
        out.push_back(tensor);
      }
      return success();
    };
    // The states are neither inputs nor outputs: the header describes them
    // apart (the caller's state buffer).
    FailureOr<SmallVector<StateBinding>> states = getStateBindings(func);
    if (failed(states))
      return failure();
    llvm::BitVector stateArgs(func.getNumArguments());
    llvm::BitVector stateResults(func.getNumResults());
    for (StateBinding state : *states) {
      stateArgs.set(state.argument);
      stateResults.set(state.result);
    }
    if (failed(collect(func.getArgumentTypes(), "input", info.inputs)) ||
        failed(collect(func.getResultTypes(), "output", info.outputs)))
      return failure();
    SmallVector<RankedTensorType> arguments = std::move(info.inputs);
    SmallVector<RankedTensorType> results = std::move(info.outputs);
    info.inputs.clear();
    info.outputs.clear();
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
      FailureOr<std::optional<IOQuantization>> quantization =
          getIOQuantization(func, func.getArgAttrDict(i),
                            stateArgs.test(i) ? "state" : "input", i);
      if (failed(quantization))
        return failure();
      if (stateArgs.test(i)) {
        info.states.push_back(arguments[i]);
        info.stateQuantization.push_back(*quantization);
      } else {
        info.inputs.push_back(arguments[i]);
        info.inputQuantization.push_back(*quantization);
      }
    }
    for (unsigned i = 0, e = func.getNumResults(); i < e; ++i) {
      if (stateResults.test(i))
        continue;
      FailureOr<std::optional<IOQuantization>> quantization =
          getIOQuantization(func, func.getResultAttrDict(i), "output", i);
      if (failed(quantization))
        return failure();
      info.outputs.push_back(results[i]);
      info.outputQuantization.push_back(*quantization);
    }
    infos.push_back(std::move(info));
  }
  if (infos.empty())
    return module.emitError("no public function with a body to compile");
  return infos;
}

LogicalResult mlir::memopt::checkTensorSizes(ModuleOp module) {
  const int64_t limit = llvm::maxIntN(32);
  DataLayout layout(module);
  // Returns failure after the error if \p value's tensor is over the limit.
  auto check = [&](Value value, Location loc, StringRef what) -> LogicalResult {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !type.hasStaticShape() ||
        !type.getElementType().isIntOrFloat())
      return success();
    // The bytes the lowering allocates; none only when they overflow.
    std::optional<int64_t> bytes = getStorageBytes(type, layout);
    if (bytes && *bytes <= limit)
      return success();
    InFlightDiagnostic diag = emitError(loc) << what << " " << type;
    if (bytes)
      diag << " needs " << *bytes << " bytes";
    else
      diag << " needs more bytes than 64 bits count";
    return diag << ", over the limit of " << limit
                << " bytes of one tensor on the target's 32-bit pointers";
  };
  // Before the ops: the inputs first.
  WalkResult result = module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      if (!func.isExternal())
        for (BlockArgument argument : func.getArguments())
          if (failed(
                  check(argument, func.getLoc(),
                        "input #" + std::to_string(argument.getArgNumber()))))
            return WalkResult::interrupt();
      return WalkResult::advance();
    }
    for (Value value : op->getResults())
      if (failed(check(value, op->getLoc(), "the result")))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}
