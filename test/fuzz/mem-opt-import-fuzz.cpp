//===- mem-opt-import-fuzz.cpp - libFuzzer target for the importers -------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Feeds arbitrary bytes to one model importer (chosen at build time by
// MEMOPT_FUZZ_ONNX: importONNX, else importTFLite). Errors are expected and
// swallowed; a crash, a sanitizer report or a leak is a finding. The
// MLIRContext is replaced every 256 inputs so that the attributes uniqued for
// earlier inputs do not pile up over a long run.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Import/Import.h"
#include "MemOpt/InitAll.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>
#include <memory>

using namespace mlir;

/// The registry of every dialect mem-opt uses, built once.
static const DialectRegistry &getRegistry() {
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    memopt::registerAllDialects(*r);
    return r;
  }();
  return *registry;
}

/// Returns the context for the next input, a fresh one every 256 calls.
static MLIRContext &getContext() {
  static std::unique_ptr<MLIRContext> context;
  static unsigned uses = 0;
  if (!context || ++uses % 256 == 0) {
    context = std::make_unique<MLIRContext>(getRegistry(),
                                            MLIRContext::Threading::DISABLED);
    // Diagnostics are the expected outcome for most inputs: drop them.
    context->getDiagEngine().registerHandler(
        [](Diagnostic &) { return success(); });
  }
  return *context;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context = getContext();
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
#ifdef MEMOPT_FUZZ_ONNX
  OwningOpRef<ModuleOp> module =
      memopt::importONNX(bytes, "fuzz.onnx", &context);
#else
  OwningOpRef<ModuleOp> module =
      memopt::importTFLite(bytes, "fuzz.tflite", &context);
#endif
  (void)module;
  return 0;
}
