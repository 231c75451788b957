//===- Passes.h - Lowering pass entry points --------------------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Declares the passes of the lowering from TOSA to bufferized, planned
// memplan IR generated from Passes.td, their registration and the
// concat split's patterns.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_CONVERSION_PASSES_H
#define MEMOPT_CONVERSION_PASSES_H

#include "MemOpt/CostModel/CostModel.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace memopt {

#define GEN_PASS_DECL
#include "MemOpt/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "MemOpt/Conversion/Passes.h.inc"

/// Adds the split of `tosa.concat`s of more than \p maxOperands operands into
/// a tree of concats within the limit (SplitConcats.cpp).
void populateSplitConcatsPatterns(RewritePatternSet &patterns,
                                  unsigned maxOperands);

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_CONVERSION_PASSES_H
