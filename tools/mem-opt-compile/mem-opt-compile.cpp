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
// It imports the model, runs `cortex-m-pipeline`, translates the LLVM
// dialect to LLVM IR, puts each layer's loop nest in a function of its own,
// optimizes (-Os by default) and emits the object in-process with LLVM's ARM
// backend. The header declares, for every public function,
//
//   void fn(void *arena);                      (io=arena, the default)
//   void fn(const T *in0, ..., T *out0, ..., void *arena);   (io=caller)
//   #define FN_ARENA_SIZE <bytes>
//   #define FN_ARENA_ALIGN <bytes>
//
// The caller owns the arena, as in TensorFlow Lite Micro. `--report` prints
// what was built (CompileReport.h); progress goes to stderr. docs/CortexM.md
// describes the flow and the choices behind it.
//
//===----------------------------------------------------------------------===//

#include "CompileReport.h"

#include "MemOpt/Analysis/DataflowGraph.h"
#include "MemOpt/Import/Import.h"
#include "MemOpt/InitAll.h"
#include "MemOpt/Pipelines/Pipelines.h"
#include "MemOpt/Schedule/Defaults.h"
#include "MemOpt/Support/Diagnostics.h"
#include "MemOpt/Support/Version.h"
#include "MemOpt/Transforms/ScheduleAttributes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/Transforms/Utils/CodeExtractor.h"

#include <chrono>
#include <condition_variable>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

using namespace mlir;
using namespace mlir::memopt;

namespace cl = llvm::cl;

/// The options of this tool; --help hides LLVM's backend options.
static cl::OptionCategory compileCategory("mem-opt-compile options");

/// Returns \p text with " (default: \p value)" appended, kept alive for
/// cl::desc.
static StringRef withDefault(StringRef text, const Twine &value) {
  static std::list<std::string> texts;
  texts.push_back((text + " (default: " + value + ")").str());
  return texts.back();
}

static cl::opt<std::string> inputFilename(
    cl::Positional,
    cl::desc("<model.tflite|model.onnx|model.mlir|-> (the format is detected "
             "from the content)"),
    cl::init("-"), cl::cat(compileCategory));
static cl::opt<std::string> outputFilename("o", cl::desc("Object file"),
                                           cl::value_desc("file"), cl::init(""),
                                           cl::cat(compileCategory));
static cl::opt<std::string> headerFilename("header",
                                           cl::desc("C header to write"),
                                           cl::value_desc("file"), cl::init(""),
                                           cl::cat(compileCategory));
static cl::opt<std::string> emitLLVMFilename(
    "emit-llvm", cl::desc("Also write the optimized LLVM IR to this file"),
    cl::value_desc("file"), cl::init(""), cl::cat(compileCategory));
static cl::opt<std::string>
    cpuName("cpu",
            cl::desc(withDefault("Target CPU: cortex-m4, cortex-m7, "
                                 "cortex-m33 or cortex-m55",
                                 "cortex-m4")),
            cl::init("cortex-m4"), cl::cat(compileCategory));
static cl::opt<int64_t> sramBytes(
    "sram",
    cl::desc(withDefault(
        "Activation SRAM budget in bytes: the arena plus the caller's "
        "input and output buffers under --io=caller; fail if the proven "
        "peak exceeds it",
        "0, none")),
    cl::init(0), cl::cat(compileCategory));
static cl::opt<std::string> scheduleName(
    "schedule",
    cl::desc(withDefault("Op order: exact, input, kahn, rpo or greedy",
                         "exact")),
    cl::init("exact"), cl::cat(compileCategory));
static cl::opt<uint64_t> scheduleMaxStates(
    "schedule-max-states",
    cl::desc(withDefault("State budget of the exact scheduler per function: "
                         "where the search stops, the same on every machine "
                         "(0: no limit)",
                         Twine(schedule::kDefaultCompileMaxStates))),
    cl::init(schedule::kDefaultCompileMaxStates), cl::cat(compileCategory));
static cl::opt<uint64_t> scheduleTimeLimitMs(
    "schedule-time-limit-ms",
    cl::desc(withDefault("Wall-clock safety stop of the exact scheduler per "
                         "function, in milliseconds (0: none)",
                         Twine(schedule::kDefaultTimeLimitMs))),
    cl::init(schedule::kDefaultTimeLimitMs), cl::cat(compileCategory));
static cl::opt<std::string> placementName(
    "placement",
    cl::desc(withDefault("Arena placement: best, greedy-by-size or no-reuse",
                         "best")),
    cl::init("best"), cl::cat(compileCategory));
static cl::opt<std::string>
    partitionMode("partition",
                  cl::desc(withDefault("Partition concat+conv: auto, off or "
                                       "always",
                                       "off")),
                  cl::init("off"), cl::cat(compileCategory));
static cl::opt<std::string> patchesMode(
    "patches",
    cl::desc(withDefault(
        "Run the memory-heavy prefix one spatial patch at a time: off, "
        "auto (the grid with the smallest SRAM within "
        "--max-mac-overhead) or <rows>x<cols>",
        "off")),
    cl::init("off"), cl::cat(compileCategory));
static cl::opt<double> maxMacOverhead(
    "max-mac-overhead",
    cl::desc(withDefault("Largest extra multiply-accumulates --patches=auto "
                         "may add, in percent of the model's",
                         "20")),
    cl::init(20.0), cl::cat(compileCategory));
static cl::opt<int64_t>
    alignment("alignment",
              cl::desc(withDefault("Arena alignment in bytes", "16")),
              cl::init(16), cl::cat(compileCategory));
static cl::opt<IOPlacement> ioPlacement(
    "io", cl::desc("Where the model's inputs and outputs live"),
    cl::init(IOPlacement::Arena),
    cl::values(clEnumValN(IOPlacement::Arena, "arena",
                          "in the arena at the header's _OFFSET defines; "
                          "an input's bytes are reused once it dies "
                          "(default, the smallest total SRAM)"),
               clEnumValN(IOPlacement::Caller, "caller",
                          "in buffers the caller passes, live for the "
                          "whole call")),
    cl::cat(compileCategory));
