//===- CommandLine.cpp - The command line of mem-opt-compile --------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The options are stored in one CompileOptions where the library has a field
// of the same type; the names of closed sets (CPU, goal, level, schedule,
// placement, partition, report format) are read as text and checked here,
// with the messages and at the points mem-opt-compile always checked them.
//
//===----------------------------------------------------------------------===//

#include "CommandLine.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

#include <list>
#include <optional>

using namespace mlir;
using namespace mlir::memopt;

namespace cl = llvm::cl;

/// The options of this tool; --help hides LLVM's backend options.
static cl::OptionCategory compileCategory("mem-opt-compile options");
/// Puts an option in compileCategory.
static const cl::cat inTool(compileCategory);
/// Where the options with a field of their own are stored. Until the command
/// line is parsed, it holds the library's defaults, which --help states.
static CompileOptions options;

/// Returns \p text with " (default: \p value)" appended, kept alive for
/// cl::desc.
static cl::desc withDefault(StringRef text, const Twine &value) {
  static std::list<std::string> texts;
  texts.push_back((text + " (default: " + value + ")").str());
  return cl::desc(texts.back());
}

/// Returns \p value as printf's %g prints it.
static std::string formatNumber(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", value);
  return text;
}

static cl::opt<std::string, true> inputFilename(
    cl::Positional,
    cl::desc("<model.tflite|model.onnx|model.mlir|-> (the format is detected "
             "from the content)"),
    cl::location(options.modelPath), inTool);
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
    cpuName("cpu",
            withDefault("Target CPU: cortex-m0plus, cortex-m3 (no FPU, no "
                        "DSP), cortex-m4, cortex-m7, cortex-m33 or cortex-m55",
                        stringifyCortexMCpu(options.cpu)),
            cl::init(stringifyCortexMCpu(options.cpu).str()), inTool);
static cl::opt<std::string> floatAbiName(
    "float-abi",
    cl::desc("Float ABI of the object, as GCC's -mfloat-abi: hard (float "
             "arguments in FP registers), softfp (FP instructions, arguments "
             "in core registers; links with -mfloat-abi=softfp or soft) or "
             "soft (no FP instructions) (default: hard; soft on "
             "cortex-m0plus and cortex-m3, which have no FPU)"),
    cl::value_desc("hard|softfp|soft"), inTool);
static cl::opt<int64_t, true>
    sramBytes("sram",
              withDefault("Activation SRAM budget in bytes: the arena plus "
                          "the caller's input and output buffers under "
                          "--io=caller. Without --patches, the budget "
                          "chooses the program: no patches or the patch grid "
                          "with the fewest estimated instructions whose "
                          "proven SRAM fits (--optimize=memory: the smallest "
                          "SRAM), --report lists the candidates; if none "
                          "fits, the error names the smallest SRAM reached. "
                          "With --patches, fail if the proven peak exceeds "
                          "it",
                          Twine(options.sramBytes) + ", none"),
              cl::location(options.sramBytes), inTool);
static cl::opt<std::string> scheduleName(
    "schedule",
    withDefault("Op order: exact, input, kahn, rpo or greedy",
                stringifyScheduleAlgorithm(options.scheduleAlgorithm)),
    cl::init(stringifyScheduleAlgorithm(options.scheduleAlgorithm).str()),
    inTool);
static cl::opt<uint64_t, true> scheduleMaxStates(
    "schedule-max-states",
    withDefault("State budget of the exact scheduler per function: where the "
                "search stops, the same on every machine (0: no limit)",
                Twine(options.scheduleMaxStates)),
    cl::location(options.scheduleMaxStates), inTool);
static cl::opt<uint64_t, true> scheduleTimeLimitMs(
    "schedule-time-limit-ms",
    withDefault("Wall-clock safety stop of the exact scheduler per function, "
                "in milliseconds (0: none)",
                Twine(options.scheduleTimeLimitMs)),
    cl::location(options.scheduleTimeLimitMs), inTool);
static cl::opt<std::string> placementName(
    "placement",
    withDefault("Arena placement: best, greedy-by-size or no-reuse",
                stringifyPlacementAlgorithm(options.placement)),
    cl::init(stringifyPlacementAlgorithm(options.placement).str()), inTool);
static cl::opt<std::string>
    partitionMode("partition",
                  withDefault("Partition concat+conv: auto, off or always",
                              stringifyPartitionMode(options.partition)),
                  cl::init(stringifyPartitionMode(options.partition).str()),
                  inTool);
static cl::opt<std::string, true> patchesMode(
    "patches",
    withDefault("Run the memory-heavy prefix one spatial patch at a time: "
                "off, auto (the grid with the smallest SRAM within "
                "--max-mac-overhead), <rows>x<cols> (on the longest prefix "
                "within it) or <rows>x<cols>@<cut> (on the prefix up to the "
                "cut of that index, as --sram's report names it), each "
                "optionally followed by +blocks (then the blocks at the peak "
                "are computed in bands of rows as well); given, it turns off "
                "--sram's choice. auto says in one line why it keeps no grid",
                options.patches),
    cl::location(options.patches), inTool);
