//===- ScheduleAttributes.h - Certificate attributes ------------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Names of the attributes memory-schedule records on a function and
// memory-report reads.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TRANSFORMS_SCHEDULEATTRIBUTES_H
#define MEMOPT_TRANSFORMS_SCHEDULEATTRIBUTES_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
namespace memopt {

constexpr llvm::StringLiteral kPeakBytesAttrName = "memopt.peak_bytes";
constexpr llvm::StringLiteral kLowerBoundAttrName = "memopt.lower_bound";
constexpr llvm::StringLiteral kOptimalAttrName = "memopt.optimal";
constexpr llvm::StringLiteral kScheduleTimeAttrName = "memopt.schedule_time_ms";
/// Set only when a limit stopped the exact search: "states" (the state
/// budget, reproducible) or "clock" (the safety stop, machine-dependent).
constexpr llvm::StringLiteral kScheduleStoppedByAttrName =
    "memopt.schedule_stopped_by";

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_TRANSFORMS_SCHEDULEATTRIBUTES_H
