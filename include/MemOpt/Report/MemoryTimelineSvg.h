//===- MemoryTimelineSvg.h - SVG plot of live bytes per step ----*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Renders memory timelines (live activation bytes at each step of an order)
// as a deterministic SVG chart, like the memory-usage figures of the
// scheduling papers: one staircase line per order, its peak marked with a
// dot, a dashed line and a label naming the op at the peak, axes labelled in
// steps and KiB, and a legend that gives every line's peak. A line equal to
// an earlier one is drawn dashed on top of it, so both stay visible.
// memory-report's `format=svg` uses it.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_REPORT_MEMORYTIMELINESVG_H
#define MEMOPT_REPORT_MEMORYTIMELINESVG_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>

namespace mlir {
namespace memopt {

/// One line of a chart: the bytes live at each step of one order.
struct TimelineSeries {
  /// Legend label, e.g. "file order" or "exact".
  std::string label;
  /// Bytes live at each step.
  SmallVector<int64_t> liveBytes;
  /// The largest entry of liveBytes (0 if empty).
  int64_t peakBytes = 0;
  /// The first step at which the peak is reached.
  unsigned peakStep = 0;
  /// Name of the op at the peak step (its NameLoc, or file:line:col), shown
  /// in the peak label and the legend; empty if unknown.
  std::string peakOp;
};

/// One chart: a title and the lines drawn on shared axes.
struct TimelineChart {
  /// Title printed above the plot (e.g. the function name).
  std::string title;
  /// The lines; the first is drawn last (on top).
  SmallVector<TimelineSeries> series;
};

/// Writes \p charts, stacked vertically, as one SVG document to \p os. The
/// output depends only on the arguments (fixed-precision numbers, no
/// timestamps).
void writeMemoryTimelineSvg(raw_ostream &os, ArrayRef<TimelineChart> charts);

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_REPORT_MEMORYTIMELINESVG_H
