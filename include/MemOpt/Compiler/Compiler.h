//===- Compiler.h - A model to a Cortex-M object, as a library --*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The compile driver of mem-opt-compile as a library that a downstream
// compiler calls: a model (the bytes of a TFLite, ONNX or TOSA-in-MLIR file,
// the format detected from the content, or a module already loaded) and
// typed options give, in memory, the Cortex-M object, the C header and the
// report. It imports the model, runs `cortex-m-pipeline` (scheduling, patch
// search, arena placement, lowering), translates to LLVM IR, puts each
// layer's loop nest in a function of its own, optimizes and emits the object
// with LLVM's ARM backend. Errors are diagnostics on the context (those of
// the driver itself, such as an unreadable model or an option the pipeline
// rejects, at UnknownLoc); the functions then return failure.
// docs/CortexM.md describes the flow.
//
// Usage:
//
//   mlir::DialectRegistry registry;
//   mlir::memopt::registerCompilerDialects(registry);
//   mlir::MLIRContext context(registry);
//   mlir::memopt::initializeCompiler(); // once per process
//
//   mlir::memopt::CompileOptions options;
//   options.cpu = mlir::memopt::CortexMCpu::CortexM7;
//   options.modelPath = "person_detect.tflite"; // names the C function
//   options.report = mlir::memopt::ReportFormat::Text;
//   mlir::FailureOr<mlir::memopt::CompileResult> result =
//       mlir::memopt::compileModel(bytes, &context, options);
//   if (mlir::failed(result))
//     return 1; // the context's diagnostic handlers printed why
//   // result->object: the ELF object; result->header: the C header with
//   // PERSON_DETECT_ARENA_SIZE; result->report->functions[0].arenaBytes.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_COMPILER_COMPILER_H
#define MEMOPT_COMPILER_COMPILER_H

#include "MemOpt/Arena/ArenaPlanner.h"
#include "MemOpt/Compiler/CompileReport.h"
#include "MemOpt/CostModel/CostModel.h"
#include "MemOpt/Schedule/Defaults.h"
#include "MemOpt/Schedule/Scheduler.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace llvm {
class MemoryBuffer;
class SourceMgr;
} // namespace llvm

namespace mlir {
class DialectRegistry;
class MLIRContext;
class TimingScope;

namespace memopt {

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

/// The Cortex-M CPUs the compiler targets.
enum class CortexMCpu {
  CortexM0Plus,
  CortexM3,
  CortexM4,
  CortexM7,
  CortexM33,
  CortexM55
};

/// The float ABI of the object.
enum class FloatABI {
  /// Floating-point arguments in FP registers (`-mfloat-abi=hard`, eabihf).
  Hard,
  /// FP instructions, arguments in core registers (`-mfloat-abi=softfp`).
  SoftFP,
  /// No FP instructions (`-mfloat-abi=soft`).
  Soft,
};

/// What the code is optimized for; it chooses the LLVM level unless
/// CompileOptions::optLevel gives one.
enum class OptimizeGoal {
  /// -Oz: the smallest code.
  Memory,
  /// -Os: small code; only the int8 DSP kernels' reduction loops unrolled.
  Balanced,
  /// Per layer, -O2's code where it is estimated to execute fewer
  /// instructions than the default's, else the default's.
  Speed,
};

/// LLVM's optimization level, `-O<level>`.
enum class OptLevel { O0, O1, O2, O3, Os, Oz };

/// When partition-concat splits concat + conv before scheduling.
enum class PartitionMode { Off, Auto, Always };

/// The form of the report.
enum class ReportFormat {
  /// No report is built.
  None,
  /// The text of `mem-opt-compile --report`.
  Text,
  /// The JSON of `--report=json` (CompileReport::toJSON).
  JSON,
  /// The per-layer table of `--report=csv` (CompileReport::printCSV).
  CSV,
};

/// Returns `cortex-m0plus`, `cortex-m3`, `cortex-m4`, `cortex-m7`,
/// `cortex-m33` or `cortex-m55`.
StringRef stringifyCortexMCpu(CortexMCpu cpu);
/// Parses a name stringifyCortexMCpu returns.
std::optional<CortexMCpu> parseCortexMCpu(StringRef name);
/// Returns `hard`, `softfp` or `soft`.
StringRef stringifyFloatABI(FloatABI abi);
/// Parses a name stringifyFloatABI returns.
std::optional<FloatABI> parseFloatABI(StringRef name);
/// Returns `memory`, `balanced` or `speed`.
StringRef stringifyOptimizeGoal(OptimizeGoal goal);
/// Parses a name stringifyOptimizeGoal returns.
std::optional<OptimizeGoal> parseOptimizeGoal(StringRef name);
/// Returns the level as written after `-O`: `0`, `1`, `2`, `3`, `s` or `z`.
StringRef stringifyOptLevel(OptLevel level);
/// Parses a level stringifyOptLevel returns.
std::optional<OptLevel> parseOptLevel(StringRef name);
/// Returns the name schedule::parseAlgorithm reads: `exact`, `input`,
/// `kahn`, `rpo` or `greedy`.
StringRef stringifyScheduleAlgorithm(schedule::Algorithm algorithm);
/// Returns the name parsePlacementAlgorithm reads: `best`, `greedy-by-size`
/// or `no-reuse`.
StringRef stringifyPlacementAlgorithm(PlacementAlgorithm algorithm);
/// Returns `off`, `auto` or `always`.
StringRef stringifyPartitionMode(PartitionMode mode);
/// Parses a name stringifyPartitionMode returns.
std::optional<PartitionMode> parsePartitionMode(StringRef name);
/// Returns `none`, `text` or `json`.
StringRef stringifyReportFormat(ReportFormat format);
/// Parses `text`, `json` or `csv` (a report is asked for, so not `none`).
std::optional<ReportFormat> parseReportFormat(StringRef name);

/// What to compile and how. A default-constructed value holds the defaults
/// of mem-opt-compile, whose options state them from here.
struct CompileOptions {
  /// The model's path as given by the user, `-` for standard input or for a
  /// module without a file. It names the only public function (unless
  /// functionName does), the model in the importers' locations, and the
  /// object's source file (its FILE symbol).
  std::string modelPath = "-";

