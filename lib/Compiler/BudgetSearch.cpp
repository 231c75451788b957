//===- BudgetSearch.cpp - An SRAM budget chooses the program --------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// With `--sram=N` and no `--patches`, the compile driver weighs the
// configurations it can prove: no patches, and every (cut, grid) plan of
// patch-prefix within the MAC limit (listPatchPlans). Each has a cost known
// before any compile (MACs plus a per-patch penalty) and a proven lower
// bound on its SRAM. In cost order, a candidate whose bound exceeds N is
// skipped; the others are planned (cortex-m-pipeline up to stop-after=plan,
// the arena and the caller's I/O the firmware uses) until one fits. Only the
// chosen one is compiled to an object. With --optimize=memory, or when none
// fits, the smallest SRAM is searched instead: candidates in order of their
// lower bound, until the bound reaches the smallest SRAM planned. Nothing
// depends on the clock.
//
//===----------------------------------------------------------------------===//

#include "CompilerInternal.h"

#include "MemOpt/Analysis/DataflowGraph.h"
#include "MemOpt/Analysis/ScheduleProblemBuilder.h"
#include "MemOpt/Compiler/BudgetSearch.h"
#include "MemOpt/CostModel/CostModel.h"
#include "MemOpt/Transforms/PatchPrefix.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <numeric>

using namespace mlir;
using namespace mlir::memopt;

/// Returns the only function of \p module with a body, or null.
static func::FuncOp getOnlyFunction(ModuleOp module) {
  func::FuncOp only;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    if (only)
      return {};
    only = func;
  }
  return only;
}

/// Returns "+x.y%" of \p macs over \p base.
static std::string getExtraMacs(int64_t macs, int64_t base) {
  double extra = base ? 100.0 * double(macs - base) / double(base) : 0.0;
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%+.1f%%", extra);
  return text;
}

/// Returns \p value as printf's %g prints it.
static std::string formatNumber(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", value);
  return text;
}

/// Plans \p module with \p patches (up to stop-after=plan, no budget) on a
/// copy and returns the SRAM of its function: the arena plus \p callerIO.
/// The candidate's errors are not shown: a failing candidate is only left
/// out.
static FailureOr<int64_t> planCandidate(ModuleOp module,
                                        const CompileOptions &options,
                                        StringRef patches, int64_t callerIO) {
  OwningOpRef<ModuleOp> copy = cast<ModuleOp>(module->clone());
  CompileOptions trial = options;
  trial.patches = patches.str();
  trial.sramBytes = 0;
  ScopedDiagnosticHandler silence(module.getContext(),
                                  [](Diagnostic &) { return success(); });
  if (failed(runCortexMPipelineStage(*copy, trial, "plan")))
    return failure();
  func::FuncOp func = getOnlyFunction(*copy);
  std::optional<int64_t> arena =
      func ? getIntAttr(func, "memplan.arena_size") : std::nullopt;
  if (!arena)
    return failure();
  return *arena + callerIO;
}

/// Returns the candidates of \p func (the TOSA patch-prefix sees), cheapest
/// first: no patches and every plan of listPatchPlans.
static FailureOr<std::vector<BudgetCandidate>>
listCandidates(func::FuncOp func, const CompileOptions &options) {
  // memory-schedule marks convolutions to write over their inputs after
  // this: bounds that count every one are bounds of any marking.
  CostModelOptions costModel{MemoryModelKind::Lowering, options.io,
                             options.alignment,
                             /*assumeShiftedOverwrites=*/true};
  FailureOr<DataflowGraph> graph = DataflowGraph::build(func, costModel);
  if (failed(graph))
    return failure();
  BudgetCandidate off;
  off.patches = "off";
  off.description = "no patches";
  off.macs = getTotalMultiplyAccumulates(func);
  off.cost = off.macs;
  off.lowerBound =
      scheduleForMemory(*graph, ScheduleAlgorithm::Exact, SchedulerLimits{0, 1})
          .lowerBound;
  std::vector<BudgetCandidate> candidates = {off};

  FailureOr<SmallVector<PatchPlanCandidate>> plans =
      listPatchPlans(func, costModel, kBudgetMaxGrid, options.maxMacOverhead);
  if (failed(plans))
    return failure();
  for (const PatchPlanCandidate &plan : *plans) {
    BudgetCandidate candidate;
    candidate.patches = plan.getOption();
    candidate.description = llvm::formatv("{0}x{1} patches up to {2}",
                                          plan.rows, plan.cols, plan.cut)
                                .str();
    candidate.macs = plan.macsAfter;
    candidate.cost = plan.macsAfter + kBudgetPatchPenalty * plan.prefixOps *
                                          (plan.rows * plan.cols - 1);
    candidate.lowerBound = plan.peakLowerBound;
    candidates.push_back(std::move(candidate));
  }
  // Cheapest first; ties keep the order above (no patches, then by cut and
  // grid), so the choice is deterministic.
  llvm::stable_sort(candidates,
                    [](const BudgetCandidate &a, const BudgetCandidate &b) {
                      return a.cost < b.cost;
                    });
  return candidates;
}