static cl::opt<std::string> symbolName(
    "name",
    cl::desc("C name of the model's function (default: the model's file "
             "name for a model with one public function, `model` from "
             "stdin; never `main`, which would clash with the firmware's)"),
    cl::value_desc("identifier"), cl::init(""), cl::cat(compileCategory));
static cl::opt<std::string> symbolPrefix(
    "symbol-prefix",
    cl::desc("Prefix for the names of the public functions in the object "
             "and the header (default: none)"),
    cl::init(""), cl::cat(compileCategory));
static cl::opt<std::string> optLevel(
    "O",
    cl::desc(withDefault("Optimization level of LLVM: 0, 1, 2, 3, s (2 "
                         "without growing the code: no unrolling for speed, "
                         "except the DSP kernels' reduction loops, unrolled "
                         "by 4) or z (smallest code); docs/CortexM.md "
                         "explains the default",
                         "s, or what --optimize chooses")),
    cl::value_desc("level"), cl::init("s"), cl::Prefix,
    cl::cat(compileCategory));
static cl::opt<std::string> optimizeGoal(
    "optimize",
    cl::desc(withDefault(
        "What the code is optimized for: memory (-Oz, the smallest code), "
        "balanced (-Os: small code, only the int8 DSP kernels' reduction "
        "loops unrolled, by 4, on cortex-m4/m7) or speed (-O2: LLVM unrolls "
        "loops of its choice, fewest instructions, most flash). The arena "
        "is the proven minimum in all three: no kernel uses scratch SRAM. "
        "An explicit -O<level> takes precedence; --report shows the flash",
        "balanced")),
    cl::value_desc("goal"), cl::init("balanced"), cl::cat(compileCategory));
static cl::opt<bool> dspKernels(
    "dsp-kernels",
    cl::desc("Int8 convolutions as DSP-extension kernels (SXTB16, SMLAD) on "
             "cortex-m4 and cortex-m7; docs/CortexM.md, \"DSP kernels\""),
    cl::init(true), cl::cat(compileCategory));
static cl::opt<bool> mveKernels(
    "mve-kernels",
    cl::desc("Int8 convolutions and rescales as MVE (Helium) vector kernels "
             "(VMLAVA.S8, VMULH.S32) on cortex-m55; docs/CortexM.md, \"MVE "
             "kernels\""),
    cl::init(true), cl::cat(compileCategory));
static cl::opt<bool> tfliteDoubleRound(
    "tflite-double-round",
    cl::desc("TFLite input: rescale with DOUBLE_ROUND, TFLite's rounding "
             "(default: SINGLE_ROUND, as mem-opt-import)"),
    cl::init(false), cl::cat(compileCategory));
static cl::opt<std::string> reportFormat(
    "report",
    cl::desc("Print a report to stdout: the arena, the inputs and outputs, "
             "the peak and the op at it, MACs, flash, and live bytes per "
             "layer; --report=json for JSON (default: text)"),
    cl::value_desc("text|json"), cl::ValueOptional, cl::init(""),
    cl::cat(compileCategory));
static cl::opt<bool>
    quiet("quiet",
          cl::desc("Do not print progress to stderr (default: progress of "
                   "scheduling, placement and code generation)"),
          cl::init(false), cl::cat(compileCategory));

namespace {
/// What the header says about one function, read from its TOSA signature.
struct FunctionInfo {
  std::string name;
  SmallVector<RankedTensorType> inputs;
  SmallVector<RankedTensorType> outputs;
};
} // namespace

/// Returns the C type of \p type's elements, or an empty string.
static StringRef getCType(Type type) {
  if (type.isF32())
    return "float";
  if (type.isF64())
    return "double";
  if (type.isF16())
    return "_Float16";
  if (auto intType = dyn_cast<IntegerType>(type)) {
    bool isUnsigned = intType.isUnsigned();
    switch (intType.getWidth()) {
    case 1:
    case 8:
      return isUnsigned || intType.getWidth() == 1 ? "uint8_t" : "int8_t";
    case 16:
      return isUnsigned ? "uint16_t" : "int16_t";
    case 32:
      return isUnsigned ? "uint32_t" : "int32_t";
    case 64:
      return isUnsigned ? "uint64_t" : "int64_t";
    default:
      return "";
    }
  }
  return "";
}

/// Returns true if \p name is a valid C identifier.
static bool isCIdentifier(StringRef name) {
  if (name.empty() || llvm::isDigit(name.front()))
    return false;
  return llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// Collects the public functions of \p module, checking that the header can
/// describe them.
static FailureOr<SmallVector<FunctionInfo>> collectFunctions(ModuleOp module) {
  SmallVector<FunctionInfo> infos;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal() || func.isPrivate())
      continue;
    FunctionInfo info;
    info.name = func.getSymName().str();
    if (!isCIdentifier(info.name))
      return func.emitError("function name '")
             << info.name << "' is not a C identifier";
    auto collect = [&](TypeRange types, StringRef what,
                       SmallVector<RankedTensorType> &out) -> LogicalResult {
      for (Type type : types) {
        auto tensor = dyn_cast<RankedTensorType>(type);
        if (!tensor || !tensor.hasStaticShape())
          return func.emitError("expected statically shaped tensor ")
                 << what << "s, got " << type;
        if (getCType(tensor.getElementType()).empty())
          return func.emitError("no C type for element type ")
                 << tensor.getElementType() << " of " << what << " " << type;
        out.push_back(tensor);
      }
      return success();
    };
    if (failed(collect(func.getArgumentTypes(), "input", info.inputs)) ||
        failed(collect(func.getResultTypes(), "output", info.outputs)))
      return failure();
    infos.push_back(std::move(info));
  }
  if (infos.empty())
    return module.emitError("no public function with a body to compile");
  return infos;
}

