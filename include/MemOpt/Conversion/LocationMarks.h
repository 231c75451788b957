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
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace mlir {
namespace memopt {

/// Metadata of the `FusedLoc` of the copy of a padded window's part of its
/// source (`fuse-rescale-accumulators`): the copy covers exactly the
/// intersection of the window with the source, so `arm-dsp-int8-kernels`
/// may test a tap against the source's bounds instead of the copied part.
constexpr llvm::StringLiteral kPaddedWindowLocName = "memopt.padded_window";

/// Name of the entry in the metadata (a dictionary) of the `FusedLoc` with
/// which `mark-fused-elementwise` wraps the location of the rescale of a
/// convolution that the lowering computes over its dying input
/// (getOverwrite): the overwrite bound (getOverwriteBound). The location
/// survives to the fused pixel loop, where `memplan-plan-arena` places the
/// output at that bound, aligned, from the input (ArenaBuffer::overwrites).
constexpr llvm::StringLiteral kOverwritesInputLocName =
    "memopt.overwrites_input";

/// Wraps the location of \p op in a `FusedLoc` whose metadata records the
/// overwrite bound \p bound (kOverwritesInputLocName).
inline void addOverwriteMark(Operation *op, int64_t bound) {
  MLIRContext *context = op->getContext();
  auto entry = NamedAttribute(
      StringAttr::get(context, kOverwritesInputLocName),
      IntegerAttr::get(IntegerType::get(context, 64), bound));
  op->setLoc(FusedLoc::get(context, {op->getLoc()},
                           DictionaryAttr::get(context, {entry})));
}

/// Returns the overwrite bound that the location of \p op records
/// (addOverwriteMark), if any.
inline std::optional<int64_t> getOverwriteMark(Operation *op) {
  auto fused = dyn_cast<FusedLoc>(op->getLoc());
  auto metadata =
      fused ? dyn_cast_or_null<DictionaryAttr>(fused.getMetadata())
            : DictionaryAttr();
  auto bound = metadata ? metadata.getAs<IntegerAttr>(kOverwritesInputLocName)
                        : IntegerAttr();
  if (!bound)
    return std::nullopt;
  return bound.getInt();
}

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
