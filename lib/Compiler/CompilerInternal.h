//===- CompilerInternal.h - Shared parts of the compile driver --*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// What the files of lib/Compiler share and the public header does not show:
// the signature of each public function as the header describes it, the
// memory figures read from the lowered module, progress with its heartbeat
// threads, and the phases of compileModule (pipeline, LLVM, header, report).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_COMPILER_COMPILERINTERNAL_H
#define MEMOPT_LIB_COMPILER_COMPILERINTERNAL_H

#include "MemOpt/Compiler/Compiler.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace llvm {
class Module;
class TargetMachine;
class raw_pwrite_stream;
} // namespace llvm

namespace mlir {
class TimingScope;

namespace memopt {
struct CortexMTarget;

//===----------------------------------------------------------------------===//
// Functions and their figures (ModelLoading.cpp, Header.cpp)
//===----------------------------------------------------------------------===//

/// The quantization of one input or output, from its kQuantScaleAttrName
/// and kQuantZeroPointAttrName attributes: real = scale * (q - zeroPoint).
struct IOQuantization {
  /// The scale, a positive finite float.
  float scale = 1.0f;
  /// The zero point.
  int64_t zeroPoint = 0;
};

/// What the header says about one function, read from its TOSA signature.
struct FunctionInfo {
  /// The function's C name.
  std::string name;
  /// Its statically shaped inputs.
  SmallVector<RankedTensorType> inputs;
  /// Its statically shaped outputs.
  SmallVector<RankedTensorType> outputs;
  /// Per input: its quantization, if its argument attributes give one.
  std::vector<std::optional<IOQuantization>> inputQuantization;
  /// Per output: its quantization, if its result attributes give one.
  std::vector<std::optional<IOQuantization>> outputQuantization;
  /// Its states (arguments with kStateAttrName, which the header leaves out
  /// of the inputs, and their new values, left out of the outputs), in
  /// argument order, and their quantization.
  std::vector<RankedTensorType> states;
  std::vector<std::optional<IOQuantization>> stateQuantization;
};

/// Returns the C type of \p type's elements, or an empty string.
StringRef getCType(Type type);

/// Gives the public functions of \p module their C names: functionName, or
/// the stem of modelPath, for the only one (`model` from `-`, unless the
/// function has a name other than `main`); several functions keep their
/// own names. symbolPrefix goes in front, and a name that would be `main`
/// (the firmware's) becomes `model_main`.
LogicalResult renamePublicFunctions(ModuleOp module,
                                    const CompileOptions &options);

/// Collects the public functions of \p module, checking that the header can
/// describe them.
FailureOr<SmallVector<FunctionInfo>> collectFunctions(ModuleOp module);

/// Checks that every statically shaped tensor of \p module (function
/// arguments and op results) fits the target's 32-bit index: at most
/// 2^31 - 1 bytes, TOSA's own limit. Emits one error, at the first tensor
/// over it, and fails.
LogicalResult checkTensorSizes(ModuleOp module);

/// Returns the integer attribute \p name of \p op, if any.
std::optional<int64_t> getIntAttr(Operation *op, StringRef name);

/// Returns "1x16x16x4" for \p type.
std::string getShapeString(RankedTensorType type);

/// Returns the bytes of a tensor of \p type as the C caller stores it.
int64_t getCallerBytes(RankedTensorType type);

/// Returns the offsets in \p func's attribute \p name, if it has one.
SmallVector<int64_t> getOffsets(LLVM::LLVMFuncOp func, StringRef name);

/// The memory figures of one compiled function, in bytes.
struct MemoryFigures {
  /// The schedule's peak under the lowering's model (memopt.peak_bytes).
  std::optional<int64_t> modelPeak;
  /// The planned arena (memplan.arena_size).
  std::optional<int64_t> arena;
  /// The liveness bound of the arena's buffers (memplan.lower_bound).
  std::optional<int64_t> livenessBound;
  /// Bytes of the caller-owned inputs and outputs (io=caller), else 0.
  int64_t callerIO = 0;

  /// The SRAM the device needs: the arena plus the caller's buffers.
  std::optional<int64_t> getDeviceBytes() const {
    if (!arena)
      return std::nullopt;
    return *arena + callerIO;
  }
};

/// Returns the byte that resets every byte of a state of \p type with
/// \p quantization, as TensorFlow Lite Micro resets a variable tensor: the
/// zero point of an int8 state (the real value 0), 0 for any other.
int64_t getStateResetByte(RankedTensorType type,
                          const std::optional<IOQuantization> &quantization);

/// Reads the memory figures of \p info from the lowered function \p func
/// (null: none) compiled with inputs and outputs placed by \p io.
MemoryFigures getMemoryFigures(LLVM::LLVMFuncOp func, const FunctionInfo &info,
                               IOPlacement io);

/// Prints the C header for \p infos; \p module is the lowered LLVM dialect
/// module, whose functions carry the plan's attributes.
void printHeader(raw_ostream &os, ModuleOp module, ArrayRef<FunctionInfo> infos,
                 const CompileOptions &options);

//===----------------------------------------------------------------------===//
// Progress (PipelineRunner.cpp)
//===----------------------------------------------------------------------===//

/// Hands progress lines to CompileHooks::progress, if there is one.
class CompileProgress {
public:
  /// Reports to \p hook (may be empty).
  explicit CompileProgress(std::function<void(StringRef)> hook)
      : hook(std::move(hook)) {}