/// Returns the integer attribute \p name of \p op, if any.
static std::optional<int64_t> getIntAttr(Operation *op, StringRef name) {
  if (auto attr = op->getAttrOfType<IntegerAttr>(name))
    return attr.getInt();
  return std::nullopt;
}

/// Returns "1x16x16x4" for \p type.
static std::string getShapeString(RankedTensorType type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(type.getShape(), os, "x");
  return text;
}

namespace {
/// The memory figures of one compiled function, in bytes.
struct MemoryFigures {
  /// The schedule's peak under the lowering's model (memopt.peak_bytes).
  std::optional<int64_t> modelPeak;
  /// The planned arena and the liveness bound of its buffers.
  std::optional<int64_t> arena, livenessBound;
  /// Bytes of the caller-owned inputs and outputs (io=caller), else 0.
  int64_t callerIO = 0;

  /// The SRAM the device needs: the arena plus the caller's buffers.
  std::optional<int64_t> getDeviceBytes() const {
    if (!arena)
      return std::nullopt;
    return *arena + callerIO;
  }
};
} // namespace

/// Returns the bytes of a tensor of \p type as the C caller stores it.
static int64_t getCallerBytes(RankedTensorType type) {
  return type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
}

/// Reads the memory figures of \p info from the lowered function \p func.
static MemoryFigures getMemoryFigures(LLVM::LLVMFuncOp func,
                                      const FunctionInfo &info) {
  MemoryFigures figures;
  if (!func)
    return figures;
  figures.modelPeak = getIntAttr(func, "memopt.peak_bytes");
  figures.arena = getIntAttr(func, "memplan.arena_size");
  figures.livenessBound = getIntAttr(func, "memplan.lower_bound");
  if (ioPlacement == IOPlacement::Caller) {
    for (RankedTensorType type : info.inputs)
      figures.callerIO += getCallerBytes(type);
    for (RankedTensorType type : info.outputs)
      figures.callerIO += getCallerBytes(type);
  }
  return figures;
}

/// Returns the offsets in \p func's attribute \p name, if it has one.
static SmallVector<int64_t> getOffsets(LLVM::LLVMFuncOp func, StringRef name) {
  if (func)
    if (auto attr = func->getAttrOfType<DenseI64ArrayAttr>(name))
      return SmallVector<int64_t>(attr.asArrayRef());
  return {};
}

/// Writes the C header for \p infos; \p module is the lowered LLVM dialect
/// module, whose functions carry the plan's attributes.
static void writeHeader(raw_ostream &os, ModuleOp module,
                        ArrayRef<FunctionInfo> infos, StringRef guardBase) {
  std::string guard = guardBase.upper() + "_H";
  for (char &c : guard)
    if (!llvm::isAlnum(c))
      c = '_';
  os << "/* Generated by mem-opt-compile for " << cpuName
     << ". Do not edit. */\n";
  os << "#ifndef " << guard << "\n#define " << guard << "\n\n";
  os << "#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n";
  for (const FunctionInfo &info : infos) {
    auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(info.name);
    std::string upper = StringRef(info.name).upper();
    std::optional<int64_t> arena =
        func ? getIntAttr(func, "memplan.arena_size") : std::nullopt;
    std::optional<int64_t> arenaAlign =
        func ? getIntAttr(func, "memplan.arena_alignment") : std::nullopt;
    os << "\n";
    if (!arena)
      os << "/* No arena plan: buffers are allocated with malloc. */\n";
    os << "#define " << upper << "_ARENA_SIZE " << arena.value_or(0) << "\n";
    os << "#define " << upper << "_ARENA_ALIGN "
       << arenaAlign.value_or(alignment) << "\n";
    // The one number: the SRAM the device uses. It is the schedule's proven
    // peak unless the placement could not reach the liveness bound.
    MemoryFigures figures = getMemoryFigures(func, info);
    if (std::optional<int64_t> device = figures.getDeviceBytes()) {
      os << "/* SRAM for activations: the arena";
      if (figures.callerIO)
        os << " plus the caller's input and output buffers";
      os << ". */\n#define " << upper << "_PREDICTED_PEAK " << *device << "\n";
      if (figures.modelPeak && *figures.modelPeak != *device)
        os << "/* The placement is above the liveness bound: */\n#define "
           << upper << "_LIVENESS_BOUND " << *figures.modelPeak << "\n";
    }
    os << "#define " << upper << "_NUM_INPUTS " << info.inputs.size() << "\n";
    os << "#define " << upper << "_NUM_OUTPUTS " << info.outputs.size() << "\n";
    auto describe = [&](ArrayRef<RankedTensorType> types, StringRef prefix) {
      for (auto [i, type] : llvm::enumerate(types)) {
        os << "#define " << upper << "_" << prefix.upper() << i << "_BYTES "
           << getCallerBytes(type) << " /* " << getShapeString(type) << " "
           << getCType(type.getElementType()) << " */\n";
      }
    };
    describe(info.inputs, "in");
    describe(info.outputs, "out");
    SmallVector<int64_t> inOffsets = getOffsets(func, "memplan.input_offsets");
    SmallVector<int64_t> outOffsets =
        getOffsets(func, "memplan.output_offsets");
    bool ioInArena = func && func->hasAttr("memplan.io_in_arena");
    if (ioInArena) {
      os << "/* Inputs and outputs live in the arena: write input i at\n"
            "   arena + "
         << upper << "_IN<i>_OFFSET before the call, read output i at\n"
         << "   arena + " << upper
         << "_OUT<i>_OFFSET after it. The call overwrites the inputs. */\n";
      for (auto [i, offset] : llvm::enumerate(inOffsets))
        os << "#define " << upper << "_IN" << i << "_OFFSET " << offset << "\n";
      for (auto [i, offset] : llvm::enumerate(outOffsets))
        os << "#define " << upper << "_OUT" << i << "_OFFSET " << offset
           << "\n";
    }
    os << "void " << info.name << "(";
    bool first = true;
    auto separate = [&] {
      if (!first)
        os << ", ";
      first = false;
    };
    for (auto [i, type] : llvm::enumerate(info.inputs)) {
      if (ioInArena)
        break;
      separate();
      os << "const " << getCType(type.getElementType()) << " *in" << i;
    }
    for (auto [i, type] : llvm::enumerate(info.outputs)) {
      if (ioInArena)
        break;
      separate();
      os << getCType(type.getElementType()) << " *out" << i;
    }
    if (arena) {
      separate();
      os << "void *arena";
    }
    if (first)
      os << "void";
    os << ");\n";
  }
  os << "\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
}