static cl::opt<bool, true> patchLoop(
    "patch-loop",
    withDefault("Experimental: run the chosen patches as one loop over "
                "uniform patches (one copy of the prefix's code; halos "
                "outside the image cost MACs and SRAM) where the prefix "
                "allows it",
                options.patchLoop ? "true" : "false"),
    cl::location(options.patchLoop), inTool);
static cl::opt<double, true> maxMacOverhead(
    "max-mac-overhead",
    withDefault("Largest extra multiply-accumulates --patches=auto and the "
                "grids --sram weighs may add, in percent of the model's",
                formatNumber(options.maxMacOverhead)),
    cl::location(options.maxMacOverhead), inTool);
static cl::opt<int64_t, true>
    alignment("alignment",
              withDefault("Arena alignment in bytes", Twine(options.alignment)),
              cl::location(options.alignment), inTool);
static cl::opt<IOPlacement, true> ioPlacement(
    "io", cl::desc("Where the model's inputs and outputs live"),
    cl::location(options.io),
    cl::values(clEnumValN(IOPlacement::Arena, "arena",
                          "in the arena at the header's _OFFSET defines; "
                          "an input's bytes are reused once it dies "
                          "(default, the smallest total SRAM)"),
               clEnumValN(IOPlacement::Caller, "caller",
                          "in buffers the caller passes, live for the "
                          "whole call")),
    inTool);
static cl::opt<std::string, true> symbolName(
    "name",
    cl::desc("C name of the model's function (default: the model's file "
             "name for a model with one public function, `model` from "
             "stdin; never `main`, which would clash with the firmware's)"),
    cl::value_desc("identifier"), cl::location(options.functionName), inTool);
static cl::opt<std::string, true> symbolPrefix(
    "symbol-prefix",
    cl::desc("Prefix for the names of the public functions in the object "
             "and the header (default: none)"),
    cl::location(options.symbolPrefix), inTool);
static cl::opt<std::string> optLevel(
    "O",
    withDefault("Optimization level of LLVM: 0, 1, 2, 3, s (2 without "
                "growing the code: no unrolling for speed, except the DSP "
                "kernels' reduction loops, unrolled by 4) or z (smallest "
                "code); docs/CortexM.md explains the default",
                stringifyOptLevel(options.getOptLevel()) +
                    ", or what --optimize chooses"),
    cl::value_desc("level"),
    cl::init(stringifyOptLevel(options.getOptLevel()).str()), cl::Prefix,
    inTool);
static cl::opt<std::string> optimizeGoal(
    "optimize",
    withDefault(
        "What the code is optimized for: memory (-Oz, the smallest code "
        "and int8 filters only; with --sram, the smallest SRAM among the "
        "candidates), balanced (-Os: small code, only the int8 DSP kernels' "
        "reduction loops unrolled, by 4, on cortex-m4/m7, and int8 "
        "convolution filters also stored widened to halfwords within "
        "--wide-filter-bytes) or speed (balanced's widened filters; per layer, "
        "-O2's code where an instruction estimate says it is faster than "
        "balanced's, else balanced's: never more instructions than the "
        "default on the benchmark models, more flash; a remark says when no "
        "layer can win, and the code is then the default's). The arena is "
        "the proven minimum in all three: no kernel uses scratch SRAM. An "
        "explicit -O<level> takes precedence (-O2: LLVM's unrolling "
        "everywhere); --report shows the flash",
        stringifyOptimizeGoal(options.optimize)),
    cl::value_desc("goal"),
    cl::init(stringifyOptimizeGoal(options.optimize).str()), inTool);
static cl::opt<bool, true> dspKernels(
    "dsp-kernels",
    cl::desc("Int8 convolutions as DSP-extension kernels (SXTB16, SMLAD) on "
             "cortex-m4 and cortex-m7; docs/CortexM.md, \"DSP kernels\""),
    cl::location(options.dspKernels), inTool);
static cl::opt<int64_t> wideFilterBytes(
    "wide-filter-bytes",
    cl::desc("Flash, in bytes, that the DSP kernels (cortex-m4/m7) may "
             "spend on second copies of int8 convolution filters widened to "
             "halfwords, the filters read for the most output pixels first: "
             "fewer instructions for more flash; 0: none (default: 32768; "
             "0 with --optimize=memory or -Oz)"),
    cl::value_desc("bytes"), inTool);
static cl::opt<bool, true> mveKernels(
    "mve-kernels",
    cl::desc("Int8 convolutions and rescales as MVE (Helium) vector kernels "
             "(VMLAVA.S8, VMULH.S32) on cortex-m55; docs/CortexM.md, \"MVE "
             "kernels\""),
    cl::location(options.mveKernels), inTool);
static cl::opt<std::string> tfliteRounding(
    "tflite-rounding",
    cl::desc("TFLite input, int8 arithmetic: 'double' (default) reproduces "
             "TFLite Micro's reference kernels (DOUBLE_ROUND rescales, "
             "TFLite's average pooling, MEAN and ADD); 'single' uses TOSA's "
             "SINGLE_ROUND and avg_pool2d: NOT TFLite's answers"),
    cl::value_desc("double|single"), cl::init("double"), inTool);
