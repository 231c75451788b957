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

#include "MemOpt/Conversion/Passes.h"

#include "MemOpt/Dialect/MemPlan/MemPlanDialect.h"
#include "MemOpt/Dialect/MemPlan/MemPlanOps.h"
#include "MemOpt/Utils/Attributes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

#include <functional>

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_MEMPLANLOWERPASS
#include "MemOpt/Conversion/Passes.h.inc"
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

/// A call from a planned function to a planned (and already lowered) callee.
struct PlannedCall {
  func::CallOp call;
  func::FuncOp callee;
};

/// Lowers the plan of \p func. The callees of \p calls are already lowered:
/// their arenas share one range appended to the end of \p func's arena,
/// aligned to the largest alignment, which the calls receive as views. Emits
/// an error and returns failure if the function's plan is malformed.
static LogicalResult lowerFunction(func::FuncOp func,
                                   ArrayRef<PlannedCall> calls) {
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

  // Callees run one at a time, so their arenas can share one tail range.
  int64_t tailOffset = size, tailSize = 0;
  if (!calls.empty()) {
    for (PlannedCall call : calls) {
      auto calleeAlign = call.callee->getAttrOfType<IntegerAttr>(
          memplan::kArenaAlignmentAttrName);
      auto calleeSize =
          call.callee->getAttrOfType<IntegerAttr>(memplan::kArenaSizeAttrName);
      alignment = std::max(alignment, calleeAlign.getInt());
      tailSize = std::max(tailSize, calleeSize.getInt());
    }
    tailOffset = static_cast<int64_t>(llvm::alignTo(size, alignment));
    size =
        static_cast<int64_t>(llvm::alignTo(tailOffset + tailSize, alignment));
  }

  // Nothing may allocate or free behind the plan's back.
  // (A register accumulator's alloca is a stack slot, not an arena buffer.)
  WalkResult leftover = func.walk([](Operation *op) {
    if (isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp>(op) &&
        !op->hasAttr(kRegisterAccumulatorName)) {
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
  // The arena is the caller's scratch memory: it overlaps no other argument,
  // which lets LLVM optimize the kernels around it.
  NamedAttribute noAlias(builder.getStringAttr("llvm.noalias"),
                         builder.getUnitAttr());
  if (failed(func.insertArgument(func.getNumArguments(), arenaType,
                                 builder.getDictionaryAttr(noAlias), loc)))
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
  for (PlannedCall call : calls) {
    OpBuilder rewriter(call.call);
    int64_t calleeSize =
        call.callee->getAttrOfType<IntegerAttr>(memplan::kArenaSizeAttrName)
            .getInt();
    Value offset = arith::ConstantIndexOp::create(rewriter, call.call.getLoc(),
                                                  tailOffset);
    Value view = memref::ViewOp::create(
        rewriter, call.call.getLoc(),
        MemRefType::get({calleeSize}, IntegerType::get(func.getContext(), 8)),
        argument, offset, ValueRange{});
    call.call.getOperandsMutable().append(view);
  }
  // Outputs in the arena: the caller reads them at their offsets.
  if (func->hasAttr(memplan::kIOInArenaAttrName)) {
    for (func::ReturnOp ret : func.getOps<func::ReturnOp>())
      ret->eraseOperands(0, ret->getNumOperands());
    func.setType(
        FunctionType::get(func.getContext(), func.getArgumentTypes(), {}));
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

  // Calls to planned functions: the caller must be planned too, and it
  // passes the callee a range of its own arena. Lower callees first.
  SymbolTableCollection symbols;
  llvm::DenseMap<Operation *, SmallVector<PlannedCall>> callsOf;
  WalkResult calls = module.walk([&](func::CallOp call) {
    auto callee = dyn_cast_or_null<func::FuncOp>(
        symbols.lookupNearestSymbolFrom(call, call.getCalleeAttr()));
    if (!callee || !plannedSet.contains(callee))
      return WalkResult::advance();
    auto caller = call->getParentOfType<func::FuncOp>();
    if (!caller || !plannedSet.contains(caller)) {
      call.emitError("call to planned function @")
          << call.getCallee()
          << " from a function without an arena; plan the caller too, or "
             "call it from outside the module";
      return WalkResult::interrupt();
    }
    callsOf[caller].push_back({call, callee});
    return WalkResult::advance();
  });
  if (calls.wasInterrupted())
    return signalPassFailure();

  // Post-order over the calls between planned functions; a cycle has no
  // static arena.
  llvm::DenseMap<Operation *, int> state; // 1: in progress, 2: lowered.
  std::function<LogicalResult(func::FuncOp)> lower =
      [&](func::FuncOp func) -> LogicalResult {
    int &mark = state[func];
    if (mark == 2)
      return success();
    if (mark == 1)
      return func.emitError("recursive calls between planned functions "
                            "reach @")
             << func.getSymName() << "; its arena size would be unbounded";
    mark = 1;
    SmallVector<PlannedCall> funcCalls = callsOf.lookup(func);
    for (const PlannedCall &call : funcCalls)
      if (failed(lower(call.callee)))
        return failure();
    if (failed(lowerFunction(func, funcCalls)))
      return failure();
    state[func] = 2;
    return success();
  };
  for (func::FuncOp func : planned)
    if (failed(lower(func)))
      return signalPassFailure();
}