  /// Returns true if progress is reported.
  bool isEnabled() const { return static_cast<bool>(hook); }

  /// Reports \p message; safe to call from any thread if the hook is.
  void print(const Twine &message) const;

private:
  /// The hook, or empty.
  std::function<void(StringRef)> hook;
};

/// Prints "<what>: still running (<N> s)" every 5 seconds from a thread of
/// its own until it is destroyed, so that a long phase (a search with a
/// large state budget, LLVM on a large model) is never silent. No thread is
/// started when progress is off.
class CompileHeartbeat {
public:
  /// Starts the thread for phase \p what.
  CompileHeartbeat(const CompileProgress &progress, std::string what);
  /// Stops and joins the thread.
  ~CompileHeartbeat();

private:
  /// Guards done.
  std::mutex mutex;
  /// Signalled when the phase ends.
  std::condition_variable stopped;
  /// Whether the phase ended.
  bool done = false;
  /// The thread, if one was started.
  std::thread thread;
};

//===----------------------------------------------------------------------===//
// Phases of compileModule
//===----------------------------------------------------------------------===//

/// Runs `cortex-m-pipeline` with \p options on \p module, under timing
/// \p timing, with progress. Stores in \p reports the report's view of every
/// function right after memory-schedule ordered it (PipelineRunner.cpp).
LogicalResult runCortexMPipeline(ModuleOp module, const CompileOptions &options,
                                 const CompileProgress &progress,
                                 TimingScope &timing,
                                 llvm::StringMap<FunctionReport> &reports);

/// Runs `cortex-m-pipeline` with \p options on \p module up to the stage
/// \p stopAfter (`schedule`, ..., `plan`), without progress or report data
/// (PipelineRunner.cpp).
LogicalResult runCortexMPipelineStage(ModuleOp module,
                                      const CompileOptions &options,
                                      StringRef stopAfter);

/// Weighs the configurations of \p module (one function with a body) under
/// the budget CompileOptions::sramBytes: no patches and every patch grid
/// within maxMacOverhead, each planned (stop-after=plan) only as far as the
/// choice needs. Returns what it weighed with the chosen one; fails after an
/// error naming the smallest SRAM it reached when none fits. A module of
/// several functions gets an empty report and keeps CompileOptions::patches
/// (BudgetSearch.cpp).
FailureOr<BudgetReport>
chooseBudgetConfiguration(ModuleOp module, ArrayRef<FunctionInfo> infos,
                          const CompileOptions &options,
                          const CompileProgress &progress);

/// Creates the ARM target machine for \p target at \p level; diagnostics go
/// to \p context (LLVMEmission.cpp).
std::unique_ptr<llvm::TargetMachine>
createTargetMachine(MLIRContext *context, const CortexMTarget &target,
                    OptLevel level);

/// What `--optimize=speed` took from `-O2` (SpeedChoice.cpp).
struct SpeedChoice {
  /// One function of the module and its estimates.
  struct Function {
    /// The function's LLVM name (a layer's: `<model>.extracted.<n>`).
    std::string name;
    /// Estimated instructions per call of the default's (`-Os`) code.
    double defaultEstimate = 0;
    /// Estimated instructions per call of `-O2`'s code.
    double speedEstimate = 0;
    /// True if `-O2`'s code was taken.
    bool fast = false;
  };
  /// Every function with a body, in module order.
  SmallVector<Function> functions;
  /// How many take `-O2`'s code; 0: the object is the default's.
  unsigned fastFunctions = 0;
};

/// Moves the loop nests to functions of their own (unless at -O0) and
/// optimizes \p llvmModule at \p level for \p machine, or, with
/// \p speedChoice, as optimizeForSpeed does and records its choice there
/// (LLVMEmission.cpp).
LogicalResult optimizeLLVMModule(MLIRContext *context, llvm::Module &llvmModule,
                                 llvm::TargetMachine &machine, OptLevel level,
                                 const CompileProgress &progress,
                                 TimingScope &timing,
                                 SpeedChoice *speedChoice = nullptr);

/// Optimizes \p llvmModule, whose loop nests are extracted, for
/// `--optimize=speed`: each function gets `-O2`'s code if every loop of
/// both versions has a constant trip count and its estimated instructions
/// per call are lower than with the default's `-Os` by more than a margin,
/// else the default's code (SpeedChoice.cpp).
FailureOr<SpeedChoice> optimizeForSpeed(MLIRContext *context,
                                        llvm::Module &llvmModule,
                                        llvm::TargetMachine &machine);

/// Emits \p llvmModule as an object for \p machine into \p os
/// (LLVMEmission.cpp).
LogicalResult emitObject(MLIRContext *context, llvm::Module &llvmModule,
                         llvm::TargetMachine &machine,
                         llvm::raw_pwrite_stream &os);

/// Builds the report of \p infos from the lowered \p module, the pipeline's
/// \p reports and the emitted \p object (CompileReport.cpp).
FailureOr<CompileReport>
buildCompileReport(ModuleOp module, ArrayRef<FunctionInfo> infos,
                   llvm::StringMap<FunctionReport> &reports, StringRef object,
                   const CompileOptions &options);

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_LIB_COMPILER_COMPILERINTERNAL_H
