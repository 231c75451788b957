//===- PatchPrefix.cpp - patch-based inference of a network prefix --------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The `patch-prefix` pass: MCUNetV2's patch-based inference as an identity
// rewrite on TOSA. The prefix of a function up to a cut value is cloned once
// per patch of a grid over the cut's height and width; each clone computes
// its patch from the input region its receptive field needs, and inserts it
// into its slice of the cut value. The memory model (tensor.insert_slice
// writes in place, slices are views) counts exactly what the lowering
// allocates, so the scheduler and the arena planner see the patched peak.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Transforms/PatchPrefix.h"
#include "MemOpt/Analysis/DataflowGraph.h"
#include "MemOpt/Analysis/ScheduleProblemBuilder.h"
#include "MemOpt/CostModel/CostModel.h"
#include "MemOpt/Schedule/StepModel.h"
#include "MemOpt/Transforms/Passes.h"
#include "MemOpt/Utils/Attributes.h"
#include "PatchRegions.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_PATCHPREFIXPASS
#include "MemOpt/Transforms/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

/// Returns the peak of \p func under \p options in block order, or failure
/// (with errors emitted) if it cannot be modelled.
FailureOr<int64_t>
mlir::memopt::getBlockOrderPeak(func::FuncOp func,
                                const CostModelOptions &options) {
  FailureOr<DataflowGraph> graph = DataflowGraph::build(func, options);
  if (failed(graph))
    return failure();
  return evaluateSchedulePeak(*graph, graph->getProgramOrder());
}

/// The block-order peaks of a patched function.
struct PlanPeaks {
  /// The whole function's.
  int64_t peak = 0;
  /// The steps up to the last patch's cut value (the prefix's own).
  int64_t prefixPeak = 0;
};

/// Returns the peaks of \p plan: patches a copy of \p func and measures it.
static FailureOr<PlanPeaks> evaluatePlanPeaks(func::FuncOp func,
                                              const PatchPlan &plan,
                                              const CostModelOptions &options,
                                              bool loop) {
  func::FuncOp copy = func.clone();
  FailureOr<PlanPeaks> peaks = failure();
  {
    PrefixAnalysis analysis(copy);
    SmallVector<Operation *> clones;
    if (((loop && succeeded(applyPatchLoop(analysis, plan))) ||
         succeeded(applyPatchPlan(analysis, plan, &clones))) &&
        succeeded(verify(copy))) {
      FailureOr<DataflowGraph> graph = DataflowGraph::build(copy, options);
      if (succeeded(graph)) {
        SmallVector<NodeId> order = graph->getProgramOrder();
        schedule::Evaluation profile =
            schedule::evaluate(buildScheduleProblem(*graph), order);
        PlanPeaks result{profile.peakBytes, 0};
        // The last patch's cut value is the last clone with a node.
        std::optional<NodeId> last;
        for (Operation *clone : llvm::reverse(clones))
          if ((last = graph->lookupNode(clone)))
            break;
        for (auto [step, node] : llvm::enumerate(order)) {
          result.prefixPeak =
              std::max(result.prefixPeak, profile.liveBytes[step]);
          if (last && node == *last)
            break;
        }
        peaks = result;
      }
    }
  }
  copy.erase();
  return peaks;
}

/// Returns the block-order peak of \p plan and a proven lower bound on the
/// peak of every order of the patched function (the exact scheduler's, with
/// one search state), or failure if the plan does not apply.
static FailureOr<std::pair<int64_t, int64_t>>
evaluatePlanBounds(func::FuncOp func, const PatchPlan &plan,
                   const CostModelOptions &options) {
  func::FuncOp copy = func.clone();
  FailureOr<std::pair<int64_t, int64_t>> bounds = failure();
  {
    PrefixAnalysis analysis(copy);
    if (succeeded(applyPatchPlan(analysis, plan)) && succeeded(verify(copy))) {
      FailureOr<DataflowGraph> graph = DataflowGraph::build(copy, options);
      if (succeeded(graph)) {
        ScheduleResult result = scheduleForMemory(
            *graph, ScheduleAlgorithm::Exact, SchedulerLimits{0, 1});
        bounds = std::make_pair(result.inputPeakBytes, result.lowerBound);
      }
    }
  }
  copy.erase();
  return bounds;
}

