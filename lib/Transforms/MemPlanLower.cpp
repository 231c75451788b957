//===- MemPlanLower.cpp - memplan-lower pass ------------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Lowers the memplan ops of every planned function to `memref.view`s of one
// `memref<Nxi8>` arena that becomes the function's trailing argument.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Transforms/Passes.h"

#include "MemOpt/Dialect/MemPlan/MemPlanDialect.h"
#include "MemOpt/Dialect/MemPlan/MemPlanOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_MEMPLANLOWERPASS
#include "MemOpt/Transforms/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

namespace {
/// Turns each planned function's arena into a trailing argument.
struct MemPlanLowerPass : memopt::impl::MemPlanLowerPassBase<MemPlanLowerPass> {
  using MemPlanLowerPassBase::MemPlanLowerPassBase;

  void runOnOperation() override;
};
} // namespace

/// Lowers the plan of \p func; emits an error and returns failure if the
/// function's plan is malformed.
static LogicalResult lowerFunction(func::FuncOp func) {
  SmallVector<memplan::ArenaOp> arenas;
  func.walk([&](memplan::ArenaOp arena) { arenas.push_back(arena); });
  if (arenas.size() > 1) {
    InFlightDiagnostic diag = arenas[1].emitOpError(
        "is the second arena of the function; memplan-lower expects one");
    diag.attachNote(arenas[0].getLoc()) << "first arena here";
    return diag;
  }
  memplan::ArenaOp arena = arenas.empty() ? nullptr : arenas.front();
  Block &entry = func.getBody().front();
  if (arena && arena->getBlock() != &entry)
    return arena.emitOpError("must be in the entry block of the function");

  // The size and alignment come from the arena op; the attributes, when
  // present, must agree with it.
  Builder builder(func.getContext());
  auto sizeAttr = func->getAttrOfType<IntegerAttr>(memplan::kArenaSizeAttrName);
  auto alignAttr =
      func->getAttrOfType<IntegerAttr>(memplan::kArenaAlignmentAttrName);
  if (func->hasAttr(memplan::kArenaSizeAttrName) && !sizeAttr)
    return func.emitError("'")
           << memplan::kArenaSizeAttrName << "' must be an integer";
  int64_t size = sizeAttr ? sizeAttr.getInt() : 0;
  int64_t alignment = alignAttr ? alignAttr.getInt() : 16;
  if (arena) {
    if (sizeAttr && size != arena.getSize())
      return arena.emitOpError("arena of ")
             << arena.getSize() << " bytes disagrees with the function's '"
             << memplan::kArenaSizeAttrName << " = " << size << "'";
    if (alignAttr && alignment != static_cast<int64_t>(arena.getAlignment()))
      return arena.emitOpError("alignment ")
             << arena.getAlignment() << " disagrees with the function's '"
             << memplan::kArenaAlignmentAttrName << " = " << alignment << "'";
    size = arena.getSize();
    alignment = static_cast<int64_t>(arena.getAlignment());
  }
  if (size < 0)
    return func.emitError("negative arena size ") << size;

  // Nothing may allocate or free behind the plan's back.
  WalkResult leftover = func.walk([](Operation *op) {
    if (isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp>(op)) {
      op->emitError("'") << op->getName()
                         << "' left in a planned function; run "
                            "memplan-plan-arena after the last pass that "
                            "allocates";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (leftover.wasInterrupted())
    return failure();

  auto arenaType =
      MemRefType::get({size}, IntegerType::get(func.getContext(), 8));
  Location loc = arena ? arena.getLoc() : func.getLoc();
  if (failed(func.insertArgument(func.getNumArguments(), arenaType,
                                 /*argAttrs=*/nullptr, loc)))
    return func.emitError("cannot append the arena argument");
  Value argument = entry.getArguments().back();

  if (arena) {
    OpBuilder rewriter(func.getContext());
    for (Operation *user : llvm::make_early_inc_range(arena->getUsers())) {
      auto place = cast<memplan::PlaceOp>(user);
      rewriter.setInsertionPoint(place);
      Value offset = arith::ConstantIndexOp::create(
          rewriter, place.getLoc(), static_cast<int64_t>(place.getOffset()));
      Value view =
          memref::ViewOp::create(rewriter, place.getLoc(), place.getType(),
                                 argument, offset, ValueRange{});
      place.getResult().replaceAllUsesWith(view);
      place.erase();
    }
    arena.erase();
  }
  func->setAttr(memplan::kArenaSizeAttrName, builder.getI64IntegerAttr(size));
  func->setAttr(memplan::kArenaAlignmentAttrName,
                builder.getI64IntegerAttr(alignment));
  return success();
}

void MemPlanLowerPass::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<func::FuncOp> planned;
  llvm::DenseSet<Operation *> plannedSet;
  module.walk([&](func::FuncOp func) {
    if (func.isExternal())
      return;
    bool hasArena =
        func.walk([](memplan::ArenaOp) { return WalkResult::interrupt(); })
            .wasInterrupted();
    if (!hasArena && !func->hasAttr(memplan::kArenaSizeAttrName))
      return;
    planned.push_back(func);
    plannedSet.insert(func);
  });

  // The arena argument changes the callee's signature, and no caller has an
  // arena range reserved for the call: reject calls to planned functions.
  SymbolTableCollection symbols;
  WalkResult calls = module.walk([&](func::CallOp call) {
    Operation *callee =
        symbols.lookupNearestSymbolFrom(call, call.getCalleeAttr());
    if (!callee || !plannedSet.contains(callee))
      return WalkResult::advance();
    call.emitError("call to planned function @")
        << call.getCallee()
        << "; memplan-lower does not pass arenas through calls (inline the "
           "callee before planning, or call it from outside the module)";
    return WalkResult::interrupt();
  });
  if (calls.wasInterrupted())
    return signalPassFailure();

  for (func::FuncOp func : planned)
    if (failed(lowerFunction(func)))
      return signalPassFailure();
}
