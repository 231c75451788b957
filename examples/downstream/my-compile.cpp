//===- my-compile.cpp - a downstream compiler on mem-opt's library --------===//
//
// A downstream project's compiler that calls mem-opt's compile driver as a
// library (MemOpt/Compiler/Compiler.h) instead of running mem-opt-compile:
//
//   my-compile model.tflite model.o model.h
//
// It compiles the model for a Cortex-M7, writes the object and the C header
// and prints the arena of each function from the report.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Compiler/Compiler.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <system_error>

using namespace mlir;

/// Writes \p bytes to the file \p path.
static LogicalResult writeFile(StringRef path, StringRef bytes) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  if (error) {
    llvm::errs() << "my-compile: cannot write " << path << ": "
                 << error.message() << "\n";
    return failure();
  }
  os << bytes;
  return success();
}

int main(int argc, char **argv) {
  if (argc != 4) {
    llvm::errs() << "usage: my-compile <model> <object> <header>\n";
    return 2;
  }
  mlir::memopt::initializeCompiler();
  DialectRegistry registry;
  mlir::memopt::registerCompilerDialects(registry);
  MLIRContext context(registry);

  mlir::memopt::CompileOptions options;
  options.modelPath = argv[1];
  options.cpu = mlir::memopt::CortexMCpu::CortexM7;
  options.report = mlir::memopt::ReportFormat::Text;
  // Errors go to the context's diagnostic handlers (stderr by default).
  OwningOpRef<ModuleOp> module = mlir::memopt::loadModelFile(&context, options);
  if (!module)
    return 1;
  FailureOr<mlir::memopt::CompileResult> result =
      mlir::memopt::compileModule(*module, options);
  if (failed(result) || failed(writeFile(argv[2], result->object)) ||
      failed(writeFile(argv[3], result->header)))
    return 1;
  for (const mlir::memopt::FunctionReport &fn : result->report->functions)
    llvm::outs() << "@" << fn.name << ": arena " << fn.arenaBytes.value_or(0)
                 << " bytes\n";
  return 0;
}
