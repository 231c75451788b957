//===- MveInt8KernelsPass.cpp - arm-mve-int8-kernels pass -----------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The pass that applies the MVE kernel patterns of MveInt8Kernels.cpp to
// a function.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Target/ARM/Passes.h"

#include "ApplyScale.h"
#include "DspKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_ARMMVEINT8KERNELSPASS
#include "MemOpt/Target/ARM/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

namespace {
/// Applies the MVE kernel patterns to a function.
struct ArmMveInt8KernelsPass
    : memopt::impl::ArmMveInt8KernelsPassBase<ArmMveInt8KernelsPass> {
  using ArmMveInt8KernelsPassBase::ArmMveInt8KernelsPassBase;

  void runOnOperation() override {
    if (ocBlock < 1 || ocBlock > 8) {
      getOperation().emitOpError("arm-mve-int8-kernels: oc-block must be "
                                 "in [1, 8], got ")
          << static_cast<int64_t>(ocBlock.getValue());
      return signalPassFailure();
    }
    // The channel loops first: the other patterns rewrite the convolution
    // of each of their pixels.
    RewritePatternSet channelPatterns(&getContext());
    populateArmMveDepthwiseChannelPatterns(channelPatterns);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(channelPatterns))))
      return signalPassFailure();
    // The channel loops the vectors leave (fewer than 4 interior columns)
    // as DSP rows.
    RewritePatternSet rowPatterns(&getContext());
    armkernels::dsp::populateDepthwiseRowsPatterns(rowPatterns,
                                                   /*channelCopies=*/false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(rowPatterns))))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateArmMveInt8KernelPatterns(patterns, ocBlock);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // The per-channel DOUBLE_ROUND rescales the vectors did not take (more
    // than one pixel, fewer than 4 channels) in scalar 32-bit arithmetic,
    // after the vector patterns, which match the whole rescale body. (With
    // a constant shift, ASRL makes the 64-bit code as short.)
    RewritePatternSet scalarPatterns(&getContext());
    armkernels::populateScalarRescalePatterns(scalarPatterns,
                                              /*doubleRoundOnly=*/true,
                                              /*shiftValuesOnly=*/true);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(scalarPatterns))))
      signalPassFailure();
  }
};
} // namespace