/// Parses "<rows>x<cols>" or "<rows>x<cols>@<cut>" into \p rows, \p cols
/// and \p cut.
static bool parseGrid(StringRef text, int64_t &rows, int64_t &cols,
                      std::optional<unsigned> &cut) {
  auto [grid, cutText] = text.split('@');
  auto [left, right] = grid.split('x');
  if (left.getAsInteger(10, rows) || right.getAsInteger(10, cols) ||
      rows <= 0 || cols <= 0)
    return false;
  if (!text.contains('@'))
    return true;
  unsigned index = 0;
  if (cutText.getAsInteger(10, index))
    return false;
  cut = index;
  return true;
}

namespace {
struct PatchPrefixPass
    : public memopt::impl::PatchPrefixPassBase<PatchPrefixPass> {
  using PatchPrefixPassBase::PatchPrefixPassBase;

  void runOnOperation() override;

private:
  /// Runs the prefix part of \p spec (`patches=` without `+blocks`).
  /// With \p forBlocks (`+blocks`), auto's ties go to the smaller peak of
  /// the prefix's own steps: the bands lower the blocks after it.
  LogicalResult patchPrefix(func::FuncOp func, StringRef spec, bool forBlocks);
  /// Chooses the plan of patches=auto, or nothing if none lowers the peak;
  /// then \p whyNone says why, in one line.
  FailureOr<std::optional<PatchPlan>>
  chooseAutoPlan(func::FuncOp func, const PrefixAnalysis &analysis,
                 const CostModelOptions &options, bool forBlocks,
                 int64_t &peakBefore, int64_t &peakAfter,
                 std::string &whyNone);
};
} // namespace

FailureOr<std::optional<PatchPlan>> PatchPrefixPass::chooseAutoPlan(
    func::FuncOp func, const PrefixAnalysis &analysis,
    const CostModelOptions &options, bool forBlocks, int64_t &peakBefore,
    int64_t &peakAfter, std::string &whyNone) {
  FailureOr<DataflowGraph> graph = DataflowGraph::build(func, options);
  if (failed(graph))
    return failure();
  // What the scheduler reaches without patches, and the live bytes of each
  // step in block order, whose suffix after a cut patches cannot change.
  ScheduleResult unpatched =
      scheduleForMemory(*graph, ScheduleAlgorithm::Exact,
                        SchedulerLimits{schedule::kDefaultTimeLimitMs,
                                        schedule::kDefaultMaxStates});
  peakBefore = unpatched.peakBytes;
  schedule::Problem problem = buildScheduleProblem(*graph);
  schedule::Evaluation profile =
      schedule::evaluate(problem, graph->getProgramOrder());
  SmallVector<int64_t> suffixPeak(profile.liveBytes.size() + 1, 0);
  for (int step = profile.liveBytes.size() - 1; step >= 0; --step)
    suffixPeak[step] = std::max(suffixPeak[step + 1], profile.liveBytes[step]);

  std::optional<PatchPlan> best;
  int64_t bestPeak = peakBefore, bestPrefixPeak = 0;
  double limit = maxMacOverhead / 100.0 * analysis.totalMacs;
  // Why no grid was chosen: the cuts the peak comes after, the cheapest
  // grid over the MAC limit, and the best grid that did not lower the peak.
  unsigned cutsBeforeTail = 0;
  std::optional<PatchPlan> cheapestOver, bestKept;
  int64_t bestKeptPeak = 0;
  for (unsigned cut : analysis.cuts) {
    std::optional<NodeId> node = graph->lookupNode(analysis.ops[cut]);
    if (!node)
      continue;
    // Steps after the cut are unchanged (the cut's node is step *node in
    // block order): a plan there cannot beat their peak.
    // With +blocks a plan that ties may still have the lower prefix.
    if (suffixPeak[*node + 1] > bestPeak ||
        (!forBlocks && suffixPeak[*node + 1] == bestPeak)) {
      ++cutsBeforeTail;
      continue;
    }
    RankedTensorType cutType =
        getImageType(analysis.ops[cut]->getResult(0).getType());
    int64_t prefixMacs = getPrefixMacs(analysis, cut, 1, 1);
    for (int64_t grid = 2; grid <= maxGrid; ++grid) {
      if (grid > cutType.getDimSize(1) || grid > cutType.getDimSize(2))
        break;
      PatchPlan plan{cut, grid, grid, analysis.totalMacs, 0};
      // One loop computes the patches' halos outside the image too.
      bool uniform = loop && cutType.getDimSize(1) % grid == 0 &&
                     cutType.getDimSize(2) % grid == 0;
      plan.macsAfter = analysis.totalMacs - prefixMacs +
                       getPrefixMacs(analysis, cut, grid, grid, !uniform);
      if (plan.macsAfter - plan.macsBefore > limit) {
        if (!cheapestOver || plan.macsAfter < cheapestOver->macsAfter)
          cheapestOver = plan;
        break;
      }
      FailureOr<PlanPeaks> peaks =
          evaluatePlanPeaks(func, plan, options, loop);
      std::optional<int64_t> peak;
      if (succeeded(peaks))
        peak = peaks->peak;
      bool prefixLower = forBlocks && best && peak && *peak == bestPeak &&
                         peaks->prefixPeak < bestPrefixPeak;
      if (peak && (*peak < bestPeak || prefixLower)) {
        bestPeak = *peak;
        bestPrefixPeak = peaks->prefixPeak;
        best = plan;
      } else if (peak && (!bestKept || *peak < bestKeptPeak)) {
        bestKept = plan;
        bestKeptPeak = *peak;
      }
    }
  }
  peakAfter = bestPeak;
  if (best)
    return best;

  // No grid: one line that says why.
  auto name = [&](const PatchPlan &plan) {
    Operation *op = analysis.ops[plan.cut];
    return llvm::formatv("{0}x{1} up to {2} at {3}", plan.rows, plan.cols,
                         op->getName().getStringRef(),
                         getLocationLabel(op->getLoc()))
        .str();
  };
  auto extra = [&](const PatchPlan &plan) {
    return llvm::formatv("{0:F1}",
                         100.0 * double(plan.macsAfter - plan.macsBefore) /
                             double(plan.macsBefore))
        .str();
  };
  llvm::raw_string_ostream os(whyNone);
  os << "no patch grid: ";
  if (bestKept) {
    os << "no grid within " << llvm::format("%g", double(maxMacOverhead))
       << "% extra MACs lowers the peak of " << peakBefore
       << " bytes (the best, " << name(*bestKept) << ", needs " << bestKeptPeak
       << ")";
  } else if (cheapestOver) {
    os << "every grid of a cut before the peak needs more than "
       << llvm::format("%g", double(maxMacOverhead))
       << "% extra MACs (the cheapest, " << name(*cheapestOver) << ", +"
       << extra(*cheapestOver) << "%)";
  } else if (cutsBeforeTail == analysis.cuts.size()) {
    // The first step after the last cut where the unpatched peak is reached.
    Operation *lastCut = analysis.ops[analysis.cuts.back()];
    unsigned step = *graph->lookupNode(lastCut) + 1;
    while (step + 1 < profile.liveBytes.size() &&
           profile.liveBytes[step] < peakBefore)
      ++step;
    SmallVector<NodeId> order = graph->getProgramOrder();
    Operation *peakOp = graph->getNode(order[step]).op;
    os << "the peak of " << peakBefore << " bytes is at "
       << peakOp->getName().getStringRef() << " at "
       << getLocationLabel(peakOp->getLoc()) << ", after the last cut ("
       << lastCut->getName().getStringRef() << " at "
       << getLocationLabel(lastCut->getLoc()) << ")";
  } else {
    os << "no cut is 2x2 pixels or more";
  }
  return best;
}

