//===- MemPlanDialect.cpp - memplan dialect -------------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Dialect/MemPlan/MemPlanDialect.h"

#include "MemOpt/Dialect/MemPlan/MemPlanOps.h"

using namespace mlir;
using namespace mlir::memplan;

#include "MemOpt/Dialect/MemPlan/MemPlanOpsDialect.cpp.inc"

void MemPlanDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "MemOpt/Dialect/MemPlan/MemPlanOps.cpp.inc"
      >();
}
