//===- ONNXImporter.cpp - ONNX to TOSA ---------------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Import/Import.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

using namespace mlir;
using namespace mlir::memopt;

OwningOpRef<ModuleOp> mlir::memopt::importONNX(llvm::StringRef bytes,
                                               llvm::StringRef fileName,
                                               MLIRContext *context) {
  emitError(FileLineColLoc::get(context, fileName, 0, 0))
      << "the ONNX importer is not built yet";
  return nullptr;
}
