//===- SetLLVMTarget.cpp - set-llvm-target pass ---------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Sets the LLVM target triple and data layout attributes of a module.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_SETLLVMTARGETPASS
#include "MemOpt/Conversion/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

namespace {
/// Writes `llvm.target_triple` and `llvm.data_layout` on the module.
struct SetLLVMTargetPass
    : memopt::impl::SetLLVMTargetPassBase<SetLLVMTargetPass> {
  using SetLLVMTargetPassBase::SetLLVMTargetPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    if (!triple.empty())
      module->setAttr(LLVM::LLVMDialect::getTargetTripleAttrName(),
                      StringAttr::get(ctx, triple));
    if (!dataLayout.empty())
      module->setAttr(LLVM::LLVMDialect::getDataLayoutAttrName(),
                      StringAttr::get(ctx, dataLayout));
  }
};
} // namespace