  /// The target CPU.
  CortexMCpu cpu = CortexMCpu::CortexM4;
  /// The float ABI; unset: hard, or soft on a CPU without an FPU
  /// (cortex-m0plus, cortex-m3), where hard is an error.
  std::optional<FloatABI> floatAbi;
  /// Activation SRAM budget in bytes: the arena plus the caller's input and
  /// output buffers under IOPlacement::Caller. Compiling fails if the proven
  /// peak exceeds it; 0 means no budget.
  int64_t sramBytes = 0;
  /// Where the model's inputs and outputs live.
  IOPlacement io = IOPlacement::Arena;
  /// Arena alignment in bytes (a power of two).
  int64_t alignment = CostModelOptions().alignment;

  /// The op order of memory-schedule.
  schedule::Algorithm scheduleAlgorithm = schedule::Algorithm::Exact;
  /// State budget of the exact scheduler per function (0: no limit): where
  /// the search stops, the same on every machine.
  uint64_t scheduleMaxStates = schedule::kDefaultCompileMaxStates;
  /// Wall-clock safety stop of the exact scheduler per function, in
  /// milliseconds (0: none).
  uint64_t scheduleTimeLimitMs = schedule::kDefaultTimeLimitMs;
  /// The arena placement of memplan-plan-arena.
  PlacementAlgorithm placement = PlacementAlgorithm::Best;
  /// Partition of concat + conv.
  PartitionMode partition = PartitionMode::Off;
  /// Patch-based inference of the memory-heavy prefix: `off`, `auto` (the
  /// grid with the smallest SRAM within maxMacOverhead) or `<rows>x<cols>`.
  std::string patches = "off";
  /// Largest extra multiply-accumulates `patches=auto` may add, in percent
  /// of the model's.
  double maxMacOverhead = 20.0;
  /// Experimental: the chosen patch grid as one loop over uniform patches
  /// where the prefix allows it (patch-prefix's `loop`).
  bool patchLoop = false;
  /// With a budget (sramBytes > 0) and patches `off`, let the budget choose
  /// the program: among no patches and the patch grids within
  /// maxMacOverhead, the one with the fewest estimated instructions (with
  /// OptimizeGoal::Memory: the smallest SRAM) whose proven SRAM fits; the
  /// report lists the candidates. Off: compile `patches` as given and fail
  /// if it does not fit. mem-opt-compile turns it off when --patches is
  /// given.
  bool budgetSearch = true;

  /// What the code is optimized for, unless optLevel is given.
  OptimizeGoal optimize = OptimizeGoal::Balanced;
  /// LLVM's level; it takes precedence over optimize.
  std::optional<OptLevel> optLevel;
  /// Int8 convolutions as DSP-extension kernels on cortex-m4 and cortex-m7.
  bool dspKernels = true;
  /// Int8 convolutions and rescales as MVE kernels on cortex-m55.
  bool mveKernels = true;
  /// Flash the DSP kernels may spend on widened copies of convolution
  /// filters (arm-dsp-widen-filters); 0: none. Unset: by the level
  /// (getWideFilterBytes).
  std::optional<int64_t> wideFilterBytes;
  /// TFLite input: reproduce TFLite Micro's int8 arithmetic, DOUBLE_ROUND
  /// rescales and TFLite's pooling, MEAN and ADD (default, as
  /// mem-opt-import); false: TOSA's single rounding, not TFLite's answers
  /// (TFLiteImportOptions::doubleRound).
  bool tfliteDoubleRound = true;

