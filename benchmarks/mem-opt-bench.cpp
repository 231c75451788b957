//===- mem-opt-bench.cpp - Scheduler benchmark ----------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Schedules every function of the given models with the baselines (file
// order, Kahn, reverse post-order, greedy) and the exact engine, in one run,
// and prints a Markdown table: peaks, the proven lower bound, whether the
// exact order is proven optimal, and the median time of the exact engine
// over --repeat runs. Speed is measured here, never in tests. With
// --format=json it prints the same data (plus tensors, every run's time and
// whether the search stopped at its limit) for benchmarks/report.sh.
// --model=lowering builds the graphs under the Cortex-M lowering's model,
// the one cortex-m-pipeline schedules with.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Analysis/BufferLiveness.h"
#include "MemOpt/Analysis/DataflowGraph.h"
#include "MemOpt/Analysis/ScheduleProblemBuilder.h"
#include "MemOpt/Arena/ArenaPlanner.h"
#include "MemOpt/InitAll.h"
#include "MemOpt/Support/Version.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <ctime>

using namespace mlir;
using namespace mlir::memopt;

static llvm::cl::list<std::string>
    inputFiles(llvm::cl::Positional, llvm::cl::OneOrMore,
               llvm::cl::desc("<model.mlir>..."));
static llvm::cl::opt<unsigned>
    repeat("repeat", llvm::cl::init(5),
           llvm::cl::desc("Runs of the exact engine per function; the "
                          "median time is reported"));
static llvm::cl::opt<uint64_t>
    timeLimitMs("time-limit-ms", llvm::cl::init(60000),
                llvm::cl::desc("Time limit of one exact search"));

static llvm::cl::opt<std::string>
    outputFormat("format", llvm::cl::init("md"),
                 llvm::cl::desc("Output format: md (a Markdown table) or "
                                "json"));
static llvm::cl::opt<std::string>
    modelName("model", llvm::cl::init("canonical"),
              llvm::cl::desc("Memory model of the graphs: canonical (the "
                             "papers') or lowering (what cortex-m-pipeline "
                             "schedules and allocates)"));
static llvm::cl::opt<std::string>
    ioName("io", llvm::cl::init("arena"),
           llvm::cl::desc("Inputs and outputs under the lowering model: "
                          "arena or caller"));
static llvm::cl::opt<bool> repeatAtLimit(
    "repeat-at-limit", llvm::cl::init(false),
    llvm::cl::desc("Repeat the exact search even when the first run stops "
                   "at the time limit (default: one run is enough)"));

/// Returns the buffers of \p graph with their lifetimes in \p order as
/// half-open step ranges [first, last + 1).
static SmallVector<ArenaBuffer> getArenaBuffers(const DataflowGraph &graph,
                                                ArrayRef<NodeId> order) {
  ScheduleLiveness liveness = BufferLiveness::evaluate(graph, order);
  SmallVector<ArenaBuffer> buffers;
  for (auto [id, buffer] : llvm::enumerate(graph.getBuffers())) {
    if (buffer.bytes == 0)
      continue;
    const LiveInterval &interval = liveness.intervals[id];
    buffers.push_back({buffer.bytes, static_cast<int64_t>(interval.first),
                       static_cast<int64_t>(interval.last) + 1});
  }
  return buffers;
}

/// Alignment of arena offsets (as memplan and TFLite Micro use).
static constexpr int64_t arenaAlignment = 16;

/// Returns the arena size \p algorithm plans for the buffers of \p graph
/// with the lifetimes of \p order, or -1 if it finds no plan.
static int64_t planArenaSize(const DataflowGraph &graph, ArrayRef<NodeId> order,
                             PlacementAlgorithm algorithm) {
  SmallVector<ArenaBuffer> buffers = getArenaBuffers(graph, order);
  PlacementOptions options;
  options.algorithm = algorithm;
  options.alignment = arenaAlignment;
  std::optional<ArenaPlan> plan = planArena(buffers, options);
  if (!plan || !isValidPlan(buffers, *plan, arenaAlignment))
    return -1;
  return plan->arenaSize;
}

/// Returns the CPU time of the calling thread in milliseconds: unlike wall
/// time, it does not grow when other processes share the cores.
static double threadCpuMs() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return now.tv_sec * 1e3 + now.tv_nsec / 1e6;
}

