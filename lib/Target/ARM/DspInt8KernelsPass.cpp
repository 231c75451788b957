//===- DspInt8KernelsPass.cpp - arm-dsp-int8-kernels pass -----------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The pass that applies the Armv7E-M DSP kernel patterns of
// DspInt8Kernels.cpp to a function.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Target/ARM/Passes.h"

#include "DspKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_ARMDSPINT8KERNELSPASS
#include "MemOpt/Target/ARM/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

namespace {
/// Applies the DSP kernel patterns to a function.
struct ArmDspInt8KernelsPass
    : memopt::impl::ArmDspInt8KernelsPassBase<ArmDspInt8KernelsPass> {
  using ArmDspInt8KernelsPassBase::ArmDspInt8KernelsPassBase;

  void runOnOperation() override {
    if (ocBlock < 1 || ocBlock > 8) {
      getOperation().emitOpError("arm-dsp-int8-kernels: oc-block must be "
                                 "in [1, 8], got ")
          << static_cast<int64_t>(ocBlock.getValue());
      return signalPassFailure();
    }
    // The channel loops of the in-place depthwise first: the other patterns
    // rewrite the convolution of each of their pixels.
    // Only the rows: no folding, which would rewrite the other ops' bodies
    // (constants hoisted out of a rescale's body) before their patterns.
    RewritePatternSet rowPatterns(&getContext());
    armkernels::dsp::populateDepthwiseRowsPatterns(rowPatterns);
    if (failed(applyPatternsGreedily(
            getOperation(), std::move(rowPatterns),
            GreedyRewriteConfig().enableFolding(false).enableConstantCSE(
                false))))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateArmDspInt8KernelPatterns(patterns, ocBlock, unroll, dualLoads);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
