//===- CompileConsole.cpp - Progress and diagnostics on stderr ------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// One lock serializes the progress lines, which the pass manager's and the
// heartbeat threads print, and the diagnostics. A diagnostic without a
// location (the driver's own errors) prints as `error: <message>`. Without
// progress (`--quiet`), remarks are dropped too.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Compiler/CompileConsole.h"

#include "MemOpt/Support/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
using namespace mlir::memopt;

/// Makes emitDiagnostic(Diagnostic &) callable under the console's lock.
class CompileConsole::SourceMgrHandler : public SourceMgrDiagnosticHandler {
public:
  using SourceMgrDiagnosticHandler::emitDiagnostic;
  using SourceMgrDiagnosticHandler::SourceMgrDiagnosticHandler;
};

CompileConsole::CompileConsole(MLIRContext &context, llvm::SourceMgr &sourceMgr,
                               StringRef toolName, StringRef modelName,
                               bool showProgress, raw_ostream &os)
    : context(context), sourceMgrHandler(std::make_unique<SourceMgrHandler>(
                            sourceMgr, &context, os)),
      toolName(toolName.str()), modelName(modelName.str()),
      showProgress(showProgress), os(os),
      start(std::chrono::steady_clock::now()) {
  id = context.getDiagEngine().registerHandler(
      [this](Diagnostic &diag) { return handle(diag); });
}

CompileConsole::~CompileConsole() { context.getDiagEngine().eraseHandler(id); }

void CompileConsole::printProgress(StringRef message) {
  if (!showProgress)
    return;
  std::lock_guard<std::mutex> lock(mutex);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  os << toolName << ": [" << llvm::format("%6.1f", seconds) << " s] " << message
     << "\n";
}

std::function<void(StringRef)> CompileConsole::getProgressHook() {
  if (!showProgress)
    return {};
  return [this](StringRef message) { printProgress(message); };
}

/// Prints \p diag, which has no location, as `error: <message>`.
static void printUnlocated(Diagnostic &diag, raw_ostream &os) {
  switch (diag.getSeverity()) {
  case DiagnosticSeverity::Error:
    llvm::WithColor::error(os);
    break;
  case DiagnosticSeverity::Warning:
    llvm::WithColor::warning(os);
    break;
  case DiagnosticSeverity::Remark:
    llvm::WithColor::remark(os);
    break;
  case DiagnosticSeverity::Note:
    llvm::WithColor::note(os);
    break;
  }
  os << diag.str() << "\n";
}

LogicalResult CompileConsole::handle(Diagnostic &diag) {
  std::lock_guard<std::mutex> lock(mutex);
  // Remarks (how far a search got) are progress: quiet drops them, so a
  // quiet compile that succeeds prints nothing.
  if (!showProgress && diag.getSeverity() == DiagnosticSeverity::Remark)
    return success();
  // The driver's own errors (an unreadable model, an option the pipeline
  // rejects, the LLVM backend) have no location.
  if (isa<UnknownLoc>(diag.getLocation()) && diag.getNotes().empty())
    printUnlocated(diag, os);
  else if (failed(emitNamedLocationDiagnostic(diag, modelName, os)))
    sourceMgrHandler->emitDiagnostic(diag);
  return success();
}
