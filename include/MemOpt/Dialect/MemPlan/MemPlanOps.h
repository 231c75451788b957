//===- MemPlanOps.h - memplan operations ------------------------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Declares the operations of the `memplan` dialect (`memplan.arena`,
// `memplan.place`) and the byte-size rule they share with the planner.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_MEMPLAN_MEMPLANOPS_H
#define MEMOPT_DIALECT_MEMPLAN_MEMPLANOPS_H

#include "MemOpt/Dialect/MemPlan/MemPlanDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <optional>

namespace mlir {
namespace memplan {

/// Returns the bytes a statically shaped memref of \p type occupies: the
/// number of elements times the byte size of the element under \p layout.
/// Returns std::nullopt for dynamic shapes and for element types other than
/// integers, floats, index and complex numbers of those.
std::optional<int64_t> getStaticSizeInBytes(MemRefType type,
                                            const DataLayout &layout);

} // namespace memplan
} // namespace mlir

#define GET_OP_CLASSES
#include "MemOpt/Dialect/MemPlan/MemPlanOps.h.inc"

#endif // MEMOPT_DIALECT_MEMPLAN_MEMPLANOPS_H
