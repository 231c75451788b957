//===- TosaToCortexM.cpp - cortex-m-pipeline ------------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Builds `cortex-m-pipeline`: memory-aware scheduling on TOSA, TOSA to linalg
// in the scheduled order, one-shot bufferization, static arena planning and
// the lowering to the LLVM dialect with a 32-bit index, bare-pointer calls
// and the CPU's triple and data layout.
//
// Stages whose passes come from other parts of mem-opt (`partition-concat`,
// `memplan-plan-arena`, `memplan-lower`) are looked up by name in the pass
// registry, so the pipeline states clearly when one is missing.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Pipelines/Pipelines.h"

#include "MemOpt/Conversion/Passes.h"
#include "MemOpt/Target/ARM/Passes.h"
#include "MemOpt/Transforms/Passes.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::memopt;

/// Data layout of every little-endian Thumb-2 EABI target.
static constexpr llvm::StringLiteral kThumbDataLayout =
    "e-m:e-p:32:32-Fi8-i64:64-v128:64:128-a:0:32-n32-S64";

/// Every CPU with its triple for the hard-float ABI (empty without an FPU)
/// and for softfp and soft. The soft triples name the vendor, so that LLVM
/// parses `eabi` as the environment and calls the run-time ABI's helpers
/// (`__aeabi_fadd`; Armv6-M's libgcc has no `__addsf3`).
static std::optional<CortexMTarget> getCpuTarget(StringRef cpu,
                                                 bool hardFloat) {
  auto make = [&](StringRef name, StringRef hardTriple, StringRef softTriple,
                  StringRef fpu) {
    CortexMTarget target;
    target.cpu = name;
    target.hasFPU = !fpu.empty();
    target.triple = target.hasFPU && hardFloat ? hardTriple : softTriple;
    target.dataLayout = kThumbDataLayout;
    target.gccFpu = fpu;
    target.floatAbi = target.hasFPU ? "hard" : "soft";
    return target;
  };
  return llvm::StringSwitch<std::optional<CortexMTarget>>(cpu)
      .Case("cortex-m0plus",
            make("cortex-m0plus", "", "thumbv6m-unknown-none-eabi", ""))
      .Case("cortex-m3",
            make("cortex-m3", "", "thumbv7m-unknown-none-eabi", ""))
      .Case("cortex-m4", make("cortex-m4", "thumbv7em-none-eabihf",
                              "thumbv7em-unknown-none-eabi", "fpv4-sp-d16"))
      .Case("cortex-m7", make("cortex-m7", "thumbv7em-none-eabihf",
                              "thumbv7em-unknown-none-eabi", "fpv5-d16"))
      .Case("cortex-m33",
            make("cortex-m33", "thumbv8m.main-none-eabihf",
                 "thumbv8m.main-unknown-none-eabi", "fpv5-sp-d16"))
      .Case("cortex-m55", make("cortex-m55", "thumbv8.1m.main-none-eabihf",
                               "thumbv8.1m.main-unknown-none-eabi", "auto"))
      .Default(std::nullopt);
}

std::optional<CortexMTarget>
mlir::memopt::getCortexMTarget(StringRef cpu, StringRef floatAbi,
                               std::string *errorMessage) {
  auto fail = [&](const Twine &message) -> std::optional<CortexMTarget> {
    if (errorMessage)
      *errorMessage = message.str();
    return std::nullopt;
  };
  std::optional<CortexMTarget> target =
      getCpuTarget(cpu, floatAbi.empty() || floatAbi == "hard");
  if (!target)
    return fail("unknown cpu '" + cpu +
                "' (expected cortex-m0plus, cortex-m3, cortex-m4, cortex-m7, "
                "cortex-m33 or cortex-m55)");
  if (floatAbi.empty())
    return target;
  if (!llvm::is_contained({"hard", "softfp", "soft"}, floatAbi))
    return fail("unknown float-abi '" + floatAbi +
                "' (expected hard, softfp or soft)");
  if (!target->hasFPU) {
    if (floatAbi == "hard")
      return fail(cpu + " has no FPU, so no hard-float ABI (use soft)");
    return target; // softfp without an FPU is soft.
  }
  target->floatAbi = floatAbi;
  if (floatAbi == "soft")
    target->features = "+soft-float,-fpregs";
  return target;
}

