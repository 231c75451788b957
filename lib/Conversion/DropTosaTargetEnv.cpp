//===- DropTosaTargetEnv.cpp - drop-tosa-target-env pass ------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Removes the module's `tosa.target_env` once its TOSA is lowered: the
// attribute only tells TOSA validation which profiles and extensions (such
// as the `doubleround` of TFLite's rounding) the module may use, and tools
// without the TOSA dialect cannot parse it.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Conversion/Passes.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_DROPTOSATARGETENVPASS
#include "MemOpt/Conversion/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

namespace {
/// Removes the `tosa.target_env` attribute of the module.
struct DropTosaTargetEnvPass
    : memopt::impl::DropTosaTargetEnvPassBase<DropTosaTargetEnvPass> {
  void runOnOperation() override {
    getOperation()->removeAttr("tosa.target_env");
  }
};
} // namespace
