//===- PatchPrefix.h - What patch-prefix chose for a function ---*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// `patch-prefix` records its choice on the function as `memopt.patches`;
// memory-report and mem-opt-compile's report read it back through
// PatchSummary, so writer and readers share one layout. listPatchPlans
// lists the (cut, grid) plans the pass can apply, with their costs, for a
// caller that chooses among them (mem-opt-compile --sram).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TRANSFORMS_PATCHPREFIX_H
#define MEMOPT_TRANSFORMS_PATCHPREFIX_H

#include "MemOpt/CostModel/CostModel.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace mlir {
class Operation;
namespace func {
class FuncOp;
} // namespace func

namespace memopt {

/// The patch grid `patch-prefix` chose for a function.
struct PatchSummary {
  /// The cut op: "<op name> at <location label>".
  std::string cut;
  int64_t rows = 1, cols = 1;
  /// Multiply-accumulates of the function without and with patches.
  int64_t macsBefore = 0, macsAfter = 0;
  /// Predicted peak (bytes, the pass's memory model) without and with them.
  int64_t peakBefore = 0, peakAfter = 0;

  /// Returns the summary recorded on \p func, if patch-prefix patched it.
  static std::optional<PatchSummary> read(Operation *func);
  /// Records this summary on \p func.
  void write(Operation *func) const;
  /// Prints "4x4 patches up to <cut>: MACs A -> B (+x.y%), predicted peak
  /// C -> D bytes".
  void print(raw_ostream &os) const;
  /// Returns the summary as a JSON object.
  llvm::json::Object toJSON() const;
};

/// One plan patch-prefix can apply to a function: a cut and a grid, which
/// `patches=<rows>x<cols>@<cutIndex>` forces, and what it costs.
struct PatchPlanCandidate {
  /// Index of the cut among the function's valid cuts, in block order.
  unsigned cutIndex = 0;
  /// The cut op: "<op name> at <location label>".
  std::string cut;
  int64_t rows = 1, cols = 1;
  /// Activation ops of the prefix, which every patch runs again.
  unsigned prefixOps = 0;
  /// Multiply-accumulates of the function without and with the patches.
  int64_t macsBefore = 0, macsAfter = 0;
  /// The patched function's peak in block order (the scheduler never does
  /// worse) and a proven lower bound on the peak of every order, under the
  /// memory model options given to listPatchPlans.
  int64_t blockOrderPeak = 0, peakLowerBound = 0;

  /// Returns the `patches=` value that applies this plan: "2x3@4".
  std::string getOption() const;
};

/// Lists the plans of \p func's prefix: every valid cut with every grid of
/// at most \p maxGrid rows and columns whose rows and columns differ by at
/// most one (1x2, 2x1, 2x2, 2x3, ...), whose extra multiply-accumulates stay
/// within \p maxMacOverhead percent of the function's, ordered by cut, then
/// rows, then columns. Plans the rewrite cannot apply (a patch without
/// input) are left out. Fails after a diagnostic if the function cannot be
/// modelled.
FailureOr<SmallVector<PatchPlanCandidate>>
listPatchPlans(func::FuncOp func, const CostModelOptions &options,
               unsigned maxGrid, double maxMacOverhead);

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_TRANSFORMS_PATCHPREFIX_H