/// Returns \p text as a C identifier: other characters become '_', and a
/// leading digit gets a '_' in front. Empty text gives "model".
static std::string toCIdentifier(StringRef text) {
  std::string name;
  for (char c : text)
    name += llvm::isAlnum(c) || c == '_' ? c : '_';
  if (name.empty())
    return "model";
  if (llvm::isDigit(name.front()))
    name.insert(name.begin(), '_');
  return name;
}

/// Gives the public functions of \p module their C names: `--name`, or the
/// model's file name, for the only one (`model` from stdin, unless the
/// function has a name other than `main`); several functions keep their
/// own names. `--symbol-prefix` goes in front, and a name that would be
/// `main` (the firmware's) becomes `model_main`.
static LogicalResult renamePublicFunctions(ModuleOp module) {
  SmallVector<func::FuncOp> publics;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && func.isPublic())
      publics.push_back(func);
  if (!symbolName.empty() && publics.size() != 1)
    return module.emitError("--name needs exactly one public function, the "
                            "model has ")
           << publics.size();
  for (func::FuncOp func : publics) {
    std::string name = func.getSymName().str();
    if (!symbolName.empty())
      name = symbolName;
    else if (publics.size() == 1 && inputFilename != "-")
      name = toCIdentifier(llvm::sys::path::stem(inputFilename));
    else if (name == "main")
      name = "model";
    name = symbolPrefix + name;
    if (name == "main")
      name = "model_main";
    if (name == func.getSymName())
      continue;
    auto newName = StringAttr::get(module.getContext(), name);
    if (module.lookupSymbol(newName))
      return func.emitError("cannot rename @")
             << func.getSymName() << " to @" << name
             << ": the module has a symbol of that name";
    if (failed(SymbolTable::replaceAllSymbolUses(func, newName, module)))
      return func.emitError("cannot rename the uses of @") << func.getSymName();
    func.setSymName(newName);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Reading the model
//===----------------------------------------------------------------------===//

/// Returns the name that diagnostics give the model: its file's stem, or
/// `<stdin>`.
static std::string getModelName() {
  std::string name = getModelNameFromPath(inputFilename);
  return name.empty() ? "<stdin>" : name;
}

/// Reads the model: a TFLite flatbuffer or an ONNX protobuf (detected from
/// the content, as mem-opt-import does) is imported to TOSA, text is parsed
/// as MLIR. Anything else is rejected before it reaches the MLIR parser,
/// which would echo binary bytes.
static OwningOpRef<ModuleOp> readModel(llvm::SourceMgr &sourceMgr,
                                       MLIRContext &context) {
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::WithColor::error() << errorMessage << "\n";
    return nullptr;
  }
  StringRef bytes = input->getBuffer();
  OwningOpRef<ModuleOp> module;
  switch (detectModelFormat(bytes)) {
  case ModelFormat::TFLite:
    module = importTFLite(bytes, inputFilename, &context,
                          TFLiteImportOptions{tfliteDoubleRound});
    break;
  case ModelFormat::ONNX:
    module = importONNX(bytes, inputFilename, &context);
    break;
  case ModelFormat::Unknown:
    if (llvm::is_contained(bytes, '\0') || !llvm::json::isUTF8(bytes)) {
      llvm::WithColor::error()
          << inputFilename
          << ": not a TFLite, ONNX or MLIR model (binary content that is "
             "neither a TFLite flatbuffer nor an ONNX protobuf)\n";
      return nullptr;
    }
    sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
    if (!module)
      memopt::diagnoseSilentParseFailure(sourceMgr, &context);
    return module;
  }
  if (!module || failed(verify(*module)))
    return nullptr;
  return module;
}

//===----------------------------------------------------------------------===//
// Diagnostics and progress
//===----------------------------------------------------------------------===//

/// Serializes the lines of progress, of its heartbeat threads and of
/// diagnostics on stderr.
static std::mutex stderrMutex;

namespace {
/// Prints progress lines to stderr unless --quiet; safe to call from the
/// pass manager's threads. Progress never reaches stdout, the header or the
/// object.
class Progress {
public:
  Progress() : start(std::chrono::steady_clock::now()) {}

  /// Prints "mem-opt-compile: [  1.2 s] <message>".
  void print(const Twine &message) {
    if (quiet)
      return;
    std::lock_guard<std::mutex> lock(stderrMutex);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    llvm::errs() << "mem-opt-compile: [" << llvm::format("%6.1f", seconds)
                 << " s] " << message << "\n";
  }

private:
  std::chrono::steady_clock::time_point start;
};

/// Prints "<what>: still running (<N> s)" every 5 seconds from a thread of
/// its own until it is destroyed, so that a long phase (a search with a
/// large state budget, LLVM on a large model) is never silent.
class Heartbeat {
public:
  Heartbeat(Progress &progress, std::string what) {
    if (quiet)
      return;
    thread = std::thread([this, &progress, what = std::move(what)] {
      auto start = std::chrono::steady_clock::now();
      std::unique_lock<std::mutex> lock(mutex);
      while (!stopped.wait_for(lock, std::chrono::seconds(5),
                               [this] { return done; })) {
        auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::steady_clock::now() - start)
                           .count();
        progress.print(what + ": still running (" + Twine(seconds) + " s)");
      }
    });
  }
  ~Heartbeat() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      done = true;
    }
    stopped.notify_all();
    if (thread.joinable())
      thread.join();
  }

