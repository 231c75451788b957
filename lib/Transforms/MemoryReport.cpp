//===- MemoryReport.cpp - memory-report pass ------------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Prints, for every function, the bytes live at each step of its current op
// order and the peak, as a table or as JSON.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Transforms/Passes.h"

#include "MemOpt/Analysis/BufferLiveness.h"
#include "MemOpt/Analysis/ScheduleProblemBuilder.h"
#include "MemOpt/Report/MemoryTimelineSvg.h"
#include "MemOpt/Support/Version.h"
#include "MemOpt/Transforms/PartitionConcat.h"
#include "MemOpt/Transforms/PatchPrefix.h"
#include "MemOpt/Transforms/ScheduleAttributes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_MEMORYREPORTPASS
#include "MemOpt/Transforms/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

/// Version of the JSON report's layout; it changes when a member is renamed
/// or removed, or changes meaning (adding members keeps it).
static constexpr int64_t kMemoryReportFormatVersion = 1;

/// Returns the JSON description of the buffers live at the peak of
/// \p liveness.
static llvm::json::Array getLiveAtPeakJson(const DataflowGraph &graph,
                                           const ScheduleLiveness &liveness) {
  llvm::json::Array live;
  if (liveness.order.empty())
    return live;
  for (BufferId buffer : liveness.getLiveBuffers(liveness.peakStep))
    live.push_back(llvm::json::Object{
        {"tensor", graph.getBufferName(buffer)},
        {"bytes", graph.getBuffer(buffer).bytes},
    });
  // The scratch of the op at the peak (a fused conv's padded window).
  NodeId peakNode = liveness.order[liveness.peakStep];
  if (int64_t workspace = graph.getNode(peakNode).workspaceBytes)
    live.push_back(llvm::json::Object{
        {"tensor", graph.getNodeName(peakNode) + " workspace"},
        {"bytes", workspace},
    });
  return live;
}

/// Returns the certificate that memory-schedule recorded on \p func as JSON,
/// or null if it has none.
static llvm::json::Value getScheduleJson(func::FuncOp func) {
  auto peak = func->getAttrOfType<IntegerAttr>(kPeakBytesAttrName);
  auto bound = func->getAttrOfType<IntegerAttr>(kLowerBoundAttrName);
  auto optimal = func->getAttrOfType<BoolAttr>(kOptimalAttrName);
  if (!peak || !bound || !optimal)
    return nullptr;
  llvm::json::Object schedule{{"peak_bytes", peak.getInt()},
                              {"lower_bound", bound.getInt()},
                              {"optimal", optimal.getValue()},
                              {"time_ms", nullptr}};
  if (auto time = func->getAttrOfType<IntegerAttr>(kScheduleTimeAttrName))
    schedule["time_ms"] = time.getInt();
  return schedule;
}

/// Returns the JSON report of one function.
static llvm::json::Object getFunctionJson(func::FuncOp func,
                                          const BufferLiveness &analysis) {
  const DataflowGraph &graph = analysis.getGraph();
  const ScheduleLiveness &liveness = analysis.getProgramLiveness();
  llvm::json::Array steps;
  for (auto [step, node] : llvm::enumerate(liveness.order)) {
    Operation *op = graph.getNode(node).op;
    steps.push_back(llvm::json::Object{
        {"step", static_cast<int64_t>(step)},
        {"op", op->getName().getStringRef()},
        {"loc", getLocationLabel(op->getLoc())},
        {"live_bytes", liveness.liveBytes[step]},
    });
  }
  llvm::json::Object result{
      {"name", func.getSymName()},
      {"peak_bytes", liveness.peakBytes},
      {"live_at_peak", getLiveAtPeakJson(graph, liveness)},
      {"steps", std::move(steps)},
      {"schedule", getScheduleJson(func)},
      {"patches", nullptr},
  };
  if (std::optional<PatchSummary> patches = PatchSummary::read(func))
    result["patches"] = patches->toJSON();
  if (!liveness.order.empty()) {
    Operation *peakOp = graph.getNode(liveness.order[liveness.peakStep]).op;
    result["peak_op"] = getLocationLabel(peakOp->getLoc());
    result["peak_step"] = static_cast<int64_t>(liveness.peakStep);
  } else {
    result["peak_op"] = nullptr;
    result["peak_step"] = nullptr;
  }
  return result;
}