LogicalResult PatchPrefixPass::patchPrefix(func::FuncOp func, StringRef spec,
                                           bool forBlocks) {
  if (spec == "off")
    return success();
  int64_t rows = 0, cols = 0;
  std::optional<unsigned> forcedCut;
  bool isAuto = spec == "auto";
  if (!isAuto && !parseGrid(spec, rows, cols, forcedCut)) {
    emitError(func.getLoc(),
              "patch-prefix: patches must be 'auto', 'off', "
              "<rows>x<cols> or <rows>x<cols>@<cut> with "
              "positive counts, optionally followed by '+blocks', not '")
        << patches << "'";
    return failure();
  }
  if (maxMacOverhead < 0) {
    emitError(func.getLoc(),
              "patch-prefix: max-mac-overhead must be a percentage >= 0");
    return failure();
  }
  if (!func.getBody().hasOneBlock())
    return success();
  CostModelOptions options{model, io, alignment};
  PrefixAnalysis analysis(func);
  if (analysis.cuts.empty()) {
    if (!isAuto)
      emitWarning(func.getLoc(),
                  "patch-prefix: no prefix of convolutions, poolings and "
                  "elementwise ops ends in a single value; nothing patched");
    else
      emitRemark(func.getLoc(),
                 "patch-prefix: no patch grid: no prefix of convolutions, "
                 "poolings and elementwise ops ends in a single value");
    return success();
  }

  std::optional<PatchPlan> plan;
  int64_t peakBefore = 0, peakAfter = 0;
  if (isAuto) {
    std::string whyNone;
    FailureOr<std::optional<PatchPlan>> chosen =
        chooseAutoPlan(func, analysis, options, forBlocks, peakBefore,
                       peakAfter, whyNone);
    if (failed(chosen))
      return failure();
    plan = *chosen;
    if (!plan)
      emitRemark(func.getLoc(), "patch-prefix: ") << whyNone;
  } else {
    // The forced grid, on the longest prefix within the MAC limit (or the
    // shortest one the grid fits if none is).
    FailureOr<int64_t> unpatched = getBlockOrderPeak(func, options);
    if (failed(unpatched))
      return failure();
    peakBefore = *unpatched;
    double limit = maxMacOverhead / 100.0 * analysis.totalMacs;
    if (forcedCut && *forcedCut >= analysis.cuts.size()) {
      emitError(func.getLoc(), "patch-prefix: cut ")
          << *forcedCut << " does not exist (the function has "
          << analysis.cuts.size() << " cuts)";
      return failure();
    }
    for (unsigned index = analysis.cuts.size(); index-- > 0;) {
      // A forced cut (@<cut>) is taken whatever its MACs.
      if (forcedCut && index != *forcedCut)
        continue;
      unsigned cut = analysis.cuts[index];
      RankedTensorType cutType =
          getImageType(analysis.ops[cut]->getResult(0).getType());
      if (rows > cutType.getDimSize(1) || cols > cutType.getDimSize(2))
        continue;
      PatchPlan candidate{cut, rows, cols, analysis.totalMacs, 0};
      candidate.macsAfter = analysis.totalMacs -
                            getPrefixMacs(analysis, cut, 1, 1) +
                            getPrefixMacs(analysis, cut, rows, cols);
      plan = candidate;
      if (candidate.macsAfter - candidate.macsBefore <= limit)
        break;
    }
    if (!plan) {
      emitWarning(func.getLoc(), "patch-prefix: no cut is at least ")
          << rows << "x" << cols << " pixels; nothing patched";
      return success();
    }
    FailureOr<PlanPeaks> peaks =
        evaluatePlanPeaks(func, *plan, options, loop);
    if (failed(peaks))
      return failure();
    peakAfter = peaks->peak;
  }
  if (!plan)
    return success();

  Operation *cutOp = analysis.ops[plan->cut];
  std::string cutName = (cutOp->getName().getStringRef() + " at " +
                         getLocationLabel(cutOp->getLoc()))
                            .str();
  // One loop over uniform patches computes halos outside the image too:
  // its MACs and peak are the loop's.
  if (loop && succeeded(applyPatchLoop(analysis, *plan))) {
    plan->macsAfter = getTotalMultiplyAccumulates(func);
    FailureOr<int64_t> peak = getBlockOrderPeak(func, options);
    if (failed(peak))
      return failure();
    peakAfter = *peak;
  } else if (failed(applyPatchPlan(analysis, *plan))) {
    return cutOp->emitError("patch-prefix: the ")
           << plan->rows << "x" << plan->cols
           << " grid leaves a patch without input";
  }
  PatchSummary{cutName,         plan->rows, plan->cols, plan->macsBefore,
               plan->macsAfter, peakBefore, peakAfter}
      .write(func);
  ++prefixesPatched;
  return success();
}

