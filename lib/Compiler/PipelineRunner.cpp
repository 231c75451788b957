//===- PipelineRunner.cpp - cortex-m-pipeline with progress ---------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Runs `cortex-m-pipeline` (scheduling, the patch search of patches=auto,
// arena placement, the lowering to the LLVM dialect) for the compile driver
// and watches it: the long phases become progress lines, with a heartbeat
// thread while one runs, the scheduler's remarks become progress, and the
// report's view of every function is recorded right after memory-schedule
// ordered it.
//
//===----------------------------------------------------------------------===//

#include "CompilerInternal.h"

#include "MemOpt/Compiler/CompileReport.h"
#include "MemOpt/Pipelines/Pipelines.h"
#include "MemOpt/Transforms/ScheduleAttributes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/DenseMap.h"

#include <chrono>

using namespace mlir;
using namespace mlir::memopt;

/// How often the exact scheduler reports its progress, in milliseconds.
static constexpr uint64_t kScheduleProgressMs = 2000;

//===----------------------------------------------------------------------===//
// Progress
//===----------------------------------------------------------------------===//

void CompileProgress::print(const Twine &message) const {
  if (hook)
    hook(message.str());
}

CompileHeartbeat::CompileHeartbeat(const CompileProgress &progress,
                                   std::string what) {
  if (!progress.isEnabled())
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

CompileHeartbeat::~CompileHeartbeat() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  stopped.notify_all();
  if (thread.joinable())
    thread.join();
}

namespace {
//===----------------------------------------------------------------------===//
// The scheduler's remarks
//===----------------------------------------------------------------------===//

/// Turns memory-schedule's progress remarks into progress lines and keeps
/// the state counts of its statistics remarks; every other diagnostic goes
/// on to the handlers registered before it.
class ScheduleRemarkHandler {
public:
  /// Handles the remarks of \p context while it lives.
  ScheduleRemarkHandler(MLIRContext *context, const CompileProgress &progress)
      : context(context), progress(progress) {
    id = context->getDiagEngine().registerHandler(
        [this](Diagnostic &diag) { return handle(diag); });
  }
  /// Unregisters the handler.
  ~ScheduleRemarkHandler() { context->getDiagEngine().eraseHandler(id); }

  /// Returns the number of search states the scheduler reported for @name.
  std::optional<uint64_t> getScheduleStates(StringRef name) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = scheduleStates.find(name);
    if (it == scheduleStates.end())
      return std::nullopt;
    return it->second;
  }

private:
  /// The start of the search's progress remarks.
  static constexpr StringLiteral kProgressPrefix =
      "memory-schedule progress of ";
  /// The start of the search's statistics remarks.
  static constexpr StringLiteral kStatisticsPrefix =
      "memory-schedule statistics of @";

  /// Handles \p diag if it is one of the scheduler's remarks.
  LogicalResult handle(Diagnostic &diag) {
    if (diag.getSeverity() != DiagnosticSeverity::Remark)
      return failure();
    std::string message = diag.str();
    // The search's progress remarks: "@fn: <N> states, segment best ...".
    if (StringRef(message).starts_with(kProgressPrefix)) {
      progress.print("scheduling " +
                     StringRef(message).drop_front(kProgressPrefix.size()));
      return success();
    }
    if (StringRef(message).starts_with(kStatisticsPrefix)) {
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
    return failure();
  }

  /// The context whose diagnostics are handled.
  MLIRContext *context;
  /// Where progress remarks go.
  const CompileProgress &progress;
  /// The handler's registration.
  DiagnosticEngine::HandlerID id;
  /// Guards scheduleStates.
  std::mutex mutex;
  /// The states of each function's search.
  llvm::StringMap<uint64_t> scheduleStates;
};

//===----------------------------------------------------------------------===//
// The instrumentation
//===----------------------------------------------------------------------===//

/// Reports the long phases of the pipeline as progress, and records the
/// report's view of every function right after memory-schedule ordered it:
/// the per-step live bytes of the scheduled TOSA under the lowering's model.
class CompileInstrumentation : public PassInstrumentation {
public:
  /// Reports to \p progress, takes state counts from \p remarks, models
  /// memory with \p costModel, estimates instructions for \p cpu and
  /// mentions the state budget \p maxStates.
  CompileInstrumentation(const CompileProgress &progress,
                         ScheduleRemarkHandler &remarks,
                         CostModelOptions costModel, CortexMCpu cpu,
                         uint64_t maxStates)
      : progress(progress), remarks(remarks), costModel(costModel), cpu(cpu),
        maxStates(maxStates) {}

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
                     " ops, state budget " + Twine(maxStates) + ")");
      std::lock_guard<std::mutex> lock(mutex);
      heartbeats[op] = std::make_unique<CompileHeartbeat>(
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

  /// Moves the report data recorded so far into \p reports.
  void takeReports(llvm::StringMap<FunctionReport> &into) {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto &entry : reports)
      into[entry.getKey()] = std::move(entry.getValue());
    reports.clear();
  }

private:
  /// Stops the heartbeat of the pass on \p op, if it has one.
  void stopHeartbeat(Operation *op) {
    std::unique_ptr<CompileHeartbeat> heartbeat;
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = heartbeats.find(op);
      if (it == heartbeats.end())
        return;
      heartbeat = std::move(it->second);
      heartbeats.erase(it);
    }
  }

  /// Reports the schedule of \p func and records its report data.
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
    if (std::optional<uint64_t> states = remarks.getScheduleStates(report.name))
      os << ", " << *states << " states";
    os << (report.optimal                 ? ", proven optimal"
           : report.stoppedBy == "states" ? ", stopped by the state budget"
           : report.stoppedBy == "clock"  ? ", stopped by the clock"
                                          : ", not proven");
    progress.print(line);
    if (failed(analyzeScheduledFunction(func, costModel, cpu, report)))
      return;
    std::lock_guard<std::mutex> lock(mutex);
    reports[report.name] = std::move(report);
  }

  /// Where progress goes.
  const CompileProgress &progress;
  /// The scheduler's state counts.
  ScheduleRemarkHandler &remarks;
  /// The memory model of the report's profile.
  CostModelOptions costModel;
  /// The CPU of the report's instruction estimate.
  CortexMCpu cpu;
  /// The exact scheduler's state budget.
  uint64_t maxStates;
  /// Guards reports and heartbeats.
  std::mutex mutex;
  /// The report data of each scheduled function.
  llvm::StringMap<FunctionReport> reports;
  /// The heartbeat of each function being scheduled.
  llvm::DenseMap<Operation *, std::unique_ptr<CompileHeartbeat>> heartbeats;
};
} // namespace