private:
  std::mutex mutex;
  std::condition_variable stopped;
  bool done = false;
  std::thread thread;
};

/// The source manager's handler, whose emitDiagnostic the handler below
/// calls under the stderr lock.
class SourceMgrHandler : public SourceMgrDiagnosticHandler {
public:
  using SourceMgrDiagnosticHandler::emitDiagnostic;
  using SourceMgrDiagnosticHandler::SourceMgrDiagnosticHandler;
};

/// Diagnostics of mem-opt-compile. A diagnostic at an op whose location is
/// a name without a file position (the node names of imported models) is
/// printed as `<model>:<node>: error: ...` (emitNamedLocationDiagnostic);
/// everything else by the source manager's handler. The scheduler's statistics
/// remarks become progress.
class CompileDiagnosticHandler {
public:
  CompileDiagnosticHandler(MLIRContext &context,
                           SourceMgrHandler &sourceMgrHandler,
                           Progress &progress)
      : context(context), sourceMgrHandler(sourceMgrHandler),
        progress(progress), modelName(getModelName()) {
    id = context.getDiagEngine().registerHandler(
        [this](Diagnostic &diag) { return handle(diag); });
  }
  ~CompileDiagnosticHandler() { context.getDiagEngine().eraseHandler(id); }

  /// Returns the number of search states the scheduler reported for @name.
  std::optional<uint64_t> getScheduleStates(StringRef name) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = scheduleStates.find(name);
    if (it == scheduleStates.end())
      return std::nullopt;
    return it->second;
  }

private:
  static constexpr StringLiteral kProgressPrefix =
      "memory-schedule progress of ";
  static constexpr StringLiteral kStatisticsPrefix =
      "memory-schedule statistics of @";

  LogicalResult handle(Diagnostic &diag) {
    std::string message = diag.str();
    // The search's progress remarks: "@fn: <N> states, segment best ...".
    if (diag.getSeverity() == DiagnosticSeverity::Remark &&
        StringRef(message).starts_with(kProgressPrefix)) {
      progress.print("scheduling " +
                     StringRef(message).drop_front(kProgressPrefix.size()));
      return success();
    }
    if (diag.getSeverity() == DiagnosticSeverity::Remark &&
        StringRef(message).starts_with(kStatisticsPrefix)) {
      // "... of @fn: ..., <N> states explored, <T> ms".
      StringRef rest = StringRef(message).drop_front(kStatisticsPrefix.size());
      StringRef name = rest.take_until([](char c) { return c == ':'; });
      StringRef states = rest.rsplit(" states explored").first;
      states = states.substr(states.find_last_of(' ') + 1);
      uint64_t count = 0;
      if (!states.getAsInteger(10, count)) {
        std::lock_guard<std::mutex> lock(mutex);
        scheduleStates[name] = count;
      }
      return success();
    }
    std::lock_guard<std::mutex> lock(stderrMutex);
    if (failed(emitNamedLocationDiagnostic(diag, modelName)))
      sourceMgrHandler.emitDiagnostic(diag);
    return success();
  }

  MLIRContext &context;
  SourceMgrHandler &sourceMgrHandler;
  Progress &progress;
  std::string modelName;
  DiagnosticEngine::HandlerID id;
  std::mutex mutex;
  llvm::StringMap<uint64_t> scheduleStates;
};

/// Reports the long phases of the pipeline as progress, and records the
/// report's view of every function right after memory-schedule ordered it:
/// the per-step live bytes of the scheduled TOSA under the lowering's model.
class CompileInstrumentation : public PassInstrumentation {
public:
  CompileInstrumentation(Progress &progress,
                         CompileDiagnosticHandler &diagnostics,
                         CostModelOptions costModel)
      : progress(progress), diagnostics(diagnostics), costModel(costModel) {}

  void runBeforePass(Pass *pass, Operation *op) override {
    StringRef arg = pass->getArgument();
    auto func = dyn_cast<func::FuncOp>(op);
    if (arg == "memory-schedule" && func && !func.isExternal()) {
      // The ops of the body, without constants and the terminator.
      size_t numOps = llvm::count_if(
          func.getBody().front().without_terminator(), [](Operation &inner) {
            return !inner.hasTrait<OpTrait::ConstantLike>();
          });
      progress.print("scheduling @" + func.getSymName() + " (" + Twine(numOps) +
                     " ops, state budget " + Twine(scheduleMaxStates) + ")");
      std::lock_guard<std::mutex> lock(mutex);
      heartbeats[op] = std::make_unique<Heartbeat>(
          progress, ("scheduling @" + func.getSymName()).str());
    } else if (arg == "memplan-plan-arena" && func && !func.isExternal()) {
      progress.print("placing the buffers of @" + func.getSymName() +
                     " in the arena");
    } else if (arg == "one-shot-bufferize") {
      progress.print("lowering to linalg and bufferizing");
    } else if (arg == "memplan-lower") {
      progress.print("lowering to the LLVM dialect");
    }
  }

  void runAfterPass(Pass *pass, Operation *op) override {
    StringRef arg = pass->getArgument();
    auto func = dyn_cast<func::FuncOp>(op);
    if (!func || func.isExternal())
      return;
    stopHeartbeat(op);
    if (arg == "memory-schedule")
      afterSchedule(func);
    else if (arg == "memplan-plan-arena")
      if (auto arena = func->getAttrOfType<IntegerAttr>("memplan.arena_size"))
        progress.print("placed @" + func.getSymName() + ": arena " +
                       Twine(arena.getInt()) + " bytes");
  }

  void runAfterPassFailed(Pass *pass, Operation *op) override {
    stopHeartbeat(op);
  }

  /// Takes the report data recorded for \p name.
  std::optional<FunctionReport> takeReport(StringRef name) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = reports.find(name);
    if (it == reports.end())
      return std::nullopt;
    return std::move(it->second);
  }

