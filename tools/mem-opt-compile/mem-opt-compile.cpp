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
// The work is the MemOptCompiler library's (MemOpt/Compiler/Compiler.h):
// this tool turns its command line into CompileOptions, shows progress and
// diagnostics on stderr (CompileConsole), writes the files and prints the
// report. docs/CortexM.md describes the flow and the choices behind it.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Compiler/CompileConsole.h"
#include "MemOpt/Compiler/Compiler.h"
#include "MemOpt/Support/Diagnostics.h"
#include "MemOpt/Support/Version.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <list>
#include <string>

using namespace mlir;
using namespace mlir::memopt;

namespace cl = llvm::cl;

/// The options of this tool; --help hides LLVM's backend options.
static cl::OptionCategory compileCategory("mem-opt-compile options");
/// Puts an option in compileCategory.
static const cl::cat inTool(compileCategory);
/// The library's defaults, which the options take and state.
static const CompileOptions kDefaults;

namespace {
/// cl::desc, cl::init and cl::cat of an option whose description ends with
/// its default, " (default: <shown>)".
template <typename T> struct Default {
  /// The description, the default and the default as --help shows it.
  StringRef text;
  T value;
  std::string shown;

  /// Applies the three to \p option.
  template <typename Opt> void apply(Opt &option) const {
    static std::list<std::string> descriptions;
    descriptions.push_back((text + " (default: " + shown + ")").str());
    option.setDescription(descriptions.back());
    option.setInitialValue(value);
    option.addCategory(compileCategory);
  }
};
} // namespace

/// Returns the modifiers of an option described by \p text whose default is
/// \p value, shown as \p shown.
template <typename T>
static Default<T> byDefault(StringRef text, T value, const Twine &shown) {
  return {text, value, shown.str()};
}
/// The same for a named value.
static Default<std::string> byDefault(StringRef text, StringRef value) {
  return {text, value.str(), value.str()};
}
/// Returns \p value as printf's %g prints it.
static std::string formatNumber(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", value);
  return text;
}

static cl::opt<std::string> inputFilename(
    cl::Positional,
    cl::desc("<model.tflite|model.onnx|model.mlir|-> (the format is detected "
             "from the content)"),
    cl::init("-"), inTool);
static cl::opt<std::string> outputFilename("o", cl::desc("Object file"),
                                           cl::value_desc("file"), inTool);
static cl::opt<std::string> headerFilename("header",
                                           cl::desc("C header to write"),
                                           cl::value_desc("file"), inTool);
static cl::opt<std::string>
    emitLLVMFilename("emit-llvm",
                     cl::desc("Also write the optimized LLVM IR to this file"),
                     cl::value_desc("file"), inTool);
static cl::opt<std::string>
    cpuName("cpu", byDefault("Target CPU: cortex-m4, cortex-m7, cortex-m33 "
                             "or cortex-m55",
                             stringifyCortexMCpu(kDefaults.cpu)));
static cl::opt<int64_t> sramBytes(
    "sram",
    byDefault("Activation SRAM budget in bytes: the arena plus the "
              "caller's input and output buffers under --io=caller; "
              "fail if the proven peak exceeds it",
              kDefaults.sramBytes, Twine(kDefaults.sramBytes) + ", none"));
static cl::opt<std::string> scheduleName(
    "schedule",
    byDefault("Op order: exact, input, kahn, rpo or greedy",
              stringifyScheduleAlgorithm(kDefaults.scheduleAlgorithm)));
static cl::opt<uint64_t> scheduleMaxStates(
    "schedule-max-states",
    byDefault("State budget of the exact scheduler per function: where the "
              "search stops, the same on every machine (0: no limit)",
              kDefaults.scheduleMaxStates, Twine(kDefaults.scheduleMaxStates)));
static cl::opt<uint64_t> scheduleTimeLimitMs(
    "schedule-time-limit-ms",
    byDefault("Wall-clock safety stop of the exact scheduler per function, "
              "in milliseconds (0: none)",
              kDefaults.scheduleTimeLimitMs,
              Twine(kDefaults.scheduleTimeLimitMs)));
static cl::opt<std::string>
    placementName("placement",
                  byDefault("Arena placement: best, greedy-by-size or no-reuse",
                            stringifyPlacementAlgorithm(kDefaults.placement)));
static cl::opt<std::string>
    partitionMode("partition",
                  byDefault("Partition concat+conv: auto, off or always",
                            stringifyPartitionMode(kDefaults.partition)));
static cl::opt<std::string> patchesMode(
    "patches",
    byDefault("Run the memory-heavy prefix one spatial patch at a time: off, "
              "auto (the grid with the smallest SRAM within "
              "--max-mac-overhead) or <rows>x<cols>",
              kDefaults.patches));
static cl::opt<double> maxMacOverhead(
    "max-mac-overhead",
    byDefault("Largest extra multiply-accumulates --patches=auto may add, in "
              "percent of the model's",
              kDefaults.maxMacOverhead,
              formatNumber(kDefaults.maxMacOverhead)));
