//===- CompileConsole.h - Progress and diagnostics on stderr ----*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// What a command-line compiler shows while it compiles: progress lines
// (CompileHooks::progress) stamped with the time since the start, and the
// context's diagnostics: those without a location (the driver's own) as
// `error: ...`, those at a model's node names as `<model>:<node>: error: ...`
// and the others as MLIR's SourceMgrDiagnosticHandler prints them. Both come
// from several threads; each line is printed whole. mem-opt-compile uses it; a
// downstream tool may.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_COMPILER_COMPILECONSOLE_H
#define MEMOPT_COMPILER_COMPILECONSOLE_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class MLIRContext;

namespace memopt {

/// Prints a compile's progress and the diagnostics of its context to one
/// stream, a line at a time.
class CompileConsole {
public:
  /// Handles the diagnostics of \p context while it lives: those at the
  /// nodes of the model \p modelName (getModelNameFromPath) by name, the
  /// others through \p sourceMgr's handler. Progress lines start with
  /// `<toolName>: `; they, and remarks, are printed only if
  /// \p showProgress.
  CompileConsole(MLIRContext &context, llvm::SourceMgr &sourceMgr,
                 StringRef toolName, StringRef modelName, bool showProgress,
                 raw_ostream &os = llvm::errs());
  /// Unregisters the diagnostic handler.
  ~CompileConsole();

  /// Prints "<tool>: [  1.2 s] <message>", the seconds since construction.
  void printProgress(StringRef message);

  /// Returns a CompileHooks::progress that prints here, or an empty one
  /// when progress is not shown.
  std::function<void(StringRef)> getProgressHook();

private:
  /// Prints \p diag; always succeeds.
  LogicalResult handle(Diagnostic &diag);

  /// The source manager's handler, whose emitDiagnostic(Diagnostic &) is
  /// protected.
  class SourceMgrHandler;

  /// The context whose diagnostics are printed.
  MLIRContext &context;
  /// Prints the diagnostics with a source position.
  std::unique_ptr<SourceMgrHandler> sourceMgrHandler;
  /// The tool's and the model's names.
  std::string toolName, modelName;
  /// Whether progress and remarks are printed.
  bool showProgress;
  /// Where everything goes.
  raw_ostream &os;
  /// When the compile started.
  std::chrono::steady_clock::time_point start;
  /// Keeps lines whole.
  std::mutex mutex;
  /// The registration of handle().
  DiagnosticEngine::HandlerID id;
};

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_COMPILER_COMPILECONSOLE_H
