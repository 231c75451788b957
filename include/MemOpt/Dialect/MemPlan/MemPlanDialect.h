//===- MemPlanDialect.h - memplan dialect -----------------------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Declares the `memplan` dialect, which writes a function's static memory
// plan (one arena, buffers at byte offsets in it) as IR.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_MEMPLAN_MEMPLANDIALECT_H
#define MEMOPT_DIALECT_MEMPLAN_MEMPLANDIALECT_H

#include "mlir/IR/Dialect.h"
#include "llvm/ADT/StringRef.h"

#include "MemOpt/Dialect/MemPlan/MemPlanOpsDialect.h.inc"

namespace mlir {
namespace memplan {

/// Discardable attribute of a planned `func.func`: the arena size in bytes.
constexpr llvm::StringLiteral kArenaSizeAttrName = "memplan.arena_size";
/// Discardable attribute of a planned `func.func`: the alignment in bytes the
/// arena's start (and every offset in it) must have.
constexpr llvm::StringLiteral kArenaAlignmentAttrName =
    "memplan.arena_alignment";
/// Discardable attribute of a planned `func.func`: the liveness lower bound,
/// the largest sum of aligned buffer sizes live at one step.
constexpr llvm::StringLiteral kLowerBoundAttrName = "memplan.lower_bound";
/// Unit attribute of a `func.func` whose inputs and outputs live in its arena
/// (`memplan-io-to-arena`): it takes no arguments but the arena and returns
/// its outputs in it.
constexpr llvm::StringLiteral kIOInArenaAttrName = "memplan.io_in_arena";
/// Attribute of the `memref.alloc` that holds input #i of such a function.
constexpr llvm::StringLiteral kInputAttrName = "memplan.input";
/// Array attributes of such a planned function: the arena offset of each
/// input and output.
constexpr llvm::StringLiteral kInputOffsetsAttrName = "memplan.input_offsets";
constexpr llvm::StringLiteral kOutputOffsetsAttrName =
    "memplan.output_offsets";
/// Integer attribute of a `memplan.place` whose buffer takes over the bytes
/// of the buffer placed at that offset while it is still live (an output
/// written over its dying input, memopt::getOverwrite): the arena
/// verifier lets the two share bytes when the later one starts while the
/// earlier one is live and outlives it.
constexpr llvm::StringLiteral kOverwritesAttrName = "memplan.overwrites";

} // namespace memplan
} // namespace mlir

#endif // MEMOPT_DIALECT_MEMPLAN_MEMPLANDIALECT_H
