//===- mem-opt.cpp - mem-opt driver ---------------------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The `mem-opt` driver: mlir-opt with mem-opt's passes, the upstream passes
// that lower TOSA to LLVM, and the dialects of that flow.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/InitAll.h"
#include "MemOpt/Support/Version.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

namespace mlir {
namespace memopt {
namespace test {
/// Registers the test-only passes of test/lib.
void registerTestPasses();
} // namespace test
} // namespace memopt
} // namespace mlir

int main(int argc, char **argv) {
  mlir::memopt::registerVersionPrinter();
  mlir::registerAllPasses();
  mlir::memopt::registerAllPasses();
  mlir::memopt::test::registerTestPasses();

  mlir::DialectRegistry registry;
  mlir::memopt::registerAllDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv,
                        "mem-opt: memory-aware scheduling and lowering of TOSA "
                        "models for Cortex-M\n",
                        registry));
}
