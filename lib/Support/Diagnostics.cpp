//===- Diagnostics.cpp - Diagnostics at the names of model nodes ----------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Prints diagnostics at position-less NameLocs as `<model>:<name>: error:`.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Support/Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::memopt;

std::string mlir::memopt::getModelNameFromPath(StringRef path) {
  if (path.empty() || path == "-")
    return "";
  return llvm::sys::path::stem(path).str();
}

namespace {
/// What a location tree says about where a diagnostic is.
struct LocationSummary {
  /// A FileLineColLoc with a line (a real source position) was found.
  bool hasPosition = false;
  /// The first NameLoc's name, if any.
  std::optional<StringRef> name;
  /// The file of the first position-less FileLineColLoc, if any.
  std::optional<StringRef> file;
};
} // namespace

/// Walks \p loc in pre-order (names before their children, callees before
/// callers) and records what it finds in \p summary.
static void summarize(Location loc, LocationSummary &summary) {
  if (auto fileLoc = dyn_cast<FileLineColLoc>(loc)) {
    if (fileLoc.getLine() > 0)
      summary.hasPosition = true;
    else if (!summary.file)
      summary.file = fileLoc.getFilename().strref();
    return;
  }
  if (auto nameLoc = dyn_cast<NameLoc>(loc)) {
    // An empty name names nothing.
    if (!summary.name && !nameLoc.getName().strref().empty())
      summary.name = nameLoc.getName().strref();
    summarize(nameLoc.getChildLoc(), summary);
    return;
  }
  if (auto fusedLoc = dyn_cast<FusedLoc>(loc)) {
    for (Location inner : fusedLoc.getLocations())
      summarize(inner, summary);
    return;
  }
  if (auto callSiteLoc = dyn_cast<CallSiteLoc>(loc)) {
    summarize(callSiteLoc.getCallee(), summary);
    summarize(callSiteLoc.getCaller(), summary);
    return;
  }
  if (auto opaqueLoc = dyn_cast<OpaqueLoc>(loc))
    summarize(opaqueLoc.getFallbackLocation(), summary);
}

std::optional<std::string>
mlir::memopt::getNamedLocationPrefix(Location loc, StringRef defaultModel) {
  LocationSummary summary;
  summarize(loc, summary);
  if (summary.hasPosition || !summary.name)
    return std::nullopt;
  std::string model =
      summary.file ? getModelNameFromPath(*summary.file) : defaultModel.str();
  if (model.empty())
    return summary.name->str();
  return model + ":" + summary.name->str();
}

/// Returns the SourceMgr kind of \p severity.
static llvm::SourceMgr::DiagKind getDiagKind(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Note:
    return llvm::SourceMgr::DK_Note;
  case DiagnosticSeverity::Warning:
    return llvm::SourceMgr::DK_Warning;
  case DiagnosticSeverity::Error:
    return llvm::SourceMgr::DK_Error;
  case DiagnosticSeverity::Remark:
    return llvm::SourceMgr::DK_Remark;
  }
  llvm_unreachable("unknown diagnostic severity");
}

/// Prints one message at \p loc, formatted as SourceMgr would without a
/// source line.
static void printMessage(raw_ostream &os, Location loc, StringRef defaultModel,
                         DiagnosticSeverity severity, StringRef message) {
  std::string prefix;
  if (std::optional<std::string> named =
          getNamedLocationPrefix(loc, defaultModel)) {
    prefix = std::move(*named);
  } else if (auto fileLoc = loc->findInstanceOf<FileLineColLoc>()) {
    prefix = (fileLoc.getFilename().strref() + ":" + Twine(fileLoc.getLine()) +
              ":" + Twine(fileLoc.getColumn()))
                 .str();
  } else if (!isa<UnknownLoc>(loc)) {
    // What SourceMgrDiagnosticHandler prints for other locations.
    std::string text;
    llvm::raw_string_ostream textOs(text);
    textOs << loc << ": " << message;
    llvm::SMDiagnostic("", getDiagKind(severity), text)
        .print(/*ProgName=*/nullptr, os);
    return;
  }
  llvm::SMDiagnostic(prefix, getDiagKind(severity), message)
      .print(/*ProgName=*/nullptr, os);
}

LogicalResult mlir::memopt::emitNamedLocationDiagnostic(Diagnostic &diag,
                                                        StringRef defaultModel,
                                                        raw_ostream &os) {
  if (!getNamedLocationPrefix(diag.getLocation(), defaultModel))
    return failure();
  printMessage(os, diag.getLocation(), defaultModel, diag.getSeverity(),
               diag.str());
  for (Diagnostic &note : diag.getNotes())
    printMessage(os, note.getLocation(), defaultModel, note.getSeverity(),
                 note.str());
  os.flush();
  return success();
}

NamedLocationDiagnosticHandler::NamedLocationDiagnosticHandler(
    MLIRContext *ctx, StringRef defaultModel, raw_ostream &os)
    : ScopedDiagnosticHandler(ctx), defaultModel(defaultModel.str()) {
  setHandler([this, &os](Diagnostic &diag) {
    return emitNamedLocationDiagnostic(diag, this->defaultModel, os);
  });
}

bool mlir::memopt::diagnoseSilentParseFailure(llvm::SourceMgr &sourceMgr,
                                              MLIRContext *context) {
  unsigned mainFile = sourceMgr.getMainFileID();
  if (mainFile == 0)
    return false;
  Block block;
  Operation *silent = nullptr;
  bool parsed = false;
  {
    // Hold back every diagnostic of the second parse and of verification:
    // the tool printed them the first time.
    bool emitted = false;
    ScopedDiagnosticHandler holdBack(context, [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error)
        emitted = true;
      return success();
    });
    ParserConfig config(context, /*verifyAfterParse=*/false);
    parsed = succeeded(parseSourceFile(sourceMgr, &block, config));
    if (!parsed && emitted)
      return false;
    if (parsed) {
      // Innermost ops first, as the verifier reports them.
      WalkResult walk = block.walk([&](Operation *op) {
        emitted = false;
        if (succeeded(verify(op, /*verifyRecursively=*/false)))
          return WalkResult::advance();
        if (!emitted)
          silent = op;
        return WalkResult::interrupt();
      });
      if (!walk.wasInterrupted() || !silent)
        return false;
    }
  }
  if (!parsed) {
    StringRef name = sourceMgr.getMemoryBuffer(mainFile)->getBufferIdentifier();
    emitError(FileLineColLoc::get(context, name, 1, 1))
        << "the MLIR parser rejected the input without a diagnostic";
    return true;
  }
  silent->emitOpError(
      "failed to verify without a diagnostic (its verifier in this MLIR "
      "returns failure without saying why; check its operands and "
      "attributes against the op's documentation)");
  return true;
}
