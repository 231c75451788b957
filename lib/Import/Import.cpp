//===- Import.cpp - Model format detection --------------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Import/Import.h"

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
