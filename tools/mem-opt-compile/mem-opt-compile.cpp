//===- mem-opt-compile.cpp - TOSA model to a Cortex-M object --------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// One command from a TOSA model to a Cortex-M object file and a C header:
//
//   mem-opt-compile model.mlir --cpu=cortex-m4 -o model.o --header model.h
//
// It runs `cortex-m-pipeline`, translates the LLVM dialect to LLVM IR,
// optimizes it and emits the object in-process with LLVM's ARM backend. The
// header declares, for every public function,
//
//   void fn(const T *in0, ..., T *out0, ..., void *arena);
//   #define FN_ARENA_SIZE <bytes>
//   #define FN_ARENA_ALIGN <bytes>
//
// The caller owns the arena, as in TensorFlow Lite Micro.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/InitAll.h"
#include "MemOpt/Pipelines/Pipelines.h"
#include "MemOpt/Support/Version.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include <optional>
#include <string>

using namespace mlir;
using namespace mlir::memopt;

namespace cl = llvm::cl;

static cl::opt<std::string>
    inputFilename(cl::Positional, cl::desc("<model.mlir>"), cl::init("-"));
static cl::opt<std::string> outputFilename("o", cl::desc("Object file"),
                                           cl::value_desc("file"),
                                           cl::init(""));
static cl::opt<std::string> headerFilename("header",
                                           cl::desc("C header to write"),
                                           cl::value_desc("file"),
                                           cl::init(""));
static cl::opt<std::string>
    emitLLVMFilename("emit-llvm",
                     cl::desc("Also write the optimized LLVM IR to this file"),
                     cl::value_desc("file"), cl::init(""));
static cl::opt<std::string> cpuName("cpu",
                                    cl::desc("cortex-m4, cortex-m7, "
                                             "cortex-m33 or cortex-m55"),
                                    cl::init("cortex-m4"));
static cl::opt<int64_t> sramBytes(
    "sram",
    cl::desc("Activation SRAM budget in bytes: the arena plus the caller's "
             "input and output buffers under --io=caller (0: none)"),
    cl::init(0));
static cl::opt<std::string>
    scheduleName("schedule",
                 cl::desc("Op order: exact, input, kahn, rpo or greedy"),
                 cl::init("exact"));
static cl::opt<std::string>
    placementName("placement",
                  cl::desc("Arena placement: best, greedy-by-size or "
                           "no-reuse"),
                  cl::init("best"));
static cl::opt<std::string> partitionMode("partition",
                                          cl::desc("auto, off or always"),
                                          cl::init("off"));
static cl::opt<std::string> patchesMode(
    "patches",
    cl::desc("Run the memory-heavy prefix one spatial patch at a time: off, "
             "auto (the grid with the smallest SRAM within "
             "--max-mac-overhead) or <rows>x<cols>"),
    cl::init("off"));
static cl::opt<double> maxMacOverhead(
    "max-mac-overhead",
    cl::desc("Largest extra multiply-accumulates --patches=auto may add, in "
             "percent of the model's"),
    cl::init(20.0));
static cl::opt<int64_t>
    alignment("alignment", cl::desc("Arena alignment in bytes"), cl::init(16));
static cl::opt<IOPlacement> ioPlacement(
    "io", cl::desc("Where the model's inputs and outputs live"),
    cl::init(IOPlacement::Arena),
    cl::values(clEnumValN(IOPlacement::Arena, "arena",
                          "in the arena at the header's _OFFSET defines; "
                          "an input's bytes are reused once it dies "
                          "(default, the smallest total SRAM)"),
               clEnumValN(IOPlacement::Caller, "caller",
                          "in buffers the caller passes, live for the "
                          "whole call")));
static cl::opt<std::string> symbolName(
    "name",
    cl::desc("C name of the model's function (default: the function's own "
             "name, or the model's file name for a function called `main`, "
             "which would clash with the firmware's `main`)"),
    cl::value_desc("identifier"), cl::init(""));
static cl::opt<std::string> symbolPrefix(
    "symbol-prefix",
    cl::desc("Prefix for the names of the public functions in the object "
             "and the header (e.g. to avoid a clash with the firmware's "
             "`main`)"),
    cl::init(""));
static cl::opt<unsigned> optLevel("O", cl::desc("LLVM optimization level"),
                                  cl::init(2), cl::Prefix);
static cl::opt<bool> printReport(
    "report",
    cl::desc("Print the predicted peak, lower bound and arena of each "
             "function to stdout"),
    cl::init(false));

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

/// Emits \p llvmModule as an object for \p target into \p os.
static LogicalResult emitObject(llvm::Module &llvmModule,
                                llvm::TargetMachine &machine,
                                llvm::raw_pwrite_stream &os) {
  llvm::legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, os, nullptr,
                                  llvm::CodeGenFileType::ObjectFile)) {
    llvm::errs() << "error: the ARM backend cannot emit an object file\n";
    return failure();
  }
  codegen.run(llvmModule);
  return success();
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