void PatchPrefixPass::runOnOperation() {
  func::FuncOp func = getOperation();
  StringRef spec = patches;
  bool blocks = spec.consume_back("+blocks");
  if (func.isExternal() || (spec == "off" && !blocks))
    return markAllAnalysesPreserved();
  if (failed(patchPrefix(func, spec, blocks)))
    return signalPassFailure();
  if (!blocks || !func.getBody().hasOneBlock())
    return;
  // The MAC limit counts from the unpatched function.
  int64_t baseMacs = 0;
  if (std::optional<PatchSummary> summary = PatchSummary::read(func))
    baseMacs = summary->macsBefore;
  else
    baseMacs = getTotalMultiplyAccumulates(func);
  SmallVector<std::string> applied;
  if (failed(patchBlocks(func, CostModelOptions{model, io, alignment}, baseMacs,
                         maxMacOverhead, maxGrid, applied)))
    return signalPassFailure();
  if (applied.empty())
    return;
  Builder builder(func.getContext());
  func->setAttr(
      kPatchBlocksAttrName,
      builder.getStrArrayAttr(llvm::to_vector_of<StringRef>(applied)));
  blocksPatched += applied.size();
}

//===----------------------------------------------------------------------===//
// Plans for a caller that chooses
//===----------------------------------------------------------------------===//

std::string PatchPlanCandidate::getOption() const {
  return llvm::formatv("{0}x{1}@{2}", rows, cols, cutIndex).str();
}

