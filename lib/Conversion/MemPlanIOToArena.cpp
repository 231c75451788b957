//===- MemPlanIOToArena.cpp - memplan-io-to-arena pass --------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Turns the memref arguments of entry functions into arena buffers, so that
// the arena planner places the inputs and outputs with everything else (not
// the state buffer of bind-state-buffers, which the caller keeps).
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Dialect/MemPlan/MemPlanDialect.h"
#include "MemOpt/Conversion/Passes.h"
#include "MemOpt/CostModel/States.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/BitVector.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_MEMPLANIOTOARENAPASS
#include "MemOpt/Conversion/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

/// Moves the arguments of \p func into allocations at the start of its body.
/// The state buffer (`bind-state-buffers`) stays an argument: it is the
/// caller's, kept from call to call.
static LogicalResult moveInputsToArena(func::FuncOp func) {
  Block &entry = func.getBody().front();
  auto isStateBuffer = [&](BlockArgument arg) {
    return func.getArgAttr(arg.getArgNumber(), kStateBufferAttrName) !=
           nullptr;
  };
  for (BlockArgument arg : entry.getArguments()) {
    if (isStateBuffer(arg))
      continue;
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
      return emitError(arg.getLoc())
             << "argument #" << arg.getArgNumber() << " of @"
             << func.getSymName() << " has type " << arg.getType()
             << "; only statically shaped memrefs with the identity layout "
                "can be placed in the arena (use io=caller)";
  }
  for (func::ReturnOp ret : func.getOps<func::ReturnOp>())
    for (Value operand : ret.getOperands())
      if (!isa<MemRefType>(operand.getType()))
        return ret.emitOpError("returns a ")
               << operand.getType()
               << "; only memrefs can be placed in the arena (use io=caller)";
  OpBuilder builder = OpBuilder::atBlockBegin(&entry);
  llvm::BitVector moved(entry.getNumArguments());
  for (BlockArgument arg : entry.getArguments()) {
    if (isStateBuffer(arg))
      continue;
    moved.set(arg.getArgNumber());
    auto alloc = memref::AllocOp::create(builder, arg.getLoc(),
                                         cast<MemRefType>(arg.getType()));
    alloc->setAttr(memplan::kInputAttrName,
                   builder.getI64IntegerAttr(arg.getArgNumber()));
    arg.replaceAllUsesWith(alloc.getResult());
  }
  if (failed(func.eraseArguments(moved)))
    return func.emitError("cannot remove the arguments");
  func->setAttr(memplan::kIOInArenaAttrName, builder.getUnitAttr());
  return success();
}

namespace {
/// Places the inputs and outputs of entry functions in their arena.
struct MemPlanIOToArenaPass
    : memopt::impl::MemPlanIOToArenaPassBase<MemPlanIOToArenaPass> {
  using MemPlanIOToArenaPassBase::MemPlanIOToArenaPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.isPublic() ||
          !SymbolTable::symbolKnownUseEmpty(func, module))
        continue;
      if (failed(moveInputsToArena(func)))
        return signalPassFailure();
    }
  }
};
} // namespace
