//===- TFLiteImporter.cpp - TFLite to TOSA
//---------------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Import/Import.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

using namespace mlir;
using namespace mlir::memopt;

OwningOpRef<ModuleOp> mlir::memopt::importTFLite(llvm::StringRef bytes,
                                                 llvm::StringRef fileName,
                                                 MLIRContext *context) {
  emitError(FileLineColLoc::get(context, fileName, 0, 0))
      << "the TFLite importer is not built yet";
  return nullptr;
}