/// Prints the table report of one function.
static void printFunctionTable(raw_ostream &os, func::FuncOp func,
                               const BufferLiveness &analysis) {
  const DataflowGraph &graph = analysis.getGraph();
  const ScheduleLiveness &liveness = analysis.getProgramLiveness();
  os << "memory report for @" << func.getSymName() << ": "
     << liveness.order.size()
     << (liveness.order.size() == 1 ? " step" : " steps") << ", peak "
     << liveness.peakBytes << " bytes";
  if (liveness.order.empty()) {
    os << "\n";
    return;
  }
  Operation *peakOp = graph.getNode(liveness.order[liveness.peakStep]).op;
  os << " at step " << liveness.peakStep << " ("
     << getLocationLabel(peakOp->getLoc()) << ")\n";
  if (std::optional<PatchSummary> patches = PatchSummary::read(func)) {
    os << "  ";
    patches->print(os);
    os << "\n";
  }

  // Column widths follow the longest op name and location.
  size_t opWidth = 2, locWidth = 8;
  SmallVector<std::string> locs;
  for (NodeId node : liveness.order) {
    Operation *op = graph.getNode(node).op;
    locs.push_back(getLocationLabel(op->getLoc()));
    opWidth = std::max(opWidth, op->getName().getStringRef().size());
    locWidth = std::max(locWidth, locs.back().size());
  }
  os << "  " << llvm::right_justify("step", 5) << "  "
     << llvm::left_justify("op", opWidth) << "  "
     << llvm::left_justify("location", locWidth) << "  "
     << llvm::right_justify("live bytes", 12) << "\n";
  for (auto [step, node] : llvm::enumerate(liveness.order)) {
    Operation *op = graph.getNode(node).op;
    os << "  " << llvm::right_justify(std::to_string(step), 5) << "  "
       << llvm::left_justify(op->getName().getStringRef(), opWidth) << "  "
       << llvm::left_justify(locs[step], locWidth) << "  "
       << llvm::right_justify(std::to_string(liveness.liveBytes[step]), 12)
       << (step == liveness.peakStep ? "  <- peak" : "") << "\n";
  }
  os << "  peak: " << liveness.peakBytes << " bytes; live:";
  for (BufferId buffer : liveness.getLiveBuffers(liveness.peakStep))
    os << " " << graph.getBufferName(buffer) << " ("
       << graph.getBuffer(buffer).bytes << ")";
  if (!liveness.order.empty()) {
    NodeId peakNode = liveness.order[liveness.peakStep];
    if (int64_t workspace = graph.getNode(peakNode).workspaceBytes)
      os << " " << graph.getNodeName(peakNode) << " workspace (" << workspace
         << ")";
  }
  os << "\n";
  llvm::json::Value schedule = getScheduleJson(func);
  if (const llvm::json::Object *fields = schedule.getAsObject()) {
    os << "  schedule: lower bound " << *fields->getInteger("lower_bound")
       << " bytes, "
       << (*fields->getBoolean("optimal") ? "proven optimal"
                                          : "not proven optimal");
    if (std::optional<int64_t> time = fields->getInteger("time_ms"))
      os << ", " << *time << " ms";
    os << "\n";
  }
}

/// Appends the peaks before and after partition-concat plus scheduling of
/// \p func: a text line to \p os, or a `partition` member to the last JSON
/// object of \p functions.
static LogicalResult reportPartition(raw_ostream &os, func::FuncOp func,
                                     llvm::json::Array &functions) {
  FailureOr<PartitionPeaks> peaks =
      evaluatePartitionPeaks(func, schedule::kDefaultTimeLimitMs);
  if (failed(peaks))
    return failure();
  if (!functions.empty()) {
    (*functions.back().getAsObject())["partition"] = llvm::json::Object{
        {"input_peak", peaks->inputPeak},
        {"scheduled_peak", peaks->scheduledPeak},
        {"partitioned_peak", peaks->partitionedPeak},
        {"sites", static_cast<int64_t>(peaks->sitesRewritten)},
        {"optimal", peaks->optimal}};
    return success();
  }
  os << "  partition: file order " << peaks->inputPeak << " bytes, scheduled "
     << peaks->scheduledPeak << " bytes, partition-concat + scheduled "
     << peaks->partitionedPeak << " bytes (" << peaks->sitesRewritten
     << (peaks->sitesRewritten == 1 ? " site" : " sites") << " rewritten"
     << (peaks->optimal ? ", proven optimal" : ", not proven optimal") << ")\n";
  return success();
}