/// Gives the public functions of \p module their C names: `--name` for the
/// only one, else the model's file name for a function called `main` (which
/// would clash with the firmware's `main`) unless `--symbol-prefix` makes
/// the name another one, then `--symbol-prefix`.
static LogicalResult renamePublicFunctions(ModuleOp module) {
  SmallVector<func::FuncOp> publics;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && func.isPublic())
      publics.push_back(func);
  if (!symbolName.empty() && publics.size() != 1)
    return module.emitError("--name needs exactly one public function, the "
                            "model has ")
           << publics.size();
  StringRef stem = inputFilename == "-" ? StringRef("model")
                                        : llvm::sys::path::stem(inputFilename);
  for (func::FuncOp func : publics) {
    std::string name = func.getSymName().str();
    if (!symbolName.empty())
      name = symbolName;
    else if (name == "main" && symbolPrefix.empty())
      name = toCIdentifier(stem);
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

/// Runs the whole flow; returns failure after reporting an error.
static LogicalResult compile(MLIRContext &context) {
  std::string errorMessage;
  auto input = openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << "error: " << errorMessage << "\n";
    return failure();
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
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
  options.partition = partitionMode;
  options.patches = patchesMode;
  options.maxMacOverhead = maxMacOverhead;
  options.placement = placementName;
  options.alignment = alignment;
  options.io = ioPlacement;
  PassManager pm(&context);
  if (failed(buildTosaToCortexMPipeline(pm, options, &errorMessage))) {
    llvm::errs() << "error: " << errorMessage << "\n";
    return failure();
  }
  if (failed(pm.run(*module)))
    return failure();

  std::optional<CortexMTarget> target = getCortexMTarget(cpuName);
  std::string error;
  llvm::Triple triple(target->triple);
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget) {
    llvm::errs() << "error: " << error << "\n";
    return failure();
  }
  llvm::TargetOptions targetOptions;
  targetOptions.FloatABIType = llvm::FloatABI::Hard;
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      triple, target->cpu, "", targetOptions, llvm::Reloc::Static, std::nullopt,
      optLevel == 0 ? llvm::CodeGenOptLevel::None
                    : llvm::CodeGenOptLevel::Aggressive));
  if (machine->createDataLayout().getStringRepresentation() !=
      target->dataLayout) {
    llvm::errs() << "error: the pipeline's data layout for " << cpuName
                 << " differs from the ARM backend's: "
                 << machine->createDataLayout().getStringRepresentation()
                 << "\n";
    return failure();
  }

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext, inputFilename);
  if (!llvmModule) {
    llvm::errs() << "error: cannot translate the lowered module to LLVM IR\n";
    return failure();
  }
  auto optimize =
      makeOptimizingTransformer(optLevel, /*sizeLevel=*/0, machine.get());
  if (llvm::Error err = optimize(llvmModule.get())) {
    llvm::errs() << "error: LLVM optimization failed: "
                 << llvm::toString(std::move(err)) << "\n";
    return failure();
  }

  if (!emitLLVMFilename.empty()) {
    auto file = openOutputFile(emitLLVMFilename, &errorMessage);
    if (!file) {
      llvm::errs() << "error: " << errorMessage << "\n";
      return failure();
    }
    llvmModule->print(file->os(), nullptr);
    file->keep();
  }
  if (!outputFilename.empty()) {
    auto file = openOutputFile(outputFilename, &errorMessage);
    if (!file) {
      llvm::errs() << "error: " << errorMessage << "\n";
      return failure();
    }
    if (failed(emitObject(*llvmModule, *machine, file->os())))
      return failure();
    file->keep();
  }
  if (!headerFilename.empty()) {
    auto file = openOutputFile(headerFilename, &errorMessage);
    if (!file) {
      llvm::errs() << "error: " << errorMessage << "\n";
      return failure();
    }
    StringRef stem = llvm::sys::path::stem(headerFilename);
    writeHeader(file->os(), *module, *infos, stem);
    file->keep();
  }
  if (printReport) {
    for (const FunctionInfo &info : *infos) {
      auto func = module->lookupSymbol<LLVM::LLVMFuncOp>(info.name);
      auto show = [&](StringRef label, StringRef attr) {
        std::optional<int64_t> value = getIntAttr(func, attr);
        llvm::outs() << " " << label << "=";
        if (value)
          llvm::outs() << *value;
        else
          llvm::outs() << "n/a";
      };
      MemoryFigures figures = getMemoryFigures(func, info);
      llvm::outs() << info.name << ":";
      llvm::outs() << " predicted_peak="
                   << figures.getDeviceBytes().value_or(0);
      show("schedule_peak", "memopt.peak_bytes");
      show("schedule_lower_bound", "memopt.lower_bound");
      show("arena", "memplan.arena_size");
      show("liveness_lower_bound", "memplan.lower_bound");
      llvm::outs() << " caller_io=" << figures.callerIO;
      llvm::outs() << "\n";
    }
  }
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
  cl::ParseCommandLineOptions(
      argc, argv,
      "mem-opt-compile: TOSA model to a Cortex-M object and a C header\n");
  if (outputFilename.empty() && headerFilename.empty() &&
      emitLLVMFilename.empty() && !printReport) {
    llvm::errs() << "error: nothing to do: give -o, --header, --emit-llvm "
                    "or --report\n";
    return 1;
  }

  DialectRegistry registry;
  memopt::registerAllDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  return failed(compile(context)) ? 1 : 0;
}
