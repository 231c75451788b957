//===- my-opt.cpp - a downstream driver with mem-opt's passes -------------===//
//
// An mlir-opt-style tool of a downstream project: upstream MLIR's passes and
// mem-opt's (memory-report, memory-schedule, ...) with mem-opt's dialects.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/InitAll.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::memopt::registerAllPasses();

  mlir::DialectRegistry registry;
  mlir::memopt::registerAllDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "my-opt: upstream MLIR and mem-opt passes\n", registry));
}
