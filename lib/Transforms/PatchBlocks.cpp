//===- PatchBlocks.cpp - Blocks at the peak computed in bands
//--------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// After patch-prefix, the peak of a network such as MobileNetV2 moves to the
// first inverted residual blocks after the cut: a block's whole expanded
// tensor is live with its input (kept for the residual add) and its
// projection. `patches=<...>+blocks` computes such a block without its whole
// expanded tensor: the ops from the block's input to its output are
// rewritten, as patch-prefix rewrites a prefix, into bands of rows (or a
// grid) that each read a view of the input with the halo their windows need
// and are inserted into the output. Which block and which grid is a greedy
// search on the block-order peak of the memory model, the same model the
// scheduler proves its order against.
//
//===----------------------------------------------------------------------===//

#include "PatchRegions.h"

#include "MemOpt/Analysis/DataflowGraph.h"
#include "MemOpt/Analysis/ScheduleProblemBuilder.h"
#include "MemOpt/Schedule/StepModel.h"
#include "MemOpt/Transforms/Passes.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::memopt;

/// Rounds of the greedy search: each bands one block.
static constexpr unsigned kMaxRounds = 24;
/// Start values tried per round (nearest to the peak first) that have a cut
/// at or after the peak, and cuts tried per start.
static constexpr unsigned kMaxStarts = 8, kMaxCuts = 2;
/// Candidates are ranked by the exact scheduler's order in one search state
/// (its heuristics); the best kMaxProofs are then searched with the
/// pipeline's state budget for patches, and the first proven optimal is
/// taken, so every step keeps the schedule's proof.
static constexpr uint64_t kProofStates = 1000000;
static constexpr unsigned kMaxProofs = 3;
/// Square grids tried, up to this many rows (row bands up to max-grid).
static constexpr int64_t kMaxSquare = 4;
/// Ops scanned back from the peak for start values.
static constexpr unsigned kMaxScan = 48;

/// Returns the value of \p copy (a clone of \p func) that stands where
/// \p value stands in \p func.
static Value mapValue(func::FuncOp func, func::FuncOp copy, Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return copy.getArgument(arg.getArgNumber());
  auto result = cast<OpResult>(value);
  for (auto [op, other] : llvm::zip(func.getBody().front().getOperations(),
                                    copy.getBody().front().getOperations()))
    if (&op == result.getOwner())
      return other.getResult(result.getResultNumber());
  return {};
}

namespace {
/// How good an order is: its peak, then how many steps reach it (several
/// blocks often peak at the same bytes; banding one of them is progress).
struct PeakScore {
  int64_t peak = 0;
  int64_t stepsAtPeak = 0;
  /// The op of the first step at the peak.
  Operation *op = nullptr;
  /// True if the peak equals the scheduler's lower bound on every order:
  /// the pipeline's exact scheduler then proves it optimal.
  bool proven = false;

  bool operator<(const PeakScore &other) const {
    return std::make_pair(peak, stepsAtPeak) <
           std::make_pair(other.peak, other.stepsAtPeak);
  }
};
} // namespace

/// Returns the score of the order the exact scheduler finds for \p func
/// within \p states search states (never worse than block order), which is
/// proven if it reaches the scheduler's lower bound.
static FailureOr<PeakScore> getScheduledPeak(func::FuncOp func,
                                             const CostModelOptions &options,
                                             uint64_t states) {
  FailureOr<DataflowGraph> graph = DataflowGraph::build(func, options);
  if (failed(graph))
    return failure();
  ScheduleResult result = scheduleForMemory(*graph, ScheduleAlgorithm::Exact,
                                            SchedulerLimits{0, states});
  PeakScore score;
  if (result.order.empty())
    return score;
  schedule::Problem problem = buildScheduleProblem(*graph);
  schedule::Evaluation profile = schedule::evaluate(problem, result.order);
  score.peak = profile.peakBytes;
  score.stepsAtPeak = llvm::count(profile.liveBytes, profile.peakBytes);
  score.op = graph->getNode(result.order[profile.peakStep]).op;
  score.proven = result.peakBytes == result.lowerBound;
  return score;
}

/// Rewrites the ops of \p analysis up to \p plan's cut into bands and
/// computes the bands' depthwise convolutions over their whole input, in
/// place (widenDepthwiseInPlace), where they can be.
static LogicalResult applyBands(const PrefixAnalysis &analysis,
                                const PatchPlan &plan) {
  SmallVector<Operation *> clones;
  if (failed(applyPatchPlan(analysis, plan, &clones)))
    return failure();
  // The convolutions first: a rewrite erases the ops of its chain.
  SmallVector<tosa::DepthwiseConv2DOp> depthwise;
  for (Operation *op : clones)
    if (auto conv = dyn_cast<tosa::DepthwiseConv2DOp>(op))
      depthwise.push_back(conv);
  if (depthwise.empty())
    return success();
  IRRewriter rewriter(depthwise.front().getContext());
  for (tosa::DepthwiseConv2DOp conv : depthwise)
    (void)widenDepthwiseInPlace(rewriter, conv);
  return success();
}

namespace {
/// What a rewrite into bands gives: the score of the scheduler's order and
/// the function's multiply-accumulates.
struct BandResult {
  PeakScore score;
  int64_t macs = 0;
};
} // namespace