static cl::opt<int64_t> alignment("alignment",
                                  byDefault("Arena alignment in bytes",
                                            kDefaults.alignment,
                                            Twine(kDefaults.alignment)));
static cl::opt<IOPlacement> ioPlacement(
    "io", cl::desc("Where the model's inputs and outputs live"),
    cl::init(kDefaults.io),
    cl::values(clEnumValN(IOPlacement::Arena, "arena",
                          "in the arena at the header's _OFFSET defines; "
                          "an input's bytes are reused once it dies "
                          "(default, the smallest total SRAM)"),
               clEnumValN(IOPlacement::Caller, "caller",
                          "in buffers the caller passes, live for the "
                          "whole call")),
    inTool);
static cl::opt<std::string> symbolName(
    "name",
    cl::desc("C name of the model's function (default: the model's file "
             "name for a model with one public function, `model` from "
             "stdin; never `main`, which would clash with the firmware's)"),
    cl::value_desc("identifier"), inTool);
static cl::opt<std::string> symbolPrefix(
    "symbol-prefix",
    cl::desc("Prefix for the names of the public functions in the object "
             "and the header (default: none)"),
    inTool);
static cl::opt<std::string> optLevel(
    "O",
    byDefault("Optimization level of LLVM: 0, 1, 2, 3, s (2 without growing "
              "the code: no unrolling for speed, except the DSP kernels' "
              "reduction loops, unrolled by 4) or z (smallest code); "
              "docs/CortexM.md explains the default",
              stringifyOptLevel(kDefaults.getOptLevel()).str(),
              stringifyOptLevel(kDefaults.getOptLevel()) +
                  ", or what --optimize chooses"),
    cl::value_desc("level"), cl::Prefix);
static cl::opt<std::string> optimizeGoal(
    "optimize",
    byDefault("What the code is optimized for: memory (-Oz, the smallest "
              "code), balanced (-Os: small code, only the int8 DSP kernels' "
              "reduction loops unrolled, by 4, on cortex-m4/m7) or speed "
              "(-O2: LLVM unrolls loops of its choice, fewest instructions, "
              "most flash). The arena is the proven minimum in all three: no "
              "kernel uses scratch SRAM. An explicit -O<level> takes "
              "precedence; --report shows the flash",
              stringifyOptimizeGoal(kDefaults.optimize)),
    cl::value_desc("goal"));
static cl::opt<bool> dspKernels(
    "dsp-kernels",
    cl::desc("Int8 convolutions as DSP-extension kernels (SXTB16, SMLAD) on "
             "cortex-m4 and cortex-m7; docs/CortexM.md, \"DSP kernels\""),
    cl::init(kDefaults.dspKernels), inTool);
static cl::opt<bool> mveKernels(
    "mve-kernels",
    cl::desc("Int8 convolutions and rescales as MVE (Helium) vector kernels "
             "(VMLAVA.S8, VMULH.S32) on cortex-m55; docs/CortexM.md, \"MVE "
             "kernels\""),
    cl::init(kDefaults.mveKernels), inTool);
static cl::opt<bool> tfliteDoubleRound(
    "tflite-double-round",
    cl::desc("TFLite input: rescale with DOUBLE_ROUND, TFLite's rounding "
             "(default: SINGLE_ROUND, as mem-opt-import)"),
    cl::init(kDefaults.tfliteDoubleRound), inTool);
static cl::opt<std::string> reportFormat(
    "report",
    cl::desc("Print a report to stdout: the arena, the inputs and outputs, "
             "the peak and the op at it, MACs, flash, and live bytes per "
             "layer; --report=json for JSON (default: text)"),
    cl::value_desc("text|json"), cl::ValueOptional, inTool);
static cl::opt<bool>
    quiet("quiet",
          cl::desc("Do not print progress to stderr (default: progress of "
                   "scheduling, placement and code generation)"),
          inTool);

/// Prints "error: \p message" and fails.
static LogicalResult fail(const Twine &message) {
  llvm::WithColor::error() << message << "\n";
  return failure();
}