/// Returns the median of \p values.
static double median(SmallVector<double> values) {
  llvm::sort(values);
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

int main(int argc, char **argv) {
  mlir::memopt::registerVersionPrinter();
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "mem-opt-bench: compare memory schedulers on models\n");

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  if (outputFormat != "md" && outputFormat != "json") {
    llvm::errs() << "mem-opt-bench: unknown format '" << outputFormat
                 << "'; expected md or json\n";
    return 1;
  }
  bool json = outputFormat == "json";
  std::optional<MemoryModelKind> modelKind = parseMemoryModelKind(modelName);
  std::optional<IOPlacement> ioPlacement = parseIOPlacement(ioName);
  if (!modelKind || !ioPlacement) {
    llvm::errs() << "mem-opt-bench: unknown "
                 << (modelKind ? "io '" + ioName + "'; expected arena or caller"
                               : "model '" + modelName +
                                     "'; expected canonical or lowering")
                 << "\n";
    return 1;
  }
  CostModelOptions costModel;
  costModel.kind = *modelKind;
  costModel.io = *ioPlacement;
  if (!json)
    llvm::outs() << "| model | function | ops | file order | Kahn | RPO | "
                    "greedy | exact | lower bound | proven | exact ms "
                    "(median) | exact CPU ms (median) | states |\n"
                 << "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  llvm::json::Array rows;
  int status = 0;
  for (const std::string &file : inputFiles) {
    OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(file, &context);
    if (!module) {
      llvm::errs() << "mem-opt-bench: cannot parse " << file << "\n";
      status = 1;
      continue;
    }
    for (auto func : module->getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      FailureOr<DataflowGraph> graph = DataflowGraph::build(func, costModel);
      if (failed(graph)) {
        status = 1;
        continue;
      }
      auto peakOf = [&](ScheduleAlgorithm algorithm) {
        return scheduleForMemory(*graph, algorithm).peakBytes;
      };
      SchedulerLimits limits;
      limits.timeLimitMs = timeLimitMs;
      limits.maxStates = 0;
      SmallVector<double> times, cpuTimes;
      ScheduleResult exact;
      for (unsigned run = 0; run < std::max(1u, (unsigned)repeat); ++run) {
        auto start = std::chrono::steady_clock::now();
        double cpuStart = threadCpuMs();
        exact = scheduleForMemory(*graph, ScheduleAlgorithm::Exact, limits);
        cpuTimes.push_back(threadCpuMs() - cpuStart);
        times.push_back(std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - start)
                            .count());
        if (exact.limitReached && !repeatAtLimit)
          break;
      }
      int64_t kahn = peakOf(ScheduleAlgorithm::Kahn);
      int64_t rpo = peakOf(ScheduleAlgorithm::ReversePostOrder);
      int64_t greedy = peakOf(ScheduleAlgorithm::Greedy);
      if (json) {
        llvm::json::Array runs;
        for (double time : times)
          runs.push_back(time);
        rows.push_back(llvm::json::Object{
            {"file", file},
            {"model", llvm::sys::path::stem(file)},
            {"function", func.getSymName()},
            {"memory_model", modelName},
            {"ops", static_cast<int64_t>(graph->getNumNodes())},
            {"tensors", static_cast<int64_t>(graph->getNumBuffers())},
            {"peak_input", exact.inputPeakBytes},
            {"peak_kahn", kahn},
            {"peak_rpo", rpo},
            {"peak_greedy", greedy},
            {"peak_exact", exact.peakBytes},
            {"lower_bound", exact.lowerBound},
            {"optimal", exact.optimal},
            {"limit_reached", exact.limitReached},
            {"states", static_cast<int64_t>(exact.statesExplored)},
            {"time_limit_ms", static_cast<int64_t>(timeLimitMs)},
            {"exact_ms_runs", std::move(runs)},
            {"exact_ms_median", median(times)},
            {"exact_cpu_ms_median", median(cpuTimes)},
            {"arena_alignment", arenaAlignment},
            {"arena_lower_bound",
             getLivenessLowerBound(getArenaBuffers(*graph, exact.order),
                                   arenaAlignment)},
            {"arena_no_reuse",
             planArenaSize(*graph, exact.order, PlacementAlgorithm::NoReuse)},
            {"arena_greedy_by_size",
             planArenaSize(*graph, exact.order,
                           PlacementAlgorithm::GreedyBySize)},
            {"arena_best",
             planArenaSize(*graph, exact.order, PlacementAlgorithm::Best)},
        });
        continue;
      }
      llvm::outs() << llvm::formatv(
          "| {0} | {1} | {2} | {3} | {4} | {5} | {6} | {7} | {8} | {9} | "
          "{10:f1} | {11:f1} | {12} |\n",
          llvm::sys::path::stem(file), func.getSymName(), graph->getNumNodes(),
          exact.inputPeakBytes, kahn, rpo, greedy, exact.peakBytes,
          exact.lowerBound, exact.optimal ? "yes" : "no", median(times),
          median(cpuTimes), exact.statesExplored);
    }
  }
  if (json)
    llvm::outs() << llvm::formatv("{0:2}\n",
                                  llvm::json::Value(std::move(rows)));
  return status;
}
