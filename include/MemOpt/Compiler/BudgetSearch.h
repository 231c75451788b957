//===- BudgetSearch.h - The configurations a budget weighs ------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// What the compile driver weighed when an SRAM budget chose the program
// (`mem-opt-compile --sram=N` without `--patches`): each configuration it
// can prove (no patches, or a patch grid on a cut of the prefix), its cost,
// its proven SRAM where it was planned, and which one was chosen and why.
// The report prints it as its "candidates" section.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_COMPILER_BUDGETSEARCH_H
#define MEMOPT_COMPILER_BUDGETSEARCH_H

#include "mlir/Support/LLVM.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace memopt {

/// One configuration a budget weighed.
struct BudgetCandidate {
  /// The `--patches` value that compiles it: `off` or `<rows>x<cols>@<cut>`.
  std::string patches;
  /// "no patches" or "2x3 patches up to <cut op> at <node>".
  std::string description;
  /// Multiply-accumulates of the program.
  int64_t macs = 0;
  /// Estimated cost in MAC-equivalents: the MACs plus, per extra patch, a
  /// penalty per op of the patched prefix (kBudgetPatchPenalty); the order
  /// of the candidates' instruction counts.
  int64_t cost = 0;
  /// A proven lower bound on its SRAM (the exact scheduler's bound on every
  /// order of its TOSA, which includes the caller's I/O).
  int64_t lowerBound = 0;
  /// Its proven SRAM (arena + caller I/O, planned up to stop-after=plan), if
  /// it was evaluated.
  std::optional<int64_t> sramBytes;
  /// Flash for code, known for the chosen one once compiled.
  std::optional<int64_t> codeBytes;
  /// "fits", "over the budget", "bound over the budget" (not planned: its
  /// lower bound exceeds the budget), "not evaluated" or "failed".
  std::string status;
};

/// Per extra patch and per op of the patched prefix, the MAC-equivalents a
/// candidate's cost adds for the patch's loop set-up, views and insert.
constexpr int64_t kBudgetPatchPenalty = 1000;
/// Largest number of patch rows and columns a budget weighs.
constexpr unsigned kBudgetMaxGrid = 8;
/// Most candidates a budget plans (stop-after=plan) before it gives up.
constexpr unsigned kBudgetMaxEvaluations = 24;

/// What a budget weighed and chose.
struct BudgetReport {
  /// The budget in bytes.
  int64_t budgetBytes = 0;
  /// `speed` (the fewest estimated instructions that fit) or `memory` (the
  /// smallest SRAM, with --optimize=memory).
  std::string goal = "speed";
  /// The extra MACs a patch grid may add, in percent (--max-mac-overhead).
  double maxMacOverhead = 0;
  /// Every configuration, cheapest first.
  std::vector<BudgetCandidate> candidates;
  /// Index of the chosen one, if one fits.
  std::optional<size_t> chosen;
  /// Why it was chosen, or why none was.
  std::string reason;

  /// Prints the "Candidates" section of the text report.
  void printText(raw_ostream &os) const;
  /// Returns the "candidates" object of the JSON report.
  llvm::json::Value toJSON() const;
};

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_COMPILER_BUDGETSEARCH_H
