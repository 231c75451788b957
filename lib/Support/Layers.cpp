//===- Layers.cpp - The source model's layer of an op ---------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Writes and reads the layer identity and the weight mark that the importers
// put in op locations (MemOpt/Support/Layers.h).
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Support/Layers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"

using namespace mlir;
using namespace mlir::memopt;

/// The metadata of the weight mark.
static constexpr llvm::StringLiteral kWeightMark = "memopt.weight";

/// Returns the layer's metadata if \p loc is a layer location.
static DictionaryAttr getLayerMetadata(Location loc) {
  auto fused = dyn_cast<FusedLoc>(loc);
  if (!fused)
    return nullptr;
  auto dict = dyn_cast_or_null<DictionaryAttr>(fused.getMetadata());
  if (!dict || !dict.getAs<IntegerAttr>("layer") ||
      !dict.getAs<StringAttr>("op"))
    return nullptr;
  return dict;
}

Location mlir::memopt::getLayerLoc(MLIRContext *context, int64_t index,
                                   StringRef kind, StringRef name) {
  Builder builder(context);
  DictionaryAttr metadata = builder.getDictionaryAttr(
      {builder.getNamedAttr("layer", builder.getI64IntegerAttr(index)),
       builder.getNamedAttr("op", builder.getStringAttr(kind))});
  return FusedLoc::get(context, {NameLoc::get(builder.getStringAttr(name))},
                       metadata);
}

Location mlir::memopt::addLayerLoc(Location loc, Location layerLoc) {
  if (findLayer(loc))
    return loc;
  MLIRContext *context = loc.getContext();
  if (auto nameLoc = dyn_cast<NameLoc>(loc))
    return NameLoc::get(
        nameLoc.getName(),
        FusedLoc::get(context, {nameLoc.getChildLoc(), layerLoc}));
  return FusedLoc::get(context, {loc, layerLoc});
}

std::optional<LayerIdentity> mlir::memopt::findLayer(Location loc) {
  std::optional<LayerIdentity> layer;
  loc->walk([&](Location inner) {
    DictionaryAttr metadata = getLayerMetadata(inner);
    if (!metadata)
      return WalkResult::advance();
    LayerIdentity identity;
    identity.index = metadata.getAs<IntegerAttr>("layer").getInt();
    identity.kind = metadata.getAs<StringAttr>("op").getValue().str();
    for (Location part : cast<FusedLoc>(inner).getLocations())
      if (auto nameLoc = dyn_cast<NameLoc>(part)) {
        identity.name = nameLoc.getName().getValue().str();
        break;
      }
    layer = std::move(identity);
    return WalkResult::interrupt();
  });
  return layer;
}

Location mlir::memopt::getWeightLoc(Location loc) {
  // The mark wraps the location (a FusedLoc of no location would be empty,
  // which LLVM's debug translation does not take).
  MLIRContext *context = loc.getContext();
  return FusedLoc::get(context, {loc}, StringAttr::get(context, kWeightMark));
}

bool mlir::memopt::isWeightLoc(Location loc) {
  bool found = false;
  loc->walk([&](Location inner) {
    auto fused = dyn_cast<FusedLoc>(inner);
    auto mark =
        fused ? dyn_cast_or_null<StringAttr>(fused.getMetadata()) : nullptr;
    if (mark && mark.getValue() == kWeightMark) {
      found = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}
