//===- PartitionConcat.cpp - partition-concat pass ------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The `partition-concat` pass. `mode=always` applies the partition patterns
// greedily. `mode=auto` groups the legal sites by concat and, concat by
// concat in block order, tries the rewrite on a copy of the function: all
// consumers of the concat together, then each alone. A rewrite is kept only
// if the best peak the exact scheduler finds goes strictly down; the search
// restarts after every accepted rewrite, since the sites have changed.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Transforms/Passes.h"

#include "MemOpt/Analysis/DataflowGraph.h"
#include "MemOpt/Analysis/ScheduleProblemBuilder.h"
#include "MemOpt/Transforms/PartitionConcat.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_PARTITIONCONCATPASS
#include "MemOpt/Transforms/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

/// Returns true if \p op is a convolution the options allow to partition.
static bool isEnabledConsumer(Operation *op,
                              const PartitionConcatOptions &options) {
  return (options.conv && isa<tosa::Conv2DOp>(op)) ||
         (options.depthwise && isa<tosa::DepthwiseConv2DOp>(op));
}

/// Applies the partition to the convolution \p op; fails without changing
/// the IR if it is not legal.
static LogicalResult partitionConsumer(RewriterBase &rewriter, Operation *op) {
  if (auto conv = dyn_cast<tosa::Conv2DOp>(op))
    return partitionConcatConv(rewriter, conv);
  if (auto conv = dyn_cast<tosa::DepthwiseConv2DOp>(op))
    return partitionConcatDepthwiseConv(rewriter, conv);
  return failure();
}

namespace {
/// Counts the convolutions the greedy driver replaces.
struct ReplacedConvCounter : public RewriterBase::Listener {
  void notifyOperationReplaced(Operation *op, ValueRange) override {
    if (isa<tosa::Conv2DOp, tosa::DepthwiseConv2DOp>(op))
      ++count;
  }
  /// Convolutions replaced so far.
  unsigned count = 0;
};
} // namespace

/// Returns the convolutions of \p func whose input is a concat site, grouped
/// by concat; both in block order.
static llvm::MapVector<Operation *, SmallVector<Operation *>>
collectSites(func::FuncOp func, const PartitionConcatOptions &options) {
  llvm::MapVector<Operation *, SmallVector<Operation *>> sites;
  func.walk([&](Operation *op) {
    if (!isEnabledConsumer(op, options))
      return;
    FailureOr<ConcatSite> site = matchConcatSite(op->getOperand(0), nullptr);
    if (succeeded(site))
      sites[site->concat].push_back(op);
  });
  return sites;
}

/// Returns the best peak the exact scheduler finds for \p func, or failure
/// (with errors emitted) if the function cannot be modelled.
static FailureOr<ScheduleResult>
scheduleFunction(func::FuncOp func, const PartitionConcatOptions &options) {
  uint64_t timeLimitMs = options.timeLimitMs;
  FailureOr<DataflowGraph> graph = DataflowGraph::build(func, options.model);
  if (failed(graph))
    return failure();
  SchedulerLimits limits;
  limits.timeLimitMs = timeLimitMs;
  return scheduleForMemory(*graph, ScheduleAlgorithm::Exact, limits);
}

/// Partitions \p consumers on a copy of \p func and returns the best
/// scheduled peak of the copy, or failure if no consumer could be rewritten.
static FailureOr<int64_t>
evaluateOnCopy(func::FuncOp func, ArrayRef<Operation *> consumers,
               const PartitionConcatOptions &options) {
  func::FuncOp copy = func.clone();
  // Ops of the original and the copy correspond one to one in block order.
  DenseMap<Operation *, Operation *> copyOf;
  for (auto [original, cloned] :
       llvm::zip(func.getBody().front(), copy.getBody().front()))
    copyOf[&original] = &cloned;
  IRRewriter rewriter(func.getContext());
  unsigned rewritten = 0;
  for (Operation *consumer : consumers)
    if (succeeded(partitionConsumer(rewriter, copyOf.lookup(consumer))))
      ++rewritten;
  FailureOr<int64_t> peak = failure();
  if (rewritten) {
    // The copy is built from the original, which was modelled already.
    FailureOr<ScheduleResult> result = scheduleFunction(copy, options);
    if (succeeded(result))
      peak = result->peakBytes;
  }
  copy.erase();
  return peak;
}

/// Partitions the sites of \p func one at a time, each time the one (all
/// its convolutions, or one of them) that lowers the optimal peak most,
/// until none does; \p peak is the peak without a rewrite. Counts the
/// rewritten convolutions in \p sitesRewritten and returns the final peak.
static int64_t partitionGreedily(func::FuncOp func,
                                 const PartitionConcatOptions &options,
                                 int64_t peak, unsigned &sitesRewritten) {
  DenseSet<Operation *> rejected;
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto &[concat, consumers] : collectSites(func, options)) {
      if (rejected.contains(concat))
        continue;
      SmallVector<SmallVector<Operation *>> candidates = {consumers};
      if (consumers.size() > 1)
        for (Operation *consumer : consumers)
          candidates.push_back({consumer});
      std::optional<size_t> best;
      int64_t bestPeak = peak;
      for (auto [index, candidate] : llvm::enumerate(candidates)) {
        FailureOr<int64_t> candidatePeak =
            evaluateOnCopy(func, candidate, options);
        if (succeeded(candidatePeak) && *candidatePeak < bestPeak) {
          best = index;
          bestPeak = *candidatePeak;
        }
      }
      if (!best) {
        rejected.insert(concat);
        continue;
      }
      IRRewriter rewriter(func.getContext());
      for (Operation *consumer : candidates[*best])
        if (succeeded(partitionConsumer(rewriter, consumer)))
          ++sitesRewritten;
      peak = bestPeak;
      changed = true;
      break;
    }
  }
  return peak;
}

