//===- mem-opt.cpp - mem-opt driver ---------------------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The `mem-opt` driver: mlir-opt with mem-opt's passes, the upstream passes
// that lower TOSA to LLVM, and the dialects of that flow. It is MlirOptMain
// with three additions:
// - `--help` starts with mem-opt's own pipeline and passes, and leaves out
//   the code generator flags libLLVM registers for every target (they still
//   work, and `--help-hidden` lists them);
// - diagnostics at ops that carry a model's node names and no source
//   position print as `<model>:<node>: error: ...` (MemOpt/Support/
//   Diagnostics.h), <model> being the input file's stem;
// - `--version` adds mem-opt's version and commit;
// - a TFLite or ONNX model (recognized from the file's content, as
//   mem-opt-compile and mem-opt-import do, MemOpt/Import/Import.h) is
//   imported first and handed to MlirOptMain as MLIR bytecode, so every
//   mlir-opt option works on it; binary content that is no model gets a
//   one-line error instead of the parser's echo of the bytes.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Import/Import.h"
#include "MemOpt/InitAll.h"
#include "MemOpt/Support/Diagnostics.h"
#include "MemOpt/Support/Version.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <memory>
#include <string>

namespace mlir {
namespace memopt {
namespace test {
/// Registers the test-only passes of test/lib.
void registerTestPasses();
} // namespace test
} // namespace memopt
} // namespace mlir

using namespace mlir;
namespace cl = llvm::cl;

namespace {
/// A group of mem-opt's passes as the start of `--help` lists them.
struct HelpGroup {
  /// Group heading.
  StringRef title;
  /// Pass or pipeline arguments, in the order of the flow.
  SmallVector<StringRef> names;
};
} // namespace

/// mem-opt's own pipeline and passes (every pass of the Passes.td files and
/// every pipeline of lib/Pipelines; test/tools/mem-opt/help.test checks that
/// none is missing).
static SmallVector<HelpGroup> getHelpGroups() {
  return {
      {"Pipeline", {"cortex-m-pipeline"}},
      {"Memory analysis and scheduling", {"memory-report", "memory-schedule"}},
      {"Rewrites that lower the peak",
       {"partition-concat", "patch-prefix", "widen-depthwise",
        "inplace-depthwise", "fuse-rescale-accumulators",
        "mark-fused-elementwise", "fuse-elementwise-groups"}},
      {"Bufferization and the arena",
       {"prepare-bufferization", "order-constant-globals", "reuse-dying-inputs",
        "hoist-static-allocations",
        "bind-state-buffers", "memref-copy-to-linalg", "memplan-plan-arena",
        "memplan-io-to-arena", "memplan-lower", "set-llvm-target"}},
      {"Input checks and preparation",
       {"verify-default-attributes", "decompose-transpose-conv",
        "split-concats"}},
      {"Kernels for the CPU",
       {"arm-dsp-fold-zero-points", "arm-dsp-widen-filters",
        "arm-dsp-int8-kernels", "arm-mve-int8-kernels"}},
      {"After the TOSA lowering", {"drop-tosa-target-env"}},
  };
}

/// Returns the `--help` overview: what mem-opt is, then its pipeline and
/// passes with their summaries (from the pass registry) and two examples.
static std::string getHelpOverview() {
  constexpr size_t nameWidth = 30;
  constexpr size_t lineWidth = 80;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "mem-opt: memory-aware scheduling and lowering of TOSA models for "
        "Cortex-M\n\n"
        "mem-opt's pipeline and passes (their options: docs/Passes.md, or "
        "under\neach name in OPTIONS below, among the upstream MLIR passes):\n";
  for (const HelpGroup &group : getHelpGroups()) {
    os << "\n " << group.title << ":\n";
    for (StringRef name : group.names) {
      StringRef summary;
      if (const PassPipelineInfo *pipeline = PassPipelineInfo::lookup(name))
        summary = pipeline->getPassDescription();
      else if (const PassInfo *pass = PassInfo::lookup(name))
        summary = pass->getPassDescription();
      std::string flag = ("  --" + name).str();
      os << flag;
      size_t column = flag.size();
      if (column >= nameWidth) {
        os << "\n";
        column = 0;
      }
      // Word-wrap the summary into the column right of the names.
      os.indent(nameWidth - column);
      column = nameWidth;
      SmallVector<StringRef> words;
      llvm::SplitString(summary, words);
      for (auto [index, word] : llvm::enumerate(words)) {
        if (index > 0 && column + 1 + word.size() > lineWidth) {
          os << "\n";
          os.indent(nameWidth);
          column = nameWidth;
        } else if (index > 0) {
          os << " ";
          ++column;
        }
        os << word;
        column += word.size();
      }
      os << "\n";
    }
  }
  os << "\nExamples:\n"
        "  mem-opt model.mlir --memory-schedule "
        "--memory-report=format=json -o out.mlir\n"
        "  mem-opt model.mlir --cortex-m-pipeline=cpu=cortex-m7 -o "
        "lowered.mlir\n"
        "  mem-opt model.tflite --memory-report -o /dev/null   (TFLite and "
        "ONNX models\n  are imported as mem-opt-import does, the format "
        "recognized from the content)\n"
        "Related tools: mem-opt-import (ONNX and TFLite to TOSA), "
        "mem-opt-compile\n(a Cortex-M object and C header), mem-opt-run "
        "(run and compare on the host).\n";
  return text;
}

