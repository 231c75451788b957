//===- mem-opt-plugin.cpp - mem-opt pass and dialect plugin for mlir-opt --===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Entry points of MemOptPlugin.so.
// - `mlir-opt --load-pass-plugin=MemOptPlugin.so` registers every mem-opt pass;
//   run them with `--pass-pipeline="builtin.module(memory-report)"`.
// - `mlir-opt --load-dialect-plugin=MemOptPlugin.so` registers the `memplan`
//   dialect, so that mlir-opt parses and verifies memory plans.
// Either adds mem-opt's version and commit to the host's `--version` when the
// plugin is loaded before it (`mlir-opt --load-pass-plugin=... --version`).
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Dialect/MemPlan/MemPlanDialect.h"
#include "MemOpt/InitAll.h"
#include "MemOpt/Support/Version.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

/// Registers mem-opt's passes, and its version for the host's --version.
static void registerPasses() {
  mlir::memopt::registerPluginVersionPrinter();
  mlir::memopt::registerAllPasses();
}

/// Registers the memplan dialect, and mem-opt's version for the host's
/// --version.
static void registerDialects(mlir::DialectRegistry *registry) {
  mlir::memopt::registerPluginVersionPrinter();
  registry->insert<mlir::memplan::MemPlanDialect>();
}

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "MemOptPasses", LLVM_VERSION_STRING,
          registerPasses};
}

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "MemPlan", LLVM_VERSION_STRING,
          registerDialects};
}
