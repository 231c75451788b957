//===- Import.cpp - Model format detection and import ---------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Recognizes a model's format from its bytes and dispatches to the TFLite or
// ONNX importer: the one place every tool that reads models goes through.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Import/Import.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBufferRef.h"

using namespace mlir;
using namespace mlir::memopt;

ModelFormat mlir::memopt::detectModelFormat(llvm::StringRef bytes) {
  // A TFLite flatbuffer carries the file identifier "TFL3" at bytes 4..8.
  if (bytes.size() >= 8 && bytes.substr(4, 4) == "TFL3")
    return ModelFormat::TFLite;
  // An ONNX ModelProto starts with a protobuf field tag; ir_version (field 1,
  // varint) comes first in every exporter's output.
  if (!bytes.empty() && static_cast<unsigned char>(bytes[0]) == 0x08)
    return ModelFormat::ONNX;
  return ModelFormat::Unknown;
}

std::optional<OwningOpRef<ModuleOp>>
mlir::memopt::importModel(llvm::StringRef bytes, llvm::StringRef fileName,
                          MLIRContext *context,
                          const TFLiteImportOptions &tfliteOptions) {
  OwningOpRef<ModuleOp> module;
  switch (detectModelFormat(bytes)) {
  case ModelFormat::TFLite:
    module = importTFLite(bytes, fileName, context, tfliteOptions);
    break;
  case ModelFormat::ONNX:
    module = importONNX(bytes, fileName, context);
    break;
  case ModelFormat::Unknown:
    return std::nullopt;
  }
  if (module && failed(verify(*module)))
    module = nullptr;
  return module;
}

bool mlir::memopt::isUnrecognizedBinary(llvm::StringRef bytes) {
  if (detectModelFormat(bytes) != ModelFormat::Unknown ||
      isBytecode(llvm::MemoryBufferRef(bytes, "")))
    return false;
  return llvm::is_contained(bytes, '\0') || !llvm::json::isUTF8(bytes);
}