FailureOr<SmallVector<PatchPlanCandidate>>
mlir::memopt::listPatchPlans(func::FuncOp func, const CostModelOptions &options,
                             unsigned maxGrid, double maxMacOverhead) {
  SmallVector<PatchPlanCandidate> plans;
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return plans;
  PrefixAnalysis analysis(func);
  double limit = maxMacOverhead / 100.0 * analysis.totalMacs;
  for (auto [cutIndex, cut] : llvm::enumerate(analysis.cuts)) {
    Operation *cutOp = analysis.ops[cut];
    RankedTensorType cutType = getImageType(cutOp->getResult(0).getType());
    std::string cutName = (cutOp->getName().getStringRef() + " at " +
                           getLocationLabel(cutOp->getLoc()))
                              .str();
    int64_t prefixMacs = getPrefixMacs(analysis, cut, 1, 1);
    for (int64_t rows = 1; rows <= maxGrid; ++rows) {
      for (int64_t cols = std::max<int64_t>(1, rows - 1);
           cols <= std::min<int64_t>(maxGrid, rows + 1); ++cols) {
        if (rows * cols == 1 || rows > cutType.getDimSize(1) ||
            cols > cutType.getDimSize(2))
          continue;
        PatchPlan plan{cut, rows, cols, analysis.totalMacs, 0};
        plan.macsAfter = analysis.totalMacs - prefixMacs +
                         getPrefixMacs(analysis, cut, rows, cols);
        if (plan.macsAfter - plan.macsBefore > limit)
          continue;
        FailureOr<std::pair<int64_t, int64_t>> bounds =
            evaluatePlanBounds(func, plan, options);
        if (failed(bounds))
          continue;
        PatchPlanCandidate candidate;
        candidate.cutIndex = cutIndex;
        candidate.cut = cutName;
        candidate.rows = rows;
        candidate.cols = cols;
        candidate.prefixOps = cut + 1;
        candidate.macsBefore = plan.macsBefore;
        candidate.macsAfter = plan.macsAfter;
        candidate.blockOrderPeak = bounds->first;
        candidate.peakLowerBound = bounds->second;
        plans.push_back(std::move(candidate));
      }
    }
  }
  return plans;
}

//===----------------------------------------------------------------------===//
// PatchSummary
//===----------------------------------------------------------------------===//

std::optional<PatchSummary> PatchSummary::read(Operation *func) {
  auto dict = func->getAttrOfType<DictionaryAttr>(kPatchesAttrName);
  if (!dict)
    return std::nullopt;
  auto cut = dict.getAs<StringAttr>("cut");
  if (!cut)
    return std::nullopt;
  PatchSummary summary;
  summary.cut = cut.str();
  int64_t *fields[] = {&summary.rows,       &summary.cols,
                       &summary.macsBefore, &summary.macsAfter,
                       &summary.peakBefore, &summary.peakAfter};
  StringRef names[] = {"rows",       "cols",        "macs_before",
                       "macs_after", "peak_before", "peak_after"};
  for (auto [field, name] : llvm::zip_equal(fields, names)) {
    auto value = dict.getAs<IntegerAttr>(name);
    if (!value)
      return std::nullopt;
    *field = value.getInt();
  }
  return summary;
}

void PatchSummary::write(Operation *func) const {
  Builder builder(func->getContext());
  auto integer = [&](StringRef name, int64_t value) {
    return builder.getNamedAttr(name, builder.getI64IntegerAttr(value));
  };
  func->setAttr(
      kPatchesAttrName,
      builder.getDictionaryAttr(
          {builder.getNamedAttr("cut", builder.getStringAttr(cut)),
           integer("rows", rows), integer("cols", cols),
           integer("macs_before", macsBefore), integer("macs_after", macsAfter),
           integer("peak_before", peakBefore),
           integer("peak_after", peakAfter)}));
}

void PatchSummary::print(raw_ostream &os) const {
  double extra =
      macsBefore ? 100.0 * double(macsAfter - macsBefore) / double(macsBefore)
                 : 0.0;
  os << rows << "x" << cols << " patches up to " << cut << ": MACs "
     << macsBefore << " -> " << macsAfter << " (+"
     << llvm::formatv("{0:F1}", extra) << "%), predicted peak " << peakBefore
     << " -> " << peakAfter << " bytes";
}

llvm::json::Object PatchSummary::toJSON() const {
  return llvm::json::Object{{"cut", cut},
                            {"rows", rows},
                            {"cols", cols},
                            {"macs_before", macsBefore},
                            {"macs_after", macsAfter},
                            {"peak_before", peakBefore},
                            {"peak_after", peakAfter}};
}
