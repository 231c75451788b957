//===- Pipelines.h - mem-opt pass pipelines ---------------------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The `cortex-m-pipeline`: TOSA to scheduled, bufferized, arena-planned code
// lowered to the LLVM dialect for one Cortex-M CPU.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_PIPELINES_PIPELINES_H
#define MEMOPT_PIPELINES_PIPELINES_H

#include "MemOpt/CostModel/CostModel.h"
#include "MemOpt/Schedule/Defaults.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir {
class OpPassManager;

namespace memopt {

/// What the LLVM backend needs to know about one Cortex-M CPU and float ABI.
struct CortexMTarget {
  /// The `cpu=` name, which is also LLVM's CPU name.
  llvm::StringRef cpu;
  /// LLVM target triple: `-eabihf` for the hard-float ABI, `-eabi` for
  /// softfp and soft.
  llvm::StringRef triple;
  /// LLVM data layout of the triple.
  llvm::StringRef dataLayout;
  /// `-mfpu=` of arm-none-eabi-gcc for firmware built around the object
  /// (empty for a CPU without an FPU).
  llvm::StringRef gccFpu;
  /// The float ABI: `hard` (floating-point arguments in FP registers),
  /// `softfp` (FP instructions, arguments in core registers) or `soft` (no
  /// FP instructions).
  llvm::StringRef floatAbi;
  /// Target features on top of the CPU's (`+soft-float,-fpregs` for soft:
  /// no FP or MVE instructions, as clang's -mfloat-abi=soft).
  llvm::StringRef features;
  /// Whether the CPU has an FPU (every one but cortex-m0plus and cortex-m3).
  bool hasFPU = true;
};

/// Returns the target of a `cpu=` name (cortex-m0plus, cortex-m3,
/// cortex-m4, cortex-m7, cortex-m33, cortex-m55) and a float ABI (`hard`,
/// `softfp`, `soft`, or empty for the CPU's default: hard with an FPU, soft
/// without). softfp on a CPU without an FPU is soft, as in GCC. Returns
/// std::nullopt, with a message in \p errorMessage, for an unknown CPU or
/// ABI, or `hard` on a CPU without an FPU.
std::optional<CortexMTarget>
getCortexMTarget(llvm::StringRef cpu, llvm::StringRef floatAbi = "",
                 std::string *errorMessage = nullptr);

/// Options of `cortex-m-pipeline`.
struct TosaToCortexMOptions : public PassPipelineOptions<TosaToCortexMOptions> {
  /// Target CPU.
  PassOptions::Option<std::string> cpu{
      *this, "cpu",
      llvm::cl::desc("Target CPU: cortex-m0plus, cortex-m3, cortex-m4, "
                     "cortex-m7, cortex-m33 or cortex-m55 (default: "
                     "cortex-m4)"),
      llvm::cl::init("cortex-m4")};
  /// Float ABI of the object.
  PassOptions::Option<std::string> floatAbi{
      *this, "float-abi",
      llvm::cl::desc("Float ABI: hard (FP arguments in FP registers, "
                     "-eabihf), softfp (FP instructions, arguments in core "
                     "registers) or soft (no FP or MVE instructions) "
                     "(default: hard, soft on cortex-m0plus and cortex-m3, "
                     "which have no FPU)"),
      llvm::cl::init("")};
  /// Activation budget in bytes (0: none).
  PassOptions::Option<int64_t> sram{
      *this, "sram",
      llvm::cl::desc("Activation SRAM budget in bytes: the arena plus the "
                     "caller-owned inputs and outputs (io=caller); fail at "
                     "compile time if the proven peak exceeds it (0: no "
                     "budget; default: 0)"),
      llvm::cl::init(0)};
  /// Whether to partition concat + conv before scheduling.
  PassOptions::Option<std::string> partition{
      *this, "partition",
      llvm::cl::desc("Partition concat+conv before scheduling: auto, off or "
                     "always (auto/always need the partition-concat pass; "
                     "default: off)"),
      llvm::cl::init("off")};
  /// Patch-based inference of the network's prefix (patch-prefix).
  PassOptions::Option<std::string> patches{
      *this, "patches",
      llvm::cl::desc("Run the memory-heavy prefix of the network one spatial "
                     "patch at a time: off (default), auto (the grid with "
                     "the smallest peak within max-mac-overhead) or "
                     "<rows>x<cols>, optionally followed by +blocks (the "
                     "blocks at the peak computed in bands as well)"),
      llvm::cl::init("off")};
  /// Experimental: the chosen grid as one loop over uniform patches.
  PassOptions::Option<bool> patchLoop{
      *this, "patch-loop",
      llvm::cl::desc("Experimental: emit the chosen patches as one scf.for "
                     "over uniform patches where the prefix allows it "
                     "(patch-prefix's loop; default: false)"),
      llvm::cl::init(false)};
  /// MAC limit of patches=auto.
  PassOptions::Option<double> maxMacOverhead{
      *this, "max-mac-overhead",
      llvm::cl::desc("Largest extra multiply-accumulates patches=auto may "
                     "add, in percent of the model's (default: 20)"),
      llvm::cl::init(20.0)};
  /// Scheduling algorithm of memory-schedule.
  PassOptions::Option<std::string> schedule{
      *this, "schedule",
      llvm::cl::desc("Op order: exact, input, kahn, rpo or greedy (the "
                     "algorithm of memory-schedule; default: exact)"),
      llvm::cl::init("exact")};
  /// Time limit of the exact scheduler.
  PassOptions::Option<uint64_t> scheduleTimeLimitMs{
      *this, "schedule-time-limit-ms",
      llvm::cl::desc("Time limit of the exact scheduler per function in "
                     "milliseconds, a safety stop (0: none; default: 10000)"),
      llvm::cl::init(schedule::kDefaultTimeLimitMs)};
  /// State budget of the exact scheduler: where it stops deterministically.
  PassOptions::Option<uint64_t> scheduleMaxStates{
      *this, "schedule-max-states",
      llvm::cl::desc("Most search states the exact scheduler keeps per "
                     "function (0: no limit; default: 4000000)"),
      llvm::cl::init(schedule::kDefaultMaxStates)};
  /// While the exact search runs, a progress remark at most this often.
  PassOptions::Option<uint64_t> scheduleProgressMs{
      *this, "schedule-progress-ms",
      llvm::cl::desc("While the exact scheduler runs, emit a remark with its "
                     "states, best peak and bound at most every this many "
                     "milliseconds (0: none; default: 0)"),
      llvm::cl::init(0)};
  /// Emit the scheduler's statistics as a remark per function.
  PassOptions::Option<bool> scheduleStatistics{
      *this, "schedule-statistics",
      llvm::cl::desc("Emit memory-schedule's statistics (peaks, lower bound, "
                     "states, time) as a remark per function (default: false)"),
      llvm::cl::init(false)};
  /// Where graph inputs and outputs live.
  PassOptions::Option<IOPlacement> io{
      *this, "io",
      llvm::cl::desc("Where graph inputs and outputs live: in the arena "
                     "(default; the header gives their offsets) or in "
                     "buffers the caller passes"),
      llvm::cl::init(IOPlacement::Arena),
      llvm::cl::values(
          clEnumValN(IOPlacement::Arena, "arena",
                     "inputs and outputs in the arena, reused once dead"),
          clEnumValN(IOPlacement::Caller, "caller",
                     "inputs and outputs in the caller's buffers"))};
  /// Arena alignment.
  PassOptions::Option<int64_t> alignment{
      *this, "alignment",
      llvm::cl::desc("Alignment of every buffer in the arena, in bytes "
                     "(default: 16)"),
      llvm::cl::init(16)};
  /// Placement algorithm of memplan-plan-arena.
  PassOptions::Option<std::string> placement{
      *this, "placement",
      llvm::cl::desc("Arena placement: best, greedy-by-size or no-reuse (the "
                     "algorithm of memplan-plan-arena; default: best)"),
      llvm::cl::init("best")};
  /// DSP kernels for int8 convolutions where the CPU has the extension.
  PassOptions::Option<bool> dspKernels{
      *this, "dsp-kernels",
      llvm::cl::desc("Lower int8 convolutions to DSP-extension kernels "
                     "(arm-dsp-int8-kernels) on cortex-m4 and cortex-m7 "
                     "(default: true)"),
      llvm::cl::init(true)};
  /// LLVM's unroll count of the DSP kernels' reduction loops.
  PassOptions::Option<unsigned> kernelUnroll{
      *this, "kernel-unroll",
      llvm::cl::desc("Unroll count that the DSP kernels ask LLVM for on "
                     "their SIMD reduction loops (llvm.loop.unroll.count, "
                     "honoured at -Os too; 0: none) (default: 4)"),
      llvm::cl::init(4)};
  /// Flash budget of the widened copies of the DSP kernels' convolution
  /// filters; 0: none.
  PassOptions::Option<int64_t> dspWideFilterBytes{
      *this, "dsp-wide-filter-bytes",
      llvm::cl::desc("Flash budget, in bytes, for storing the filters of "
                     "int8 convolutions whose input channels are a multiple "
                     "of 4 a second time, widened to halfword pairs, for "
                     "the DSP kernels (arm-dsp-widen-filters max-bytes): "
                     "fewer instructions for the flash; 0: none "
                     "(default: 262144)"),
      llvm::cl::init(262144)};
  /// MVE kernels for int8 convolutions where the CPU has the extension.
  PassOptions::Option<bool> mveKernels{
      *this, "mve-kernels",
      llvm::cl::desc("Lower int8 convolutions and rescales to MVE (Helium) "
                     "vector kernels (arm-mve-int8-kernels) on cortex-m55 "
                     "(default: true)"),
      llvm::cl::init(true)};
  /// Last stage to run.
  PassOptions::Option<std::string> stopAfter{
      *this, "stop-after",
      llvm::cl::desc("Last stage to run: schedule, linalg, bufferize, plan "
                     "or llvm (default)"),
      llvm::cl::init("llvm")};
};

/// Appends `cortex-m-pipeline` to \p pm (a builtin.module pass manager).
/// Fails with a message in \p errorMessage for an unknown option value or a
/// stage whose passes are not registered.
LogicalResult buildTosaToCortexMPipeline(OpPassManager &pm,
                                         const TosaToCortexMOptions &options,
                                         std::string *errorMessage = nullptr);

/// Registers `cortex-m-pipeline` with the global pipeline registry.
void registerMemOptPipelines();

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_PIPELINES_PIPELINES_H