/// Returns the score and MACs of \p func with the ops from \p start up to
/// cut \p plan rewritten, or failure if the plan does not apply.
static FailureOr<BandResult> evaluateBands(func::FuncOp func, Value start,
                                           const PatchPlan &plan,
                                           const CostModelOptions &options,
                                           uint64_t states) {
  func::FuncOp copy = func.clone();
  FailureOr<BandResult> result = failure();
  {
    PrefixAnalysis analysis(copy, mapValue(func, copy, start));
    if (plan.cut < analysis.ops.size() &&
        succeeded(applyBands(analysis, plan)) && succeeded(verify(copy))) {
      FailureOr<PeakScore> score = getScheduledPeak(copy, options, states);
      if (succeeded(score))
        result = BandResult{*score, getTotalMultiplyAccumulates(copy)};
    }
  }
  copy.erase();
  // The copy's ops are gone.
  if (succeeded(result))
    result->score.op = nullptr;
  return result;
}

/// Returns "<op name> at <location label>" of \p value's producer, or
/// "argument <n>".
static std::string describeValue(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return "argument " + std::to_string(arg.getArgNumber());
  Operation *op = value.getDefiningOp();
  return (op->getName().getStringRef() + " at " +
          getLocationLabel(op->getLoc()))
      .str();
}

namespace {
/// The best rewrite of one round.
struct BandChoice {
  Value start;
  PatchPlan plan;
  PeakScore score;
};
} // namespace

LogicalResult mlir::memopt::patchBlocks(func::FuncOp func,
                                        const CostModelOptions &options,
                                        int64_t baseMacs, double maxMacOverhead,
                                        unsigned maxGrid,
                                        SmallVectorImpl<std::string> &applied) {
  double limit = double(baseMacs) * (1.0 + maxMacOverhead / 100.0);
  // The peak of the last proven step (before any, the heuristic order's).
  std::optional<int64_t> previous;
  for (unsigned round = 0; round < kMaxRounds; ++round) {
    FailureOr<PeakScore> current = getScheduledPeak(func, options, 1);
    if (failed(current))
      return failure();
    Operation *peakOp = current->op;
    if (!peakOp)
      return success();
    int64_t macs = getTotalMultiplyAccumulates(func);

    // Start values: the single NHWC results of the ops before the peak,
    // nearest first, then the arguments.
    SmallVector<Value> starts;
    Block &body = func.getBody().front();
    unsigned scanned = 0;
    for (Operation *op = peakOp->getPrevNode(); op && scanned < kMaxScan;
         op = op->getPrevNode()) {
      if (op->getNumResults() != 1 || !getImageType(op->getResult(0).getType()))
        continue;
      ++scanned;
      starts.push_back(op->getResult(0));
    }
    for (BlockArgument arg : body.getArguments())
      if (getImageType(arg.getType()))
        starts.push_back(arg);

    SmallVector<BandChoice> choices;
    unsigned validStarts = 0;
    for (Value start : starts) {
      if (validStarts == kMaxStarts)
        break;
      PrefixAnalysis analysis(func, start);
      auto *peakIt = llvm::find(analysis.ops, peakOp);
      if (peakIt == analysis.ops.end())
        continue;
      unsigned peakIndex = peakIt - analysis.ops.begin();
      SmallVector<unsigned> cuts;
      for (unsigned cut : analysis.cuts)
        if (cut >= peakIndex && cuts.size() < kMaxCuts)
          cuts.push_back(cut);
      if (cuts.empty())
        continue;
      ++validStarts;
      for (unsigned cut : cuts) {
        RankedTensorType cutType =
            getImageType(analysis.ops[cut]->getResult(0).getType());
        int64_t unpatched = getPrefixMacs(analysis, cut, 1, 1);
        for (bool square : {false, true}) {
          for (int64_t rows = 2; rows <= maxGrid; ++rows) {
            int64_t cols = square ? rows : 1;
            if ((square && rows > kMaxSquare) || rows > cutType.getDimSize(1) ||
                cols > cutType.getDimSize(2))
              break;
            PatchPlan plan{cut, rows, cols, macs, 0};
            plan.macsAfter =
                macs - unpatched + getPrefixMacs(analysis, cut, rows, cols);
            if (double(plan.macsAfter) > limit)
              break;
            FailureOr<BandResult> bands =
                evaluateBands(func, start, plan, options, 1);
            if (failed(bands) || double(bands->macs) > limit)
              continue;
            plan.macsAfter = bands->macs;
            if (bands->score < *current)
              choices.push_back(BandChoice{start, plan, bands->score});
          }
        }
      }
    }
    // Best first (ties: fewer MACs, then the order found); the first whose
    // order the pipeline's search proves optimal is taken.
    llvm::stable_sort(choices, [](const BandChoice &a, const BandChoice &b) {
      if (a.score < b.score || b.score < a.score)
        return a.score < b.score;
      return a.plan.macsAfter < b.plan.macsAfter;
    });
    std::optional<BandChoice> best;
    for (const BandChoice &choice : ArrayRef(choices).take_front(kMaxProofs)) {
      FailureOr<BandResult> proof =
          evaluateBands(func, choice.start, choice.plan, options, kProofStates);
      if (succeeded(proof) && proof->score.proven &&
          proof->score < *current) {
        best = choice;
        best->score = proof->score;
        break;
      }
    }
    if (!best)
      return success();
    PrefixAnalysis analysis(func, best->start);
    Operation *cutOp = analysis.ops[best->plan.cut];
    std::string line =
        llvm::formatv("{0}x{1} from {2} up to {3}: peak {4} -> {5} bytes, "
                      "MACs {6} -> {7}",
                      best->plan.rows, best->plan.cols,
                      describeValue(best->start),
                      describeValue(cutOp->getResult(0)),
                      previous.value_or(current->peak), best->score.peak, macs,
                      best->plan.macsAfter)
            .str();
    if (failed(applyBands(analysis, best->plan)))
      return cutOp->emitError("patch-prefix: the ")
             << best->plan.rows << "x" << best->plan.cols
             << " bands leave a band without input";
    applied.push_back(std::move(line));
    previous = best->score.peak;
  }
  return success();
}
