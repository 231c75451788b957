//===- BindStateBuffers.cpp - bind-state-buffers pass ---------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Keeps the states of entry functions (the model's variables, such as the
// activation states of SVDF layers) in one buffer that the caller keeps from
// call to call, and makes the function compute each state's new value over
// the old one in that buffer.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Conversion/Passes.h"
#include "MemOpt/CostModel/States.h"
#include "MemOpt/Utils/StorageSize.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_BINDSTATEBUFFERSPASS
#include "MemOpt/Conversion/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

/// Returns the allocation whose buffer \p value views (through view-like
/// ops), or null.
static memref::AllocOp getAllocation(Value value) {
  auto memref = dyn_cast<MemrefValue>(value);
  if (!memref)
    return nullptr;
  return memref::skipViewLikeOps(memref).getDefiningOp<memref::AllocOp>();
}

/// Moves the states of \p func into one state buffer argument.
static LogicalResult bindStates(func::FuncOp func) {
  FailureOr<SmallVector<StateBinding>> states = getStateBindings(func);
  if (failed(states))
    return failure();
  if (states->empty())
    return success();
  Block &entry = func.getBody().front();
  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  DataLayout layout = DataLayout::closest(func);

  // The layout: argument order, each state at its element's alignment.
  SmallVector<int64_t> offsets;
  int64_t size = 0, alignment = 1;
  for (StateBinding state : *states) {
    auto type = dyn_cast<MemRefType>(func.getArgumentTypes()[state.argument]);
    std::optional<int64_t> bytes =
        type ? getStorageBytes(type, layout) : std::nullopt;
    std::optional<int64_t> elementAlignment =
        type ? getElementStorageAlignment(type.getElementType(), layout)
             : std::nullopt;
    if (!bytes || !elementAlignment || !type.getLayout().isIdentity())
      return emitError(entry.getArgument(state.argument).getLoc())
             << "state argument #" << state.argument << " of @"
             << func.getSymName() << " has type "
             << func.getArgumentTypes()[state.argument]
             << "; a state buffer holds statically shaped memrefs with the "
                "identity layout";
    size = static_cast<int64_t>(llvm::alignTo(size, *elementAlignment));
    offsets.push_back(size);
    size += *bytes;
    alignment = std::max(alignment, *elementAlignment);
  }

  OpBuilder builder = OpBuilder::atBlockBegin(&entry);
  auto bufferType = MemRefType::get({size}, builder.getI8Type());
  SmallVector<NamedAttribute> attrs = {
      builder.getNamedAttr(kStateBufferAttrName, builder.getUnitAttr()),
      builder.getNamedAttr("llvm.noalias", builder.getUnitAttr())};
  if (failed(func.insertArgument(func.getNumArguments(), bufferType,
                                 builder.getDictionaryAttr(attrs),
                                 func.getLoc())))
    return func.emitError("cannot append the state buffer argument");
  Value buffer = entry.getArguments().back();

  llvm::BitVector oldArguments(func.getNumArguments());
  llvm::BitVector oldResults(func.getNumResults());
  for (auto [state, stateOffset] : llvm::zip_equal(*states, offsets)) {
    Location loc = entry.getArgument(state.argument).getLoc();
    int64_t offset = stateOffset;
    auto view = [&](Type type) {
      Value shift = arith::ConstantIndexOp::create(builder, loc, offset);
      return memref::ViewOp::create(builder, loc, type, buffer, shift,
                                    ValueRange{})
          .getResult();
    };
    BlockArgument old = entry.getArgument(state.argument);
    old.replaceAllUsesWith(view(old.getType()));
    // The new value is computed into the old one's bytes.
    memref::AllocOp alloc = getAllocation(ret.getOperand(state.result));
    auto allocType = alloc ? alloc.getType() : MemRefType();
    if (!alloc || !allocType.hasStaticShape() ||
        !allocType.getLayout().isIdentity() ||
        getStorageBytes(allocType, layout) !=
            getStorageBytes(old.getType(), layout))
      return emitError(ret.getOperand(state.result).getLoc())
             << "the new value of state argument #" << state.argument
             << " of @" << func.getSymName() << " (result #" << state.result
             << ") is not computed into a buffer of its own that can take "
                "the state's place";
    alloc.getResult().replaceAllUsesWith(view(allocType));
    alloc.erase();
    oldArguments.set(state.argument);
    oldResults.set(state.result);
  }
  ret->eraseOperands(oldResults);
  if (failed(func.eraseResults(oldResults)) ||
      failed(func.eraseArguments(oldArguments)))
    return func.emitError("cannot remove the state arguments and results");
  func->setAttr(kStateOffsetsAttrName, builder.getDenseI64ArrayAttr(offsets));
  func->setAttr(kStateSizeAttrName, builder.getI64IntegerAttr(size));
  func->setAttr(kStateAlignmentAttrName, builder.getI64IntegerAttr(alignment));
  return success();
}

namespace {
/// Keeps the states of entry functions in a caller-owned state buffer.
struct BindStateBuffersPass
    : memopt::impl::BindStateBuffersPassBase<BindStateBuffersPass> {
  using BindStateBuffersPassBase::BindStateBuffersPassBase;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.isPublic())
        continue;
      if (failed(bindStates(func)))
        return signalPassFailure();
    }
  }
};
} // namespace
