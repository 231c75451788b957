//===- CommandLine.h - The command line of mem-opt-compile ------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// mem-opt-compile's options and their translation into the library's
// CompileOptions, with the errors the tool prints for names it does not
// know. Each default is the one a default-constructed CompileOptions holds.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TOOLS_MEMOPTCOMPILE_COMMANDLINE_H
#define MEMOPT_TOOLS_MEMOPTCOMPILE_COMMANDLINE_H

#include "MemOpt/Compiler/Compiler.h"

#include <string>

namespace mlir {
namespace memopt {

/// What the command line asks for besides the compile's options.
struct CommandLineOutputs {
  /// The model's path as given ("-": stdin).
  std::string modelPath;
  /// The object, header and LLVM IR files; empty when not asked for.
  std::string objectFile, headerFile, llvmIRFile;
  /// Whether --report was given.
  bool report = false;
  /// Whether --quiet was given.
  bool quiet = false;
};

/// Parses the command line. --help lists the tool's options, --version and
/// the timing options, not LLVM's backend options.
void parseCommandLine(int argc, char **argv);

/// Returns the files and switches of the parsed command line.
CommandLineOutputs getCommandLineOutputs();

/// Returns the compile's options, or prints an error for an unknown CPU,
/// optimization goal or level or report format and fails. The schedule,
/// placement and partition, which cortex-m-pipeline checks once the model
/// is read, are left to setPipelineOptions.
FailureOr<CompileOptions> getCompileOptions();

/// Sets the schedule, the placement and the partition of \p options, or
/// prints the pipeline's error for an unknown name and fails.
LogicalResult setPipelineOptions(CompileOptions &options);

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_TOOLS_MEMOPTCOMPILE_COMMANDLINE_H
