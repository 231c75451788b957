//===- mem-opt-import.cpp - ONNX and TFLite models to TOSA ----------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The `mem-opt-import` tool: reads an ONNX or TFLite model (the format is
// chosen from the file's content) and writes a module with one `func.func` of
// TOSA ops, verified, that mem-opt's passes accept.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Import/Import.h"
#include "MemOpt/InitAll.h"
#include "MemOpt/Support/Diagnostics.h"
#include "MemOpt/Support/Version.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
using namespace mlir::memopt;

int main(int argc, char **argv) {
  mlir::memopt::registerVersionPrinter();
  llvm::InitLLVM initLLVM(argc, argv);
  // Only these options (and --help, --version) are listed: libLLVM
  // registers hundreds of code generator flags that do not apply here.
  static llvm::cl::OptionCategory importCategory("mem-opt-import options");
  static llvm::cl::opt<std::string> inputFile(
      llvm::cl::Positional, llvm::cl::desc("<model.onnx|model.tflite>"),
      llvm::cl::Required, llvm::cl::cat(importCategory));
  static llvm::cl::opt<std::string> outputFile(
      "o", llvm::cl::desc("Output file (default: stdout)"),
      llvm::cl::value_desc("filename"), llvm::cl::init("-"),
      llvm::cl::cat(importCategory));
  static llvm::cl::opt<std::string> tfliteRounding(
      "tflite-rounding",
      llvm::cl::desc(
          "TFLite int8 arithmetic: 'double' (default) reproduces TFLite "
          "Micro's reference kernels (DOUBLE_ROUND rescales, TFLite's average "
          "pooling, MEAN and ADD; declares the TOSA doubleround extension in "
          "a tosa.target_env module attribute); 'single' uses TOSA's "
          "SINGLE_ROUND and avg_pool2d, with no attribute: NOT TFLite's "
          "answers"),
      llvm::cl::value_desc("double|single"), llvm::cl::init("double"),
      llvm::cl::cat(importCategory));
  static llvm::cl::opt<bool> tfliteDoubleRound(
      "tflite-double-round",
      llvm::cl::desc("Deprecated, no effect: TFLite's double rounding is the "
                     "default (see --tflite-rounding)"),
      llvm::cl::init(false), llvm::cl::cat(importCategory));
  llvm::cl::HideUnrelatedOptions(importCategory);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "mem-opt-import: converts an ONNX or TFLite model to TOSA.\n\n"
      "The format is detected from the file's content. The output is one "
      "func.func of TOSA ops in NHWC layout whose locations carry the model's "
      "node names.\n");

  if (tfliteRounding != "double" && tfliteRounding != "single") {
    llvm::WithColor::error()
        << "--tflite-rounding must be 'double' or 'single', not '"
        << tfliteRounding << "'\n";
    return 1;
  }
  if (tfliteDoubleRound && tfliteRounding == "single") {
    llvm::WithColor::error() << "--tflite-double-round contradicts "
                                "--tflite-rounding=single\n";
    return 1;
  }

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFile, &errorMessage);
  if (!input) {
    llvm::WithColor::error() << errorMessage << "\n";
    return 1;
  }

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  // Ops carry the model's node names: errors at them (e.g. from the
  // verifier) print as `<model>:<node>: error: ...`.
  memopt::NamedLocationDiagnosticHandler namedLocHandler(
      &context, memopt::getModelNameFromPath(inputFile));

  llvm::StringRef bytes = input->getBuffer();
  if (bytes.empty()) {
    llvm::WithColor::error() << inputFile << ": the file is empty\n";
    return 1;
  }
  std::optional<OwningOpRef<ModuleOp>> module =
      importModel(bytes, inputFile, &context,
                  TFLiteImportOptions{tfliteRounding == "double"});
  if (!module) {
    llvm::WithColor::error()
        << inputFile
        << ": not an ONNX or TFLite model (unrecognized content)\n";
    return 1;
  }
  if (!*module)
    return 1;

  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFile, &errorMessage);
  if (!output) {
    llvm::WithColor::error() << errorMessage << "\n";
    return 1;
  }
  // Locations carry the model's node names: print them.
  (*module)->print(output->os(), OpPrintingFlags().enableDebugInfo());
  output->keep();
  return 0;
}