/// Appends the textual pipeline \p text to \p pm.
static LogicalResult addText(OpPassManager &pm, StringRef text,
                             std::string *errorMessage) {
  std::string error;
  llvm::raw_string_ostream os(error);
  if (succeeded(parsePassPipeline(text, pm, os)))
    return success();
  if (errorMessage)
    *errorMessage = "cortex-m-pipeline: " + error;
  return failure();
}

/// Sets \p errorMessage and fails.
static LogicalResult fail(std::string *errorMessage, const llvm::Twine &msg) {
  if (errorMessage)
    *errorMessage = ("cortex-m-pipeline: " + msg).str();
  return failure();
}

/// Returns true if a pass named \p name is registered.
static bool isRegistered(StringRef name) {
  return PassInfo::lookup(name) || PassPipelineInfo::lookup(name);
}

LogicalResult
mlir::memopt::buildTosaToCortexMPipeline(OpPassManager &pm,
                                         const TosaToCortexMOptions &options,
                                         std::string *errorMessage) {
  std::string targetError;
  std::optional<CortexMTarget> target =
      getCortexMTarget(options.cpu, options.floatAbi, &targetError);
  if (!target)
    return fail(errorMessage, targetError);
  StringRef stop = options.stopAfter;
  if (!llvm::is_contained({"schedule", "linalg", "bufferize", "plan", "llvm"},
                          stop))
    return fail(errorMessage, "unknown stop-after '" + stop +
                                  "' (expected schedule, linalg, bufferize, "
                                  "plan or llvm)");
  if (!llvm::is_contained({"exact", "input", "kahn", "rpo", "greedy"},
                          StringRef(options.schedule)))
    return fail(errorMessage, "unknown schedule '" + options.schedule +
                                  "' (expected exact, input, kahn, rpo or "
                                  "greedy)");
  if (!llvm::is_contained({"best", "greedy-by-size", "no-reuse"},
                          StringRef(options.placement)))
    return fail(errorMessage, "unknown placement '" + options.placement +
                                  "' (expected best, greedy-by-size or "
                                  "no-reuse)");
  if (options.sram < 0)
    return fail(errorMessage, "sram must be a byte count >= 0");
  if (options.alignment <= 0 || !llvm::isPowerOf2_64(options.alignment))
    return fail(errorMessage, "alignment must be a power of two");

  // 0. Reject ops whose default-valued attributes the parser left empty
  // (upstream canonicalization dereferences them). Then fold and merge
  // duplicate ops first: the lowering would, and the schedule's memory model
  // must see the ops the lowering sees.
  // Transposed convolutions become convolutions here, where the memory
  // model sees them (TOSA to linalg runs without the optional
  // decompositions).
  pm.addPass(createVerifyDefaultAttributesPass());
  pm.addNestedPass<func::FuncOp>(createDecomposeTransposeConvPass());
  if (failed(addText(pm, "canonicalize,cse", errorMessage)))
    return failure();

  // 1. Optional partition of concat + conv.
  StringRef partition = options.partition;
  if (partition != "off") {
    if (partition != "auto" && partition != "always")
      return fail(errorMessage, "unknown partition '" + partition +
                                    "' (expected auto, off or always)");
    if (!isRegistered("partition-concat"))
      return fail(errorMessage, "partition=" + partition +
                                    " needs the partition-concat pass, "
                                    "which this build does not have; use "
                                    "partition=off");
    if (failed(addText(
            pm,
            llvm::formatv("func.func(partition-concat{{mode={0} model=lowering "
                          "io={1} alignment={2}})",
                          partition,
                          options.io == IOPlacement::Arena ? "arena" : "caller",
                          options.alignment)
                .str(),
            errorMessage)))
      return failure();
  }

  // 2. Optional patch-based inference of the prefix, then the memory-aware
  // schedule on TOSA, which fails when the peak exceeds sram.
  if (StringRef(options.patches) != "off") {
    PatchPrefixPassOptions patch;
    patch.patches = options.patches;
    patch.maxMacOverhead = options.maxMacOverhead;
    patch.loop = options.patchLoop;
    patch.model = MemoryModelKind::Lowering;
    patch.io = options.io;
    patch.alignment = options.alignment;
    pm.addNestedPass<func::FuncOp>(createPatchPrefixPass(patch));
  }
  {
    MemorySchedulePassOptions schedule;
    schedule.algorithm = options.schedule;
    schedule.budget = options.sram;
    schedule.timeLimitMs = options.scheduleTimeLimitMs;
    schedule.maxStates = options.scheduleMaxStates;
    schedule.printStatistics = options.scheduleStatistics;
    schedule.progressMs = options.scheduleProgressMs;
    schedule.recordTime = false;
    schedule.model = MemoryModelKind::Lowering;
    schedule.io = options.io;
    schedule.alignment = options.alignment;
    // Patches are independent chains whose interleavings the exact search
    // cannot exhaust; a state budget it reaches well before the clock keeps
    // the order deterministic (block order, patch by patch, at worst).
    // (0 means no limit, so it becomes the budget too.)
    if (StringRef(options.patches) != "off" &&
        (schedule.maxStates == 0 || schedule.maxStates > 1000000))
      schedule.maxStates = 1000000;
    // patch-prefix's blocks in bands took each step only when this search
    // (1,000,000 states, no clock) proved it: the same search, without the
    // clock, finds that proof on every machine.
    if (StringRef(options.patches).ends_with("+blocks"))
      schedule.timeLimitMs = 0;
    pm.addNestedPass<func::FuncOp>(createMemorySchedulePass(schedule));
  }
  if (stop == "schedule")
    return success();

  // 3. Depthwise convolutions whose input dies at them are computed channel
  // by channel over it (the cost model's isInPlaceDepthwise), then TOSA to
  // linalg. Dialect conversion rewrites each op where it stands, so the
  // scheduled order is kept.
  // The ops the memory model computes inside their consumer (widening
  // rescales and int32 adds) and the accumulators it computes inside their
  // rescale's loop are marked on the scheduled TOSA, as the model saw it,
  // for fuse-elementwise-groups and fuse-rescale-accumulators, and so are
  // the concat operands it computes into their slice (for
  // prepare-bufferization).
  // The TOSA is validated as the schedule left it: the channel loops read
  // their rescale's multiplier and shift through slices, which TOSA's
  // validation would reject as not constant. (Not before canonicalization:
  // it folds away ops, such as pads into convolutions, that validation
  // rejects.) Canonicalization folds a tree of concats into one concat, which
  // may exceed the level's MAX_TENSOR_LIST_SIZE although the input's concats
  // were within it; split-concats makes it a tree again for validation, and
  // the canonicalization of TOSA to linalg folds it back into the one concat
  // the memory model planned.
  {
    MarkFusedElementwisePassOptions mark;
    mark.io = options.io;
    pm.addNestedPass<func::FuncOp>(createMarkFusedElementwisePass(mark));
  }
  pm.addNestedPass<func::FuncOp>(createSplitConcatsPass());
  pm.addPass(tosa::createTosaValidation(tosa::TosaValidationOptions{}));
  pm.addNestedPass<func::FuncOp>(createInPlaceDepthwisePass());
  // Without TOSA's optional decompositions: they rewrite a 1x1 depthwise
  // convolution into elementwise ops whose i32 result is a whole tensor,
  // where the memory model fuses its accumulator (isFusedAccumulator) or
  // counts a 4-d output (found by the pass fuzzer). As a convolution it is
  // fused and bufferized like every other depthwise convolution.
  TosaToLinalgOptions toLinalg;
  toLinalg.disableTosaDecompositions = true;
  tosa::addTosaToLinalgPasses(pm, toLinalg, TosaToLinalgNamedOptions{},
                              /*validationOptions=*/std::nullopt);
  pm.addPass(createDropTosaTargetEnvPass());
  if (failed(addText(
          pm,
          "func.func(tosa-to-tensor,tosa-to-arith{include-apply-rescale=true "
          "use-32-bit=false}),canonicalize,"
          // int8 conv/depthwise/matmul computed per output pixel inside the
          // loop of their rescale: no i32 accumulator tensor.
          "func.func(fuse-rescale-accumulators{require-marks=true}),"
          "canonicalize,"
          // The marked elementwise ops computed per element inside their
          // consumer: no int32 tensor of a residual add or mean pooling.
          "func.func(fuse-elementwise-groups),canonicalize",
          errorMessage)))
    return failure();
  if (stop == "linalg")
    return success();

  // 4. One-shot bufferization: the concat operands the model computes into
  // their slice are written into a subview of the concat's buffer
  // (prepare-bufferization), reshapes become views, elementwise ops reuse a
  // dying input.
  {
    PrepareBufferizationPassOptions prepare;
    prepare.copyDuplicateResults = options.io == IOPlacement::Caller;
    pm.addNestedPass<func::FuncOp>(createPrepareBufferizationPass(prepare));
  }
  if (failed(addText(pm,
                     "one-shot-bufferize{bufferize-function-boundaries "
                     "function-boundary-type-conversion=identity-layout-map},"
                     // Constant globals named and ordered by first use, not
                     // by bufferization's order of the functions.
                     "order-constant-globals,"
                     // The marks of prepare-bufferization, carried out on
                     // buffers before canonicalization rebuilds the generics.
                     "func.func(reuse-dying-inputs),canonicalize,"
                     // The per-pixel accumulators of the fused loops are
                     // allocated once, at function level (or in the body of
                     // a loop over patches), for the planner.
                     "func.func(hoist-static-allocations)",
                     errorMessage)))
    return failure();
  // The states (the model's variables) live in the caller's state buffer,
  // where the function writes each one's new value over the old one.
  pm.addPass(createBindStateBuffersPass());
  // Outputs go to the caller's buffers, or stay in the arena.
  if (options.io == IOPlacement::Caller &&
      failed(addText(pm,
                     "buffer-results-to-out-params{hoist-static-allocs "
                     "modify-public-functions}",
                     errorMessage)))
    return failure();
  if (failed(addText(pm, "cse,canonicalize,func.func(memref-copy-to-linalg)",
                     errorMessage)))
    return failure();
  if (stop == "bufferize")
    return success();

  // 5. Static arena planning.
  bool havePlanner =
      isRegistered("memplan-plan-arena") && isRegistered("memplan-lower");
  if (havePlanner) {
    if (options.io == IOPlacement::Arena)
      pm.addPass(createMemPlanIOToArenaPass());
    if (failed(addText(pm,
                       llvm::formatv("func.func(memplan-plan-arena{{"
                                     "alignment={0} capacity={1} "
                                     "algorithm={2} index-bitwidth=32})",
                                     options.alignment, options.sram,
                                     options.placement)
                           .str(),
                       errorMessage)))
      return failure();
    if (stop == "plan")
      return success();
    if (failed(addText(pm, "memplan-lower", errorMessage)))
      return failure();
  } else {
    if (stop == "plan")
      return fail(errorMessage,
                  "stop-after=plan needs the memplan-plan-arena pass, "
                  "which this build does not have");
    // Without the planner every buffer is a malloc/free pair.
    if (failed(addText(pm, "buffer-deallocation-pipeline,canonicalize",
                       errorMessage)))
      return failure();
  }

  // 6. LLVM dialect for the CPU: 32-bit index, bare pointers at calls.
  // On Armv7E-M, int8 convolutions first become DSP kernels (SXTB16, SMLAD);
  // on Armv8.1-M with MVE, vector kernels (VMLAVA.S8), whose vector ops
  // convert-vector-to-llvm lowers. Both take the input zero point folded
  // into the bias, which spares them the filter sums. MVE shares the FP
  // registers, which float-abi=soft leaves out; Armv6-M and Armv7-M
  // (cortex-m0plus, cortex-m3) have neither extension and get the scalar
  // loops.
  bool dsp = options.dspKernels &&
             llvm::is_contained({"cortex-m4", "cortex-m7"}, target->cpu);
  bool mve = options.mveKernels && target->cpu == "cortex-m55" &&
             target->floatAbi != "soft";
  // The MVE convolution reads every tap of a padded window, so its zero
  // point folds too (the DSP kernels skip the padded taps).
  if ((dsp || mve) &&
      failed(addText(pm,
                     std::string("arm-dsp-fold-zero-points{padded-windows=") +
                         (mve ? "true" : "false") + "}",
                     errorMessage)))
    return failure();
  if (dsp && options.dspWideFilterBytes > 0 &&
      failed(addText(pm,
                     "arm-dsp-widen-filters{max-bytes=" +
                         std::to_string(options.dspWideFilterBytes) + "}",
                     errorMessage)))
    return failure();
  if (dsp &&
      failed(addText(
          pm,
          "func.func(arm-dsp-int8-kernels{unroll=" +
              std::to_string(options.kernelUnroll) +
              // Cortex-M7 issues an LDR with an SMLAD in
              // one cycle, an LDRD alone.
              (target->cpu == "cortex-m7" ? " dual-loads=false" : "") + "})",
          errorMessage)))
    return failure();
  if (mve && failed(addText(pm,
                            "func.func(arm-mve-int8-kernels),"
                            "convert-vector-to-llvm",
                            errorMessage)))
    return failure();
  // Without FP instructions LLVM lowers llvm.minimum/maximum.f32 to
  // fminimumf/fmaximumf, which newlib does not have: arith-expand writes
  // arith.minimumf/maximumf as compares and selects (same NaN semantics).
  if (target->floatAbi == "soft" &&
      failed(addText(pm, "func.func(arith-expand)", errorMessage)))
    return failure();
  if (failed(addText(
          pm,
          "func.func(convert-linalg-to-loops),expand-strided-metadata,"
          "lower-affine,convert-scf-to-cf,"
          // newlib has no roundevenf: expand it into arith ops.
          "func.func(math-expand-ops{ops=roundeven}),"
          "finalize-memref-to-llvm{index-bitwidth=32},"
          "convert-arith-to-llvm{index-bitwidth=32},convert-math-to-llvm,"
          "convert-cf-to-llvm{index-bitwidth=32},"
          "convert-func-to-llvm{index-bitwidth=32 "
          "use-bare-ptr-memref-call-conv},"
          "convert-index-to-llvm{index-bitwidth=32},"
          "reconcile-unrealized-casts,canonicalize",
          errorMessage)))
    return failure();
  SetLLVMTargetPassOptions targetOptions;
  targetOptions.triple = target->triple.str();
  targetOptions.dataLayout = target->dataLayout.str();
  pm.addPass(createSetLLVMTargetPass(targetOptions));
  return success();
}

void mlir::memopt::registerMemOptPipelines() {
  registerPassPipeline(
      "cortex-m-pipeline",
      "Lower TOSA to scheduled, bufferized, arena-planned LLVM dialect code "
      "for a Cortex-M",
      [](OpPassManager &pm, StringRef optionsText,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        TosaToCortexMOptions options;
        if (failed(options.parseFromString(optionsText)))
          return failure();
        std::string error;
        if (failed(buildTosaToCortexMPipeline(pm, options, &error)))
          return errorHandler(error);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(TosaToCortexMOptions());
      });
}