private:
  void stopHeartbeat(Operation *op) {
    std::unique_ptr<Heartbeat> heartbeat;
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = heartbeats.find(op);
      if (it == heartbeats.end())
        return;
      heartbeat = std::move(it->second);
      heartbeats.erase(it);
    }
  }

  void afterSchedule(func::FuncOp func) {
    FunctionReport report;
    report.name = func.getSymName().str();
    if (auto peak = func->getAttrOfType<IntegerAttr>(kPeakBytesAttrName))
      report.schedulePeak = peak.getInt();
    if (auto bound = func->getAttrOfType<IntegerAttr>(kLowerBoundAttrName))
      report.scheduleLowerBound = bound.getInt();
    if (auto optimal = func->getAttrOfType<BoolAttr>(kOptimalAttrName))
      report.optimal = optimal.getValue();
    if (auto stopped =
            func->getAttrOfType<StringAttr>(kScheduleStoppedByAttrName))
      report.stoppedBy = stopped.getValue().str();
    std::string line;
    llvm::raw_string_ostream os(line);
    os << "scheduled @" << report.name;
    if (report.schedulePeak && report.scheduleLowerBound)
      os << ": peak " << *report.schedulePeak << " bytes, lower bound "
         << *report.scheduleLowerBound << " bytes, gap "
         << *report.schedulePeak - *report.scheduleLowerBound << " bytes";
    if (std::optional<uint64_t> states =
            diagnostics.getScheduleStates(report.name))
      os << ", " << *states << " states";
    os << (report.optimal                 ? ", proven optimal"
           : report.stoppedBy == "states" ? ", stopped by the state budget"
           : report.stoppedBy == "clock"  ? ", stopped by the clock"
                                          : ", not proven");
    progress.print(line);
    if (failed(analyzeScheduledFunction(func, costModel, report)))
      return;
    std::lock_guard<std::mutex> lock(mutex);
    reports[report.name] = std::move(report);
  }

  Progress &progress;
  CompileDiagnosticHandler &diagnostics;
  CostModelOptions costModel;
  std::mutex mutex;
  llvm::StringMap<FunctionReport> reports;
  llvm::DenseMap<Operation *, std::unique_ptr<Heartbeat>> heartbeats;
};
} // namespace

//===----------------------------------------------------------------------===//
// LLVM code generation
//===----------------------------------------------------------------------===//

namespace {
/// What `-O<level>` asks of LLVM.
struct OptLevel {
  /// Speed level of the IR passes, 0-3.
  unsigned speed = 2;
  /// Size level: 0, 1 (`s`: optsize) or 2 (`z`: minsize).
  unsigned size = 0;

  llvm::CodeGenOptLevel getCodeGenLevel() const {
    switch (speed) {
    case 0:
      return llvm::CodeGenOptLevel::None;
    case 1:
      return llvm::CodeGenOptLevel::Less;
    case 2:
      return llvm::CodeGenOptLevel::Default;
    default:
      return llvm::CodeGenOptLevel::Aggressive;
    }
  }
};
} // namespace

/// Parses `-O<level>`.
static std::optional<OptLevel> parseOptLevel(StringRef text) {
  return llvm::StringSwitch<std::optional<OptLevel>>(text)
      .Case("0", OptLevel{0, 0})
      .Case("1", OptLevel{1, 0})
      .Case("2", OptLevel{2, 0})
      .Case("3", OptLevel{3, 0})
      .Case("s", OptLevel{2, 1})
      .Case("z", OptLevel{2, 2})
      .Default(std::nullopt);
}

/// Creates the ARM target machine for \p target. The software pipeliner is
/// off (docs/CortexM.md, "Code generation"): on Cortex-M7 it took almost all
/// of the compile time for loops that run a few times per layer.
static std::unique_ptr<llvm::TargetMachine>
createTargetMachine(const CortexMTarget &target, const OptLevel &level) {
  std::string error;
  llvm::Triple triple(target.triple);
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget) {
    llvm::WithColor::error() << error << "\n";
    return nullptr;
  }
  llvm::TargetOptions targetOptions;
  targetOptions.FloatABIType = llvm::FloatABI::Hard;
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      triple, target.cpu, "-use-mipipeliner", targetOptions,
      llvm::Reloc::Static, std::nullopt, level.getCodeGenLevel()));
  if (machine->createDataLayout().getStringRepresentation() !=
      target.dataLayout) {
    llvm::WithColor::error()
        << "the pipeline's data layout for " << target.cpu
        << " differs from the ARM backend's: "
        << machine->createDataLayout().getStringRepresentation() << "\n";
    return nullptr;
  }
  return machine;
}

/// Moves every top-level loop nest of the model's functions into a function
/// of its own, kept out of line. A model is one function with a loop nest
/// per layer; LLVM's loop passes (induction variable simplification, loop
/// rotation, loop strength reduction) take time superlinear in the loops of
/// one function, and per-layer functions keep them linear. The call per
/// layer costs nothing next to its loops. (LLVM's `loop-extract` pass does
/// the same but rebuilds the extractor's analysis of the whole function for
/// every loop, quadratic in the layers; the analysis stays valid across
/// extractions, so it is built once here.)
static LogicalResult extractLoopNests(llvm::Module &llvmModule,
                                      llvm::TargetMachine &machine) {
  // Loops in simplified form: a preheader, one backedge, dedicated exits.
  llvm::LoopAnalysisManager loopAM;
  llvm::FunctionAnalysisManager functionAM;
  llvm::CGSCCAnalysisManager cgsccAM;
  llvm::ModuleAnalysisManager moduleAM;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(moduleAM);
  builder.registerCGSCCAnalyses(cgsccAM);
  builder.registerFunctionAnalyses(functionAM);
  builder.registerLoopAnalyses(loopAM);
  builder.crossRegisterProxies(loopAM, functionAM, cgsccAM, moduleAM);
  llvm::ModulePassManager passes;
  if (llvm::Error err =
          builder.parsePassPipeline(passes, "function(loop-simplify)")) {
    llvm::WithColor::error()
        << "cannot build loop-simplify: " << llvm::toString(std::move(err))
        << "\n";
    return failure();
  }
  passes.run(llvmModule, moduleAM);

  SmallVector<llvm::Function *> functions;
  for (llvm::Function &function : llvmModule)
    if (!function.isDeclaration())
      functions.push_back(&function);
  for (llvm::Function *function : functions) {
    llvm::DominatorTree dominators(*function);
    llvm::LoopInfo loops(dominators);
    // Top-level loops, in block order.
    SmallVector<llvm::Loop *> nests;
    for (llvm::BasicBlock &block : *function)
      if (llvm::Loop *loop = loops.getLoopFor(&block))
        if (!loop->getParentLoop() && loop->getHeader() == &block)
          nests.push_back(loop);
    llvm::CodeExtractorAnalysisCache cache(*function);
    for (llvm::Loop *nest : nests) {
      llvm::CodeExtractor extractor(nest->getBlocks(), &dominators);
      if (!extractor.isEligible())
        continue;
      if (llvm::Function *extracted = extractor.extractCodeRegion(cache))
        extracted->addFnAttr(llvm::Attribute::NoInline);
    }
  }
  return success();
}