//===----------------------------------------------------------------------===//
// Timeline charts
//===----------------------------------------------------------------------===//

/// Returns the legend name of \p algorithm ("mem-opt exact", "Kahn", ...).
static StringRef getScheduleAlgorithmLabel(ScheduleAlgorithm algorithm) {
  switch (algorithm) {
  case ScheduleAlgorithm::Exact:
    return "mem-opt exact";
  case ScheduleAlgorithm::Input:
    return "input order";
  case ScheduleAlgorithm::Kahn:
    return "Kahn";
  case ScheduleAlgorithm::ReversePostOrder:
    return "reverse post-order";
  case ScheduleAlgorithm::Greedy:
    return "greedy";
  }
  llvm_unreachable("unknown schedule algorithm");
}

/// Returns the series of \p liveness, an order of \p graph, labelled
/// \p label. Its bytes and peak op are those of the JSON report.
static TimelineSeries makeSeries(std::string label, const DataflowGraph &graph,
                                 const ScheduleLiveness &liveness) {
  TimelineSeries series;
  series.label = std::move(label);
  series.liveBytes.assign(liveness.liveBytes.begin(), liveness.liveBytes.end());
  series.peakBytes = liveness.peakBytes;
  series.peakStep = liveness.peakStep;
  if (!liveness.order.empty())
    series.peakOp = getLocationLabel(
        graph.getNode(liveness.order[liveness.peakStep]).op->getLoc());
  return series;
}

/// Returns the chart of \p func under \p model (named in the title): the
/// timeline of its current op order (labelled "file order", or "scheduled
/// order" when memory-schedule has recorded a certificate on it) and, if
/// \p compare is set, the timeline of the order that algorithm computes for
/// the same graph (the exact engine within \p limits; its legend says
/// whether it is proven optimal).
static TimelineChart
buildMemoryTimelineChart(func::FuncOp func, const BufferLiveness &analysis,
                         const CostModelOptions &model,
                         std::optional<ScheduleAlgorithm> compare,
                         const SchedulerLimits &limits) {
  TimelineChart chart;
  // The title says whose bytes these are.
  StringRef modelName = "canonical model";
  if (model.kind == MemoryModelKind::Lowering)
    modelName = model.io == IOPlacement::Caller ? "Cortex-M arena, io=caller"
                                                : "Cortex-M arena";
  chart.title = ("@" + func.getSymName() +
                 ": live activation memory per step (" + modelName + ")")
                    .str();
  bool scheduled = func->hasAttr(kPeakBytesAttrName);
  const DataflowGraph &graph = analysis.getGraph();
  chart.series.push_back(
      makeSeries(scheduled ? "scheduled order" : "file order", graph,
                 analysis.getProgramLiveness()));
  if (!compare)
    return chart;
  ScheduleResult result = scheduleForMemory(graph, *compare, limits);
  std::string label = getScheduleAlgorithmLabel(*compare).str();
  if (*compare == ScheduleAlgorithm::Exact) {
    if (result.optimal)
      label += ", proven optimal";
    else
      label += llvm::formatv(", not proven (lower bound {0:f2} KiB)",
                             static_cast<double>(result.lowerBound) / 1024.0)
                   .str();
  }
  chart.series.push_back(
      makeSeries(label, graph, BufferLiveness::evaluate(graph, result.order)));
  return chart;
}

/// Returns a copy of \p func, in a module of its own, after canonicalize and
/// cse: the ops cortex-m-pipeline schedules (its first stage folds and
/// merges them, e.g. an int8 clamp to [-128, 127]), or failure.
static FailureOr<OwningOpRef<ModuleOp>>
getCanonicalCopy(func::FuncOp func, const FrozenRewritePatternSet &patterns) {
  OwningOpRef<ModuleOp> module = ModuleOp::create(func.getLoc());
  module->push_back(func.clone());
  auto copy = cast<func::FuncOp>(module->getBody()->front());
  GreedyRewriteConfig config;
  config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Normal);
  if (failed(applyPatternsGreedily(copy, patterns, config)))
    return emitError(func.getLoc(), "memory-report: canonicalization of @")
           << func.getSymName() << " did not converge";
  IRRewriter rewriter(func.getContext());
  DominanceInfo dominance;
  eliminateCommonSubExpressions(rewriter, dominance, copy);
  return module;
}