/// Returns "2x3@4 (2x3 patches up to <cut>, +8.1% MACs)".
static std::string describe(const BudgetCandidate &candidate, int64_t base) {
  if (candidate.patches == "off")
    return "patches=off (no patches)";
  return "patches=" + candidate.patches + " (" + candidate.description + ", " +
         getExtraMacs(candidate.macs, base) + " MACs)";
}

FailureOr<BudgetReport> mlir::memopt::chooseBudgetConfiguration(
    ModuleOp module, ArrayRef<FunctionInfo> infos,
    const CompileOptions &options, const CompileProgress &progress) {
  MLIRContext *context = module.getContext();
  BudgetReport report;
  report.budgetBytes = options.sramBytes;
  report.goal = options.optimize == OptimizeGoal::Memory && !options.optLevel
                    ? "memory"
                    : "speed";
  report.maxMacOverhead = options.maxMacOverhead;
  if (!getOnlyFunction(module) || infos.size() != 1) {
    report.reason = "the model has several functions: the budget is checked, "
                    "not searched";
    return report;
  }
  int64_t callerIO = 0;
  if (options.io == IOPlacement::Caller) {
    for (RankedTensorType type : infos.front().inputs)
      callerIO += getCallerBytes(type);
    for (RankedTensorType type : infos.front().outputs)
      callerIO += getCallerBytes(type);
  }

  // The TOSA patch-prefix sees: the pipeline's preparation, in file order.
  OwningOpRef<ModuleOp> prepared = cast<ModuleOp>(module->clone());
  {
    CompileOptions prepare = options;
    prepare.patches = "off";
    prepare.sramBytes = 0;
    prepare.scheduleAlgorithm = schedule::Algorithm::Input;
    if (failed(runCortexMPipelineStage(*prepared, prepare, "schedule")))
      return failure();
  }
  FailureOr<std::vector<BudgetCandidate>> listed =
      listCandidates(getOnlyFunction(*prepared), options);
  if (failed(listed))
    return failure();
  if (listed->size() == 1) {
    // Nothing to choose: the compile checks the budget, and its error names
    // the op at the peak.
    report.reason = "no patch grid within the MAC limit: the budget is "
                    "checked, not searched";
    return report;
  }
  report.candidates = std::move(*listed);
  std::vector<BudgetCandidate> &candidates = report.candidates;
  for (BudgetCandidate &candidate : candidates)
    candidate.status = "not evaluated";
  int64_t base = llvm::find_if(candidates, [](const BudgetCandidate &c) {
                   return c.patches == "off";
                 })->macs;
  int64_t budget = options.sramBytes;
  progress.print(llvm::formatv("budget of {0} bytes: weighing {1} "
                               "configurations (no patches and {2} patch "
                               "grids within {3}% extra MACs)",
                               budget, candidates.size(), candidates.size() - 1,
                               formatNumber(options.maxMacOverhead))
                     .str());

  unsigned evaluations = 0;
  auto evaluate = [&](BudgetCandidate &candidate) {
    ++evaluations;
    FailureOr<int64_t> sram =
        planCandidate(module, options, candidate.patches, callerIO);
    if (failed(sram)) {
      candidate.status = "failed";
      progress.print("candidate " + describe(candidate, base) +
                     ": does not compile");
      return;
    }
    candidate.sramBytes = *sram;
    candidate.status = *sram <= budget ? "fits" : "over the budget";
    progress.print(llvm::formatv("candidate {0}: proven SRAM {1} bytes, {2}",
                                 describe(candidate, base), *sram,
                                 candidate.status)
                       .str());
  };

  // The fewest estimated instructions that fit: cheapest first. The bounds
  // count every convolution written over its input, which the planned
  // program may not afford, so they prune little; a cut where more patches
  // did not lower the planned SRAM (its peak is after the prefix) is not
  // weighed further.
  if (report.goal == "speed") {
    llvm::StringMap<std::pair<int64_t, int64_t>> fewestPatchesAtCut;
    llvm::StringSet<> saturatedCuts;
    for (auto [index, candidate] : llvm::enumerate(candidates)) {
      if (candidate.lowerBound > budget) {
        candidate.status = "bound over the budget";
        continue;
      }
      auto [grid, cut] = StringRef(candidate.patches).split('@');
      if (saturatedCuts.contains(cut)) {
        candidate.status = "more patches at its cut did not lower the SRAM";
        continue;
      }
      if (evaluations == kBudgetMaxEvaluations)
        break;
      evaluate(candidate);
      if (!cut.empty() && candidate.sramBytes) {
        auto [rows, cols] = grid.split('x');
        int64_t patches = std::stoll(rows.str()) * std::stoll(cols.str());
        auto [it, inserted] = fewestPatchesAtCut.try_emplace(
            cut, patches, *candidate.sramBytes);
        if (!inserted && it->second.first < patches &&
            it->second.second <= *candidate.sramBytes)
          saturatedCuts.insert(cut);
        else if (!inserted && it->second.first == patches)
          it->second.second = std::min(it->second.second, *candidate.sramBytes);
        else if (!inserted)
          it->second = {patches, *candidate.sramBytes};
      }
      if (candidate.sramBytes && *candidate.sramBytes <= budget) {
        report.chosen = index;
        report.reason = "the fewest estimated instructions among the "
                        "candidates whose proven SRAM fits";
        break;
      }
    }
  }

  // The smallest SRAM (--optimize=memory, or to name it when none fits):
  // candidates by lower bound, until the bound reaches the best planned.
  if (!report.chosen) {
    std::vector<size_t> byBound(candidates.size());
    std::iota(byBound.begin(), byBound.end(), 0);
    llvm::stable_sort(byBound, [&](size_t a, size_t b) {
      return candidates[a].lowerBound < candidates[b].lowerBound;
    });
    std::optional<size_t> smallest;
    auto isSmaller = [&](size_t a, size_t b) {
      return *candidates[a].sramBytes < *candidates[b].sramBytes ||
             (*candidates[a].sramBytes == *candidates[b].sramBytes &&
              candidates[a].cost < candidates[b].cost);
    };
    for (size_t index = 0; index < candidates.size(); ++index)
      if (candidates[index].sramBytes &&
          (!smallest || isSmaller(index, *smallest)))
        smallest = index;
    for (size_t index : byBound) {
      BudgetCandidate &candidate = candidates[index];
      if (smallest && candidate.lowerBound >= *candidates[*smallest].sramBytes)
        break;
      if (candidate.sramBytes || candidate.status == "failed")
        continue;
      if (evaluations == kBudgetMaxEvaluations)
        break;
      evaluate(candidate);
      if (candidate.sramBytes && (!smallest || isSmaller(index, *smallest)))
        smallest = index;
    }
    if (smallest && *candidates[*smallest].sramBytes <= budget) {
      report.chosen = smallest;
      report.reason = "the smallest proven SRAM (--optimize=memory)";
    } else {
      InFlightDiagnostic diag = emitError(UnknownLoc::get(context));
      diag << "no configuration fits the SRAM budget of " << budget << " bytes";
      if (smallest)
        diag << ": needs at least " << *candidates[*smallest].sramBytes
             << " bytes with " << describe(candidates[*smallest], base);
      int64_t bound =
          llvm::min_element(candidates, [](const BudgetCandidate &a,
                                           const BudgetCandidate &b) {
            return a.lowerBound < b.lowerBound;
          })->lowerBound;
      diag << ", the smallest proven SRAM of the " << evaluations
           << " configurations planned among " << candidates.size()
           << " (no configuration can go below " << bound
           << " bytes; patch grids weighed within --max-mac-overhead="
           << formatNumber(options.maxMacOverhead) << "%)";
      return failure();
    }
  }
  const BudgetCandidate &chosen = candidates[*report.chosen];
  progress.print("chose " + describe(chosen, base) + ": proven SRAM " +
                 Twine(*chosen.sramBytes) + " of " + Twine(budget) + " bytes");
  return report;
}