/// Emits \p llvmModule as an object for \p machine into \p os.
static LogicalResult emitObject(llvm::Module &llvmModule,
                                llvm::TargetMachine &machine,
                                llvm::raw_pwrite_stream &os) {
  llvm::legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, os, nullptr,
                                  llvm::CodeGenFileType::ObjectFile)) {
    llvm::WithColor::error() << "the ARM backend cannot emit an object file\n";
    return failure();
  }
  codegen.run(llvmModule);
  return success();
}

/// Writes \p bytes to \p path.
static LogicalResult writeFile(StringRef path,
                               function_ref<void(raw_ostream &)> write) {
  std::string errorMessage;
  std::unique_ptr<llvm::ToolOutputFile> file =
      openOutputFile(path, &errorMessage);
  if (!file) {
    llvm::WithColor::error() << errorMessage << "\n";
    return failure();
  }
  write(file->os());
  file->keep();
  return success();
}

//===----------------------------------------------------------------------===//
// The flow
//===----------------------------------------------------------------------===//

/// Returns the inputs or outputs of \p info for the report.
static SmallVector<TensorReport>
getTensorReports(ArrayRef<RankedTensorType> types, ArrayRef<int64_t> offsets,
                 bool inArena) {
  SmallVector<TensorReport> tensors;
  for (auto [i, type] : llvm::enumerate(types)) {
    TensorReport tensor;
    tensor.shape = getShapeString(type);
    tensor.cType = getCType(type.getElementType()).str();
    tensor.bytes = getCallerBytes(type);
    if (inArena && i < offsets.size())
      tensor.arenaOffset = offsets[i];
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

/// Runs the whole flow; returns failure after reporting an error.
static LogicalResult compile(MLIRContext &context, TimingScope &timing) {
  Progress progress;
  llvm::SourceMgr sourceMgr;
  SourceMgrHandler sourceMgrHandler(sourceMgr, &context);
  CompileDiagnosticHandler diagnostics(context, sourceMgrHandler, progress);

  std::optional<CortexMTarget> target = getCortexMTarget(cpuName);
  if (!target) {
    llvm::WithColor::error() << "unknown cpu '" << cpuName
                             << "' (expected cortex-m4, cortex-m7, "
                                "cortex-m33 or cortex-m55)\n";
    return failure();
  }
  // --optimize chooses the level unless -O gives it.
  std::string levelName = optLevel;
  if (optLevel.getNumOccurrences() == 0) {
    levelName = llvm::StringSwitch<std::string>(optimizeGoal)
                    .Case("memory", "z")
                    .Case("balanced", "s")
                    .Case("speed", "2")
                    .Default("");
    if (levelName.empty()) {
      llvm::WithColor::error()
          << "unknown --optimize goal '" << optimizeGoal
          << "' (expected memory, balanced or speed)\n";
      return failure();
    }
  }
  std::optional<OptLevel> level = parseOptLevel(levelName);
  if (!level) {
    llvm::WithColor::error() << "unknown optimization level '-O" << levelName
                             << "' (expected 0, 1, 2, 3, s or z)\n";
    return failure();
  }
  bool wantReport = reportFormat.getNumOccurrences() > 0;
  if (wantReport && reportFormat != "" && reportFormat != "text" &&
      reportFormat != "json") {
    llvm::WithColor::error() << "unknown --report format '" << reportFormat
                             << "' (expected text or json)\n";
    return failure();
  }

  TimingScope readTiming = timing.nest("Read the model");
  OwningOpRef<ModuleOp> module = readModel(sourceMgr, context);
  readTiming.stop();
  if (!module)
    return failure();
  if (failed(renamePublicFunctions(*module)))
    return failure();
  FailureOr<SmallVector<FunctionInfo>> infos = collectFunctions(*module);
  if (failed(infos))
    return failure();

  TosaToCortexMOptions options;
  options.cpu = cpuName;
  options.sram = sramBytes;
  options.schedule = scheduleName;
  options.scheduleMaxStates = scheduleMaxStates;
  options.scheduleTimeLimitMs = scheduleTimeLimitMs;
  options.scheduleStatistics = true;
  options.scheduleProgressMs = quiet ? 0 : 2000;
  options.partition = partitionMode;
  options.patches = patchesMode;
  options.maxMacOverhead = maxMacOverhead;
  options.placement = placementName;
  options.dspKernels = dspKernels;
  // -Os unrolls the DSP kernels' reduction loops only (the pipeline's
  // default count); -O2/-O3 leave unrolling to LLVM, -Oz unrolls nothing.
  if (level->speed != 2 || level->size != 1)
    options.kernelUnroll = 0;
  options.mveKernels = mveKernels;
  options.alignment = alignment;
  options.io = ioPlacement;
  PassManager pm(&context);
  std::string errorMessage;
  if (failed(buildTosaToCortexMPipeline(pm, options, &errorMessage))) {
    llvm::WithColor::error() << errorMessage << "\n";
    return failure();
  }
  auto instrumentation = std::make_unique<CompileInstrumentation>(
      progress, diagnostics,
      CostModelOptions{MemoryModelKind::Lowering, ioPlacement, alignment});
  CompileInstrumentation *recorder = instrumentation.get();
  pm.addInstrumentation(std::move(instrumentation));
  TimingScope pipelineTiming = timing.nest("cortex-m-pipeline");
  pm.enableTiming(pipelineTiming);
  if (failed(pm.run(*module)))
    return failure();
  pipelineTiming.stop();

  std::unique_ptr<llvm::TargetMachine> machine =
      createTargetMachine(*target, *level);
  if (!machine)
    return failure();
  progress.print("translating to LLVM IR and optimizing (-O" + Twine(levelName) +
                 ")");
  TimingScope translateTiming = timing.nest("Translate to LLVM IR");
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext, inputFilename);
  translateTiming.stop();
  if (!llvmModule) {
    llvm::WithColor::error()
        << "cannot translate the lowered module to LLVM IR\n";
    return failure();
  }
  TimingScope extractTiming = timing.nest("Extract loop nests");
  if (level->speed > 0 && failed(extractLoopNests(*llvmModule, *machine)))
    return failure();
  extractTiming.stop();
  TimingScope optimizeTiming = timing.nest("Optimize LLVM IR");
  // -Os/-Oz: the IR passes and the code generator read the function
  // attributes, not only the pipeline's level.
  if (level->size > 0)
    for (llvm::Function &function : *llvmModule)
      if (!function.isDeclaration()) {
        function.addFnAttr(llvm::Attribute::OptimizeForSize);
        if (level->size > 1)
          function.addFnAttr(llvm::Attribute::MinSize);
      }
  {
    Heartbeat heartbeat(progress, "optimizing LLVM IR");
    auto optimize =
        makeOptimizingTransformer(level->speed, level->size, machine.get());
    if (llvm::Error err = optimize(llvmModule.get())) {
      llvm::WithColor::error()
          << "LLVM optimization failed: " << llvm::toString(std::move(err))
          << "\n";
      return failure();
    }
  }
  optimizeTiming.stop();

  if (!emitLLVMFilename.empty() &&
      failed(writeFile(emitLLVMFilename, [&](raw_ostream &os) {
        llvmModule->print(os, nullptr);
      })))
    return failure();

  // The object, in memory: the report reads its section sizes.
  SmallVector<char, 0> object;
  if (!outputFilename.empty() || wantReport) {
    progress.print("generating code for " + cpuName);
    TimingScope codegenTiming = timing.nest("Generate code");
    llvm::raw_svector_ostream os(object);
    Heartbeat codegenHeartbeat(progress, "generating code");
    if (failed(emitObject(*llvmModule, *machine, os)))
      return failure();
    codegenTiming.stop();
  }
  if (!outputFilename.empty() &&
      failed(writeFile(outputFilename, [&](raw_ostream &os) {
        os.write(object.data(), object.size());
      })))
    return failure();
  if (!headerFilename.empty() &&
      failed(writeFile(headerFilename, [&](raw_ostream &os) {
        writeHeader(os, *module, *infos, llvm::sys::path::stem(headerFilename));
      })))
    return failure();
  progress.print("done");
  if (!wantReport)
    return success();

  CompileReport report;
  report.cpu = cpuName;
  report.io = ioPlacement;
  llvm::Expected<ObjectSizes> sizes = getObjectSizes(llvm::MemoryBufferRef(
      StringRef(object.data(), object.size()), outputFilename));
  if (!sizes) {
    llvm::WithColor::error() << "cannot read the emitted object: "
                             << llvm::toString(sizes.takeError()) << "\n";
    return failure();
  }
  report.object = *sizes;
  for (const FunctionInfo &info : *infos) {
    auto func = module->lookupSymbol<LLVM::LLVMFuncOp>(info.name);
    FunctionReport fn =
        recorder->takeReport(info.name).value_or(FunctionReport());
    fn.name = info.name;
    MemoryFigures figures = getMemoryFigures(func, info);
    fn.arenaBytes = figures.arena;
    fn.callerIOBytes = figures.callerIO;
    fn.livenessLowerBound = figures.livenessBound;
    fn.arenaAlignment = getIntAttr(func, "memplan.arena_alignment")
                            .value_or(static_cast<int64_t>(alignment));
    bool inArena = func && func->hasAttr("memplan.io_in_arena");
    fn.inputs = getTensorReports(
        info.inputs, getOffsets(func, "memplan.input_offsets"), inArena);
    fn.outputs = getTensorReports(
        info.outputs, getOffsets(func, "memplan.output_offsets"), inArena);
    // One number: the profile the report shows is the scheduler's.
    if (fn.schedulePeak && !fn.layers.empty() &&
        fn.profilePeak != *fn.schedulePeak)
      llvm::WithColor::warning()
          << "@" << fn.name << ": the per-layer profile peaks at "
          << fn.profilePeak << " bytes, memopt.peak_bytes is "
          << *fn.schedulePeak << "\n";
    report.functions.push_back(std::move(fn));
  }
  if (reportFormat == "json")
    llvm::outs() << llvm::formatv("{0:2}", report.toJSON()) << "\n";
  else
    report.printText(llvm::outs());
  return success();
}

int main(int argc, char **argv) {
  mlir::memopt::registerVersionPrinter();
  llvm::InitLLVM initLLVM(argc, argv);
  LLVMInitializeARMTargetInfo();
  LLVMInitializeARMTarget();
  LLVMInitializeARMTargetMC();
  LLVMInitializeARMAsmPrinter();
  mlir::registerAllPasses();
  memopt::registerAllPasses();
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
  memopt::registerAllDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
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
