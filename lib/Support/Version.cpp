//===- Version.cpp - mem-opt's --version printer --------------------------===//
//
// Every mem-opt tool prints its own version and commit, then LLVM's version,
// when given `--version`; hosts of the plugin print it after their own.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Support/Version.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

/// Prints mem-opt's version line to \p os.
static void printMemOptVersion(llvm::raw_ostream &os) {
  os << "mem-opt version " << MEMOPT_VERSION << " (commit " << MEMOPT_GIT_COMMIT
     << ")\n";
}

void mlir::memopt::registerVersionPrinter() {
  // mem-opt's line first, then LLVM's banner (the default printer).
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    printMemOptVersion(os);
    os.flush();
    llvm::cl::PrintVersionMessage();
  });
}

void mlir::memopt::registerPluginVersionPrinter() {
  // Once per process: the plugin registers it from both of its entry points.
  static bool registered = false;
  if (registered)
    return;
  registered = true;
  llvm::cl::AddExtraVersionPrinter(printMemOptVersion);
}