  /// C name of the model's function (empty: the stem of modelPath for a
  /// model with one public function, `model` for `-`; never `main`).
  std::string functionName;
  /// Prefix of the public functions' names in the object and the header.
  std::string symbolPrefix;
  /// Base of the header's include guard, e.g. the header file's stem
  /// (`model` gives MODEL_H).
  std::string headerName = "model";

  /// Emit the object (it is also emitted when a report is asked for).
  bool emitObject = true;
  /// Keep the optimized LLVM IR in CompileResult::llvmIR.
  bool emitLLVMIR = false;
  /// The report to build.
  ReportFormat report = ReportFormat::None;

  /// Returns the LLVM level: optLevel, or the one optimize chooses.
  OptLevel getOptLevel() const;
  /// Returns wideFilterBytes, or by the level: none at -Oz, else 32 KiB
  /// (the filters read for the most pixels come first: most of the
  /// instructions saved for a small part of the flash; docs/CortexM.md).
  int64_t getWideFilterBytes() const;
  /// Returns true if the code is chosen per layer function between the
  /// default's and -O2's (OptimizeGoal::Speed without optLevel).
  bool choosesSpeed() const {
    return !optLevel && optimize == OptimizeGoal::Speed;
  }
};

//===----------------------------------------------------------------------===//
// Results and hooks
//===----------------------------------------------------------------------===//

/// The outputs handed to CompileHooks::output.
enum class CompileOutputKind { LLVMIR, Object, Header };

/// Ways to watch a compile; none changes its outputs.
struct CompileHooks {
  /// Receives progress lines ("scheduling @f (12 ops, state budget ...)",
  /// "generating code for cortex-m4", "done"), and every 5 s of a long phase
  /// a "still running" line. It is called from several threads at once (the
  /// pass manager's and the heartbeats'). Without it there is no progress
  /// and no heartbeat thread.
  std::function<void(StringRef message)> progress;
  /// Receives each output as soon as it is ready, in the order LLVM IR (if
  /// CompileOptions::emitLLVMIR), object (if emitted), header; a failure
  /// stops the compile (the hook reports why).
  std::function<LogicalResult(CompileOutputKind kind, StringRef bytes)> output;
  /// Parent of the timers of the phases (cortex-m-pipeline and its passes,
  /// the LLVM phases), or null.
  TimingScope *timing = nullptr;
};

/// What a compile produces.
struct CompileResult {
  /// The optimized LLVM IR, if CompileOptions::emitLLVMIR.
  std::string llvmIR;
  /// The ELF object, if emitted.
  std::string object;
  /// The C header: per public function the arena's size and alignment, the
  /// inputs and outputs, and the declaration.
  std::string header;
  /// The report, unless CompileOptions::report is None.
  std::optional<CompileReport> report;
  /// The report printed in CompileOptions::report's format.
  std::string reportText;
};

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

/// Registers in \p registry the dialects of the models and of the pipeline,
/// and the translations of the builtin and LLVM dialects to LLVM IR.
void registerCompilerDialects(DialectRegistry &registry);

/// Registers the passes that `cortex-m-pipeline` looks up by name (MLIR's
/// and mem-opt's) and initializes LLVM's ARM target. Call it once, before
/// compiling.
void initializeCompiler();

/// Loads a model from \p buffer: a TFLite flatbuffer or an ONNX protobuf
/// (detected from the content) is imported to TOSA, text is parsed as MLIR
/// through \p sourceMgr (a local one if null; pass the one a
/// SourceMgrDiagnosticHandler shows the lines of). Other binary content is
/// rejected before the MLIR parser could echo it. Reads
/// CompileOptions::modelPath and tfliteDoubleRound. Returns null after a
/// diagnostic.
OwningOpRef<ModuleOp> loadModel(std::unique_ptr<llvm::MemoryBuffer> buffer,
                                MLIRContext *context,
                                const CompileOptions &options,
                                llvm::SourceMgr *sourceMgr = nullptr);

/// Reads the file CompileOptions::modelPath (`-`: standard input) and loads
/// it with loadModel. Returns null after a diagnostic.
OwningOpRef<ModuleOp> loadModelFile(MLIRContext *context,
                                    const CompileOptions &options,
                                    llvm::SourceMgr *sourceMgr = nullptr);

/// Compiles the TOSA module \p module, which is renamed and lowered to the
/// LLVM dialect in place. Fails after a diagnostic.
FailureOr<CompileResult> compileModule(ModuleOp module,
                                       const CompileOptions &options,
                                       const CompileHooks &hooks = {});

/// Loads the model \p bytes (loadModel) and compiles it (compileModule).
FailureOr<CompileResult> compileModel(StringRef bytes, MLIRContext *context,
                                      const CompileOptions &options,
                                      const CompileHooks &hooks = {});

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_COMPILER_COMPILER_H
