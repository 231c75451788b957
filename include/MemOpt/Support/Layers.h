//===- Layers.h - The source model's layer of an op -------------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The importers give every TOSA op the identity of the model layer it came
// from (the TFLite operator or ONNX node), in its location, so that reports
// can fold the TOSA ops of one layer into one row through the whole pipeline.
// An op's location stays `loc("name")` for diagnostics; the layer rides in
// the NameLoc's child, a FusedLoc whose metadata says which layer:
//
//   loc("Conv2d_0/Relu6#rescale"(fused<{layer = 0 : i64, op = "CONV_2D"}>
//       ["Conv2d_0/Relu6"]))
//
// `layer` is the operator's index in the model, `op` its kind, and the
// fused NameLoc the layer's name (the operator's first output tensor, or the
// ONNX node's name). A constant that holds one of the model's own weight
// tensors (its bytes as stored in the file) is marked as well:
//
//   loc(fused<"memopt.weight">["Conv2d_0/weights"])
//
// Ops without a layer (hand-written TOSA) are each a layer of their own.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_SUPPORT_LAYERS_H
#define MEMOPT_SUPPORT_LAYERS_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>

namespace mlir {
namespace memopt {

/// The model layer an op came from.
struct LayerIdentity {
  /// The operator's index in the model (TFLite operator, ONNX node).
  int64_t index = 0;
  /// Its kind: `CONV_2D`, `SOFTMAX`, `Conv`, ...
  std::string kind;
  /// Its name: the first output tensor's (TFLite) or the node's (ONNX).
  std::string name;
};

/// Returns the location that names layer \p index of kind \p kind, called
/// \p name.
Location getLayerLoc(MLIRContext *context, int64_t index, StringRef kind,
                     StringRef name);

/// Returns \p loc with \p layerLoc (getLayerLoc) attached: a NameLoc keeps
/// its name and gets the layer beside its child; any other location is fused
/// with the layer. A location that already has a layer is returned as is.
Location addLayerLoc(Location loc, Location layerLoc);

/// Returns the layer in \p loc (the first in pre-order), if any.
std::optional<LayerIdentity> findLayer(Location loc);

/// Returns \p loc marked as the location of a constant that holds a weight
/// tensor of the model, with the bytes the model file stores.
Location getWeightLoc(Location loc);

/// Returns true if \p loc carries the weight mark of getWeightLoc.
bool isWeightLoc(Location loc);

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_SUPPORT_LAYERS_H
