//===- TestMemRefLiveness.cpp - test-print-memref-liveness ----------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Prints the MemRefLiveness of every function so that FileCheck tests can
// read it.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Analysis/MemRefLiveness.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::memopt;

namespace {
/// Prints the MemRefLiveness of each function to stdout.
struct TestMemRefLivenessPass
    : public PassWrapper<TestMemRefLivenessPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestMemRefLivenessPass)

  StringRef getArgument() const final { return "test-print-memref-liveness"; }
  StringRef getDescription() const final {
    return "Print the buffer liveness of each bufferized function";
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    auto &liveness = getAnalysis<MemRefLiveness>();
    if (!liveness.isValid())
      return signalPassFailure();
    llvm::outs() << "memref liveness of @" << func.getSymName() << "\n";
    liveness.print(llvm::outs());
    markAllAnalysesPreserved();
  }
};
} // namespace

namespace mlir {
namespace memopt {
namespace test {
/// Registers test-print-memref-liveness.
void registerTestMemRefLivenessPass() {
  PassRegistration<TestMemRefLivenessPass>();
}
} // namespace test
} // namespace memopt
} // namespace mlir
