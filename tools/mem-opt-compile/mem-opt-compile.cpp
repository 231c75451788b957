//===- mem-opt-compile.cpp - A model to a Cortex-M object -----------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// One command from a model (TFLite, ONNX or TOSA in MLIR, detected from the
// content) to a Cortex-M object file and a C header:
//
//   mem-opt-compile model.tflite --cpu=cortex-m4 -o model.o --header model.h
//
// The MemOptCompiler library (MemOpt/Compiler/Compiler.h) does the work:
// this tool turns its command line (CommandLine.h) into CompileOptions,
// shows progress and diagnostics on stderr (CompileConsole), writes the
// object, the header and the LLVM IR as the library hands them over, and
// prints the report (`--report`) to stdout. docs/CortexM.md describes the
// flow and the choices behind it.
//
//===----------------------------------------------------------------------===//

#include "CommandLine.h"

#include "MemOpt/Compiler/CompileConsole.h"
#include "MemOpt/Compiler/Compiler.h"
#include "MemOpt/Support/Diagnostics.h"
#include "MemOpt/Support/Version.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
using namespace mlir::memopt;

/// Writes \p bytes to \p path, unless \p path is empty.
static LogicalResult writeFile(StringRef path, StringRef bytes) {
  if (path.empty())
    return success();
  std::string errorMessage;
  std::unique_ptr<llvm::ToolOutputFile> file =
      openOutputFile(path, &errorMessage);
  if (!file) {
    llvm::WithColor::error() << errorMessage << "\n";
    return failure();
  }
  file->os() << bytes;
  file->keep();
  return success();
}

/// Reads the model, compiles it, writes the files and prints the report;
/// returns failure after reporting an error.
static LogicalResult compile(MLIRContext &context, TimingScope &timing) {
  CommandLineOutputs outputs = getCommandLineOutputs();
  FailureOr<CompileOptions> options = getCompileOptions();
  if (failed(options))
    return failure();
  llvm::SourceMgr sourceMgr;
  std::string modelName = getModelNameFromPath(options->modelPath);
  CompileConsole console(context, sourceMgr, "mem-opt-compile",
                         modelName.empty() ? "<stdin>" : modelName,
                         !outputs.quiet);

  // The model first: cortex-m-pipeline checked its names after reading it.
  TimingScope readTiming = timing.nest("Read the model");
  OwningOpRef<ModuleOp> module = loadModelFile(&context, *options, &sourceMgr);
  readTiming.stop();
  if (!module || failed(setPipelineOptions(*options)))
    return failure();

  CompileHooks hooks;
  hooks.progress = console.getProgressHook();
  hooks.timing = &timing;
  hooks.output = [&](CompileOutputKind kind, StringRef bytes) {
    switch (kind) {
    case CompileOutputKind::LLVMIR:
      return writeFile(outputs.llvmIRFile, bytes);
    case CompileOutputKind::Object:
      return writeFile(outputs.objectFile, bytes);
    case CompileOutputKind::Header:
      return writeFile(outputs.headerFile, bytes);
    }
    llvm_unreachable("unknown CompileOutputKind");
  };
  FailureOr<CompileResult> result = compileModule(*module, *options, hooks);
  if (failed(result))
    return failure();
  llvm::outs() << result->reportText;
  return success();
}

int main(int argc, char **argv) {
  registerVersionPrinter();
  llvm::InitLLVM initLLVM(argc, argv);
  initializeCompiler();
  registerDefaultTimingManagerCLOptions();
  parseCommandLine(argc, argv);
  CommandLineOutputs outputs = getCommandLineOutputs();
  // A model that cannot be read is the first thing to fix.
  if (outputs.modelPath != "-") {
    if (std::error_code error = llvm::sys::fs::access(
            outputs.modelPath, llvm::sys::fs::AccessMode::Exist)) {
      llvm::WithColor::error()
          << "cannot open input file '" << outputs.modelPath
          << "': " << error.message() << "\n";
      return 1;
    }
  }
  if (outputs.objectFile.empty() && outputs.headerFile.empty() &&
      outputs.llvmIRFile.empty() && !outputs.report) {
    llvm::WithColor::error() << "nothing to do: give -o, --header, "
                                "--emit-llvm or --report\n";
    return 1;
  }

  DialectRegistry registry;
  registerCompilerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Errors name the op (and the model's node); the generic IR dump a failing
  // pass would attach is not for users.
  context.printOpOnDiagnostic(false);
  DefaultTimingManager timingManager;
  applyDefaultTimingManagerCLOptions(timingManager);
  TimingScope timing = timingManager.getRootScope();
  return failed(compile(context, timing)) ? 1 : 0;
}