/// Returns the options registered so far except LLVM's generic ones
/// (--help, --version, ...): when main starts, these are the code generator,
/// sanitizer and Polly flags libLLVM registers as it loads.
static SmallVector<cl::Option *> getPreregisteredOptions() {
  static constexpr StringRef kept[] = {
      "help",          "help-hidden",       "help-list", "help-list-hidden",
      "print-options", "print-all-options", "version",   "color"};
  SmallVector<cl::Option *> options;
  for (auto &[name, option] : cl::getRegisteredOptions())
    if (!llvm::is_contained(kept, name))
      options.push_back(option);
  return options;
}

/// Installs the named-location diagnostic handler on the context of every
/// pass manager \p config sets up, unless diagnostics are being verified
/// (then they must reach the verifier). It applies the filter MlirOptMain
/// applies (--mlir-diagnostic-verbosity-level, notes) itself, because it runs
/// before MlirOptMain's filter.
static void addNamedLocationDiagnostics(MlirOptMainConfig &config,
                                        StringRef inputFilename) {
  if (config.shouldVerifyDiagnostics())
    return;
  auto base = std::make_shared<MlirOptMainConfig>(config);
  std::string model = memopt::getModelNameFromPath(inputFilename);
  config.setPassPipelineSetupFn([base, model](PassManager &pm) {
    VerbosityLevel level = base->getDiagnosticVerbosityLevel();
    bool showNotes = base->shouldShowNotes();
    pm.getContext()->getDiagEngine().registerHandler(
        [model, level, showNotes](Diagnostic &diag) -> LogicalResult {
          switch (diag.getSeverity()) {
          case DiagnosticSeverity::Error:
            break;
          case DiagnosticSeverity::Warning:
            if (level == VerbosityLevel::ErrorsOnly)
              return failure();
            break;
          case DiagnosticSeverity::Remark:
            if (level != VerbosityLevel::ErrorsWarningsAndRemarks)
              return failure();
            break;
          case DiagnosticSeverity::Note:
            if (!showNotes)
              return failure();
            break;
          }
          return memopt::emitNamedLocationDiagnostic(diag, model);
        });
    return base->setupPassPipeline(pm);
  });
}

/// MlirOptMain failed. If it printed nothing (an upstream verifier that
/// fails without a diagnostic), re-reads the input and reports the op whose
/// verifier failed (memopt::diagnoseSilentParseFailure). Not for standard
/// input (read once), split input or -verify-diagnostics.
static void diagnoseSilentFailure(StringRef inputFilename,
                                  DialectRegistry &registry,
                                  const MlirOptMainConfig &config) {
  if (inputFilename == "-" || !config.inputSplitMarker().empty() ||
      config.shouldVerifyDiagnostics())
    return;
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFilename, &errorMessage);
  if (!file)
    return;
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  MLIRContext context(registry);
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  memopt::diagnoseSilentParseFailure(sourceMgr, &context);
}

/// Replaces \p file by MLIR bytecode of the model it holds when it is a
/// TFLite or ONNX model (the importers' defaults, as mem-opt-import), with
/// the diagnostics of mem-opt-import on failure. Fails, after a one-line
/// error, on a model that does not import and on binary content that is no
/// model. MLIR text and bytecode pass through unchanged.
static LogicalResult importIfModel(std::unique_ptr<llvm::MemoryBuffer> &file,
                                   StringRef inputFilename,
                                   DialectRegistry &registry) {
  StringRef bytes = file->getBuffer();
  StringRef shownName = inputFilename == "-" ? "<stdin>" : inputFilename;
  if (memopt::isUnrecognizedBinary(bytes)) {
    llvm::errs() << "error: " << shownName
                 << ": not a TFLite, ONNX or MLIR model (binary content that "
                    "is neither a TFLite flatbuffer nor an ONNX protobuf)\n";
    return failure();
  }
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  memopt::NamedLocationDiagnosticHandler namedLocHandler(
      &context, memopt::getModelNameFromPath(inputFilename));
  std::optional<OwningOpRef<ModuleOp>> module =
      memopt::importModel(bytes, shownName, &context);
  if (!module)
    return success();
  if (!*module)
    return failure();
  std::string bytecode;
  llvm::raw_string_ostream os(bytecode);
  if (failed(writeBytecodeToFile(**module, os))) {
    llvm::errs() << "error: " << shownName
                 << ": cannot write the imported model as MLIR bytecode\n";
    return failure();
  }
  file = llvm::MemoryBuffer::getMemBufferCopy(bytecode,
                                              file->getBufferIdentifier());
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  SmallVector<cl::Option *> codegenOptions = getPreregisteredOptions();

  memopt::registerVersionPrinter();
  registerAllPasses();
  memopt::registerAllPasses();
  memopt::test::registerTestPasses();

  DialectRegistry registry;
  memopt::registerAllDialects(registry);

  std::string helpHeader = registerCLIOptions(getHelpOverview(), registry);
  for (cl::Option *option : codegenOptions)
    if (option->getOptionHiddenFlag() == cl::NotHidden)
      option->setHiddenFlag(cl::Hidden);
  auto [inputFilename, outputFilename] =
      parseCLIOptions(argc, argv, helpHeader);

  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects()) {
    llvm::outs() << "Available Dialects: ";
    llvm::interleave(registry.getDialectNames(), llvm::outs(), ",");
    llvm::outs() << "\n";
    return 0;
  }
  if (config.shouldListPasses()) {
    printRegisteredPasses();
    return 0;
  }
  addNamedLocationDiagnostics(config, inputFilename);

  // As MlirOptMain: warn about a terminal on stdin, open the files, run.
  if (inputFilename == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                    "interrupt)\n";
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (failed(importIfModel(file, inputFilename, registry)))
    return 1;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (failed(MlirOptMain(output->os(), std::move(file), registry, config))) {
    diagnoseSilentFailure(inputFilename, registry, config);
    return 1;
  }
  output->keep();
  return 0;
}
