//===- Attributes.h - Names of mem-opt's discardable attributes -*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Names of the discardable attributes that one part of mem-opt writes and
// another reads, kept in one header that every layer may include (it needs
// only LLVM's StringLiteral), so that writer and reader cannot disagree.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_UTILS_ATTRIBUTES_H
#define MEMOPT_UTILS_ATTRIBUTES_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
namespace memopt {

/// Unit attribute on a `tosa.add %acc, %partial` that accumulates a partial
/// convolution into the running sum. Written by `partition-concat`
/// (PartitionConcat.h); read by the memory model (DataflowGraph), which may
/// then accumulate in place into one buffer.
constexpr llvm::StringLiteral kAccumulateAttrName = "memopt.accumulate";

/// Metadata of the `FusedLoc` with which `mark-fused-elementwise` wraps the
/// location of every TOSA op the memory model computes inside its consumer
/// (isFusedIntoConsumer). The location survives TOSA to linalg, whose
/// `linalg.generic` `fuse-elementwise-groups` then fuses into its consumer.
constexpr llvm::StringLiteral kFusedIntoConsumerLocName =
    "memopt.fused_into_consumer";

/// Metadata of the `FusedLoc` with which `mark-fused-elementwise` wraps the
/// location of every int8 convolution, depthwise convolution or matmul that
/// the memory model computes inside the loop of its rescale
/// (isFusedAccumulator). The location survives TOSA to linalg (the op's
/// initialization and a depthwise bias add get it too), and
/// `fuse-rescale-accumulators` (with `require-marks`) fuses exactly the
/// chains whose accumulator carries it.
constexpr llvm::StringLiteral kFusedAccumulatorLocName =
    "memopt.fused_accumulator";

/// Metadata of the `FusedLoc` with which `fuse-rescale-accumulators` wraps
/// the location of the `tensor.empty` of a register accumulator
/// (isRegisterAccumulator): the i32 accumulator of one output element of a
/// fused one-pixel convolution or matmul. `memplan-plan-arena` turns its
/// hoisted allocation into a `memref.alloca` with the unit attribute of the
/// same name, which the arena plan leaves out (MemRefLiveness) and LLVM keeps
/// in a register.
constexpr llvm::StringLiteral kRegisterAccumulatorName =
    "memopt.register_accumulator";

/// Metadata of the `FusedLoc` with which `mark-fused-elementwise` wraps the
/// location of every TOSA op whose result the memory model computes directly
/// into its slice of a concat's buffer (getInPlaceConcat). The location
/// survives TOSA to linalg, and `prepare-bufferization` redirects the init of
/// the marked op's lowering into the slice (a marked op it cannot redirect
/// is an error).
constexpr llvm::StringLiteral kIntoConcatSliceLocName =
    "memopt.into_concat_slice";

/// Metadata of the `FusedLoc` with which `mark-fused-elementwise` wraps the
/// location of every `scf.for` of the scheduled TOSA (a loop over patches):
/// the memory model counts its body's peak, one iteration at a time, so
/// `hoist-static-allocations` keeps the body's allocations inside the body,
/// where `MemRefLiveness` numbers its ops as steps of their own and the arena
/// plan gives them the same offsets in every iteration.
constexpr llvm::StringLiteral kPlannedLoopLocName = "memopt.planned_loop";

/// Integer attribute on an elementwise `linalg.generic` at the top level of a
/// function: the number of the input (among its DPS inputs) whose buffer the
/// result may take over, because the input dies there (canOverwriteOperand).
/// Written by `prepare-bufferization` on tensors; read by
/// `reuse-dying-inputs` after one-shot bufferization, which makes the generic
/// write over that input's buffer and drops the attribute.
constexpr llvm::StringLiteral kOverwriteInputAttrName =
    "memopt.overwrite_input";

/// Dictionary attribute on a function that `patch-prefix` patched: the cut,
/// the grid, MACs and predicted peak before and after (PatchSummary in
/// MemOpt/Transforms/PatchPrefix.h).
constexpr llvm::StringLiteral kPatchesAttrName = "memopt.patches";
/// On a function: the blocks `patches=<...>+blocks` computes in bands, one
/// line each (an array of strings).
constexpr llvm::StringLiteral kPatchBlocksAttrName = "memopt.patch_blocks";
/// `array<i64: grid, patch>` on every op that `patch-prefix` (or a band of
/// `+blocks`) creates for one patch: the grid (numbered from 0 in each
/// function) and the patch's index in it. Read by the memory model
/// (DataflowGraph): patch k of a grid runs after the last op of patch k - 1,
/// so the patches run one at a time in grid order, as one loop over the
/// patches would run them.
constexpr llvm::StringLiteral kPatchAttrName = "memopt.patch";

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_UTILS_ATTRIBUTES_H
