//===- Diagnostics.h - Diagnostics at the names of model nodes --*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Ops imported from a model carry the model's node names as `NameLoc`s and no
// source position. MLIR's SourceMgrDiagnosticHandler prints those as
// `<unknown>:0: error: loc("Conv2d_1"): ...`; the handler here prints
// `person_detect:Conv2d_1: error: ...` instead and leaves every diagnostic
// with a source position (a `.mlir` file's line and column) to the
// SourceMgrDiagnosticHandler, whose output stays unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_SUPPORT_DIAGNOSTICS_H
#define MEMOPT_SUPPORT_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"

namespace llvm {
class SourceMgr;
} // namespace llvm

#include <optional>
#include <string>

namespace mlir {
namespace memopt {

/// Returns the model name of the file \p path: its name without directories
/// and extension ("person_detect" for "models/person_detect.tflite"), or ""
/// for standard input ("-") and an empty path.
std::string getModelNameFromPath(StringRef path);

/// Returns the prefix a diagnostic at \p loc is printed with when \p loc has
/// no source position but names a model node: `<model>:<name>`, where <name>
/// is the first non-empty `NameLoc` name in \p loc and <model> the model
/// name of a position-less `FileLineColLoc` (line 0) inside \p loc, else
/// \p defaultModel; just `<name>` when both are empty. Returns std::nullopt
/// when \p loc has a source position (a `FileLineColLoc` with a line) or no
/// named `NameLoc`.
std::optional<std::string> getNamedLocationPrefix(Location loc,
                                                  StringRef defaultModel);

/// If \p diag is at a location getNamedLocationPrefix names, prints it and its
/// notes to \p os (`<prefix>: error: message`; notes at a source position as
/// `file:line:col: note: message`) and returns success. Returns failure, and
/// prints nothing, otherwise, so that the next handler gets \p diag.
LogicalResult emitNamedLocationDiagnostic(Diagnostic &diag,
                                          StringRef defaultModel,
                                          raw_ostream &os = llvm::errs());

/// A diagnostic handler for IR whose ops carry model node names: it prints
/// the diagnostics emitNamedLocationDiagnostic handles and passes the others
/// on. Construct it after the SourceMgrDiagnosticHandler, which then prints
/// the rest (the most recently registered handler runs first).
class NamedLocationDiagnosticHandler : public ScopedDiagnosticHandler {
public:
  /// Handles diagnostics of \p ctx for the model called \p defaultModel (see
  /// getModelNameFromPath) and prints them to \p os.
  NamedLocationDiagnosticHandler(MLIRContext *ctx, StringRef defaultModel,
                                 raw_ostream &os = llvm::errs());

private:
  std::string defaultModel;
};

/// For input whose parse failed: some verifiers of MLIR 22 return failure
/// without a diagnostic (`tosa.pad` with a padding that is not a constant
/// shape), and the tool then exits with 1 and no message. This re-parses the
/// main buffer of \p sourceMgr into \p context without verifying, verifies
/// op by op (innermost first, diagnostics held back) and, if the first op
/// that fails does so silently, reports an error at that op through the
/// context's handlers and returns true. A parse that fails silently is
/// reported at the buffer's start. Returns false, and prints nothing, when
/// the failure came with a diagnostic (which the tool already printed).
bool diagnoseSilentParseFailure(llvm::SourceMgr &sourceMgr,
                                MLIRContext *context);

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_SUPPORT_DIAGNOSTICS_H
