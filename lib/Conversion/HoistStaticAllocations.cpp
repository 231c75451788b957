//===- HoistStaticAllocations.cpp - hoist-static-allocations pass ---------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Hoists allocations without operands out of loops, up to the function's body
// or the body of a planned loop (kPlannedLoopLocName), whose buffers the arena
// plan places per iteration.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Conversion/LocationMarks.h"
#include "MemOpt/Conversion/Passes.h"
#include "MemOpt/Utils/Attributes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_HOISTSTATICALLOCATIONSPASS
#include "MemOpt/Conversion/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

namespace {
struct HoistStaticAllocationsPass
    : memopt::impl::HoistStaticAllocationsPassBase<
          HoistStaticAllocationsPass> {
  using HoistStaticAllocationsPassBase::HoistStaticAllocationsPassBase;

  void runOnOperation() override {
    SmallVector<Operation *> allocs;
    getOperation().walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::AllocaOp>(op) &&
          op->getNumOperands() == 0)
        allocs.push_back(op);
    });
    for (Operation *alloc : allocs) {
      // The outermost loop around the allocation below a planned body.
      Operation *outermost = nullptr;
      for (Operation *parent = alloc->getParentOp();
           isa<LoopLikeOpInterface>(parent) &&
           !hasLocationMark(parent, kPlannedLoopLocName);
           parent = parent->getParentOp())
        outermost = parent;
      if (outermost)
        alloc->moveBefore(outermost);
    }
  }
};
} // namespace
