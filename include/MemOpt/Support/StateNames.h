//===- StateNames.h - The attribute that marks a model's state --*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The name of the attribute that marks a state of a model, in Support so
// that the importers, which write it, and the memory model and lowering
// (MemOpt/CostModel/States.h), which read it, share one spelling.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_SUPPORT_STATENAMES_H
#define MEMOPT_SUPPORT_STATENAMES_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
namespace memopt {

/// Integer attribute on a function argument that holds a state of the model
/// (a variable, such as an SVDF activation state): the number of the result
/// that holds the state's value after the call. The function keeps its
/// semantics (state in, state out), so the reference interpreter runs it as
/// it is; `mem-opt-compile` keeps the state in a persistent buffer outside
/// the arena and updates it in place (StateBinding, getInPlaceStateUpdate
/// in MemOpt/CostModel/States.h). Written by the TFLite import for variable
/// tensors; read by the memory model and `bind-state-buffers`.
constexpr llvm::StringLiteral kStateAttrName = "memopt.state";

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_SUPPORT_STATENAMES_H
