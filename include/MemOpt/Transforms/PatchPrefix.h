//===- PatchPrefix.h - What patch-prefix chose for a function ---*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// `patch-prefix` records its choice on the function as `memopt.patches`;
// memory-report and mem-opt-compile's report read it back through
// PatchSummary, so writer and readers share one layout.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TRANSFORMS_PATCHPREFIX_H
#define MEMOPT_TRANSFORMS_PATCHPREFIX_H

#include "mlir/Support/LLVM.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace mlir {
class Operation;

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

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_TRANSFORMS_PATCHPREFIX_H