/// Returns the options of the command line that are checked before the
/// model is read: the CPU, the level and the report's format.
static FailureOr<CompileOptions> getCompileOptions() {
  CompileOptions options;
  std::optional<CortexMCpu> cpu = parseCortexMCpu(cpuName);
  if (!cpu)
    return fail("unknown cpu '" + cpuName +
                "' (expected cortex-m4, cortex-m7, cortex-m33 or cortex-m55)");
  options.cpu = *cpu;
  // --optimize chooses the level unless -O gives it.
  if (optLevel.getNumOccurrences() == 0) {
    std::optional<OptimizeGoal> goal = parseOptimizeGoal(optimizeGoal);
    if (!goal)
      return fail("unknown --optimize goal '" + optimizeGoal +
                  "' (expected memory, balanced or speed)");
    options.optimize = *goal;
  } else if (!(options.optLevel = parseOptLevel(optLevel))) {
    return fail("unknown optimization level '-O" + optLevel +
                "' (expected 0, 1, 2, 3, s or z)");
  }
  if (reportFormat.getNumOccurrences() > 0) {
    std::optional<ReportFormat> format = parseReportFormat(
        reportFormat.empty() ? "text" : StringRef(reportFormat));
    if (!format)
      return fail("unknown --report format '" + reportFormat +
                  "' (expected text or json)");
    options.report = *format;
  }
  options.modelPath = inputFilename;
  options.sramBytes = sramBytes;
  options.io = ioPlacement;
  options.alignment = alignment;
  options.scheduleMaxStates = scheduleMaxStates;
  options.scheduleTimeLimitMs = scheduleTimeLimitMs;
  options.patches = patchesMode;
  options.maxMacOverhead = maxMacOverhead;
  options.dspKernels = dspKernels;
  options.mveKernels = mveKernels;
  options.tfliteDoubleRound = tfliteDoubleRound;
  options.functionName = symbolName;
  options.symbolPrefix = symbolPrefix;
  options.headerName = llvm::sys::path::stem(headerFilename).str();
  options.emitObject = !outputFilename.empty();
  options.emitLLVMIR = !emitLLVMFilename.empty();
  return options;
}

/// Sets the options that cortex-m-pipeline checked after the model was read:
/// the schedule, the placement and the partition.
static LogicalResult getPipelineOptions(CompileOptions &options) {
  std::optional<schedule::Algorithm> algorithm =
      schedule::parseAlgorithm(scheduleName);
  if (!algorithm)
    return fail("cortex-m-pipeline: unknown schedule '" + scheduleName +
                "' (expected exact, input, kahn, rpo or greedy)");
  std::optional<PlacementAlgorithm> placement =
      parsePlacementAlgorithm(placementName);
  if (!placement)
    return fail("cortex-m-pipeline: unknown placement '" + placementName +
                "' (expected best, greedy-by-size or no-reuse)");
  std::optional<PartitionMode> partition = parsePartitionMode(partitionMode);
  if (!partition)
    return fail("cortex-m-pipeline: unknown partition '" + partitionMode +
                "' (expected auto, off or always)");
  options.scheduleAlgorithm = *algorithm;
  options.placement = *placement;
  options.partition = *partition;
  return success();
}

/// Writes \p bytes to \p path.
static LogicalResult writeFile(StringRef path, StringRef bytes) {
  std::string errorMessage;
  std::unique_ptr<llvm::ToolOutputFile> file =
      openOutputFile(path, &errorMessage);
  if (!file)
    return fail(errorMessage);
  file->os() << bytes;
  file->keep();
  return success();
}

/// Reads the model, compiles it and writes the outputs; returns failure
/// after reporting an error.
static LogicalResult compile(MLIRContext &context, TimingScope &timing) {
  llvm::SourceMgr sourceMgr;
  std::string modelName = getModelNameFromPath(inputFilename);
  CompileConsole console(context, sourceMgr, "mem-opt-compile",
                         modelName.empty() ? "<stdin>" : modelName, !quiet);
  FailureOr<CompileOptions> options = getCompileOptions();
  if (failed(options))
    return failure();

  TimingScope readTiming = timing.nest("Read the model");
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &errorMessage);
  if (!input)
    return fail(errorMessage);
  OwningOpRef<ModuleOp> module =
      loadModel(std::move(input), &context, *options, &sourceMgr);
  readTiming.stop();
  if (!module || failed(getPipelineOptions(*options)))
    return failure();

  CompileHooks hooks;
  hooks.progress = console.getProgressHook();
  hooks.timing = &timing;
  hooks.output = [](CompileOutputKind kind, StringRef bytes) {
    StringRef path = kind == CompileOutputKind::LLVMIR   ? emitLLVMFilename
                     : kind == CompileOutputKind::Object ? outputFilename
                                                         : headerFilename;
    return path.empty() ? success() : writeFile(path, bytes);
  };
  FailureOr<CompileResult> result = compileModule(*module, *options, hooks);
  if (failed(result))
    return failure();
  llvm::outs() << result->reportText;
  return success();
}

int main(int argc, char **argv) {
  mlir::memopt::registerVersionPrinter();
  llvm::InitLLVM initLLVM(argc, argv);
  initializeCompiler();
  registerDefaultTimingManagerCLOptions();
  // --help shows this tool's options, --version and the timing options, not
  // the LLVM backend's.
  for (StringRef name :
       {"mlir-timing", "mlir-timing-display", "mlir-output-format"})
    if (cl::Option *option = cl::getRegisteredOptions().lookup(name))
      option->addCategory(compileCategory);
  cl::HideUnrelatedOptions(compileCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "mem-opt-compile: a TFLite, ONNX or TOSA model to a Cortex-M object "
      "and a C header\n\n"
      "  mem-opt-compile model.tflite --cpu=cortex-m7 -o model.o --header "
      "model.h --report\n");
  if (outputFilename.empty() && headerFilename.empty() &&
      emitLLVMFilename.empty() && reportFormat.getNumOccurrences() == 0) {
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
