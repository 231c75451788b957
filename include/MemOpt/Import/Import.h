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
// The quantization of the model's inputs and outputs survives the import as
// argument and result attributes of the function: a quantized integer input
// or output (one scale for the whole tensor) carries
//
//   memopt.quant_scale = <f32>        real = scale * (q - zero_point)
//   memopt.quant_zero_point = <i64>
//
// (see kQuantScaleAttrName). mem-opt-compile prints them into the C header.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_IMPORT_IMPORT_H
#define MEMOPT_IMPORT_IMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

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
  /// Reproduce TFLite Micro's int8 arithmetic (the default): rescales with
  /// TOSA's DOUBLE_ROUND, TFLite's own rounding, average pooling and MEAN
  /// rounded and scaled as TFLite's kernels, int8 ADD shifted left before its
  /// input rescales; the `doubleround` extension is declared in a
  /// `tosa.target_env` module attribute (which tools without the TOSA dialect,
  /// such as mlir-translate, cannot parse; mem-opt's Cortex-M pipeline drops
  /// it after the TOSA lowering). Off: TOSA's SINGLE_ROUND and TOSA's
  /// average pooling, no attribute; not TFLite's answers.
  bool doubleRound = true;
};

/// Imports a TFLite flatbuffer model with \p options.
OwningOpRef<ModuleOp> importTFLite(llvm::StringRef bytes,
                                   llvm::StringRef fileName,
                                   MLIRContext *context,
                                   const TFLiteImportOptions &options);

/// Returns true if \p bytes are binary (a NUL byte or invalid UTF-8) and yet
/// neither a model detectModelFormat recognizes nor MLIR bytecode: content
/// no mem-opt tool reads, which the MLIR parser would only echo back.
bool isUnrecognizedBinary(llvm::StringRef bytes);

/// Imports \p bytes as the model detectModelFormat recognizes (TFLite or
/// ONNX, with \p tfliteOptions for TFLite) and verifies it. Returns
/// std::nullopt, with no diagnostic, for content that is neither (e.g. MLIR
/// text or bytecode), and a null module after the importer's diagnostics
/// when the import or the verification fails. `fileName` is used in
/// locations and diagnostics.
std::optional<OwningOpRef<ModuleOp>>
importModel(llvm::StringRef bytes, llvm::StringRef fileName,
            MLIRContext *context,
            const TFLiteImportOptions &tfliteOptions = TFLiteImportOptions());

/// Argument and result attribute (an f32 FloatAttr) of an imported function:
/// the scale of a quantized input or output, real = scale * (q - zero
/// point). Only per-tensor quantization is recorded.
inline constexpr llvm::StringLiteral kQuantScaleAttrName = "memopt.quant_scale";
/// Argument and result attribute (an i64 IntegerAttr) beside
/// kQuantScaleAttrName: the zero point of that input or output.
inline constexpr llvm::StringLiteral kQuantZeroPointAttrName =
    "memopt.quant_zero_point";

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_IMPORT_IMPORT_H