static cl::opt<bool> tfliteDoubleRound(
    "tflite-double-round",
    cl::desc("Deprecated, no effect: TFLite's double rounding is the default "
             "(see --tflite-rounding)"),
    inTool);
static cl::opt<std::string> reportFormat(
    "report",
    cl::desc("Print a report to stdout: the arena, the inputs and outputs, "
             "the peak and its layer, flash, and per layer of the model the "
             "live bytes, weight bytes, MACs and estimated instructions; "
             "--report=json for JSON, --report=csv for the layer table as "
             "CSV (default: text)"),
    cl::value_desc("text|json|csv"), cl::ValueOptional, inTool);
static cl::opt<bool>
    quiet("quiet",
          cl::desc("Do not print progress to stderr (default: progress of "
                   "scheduling, placement and code generation)"),
          inTool);

void mlir::memopt::parseCommandLine(int argc, char **argv) {
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
}

CommandLineOutputs mlir::memopt::getCommandLineOutputs() {
  CommandLineOutputs outputs;
  outputs.modelPath = inputFilename;
  outputs.objectFile = outputFilename;
  outputs.headerFile = headerFilename;
  outputs.llvmIRFile = emitLLVMFilename;
  outputs.report = reportFormat.getNumOccurrences() > 0;
  outputs.quiet = quiet;
  return outputs;
}

/// Prints "error: \p message" and fails.
static LogicalResult fail(const Twine &message) {
  llvm::WithColor::error() << message << "\n";
  return failure();
}

/// Sets \p field to \p value, or prints "error: \p error" and fails.
template <typename T>
static LogicalResult set(T &field, std::optional<T> value, const Twine &error) {
  if (!value)
    return fail(error);
  field = *value;
  return success();
}

FailureOr<CompileOptions> mlir::memopt::getCompileOptions() {
  CompileOptions result = options;
  if (failed(set(result.cpu, parseCortexMCpu(cpuName),
                 "unknown cpu '" + cpuName +
                     "' (expected cortex-m0plus, cortex-m3, cortex-m4, "
                     "cortex-m7, cortex-m33 or cortex-m55)")))
    return failure();
  if (floatAbiName.getNumOccurrences() > 0 &&
      !(result.floatAbi = parseFloatABI(floatAbiName)))
    return fail("unknown --float-abi '" + floatAbiName +
                "' (expected hard, softfp or soft)");
  // --optimize chooses the level unless -O gives it.
  if (optLevel.getNumOccurrences() == 0) {
    if (failed(set(result.optimize, parseOptimizeGoal(optimizeGoal),
                   "unknown --optimize goal '" + optimizeGoal +
                       "' (expected memory, balanced or speed)")))
      return failure();
  } else if (!(result.optLevel = parseOptLevel(optLevel))) {
    return fail("unknown optimization level '-O" + optLevel +
                "' (expected 0, 1, 2, 3, s or z)");
  }
  if (reportFormat.getNumOccurrences() > 0 &&
      failed(set(result.report,
                 parseReportFormat(reportFormat.empty() ? StringRef("text")
                                                        : reportFormat),
                 "unknown --report format '" + reportFormat +
                     "' (expected text, json or csv)")))
    return failure();
  // An explicit --patches is compiled as given; without it, a budget
  // chooses the patches.
  result.budgetSearch = patchesMode.getNumOccurrences() == 0;
  if (tfliteRounding != "double" && tfliteRounding != "single")
    return fail("unknown --tflite-rounding '" + tfliteRounding +
                "' (expected double or single)");
  if (tfliteDoubleRound && tfliteRounding == "single")
    return fail("--tflite-double-round contradicts --tflite-rounding=single");
  result.tfliteDoubleRound = tfliteRounding == "double";
  if (wideFilterBytes.getNumOccurrences() > 0) {
    if (wideFilterBytes < 0)
      return fail("--wide-filter-bytes=" + Twine(wideFilterBytes) +
                  " is negative (expected bytes, 0 for none)");
    result.wideFilterBytes = wideFilterBytes;
  }
  result.headerName = llvm::sys::path::stem(headerFilename).str();
  result.emitObject = !outputFilename.empty();
  result.emitLLVMIR = !emitLLVMFilename.empty();
  return result;
}

LogicalResult mlir::memopt::setPipelineOptions(CompileOptions &options) {
  return failure(
      failed(set(options.scheduleAlgorithm,
                 schedule::parseAlgorithm(scheduleName),
                 "cortex-m-pipeline: unknown schedule '" + scheduleName +
                     "' (expected exact, input, kahn, rpo or greedy)")) ||
      failed(set(options.placement, parsePlacementAlgorithm(placementName),
                 "cortex-m-pipeline: unknown placement '" + placementName +
                     "' (expected best, greedy-by-size or no-reuse)")) ||
      failed(set(options.partition, parsePartitionMode(partitionMode),
                 "cortex-m-pipeline: unknown partition '" + partitionMode +
                     "' (expected auto, off or always)")));
}
