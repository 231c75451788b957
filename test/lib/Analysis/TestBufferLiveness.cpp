//===- TestBufferLiveness.cpp - test-print-buffer-liveness ----------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Prints the dataflow graph and the buffer liveness of every function so that
// FileCheck tests can read them.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Analysis/BufferLiveness.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::memopt;

namespace {
/// Prints the DataflowGraph and BufferLiveness of each function to stdout.
struct TestBufferLivenessPass
    : public PassWrapper<TestBufferLivenessPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestBufferLivenessPass)

  StringRef getArgument() const final { return "test-print-buffer-liveness"; }
  StringRef getDescription() const final {
    return "Print the dataflow graph and buffer liveness of each function";
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    auto &liveness = getAnalysis<BufferLiveness>();
    if (!liveness.isValid())
      return signalPassFailure();
    llvm::outs() << "liveness of @" << func.getSymName() << "\n";
    liveness.getGraph().print(llvm::outs());
    liveness.print(llvm::outs());
    markAllAnalysesPreserved();
  }
};
} // namespace

namespace mlir {
namespace memopt {
namespace test {
void registerTestMemRefLivenessPass();

/// Registers the test-only passes of test/lib.
void registerTestPasses() {
  PassRegistration<TestBufferLivenessPass>();
  registerTestMemRefLivenessPass();
}
} // namespace test
} // namespace memopt
} // namespace mlir