LogicalResult
mlir::memopt::runPartitionConcat(func::FuncOp func,
                                 const PartitionConcatOptions &options,
                                 unsigned &sitesRewritten) {
  sitesRewritten = 0;
  if (func.isExternal())
    return success();
  MLIRContext *context = func.getContext();

  if (!options.onlyProfitable) {
    RewritePatternSet patterns(context);
    if (options.conv)
      populatePartitionConcatConvPatterns(patterns);
    if (options.depthwise)
      populatePartitionConcatDepthwiseConvPatterns(patterns);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    config.enableConstantCSE(false);
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    ReplacedConvCounter counter;
    config.setListener(&counter);
    (void)applyPatternsGreedily(func, std::move(patterns), config);
    sitesRewritten = counter.count;
    return success();
  }

  llvm::MapVector<Operation *, SmallVector<Operation *>> sites =
      collectSites(func, options);
  if (sites.empty())
    return success();
  FailureOr<ScheduleResult> baseline = scheduleFunction(func, options);
  if (failed(baseline))
    return func.emitError("partition-concat: mode=auto needs the memory "
                          "model of @")
           << func.getSymName() << "; use mode=always";

  // Site by site, a greedy choice can miss what partitioning every site wins
  // together; auto keeps the better of the two (and of no rewrite), so it is
  // never worse than off or always. Both are tried on copies.
  PartitionConcatOptions everywhere = options;
  everywhere.onlyProfitable = false;
  func::FuncOp trial = func.clone();
  unsigned trialRewritten = 0;
  std::optional<int64_t> everyPeak;
  if (succeeded(runPartitionConcat(trial, everywhere, trialRewritten)) &&
      trialRewritten)
    if (FailureOr<ScheduleResult> result = scheduleFunction(trial, options);
        succeeded(result))
      everyPeak = result->peakBytes;
  trial.erase();
  trial = func.clone();
  trialRewritten = 0;
  int64_t greedyPeak =
      partitionGreedily(trial, options, baseline->peakBytes, trialRewritten);
  trial.erase();
  if (everyPeak && *everyPeak < greedyPeak)
    return runPartitionConcat(func, everywhere, sitesRewritten);
  partitionGreedily(func, options, baseline->peakBytes, sitesRewritten);
  return success();
}

FailureOr<PartitionPeaks>
mlir::memopt::evaluatePartitionPeaks(func::FuncOp func, uint64_t timeLimitMs) {
  PartitionPeaks peaks;
  FailureOr<DataflowGraph> graph = DataflowGraph::build(func);
  if (failed(graph))
    return failure();
  peaks.inputPeak = evaluateSchedulePeak(*graph, graph->getProgramOrder());
  ScheduleResult scheduled = scheduleForMemory(
      *graph, ScheduleAlgorithm::Exact,
      SchedulerLimits{timeLimitMs, schedule::kDefaultMaxStates});
  peaks.scheduledPeak = scheduled.peakBytes;

  func::FuncOp copy = func.clone();
  PartitionConcatOptions options;
  options.timeLimitMs = timeLimitMs;
  FailureOr<ScheduleResult> partitioned = failure();
  if (succeeded(runPartitionConcat(copy, options, peaks.sitesRewritten)))
    partitioned = scheduleFunction(copy, options);
  copy.erase();
  if (failed(partitioned))
    return failure();
  // Without a rewrite the function is the same: keep one measurement.
  peaks.partitionedPeak =
      peaks.sitesRewritten ? partitioned->peakBytes : peaks.scheduledPeak;
  peaks.optimal =
      scheduled.optimal && (peaks.sitesRewritten == 0 || partitioned->optimal);
  return peaks;
}

namespace {
/// Splits convolutions that read a channel concat, where it pays off.
struct PartitionConcatPass
    : public memopt::impl::PartitionConcatPassBase<PartitionConcatPass> {
  using PartitionConcatPassBase::PartitionConcatPassBase;

  void runOnOperation() override;
};
} // namespace

void PartitionConcatPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (mode != "auto" && mode != "always") {
    emitError(func.getLoc(), "partition-concat: unknown mode '")
        << mode << "'; expected 'auto' or 'always'";
    return signalPassFailure();
  }
  PartitionConcatOptions options;
  options.conv = conv;
  options.depthwise = depthwise;
  options.onlyProfitable = mode == "auto";
  options.timeLimitMs = timeLimitMs;
  options.model = {model, io, alignment};
  unsigned rewritten = 0;
  if (failed(runPartitionConcat(func, options, rewritten)))
    return signalPassFailure();
  sitesRewritten += rewritten;
  if (rewritten == 0)
    markAllAnalysesPreserved();
}
