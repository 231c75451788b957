//===- LocationMarks.h - Decisions carried by op locations ------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// `mark-fused-elementwise` records the memory model's fusion decisions on the
// scheduled TOSA by wrapping an op's location in a `FusedLoc` whose metadata
// names the decision (the names are in MemOpt/Utils/Attributes.h). Locations
// survive the conversion to linalg, where `fuse-elementwise-groups` and
// `fuse-rescale-accumulators` read them back. These helpers are the one
// encoding of such a mark.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_CONVERSION_LOCATIONMARKS_H
#define MEMOPT_CONVERSION_LOCATIONMARKS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"

namespace mlir {
namespace memopt {

/// Metadata of the `FusedLoc` of the copy of a padded window's part of its
/// source (`fuse-rescale-accumulators`): the copy covers exactly the
/// intersection of the window with the source, so `arm-dsp-int8-kernels`
/// may test a tap against the source's bounds instead of the copied part.
constexpr llvm::StringLiteral kPaddedWindowLocName = "memopt.padded_window";

/// Returns true if the location of \p op is a `FusedLoc` whose metadata is
/// the string \p mark.
inline bool hasLocationMark(Operation *op, StringRef mark) {
  auto fused = dyn_cast<FusedLoc>(op->getLoc());
  auto metadata =
      fused ? dyn_cast_or_null<StringAttr>(fused.getMetadata()) : StringAttr();
  return metadata && metadata.getValue() == mark;
}

/// Wraps the location of \p op in a `FusedLoc` with metadata \p mark, unless
/// it carries that mark already.
inline void addLocationMark(Operation *op, StringRef mark) {
  if (hasLocationMark(op, mark))
    return;
  MLIRContext *context = op->getContext();
  op->setLoc(
      FusedLoc::get(context, {op->getLoc()}, StringAttr::get(context, mark)));
}

/// Removes \p mark from the location of \p op, keeping the locations it
/// wraps.
inline void removeLocationMark(Operation *op, StringRef mark) {
  if (!hasLocationMark(op, mark))
    return;
  ArrayRef<Location> locations = cast<FusedLoc>(op->getLoc()).getLocations();
  op->setLoc(FusedLoc::get(op->getContext(), locations, Attribute()));
}

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_CONVERSION_LOCATIONMARKS_H