//===----------------------------------------------------------------------===//
// The report's section
//===----------------------------------------------------------------------===//

/// Returns \p value as JSON, or null.
static llvm::json::Value toJSONOrNull(std::optional<int64_t> value) {
  if (value)
    return *value;
  return nullptr;
}

void BudgetReport::printText(raw_ostream &os) const {
  os << "\nCandidates (budget " << budgetBytes << " bytes, goal " << goal
     << ", patch grids within " << formatNumber(maxMacOverhead)
     << "% extra MACs)\n";
  if (chosen)
    os << "  chosen: " << candidates[*chosen].patches << ", " << reason << "\n";
  else
    os << "  " << reason << "\n";
  if (candidates.empty())
    return;
  os << "  " << llvm::left_justify("patches", 10) << " "
     << llvm::right_justify("SRAM", 8) << " " << llvm::right_justify("bound", 8)
     << " " << llvm::right_justify("MACs", 10) << " "
     << llvm::right_justify("cost", 10) << " " << llvm::right_justify("code", 7)
     << "  status\n";
  size_t skipped = 0;
  for (auto [index, candidate] : llvm::enumerate(candidates)) {
    // Those never planned are counted, not listed (the JSON lists them).
    if (!candidate.sramBytes && candidate.status != "failed") {
      ++skipped;
      continue;
    }
    auto orDash = [](std::optional<int64_t> value) {
      return value ? std::to_string(*value) : std::string("-");
    };
    os << "  " << llvm::left_justify(candidate.patches, 10) << " "
       << llvm::right_justify(orDash(candidate.sramBytes), 8) << " "
       << llvm::right_justify(std::to_string(candidate.lowerBound), 8) << " "
       << llvm::right_justify(std::to_string(candidate.macs), 10) << " "
       << llvm::right_justify(std::to_string(candidate.cost), 10) << " "
       << llvm::right_justify(orDash(candidate.codeBytes), 7) << "  "
       << candidate.status << (chosen && index == *chosen ? "  <- chosen" : "")
       << "  " << candidate.description << "\n";
  }
  if (skipped)
    os << "  (" << skipped << " more not planned: "
       << llvm::count_if(candidates,
                         [](const BudgetCandidate &c) {
                           return c.status == "bound over the budget";
                         })
       << " with a lower bound over the budget, the others costlier than the "
          "chosen one or past the limit of "
       << kBudgetMaxEvaluations << " plans; --report=json lists them)\n";
}

llvm::json::Value BudgetReport::toJSON() const {
  llvm::json::Array array;
  for (auto [index, candidate] : llvm::enumerate(candidates))
    array.push_back(llvm::json::Object{
        {"patches", candidate.patches},
        {"description", candidate.description},
        {"sram_bytes", toJSONOrNull(candidate.sramBytes)},
        {"lower_bound_bytes", candidate.lowerBound},
        {"macs", candidate.macs},
        {"cost", candidate.cost},
        {"code_bytes", toJSONOrNull(candidate.codeBytes)},
        {"status", candidate.status},
        {"chosen", chosen && index == *chosen},
    });
  return llvm::json::Object{
      {"budget_bytes", budgetBytes},
      {"goal", goal},
      {"max_mac_overhead", maxMacOverhead},
      {"chosen",
       chosen ? llvm::json::Value(candidates[*chosen].patches) : nullptr},
      {"reason", reason},
      {"list", std::move(array)},
  };
}
