//===- Version.cpp - mem-opt's --version printer --------------------------===//
//
// Every mem-opt tool prints its own version and commit after LLVM's version
// when given `--version`.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Support/Version.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

void mlir::memopt::registerVersionPrinter() {
  // Once per process: the plugin registers it from both of its entry points.
  static bool registered = false;
  if (registered)
    return;
  registered = true;
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "mem-opt version " << MEMOPT_VERSION << " (commit "
       << MEMOPT_GIT_COMMIT << ")\n";
  });
}