namespace {
/// Writes the memory report of every function of a module.
struct MemoryReportPass
    : public memopt::impl::MemoryReportPassBase<MemoryReportPass> {
  using MemoryReportPassBase::MemoryReportPassBase;

  void runOnOperation() override;

  /// The memory model the options select.
  CostModelOptions getCostModelOptions() const {
    return {model, io, alignment};
  }
};
} // namespace

void MemoryReportPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (format != "text" && format != "json" && format != "svg") {
    emitError(module.getLoc(), "memory-report: unknown format '")
        << format << "'; expected 'text', 'json' or 'svg'";
    return signalPassFailure();
  }
  std::optional<ScheduleAlgorithm> compareWith;
  if (compare != "none") {
    compareWith = parseScheduleAlgorithm(compare);
    if (!compareWith || format != "svg") {
      emitError(module.getLoc(), "memory-report: ")
          << (compareWith ? "'compare' needs format=svg"
                          : "unknown compare order '" + compare +
                                "'; expected none, input, kahn, rpo, "
                                "greedy or exact");
      return signalPassFailure();
    }
  }
  SchedulerLimits compareLimits;
  compareLimits.timeLimitMs = compareTimeLimitMs;
  SmallVector<TimelineChart> charts;

  std::string report;
  llvm::raw_string_ostream os(report);
  llvm::json::Array functions;
  bool anyFailed = false;
  // The canonicalization patterns of every loaded dialect and op, as the
  // canonicalize pass collects them.
  std::optional<FrozenRewritePatternSet> patterns;
  if (canonicalize) {
    MLIRContext *context = module.getContext();
    RewritePatternSet set(context);
    for (Dialect *dialect : context->getLoadedDialects())
      dialect->getCanonicalizationPatterns(set);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      op.getCanonicalizationPatterns(set, context);
    patterns.emplace(std::move(set));
  }
  for (auto original : module.getOps<func::FuncOp>()) {
    if (original.isExternal())
      continue;
    func::FuncOp func = original;
    OwningOpRef<ModuleOp> copy;
    if (patterns) {
      FailureOr<OwningOpRef<ModuleOp>> canonical =
          getCanonicalCopy(original, *patterns);
      if (failed(canonical)) {
        anyFailed = true;
        continue;
      }
      copy = std::move(*canonical);
      func = cast<func::FuncOp>(copy->getBody()->front());
    }
    BufferLiveness analysis(func, getCostModelOptions());
    if (!analysis.isValid()) {
      anyFailed = true;
      continue;
    }
    if (format == "json")
      functions.push_back(getFunctionJson(func, analysis));
    else if (format == "svg")
      charts.push_back(buildMemoryTimelineChart(
          func, analysis, getCostModelOptions(), compareWith, compareLimits));
    else
      printFunctionTable(os, func, analysis);
    if (partition && format != "svg" &&
        failed(reportPartition(os, func, functions)))
      anyFailed = true;
  }
  if (anyFailed)
    return signalPassFailure();
  if (format == "json")
    os << llvm::formatv("{0:2}\n",
                        llvm::json::Value(llvm::json::Object{
                            {"format_version", kMemoryReportFormatVersion},
                            {"mem_opt_version", MEMOPT_VERSION},
                            {"functions", std::move(functions)}}));
  if (format == "svg")
    writeMemoryTimelineSvg(os, charts);

  if (output == "-") {
    llvm::errs() << report;
  } else {
    std::string errorMessage;
    std::unique_ptr<llvm::ToolOutputFile> file =
        openOutputFile(output, &errorMessage);
    if (!file) {
      emitError(module.getLoc(), "memory-report: ") << errorMessage;
      return signalPassFailure();
    }
    file->os() << report;
    file->keep();
  }
  markAllAnalysesPreserved();
}
