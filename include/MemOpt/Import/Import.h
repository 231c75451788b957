//===- Import.h - Model importers to TOSA -----------------------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Importers that turn an ONNX or TFLite model file into a module with one
// `func.func` of TOSA ops. Errors are emitted as diagnostics on the context
// (naming the node and op type) and the importers return a null module.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_IMPORT_IMPORT_H
#define MEMOPT_IMPORT_IMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
class MLIRContext;

namespace memopt {

/// Model file formats the importers read.
enum class ModelFormat { Unknown, ONNX, TFLite };

/// Guesses the format from the file's bytes (TFLite's `TFL3` identifier, or an
/// ONNX protobuf), not from its name.
ModelFormat detectModelFormat(llvm::StringRef bytes);

/// Imports an ONNX model. `fileName` is used in locations and diagnostics.
OwningOpRef<ModuleOp> importONNX(llvm::StringRef bytes,
                                 llvm::StringRef fileName,
                                 MLIRContext *context);

/// Imports a TFLite flatbuffer model. `fileName` is used in locations and
/// diagnostics.
OwningOpRef<ModuleOp> importTFLite(llvm::StringRef bytes,
                                   llvm::StringRef fileName,
                                   MLIRContext *context);

/// Options of the TFLite importer.
struct TFLiteImportOptions {
  /// Emit int8 rescales with TOSA's DOUBLE_ROUND, TFLite's own rounding, and
  /// declare the `doubleround` extension in a `tosa.target_env` module
  /// attribute (which tools without the TOSA dialect, such as
  /// mlir-translate, cannot parse). Off: SINGLE_ROUND, no attribute.
  bool doubleRound = false;
};

/// Imports a TFLite flatbuffer model with \p options.
OwningOpRef<ModuleOp> importTFLite(llvm::StringRef bytes,
                                   llvm::StringRef fileName,
                                   MLIRContext *context,
                                   const TFLiteImportOptions &options);

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_IMPORT_IMPORT_H