//===----------------------------------------------------------------------===//
// Running the pipeline
//===----------------------------------------------------------------------===//

/// Sets \p pipeline to the pipeline's options for \p options, with the
/// scheduler's progress remarks if \p progress.
static void getPipelineOptions(const CompileOptions &options, bool progress,
                               TosaToCortexMOptions &pipeline) {
  pipeline.cpu = stringifyCortexMCpu(options.cpu).str();
  if (options.floatAbi)
    pipeline.floatAbi = stringifyFloatABI(*options.floatAbi).str();
  pipeline.sram = options.sramBytes;
  pipeline.schedule =
      stringifyScheduleAlgorithm(options.scheduleAlgorithm).str();
  pipeline.scheduleMaxStates = options.scheduleMaxStates;
  pipeline.scheduleTimeLimitMs = options.scheduleTimeLimitMs;
  pipeline.scheduleStatistics = true;
  pipeline.scheduleProgressMs = progress ? kScheduleProgressMs : 0;
  pipeline.partition = stringifyPartitionMode(options.partition).str();
  pipeline.patches = options.patches;
  pipeline.maxMacOverhead = options.maxMacOverhead;
  pipeline.patchLoop = options.patchLoop;
  pipeline.placement = stringifyPlacementAlgorithm(options.placement).str();
  pipeline.dspKernels = options.dspKernels;
  // -Os unrolls the DSP kernels' reduction loops only (the pipeline's
  // default count), and so does --optimize=speed, which starts from the
  // default's code; -O2/-O3 leave unrolling to LLVM, -Oz unrolls nothing.
  if (options.getOptLevel() != OptLevel::Os && !options.choosesSpeed())
    pipeline.kernelUnroll = 0;
  // -Oz (--optimize=memory) keeps the int8 filters only: the widened
  // copies double the convolutions' filter flash.
  pipeline.dspWideFilterBytes = options.getWideFilterBytes();
  pipeline.mveKernels = options.mveKernels;
  pipeline.alignment = options.alignment;
  pipeline.io = options.io;
}

LogicalResult
mlir::memopt::runCortexMPipeline(ModuleOp module, const CompileOptions &options,
                                 const CompileProgress &progress,
                                 TimingScope &timing,
                                 llvm::StringMap<FunctionReport> &reports) {
  MLIRContext *context = module.getContext();
  ScheduleRemarkHandler remarks(context, progress);
  TosaToCortexMOptions pipelineOptions;
  getPipelineOptions(options, progress.isEnabled(), pipelineOptions);
  PassManager pm(context);
  std::string errorMessage;
  if (failed(buildTosaToCortexMPipeline(pm, pipelineOptions, &errorMessage)))
    return emitError(UnknownLoc::get(context)) << errorMessage;
  auto instrumentation = std::make_unique<CompileInstrumentation>(
      progress, remarks,
      CostModelOptions{MemoryModelKind::Lowering, options.io,
                       options.alignment},
      options.cpu, options.scheduleMaxStates);
  CompileInstrumentation *recorder = instrumentation.get();
  pm.addInstrumentation(std::move(instrumentation));
  TimingScope pipelineTiming = timing.nest("cortex-m-pipeline");
  pm.enableTiming(pipelineTiming);
  if (failed(pm.run(module)))
    return failure();
  pipelineTiming.stop();
  recorder->takeReports(reports);
  return success();
}

LogicalResult mlir::memopt::runCortexMPipelineStage(
    ModuleOp module, const CompileOptions &options, StringRef stopAfter) {
  MLIRContext *context = module.getContext();
  TosaToCortexMOptions pipelineOptions;
  getPipelineOptions(options, /*progress=*/false, pipelineOptions);
  pipelineOptions.scheduleStatistics = false;
  pipelineOptions.stopAfter = stopAfter.str();
  PassManager pm(context);
  std::string errorMessage;
  if (failed(buildTosaToCortexMPipeline(pm, pipelineOptions, &errorMessage)))
    return emitError(UnknownLoc::get(context)) << errorMessage;
  return pm.run(module);
}
