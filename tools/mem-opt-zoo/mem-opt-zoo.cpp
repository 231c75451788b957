//===- mem-opt-zoo.cpp - Seeded generator of TOSA benchmark models --------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The `mem-opt-zoo` tool: writes TOSA models (LLVM 22 syntax, NHWC, batch 1)
// whose graphs follow published architectures, to benchmark memory-aware
// operator scheduling. The generators are the MemOptZoo library
// (MemOpt/Zoo/Zoo.h); this file turns the command line into ZooOptions,
// reports bad options, and writes the module or the model list.
// docs/Zoo.md lists the models and where each architecture comes from.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Support/Version.h"
#include "MemOpt/Zoo/Zoo.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

using mlir::memopt::ZooDType;

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

/// The options --help shows (the others are hidden).
static llvm::cl::OptionCategory zooCategory("mem-opt-zoo options");

/// --model: the model to generate.
static llvm::cl::opt<std::string>
    modelName("model", llvm::cl::desc("Model to generate (see --list)"),
              llvm::cl::value_desc("name"), llvm::cl::cat(zooCategory));

/// --cells: cells, blocks, modules or layers (0: the model's own).
static llvm::cl::opt<unsigned> numCells(
    "cells",
    llvm::cl::desc("Number of cells, blocks, modules or layers (the meaning "
                   "depends on the model; default: the model's own)"),
    llvm::cl::init(0), llvm::cl::cat(zooCategory));

/// --channels: base channel count C.
static llvm::cl::opt<unsigned>
    numChannels("channels",
                llvm::cl::desc("Base channel count C (default: 16, or the "
                               "model's own; see --list)"),
                llvm::cl::init(16), llvm::cl::cat(zooCategory));

/// --resolution: input height and width R.
static llvm::cl::opt<unsigned>
    inputResolution("resolution",
                    llvm::cl::desc("Input height and width R (default: 32, "
                                   "or the model's own; see --list)"),
                    llvm::cl::init(32), llvm::cl::cat(zooCategory));

/// --seed: seed of the random graphs.
static llvm::cl::opt<uint64_t>
    randomSeed("seed",
               llvm::cl::desc("Seed of the random graph generators "
                              "(randwire-ws; default: 1)"),
               llvm::cl::init(1), llvm::cl::cat(zooCategory));

/// --nodes: nodes of each random graph, or ops of the fuzz model.
static llvm::cl::opt<unsigned>
    numNodes("nodes",
             llvm::cl::desc("Nodes N of each Watts-Strogatz WS(N, 4, 0.75) "
                            "graph (randwire-ws, randwire-ws-net; default "
                            "32)"),
             llvm::cl::init(32), llvm::cl::cat(zooCategory));

/// --dtype: element type of the activations.
static llvm::cl::opt<ZooDType> elementType(
    "dtype", llvm::cl::desc("Activation element type (default: f32)"),
    llvm::cl::values(
        clEnumValN(ZooDType::F32, "f32", "float32 activations and weights"),
        clEnumValN(ZooDType::I8, "i8",
                   "int8 activations and weights, int32 accumulators "
                   "rescaled to int8")),
    llvm::cl::init(ZooDType::F32), llvm::cl::cat(zooCategory));

/// -o: the output file.
static llvm::cl::opt<std::string>
    outputFilename("o", llvm::cl::desc("Output file (default: stdout)"),
                   llvm::cl::value_desc("filename"), llvm::cl::init("-"),
                   llvm::cl::cat(zooCategory));

/// --list: print the models and exit.
static llvm::cl::opt<bool>
    listModels("list", llvm::cl::desc("List the models and exit"),
               llvm::cl::init(false), llvm::cl::cat(zooCategory));

// `--stats` (print the number of compute ops to stderr) is LLVM's own
// statistics flag, which every LLVM tool registers; it is read back with
// llvm::AreStatisticsEnabled().

/// Prints a message of option checking as `mem-opt-zoo: [warning: ]message`.
static void reportOption(mlir::memopt::ZooDiagnosticKind kind,
                         const llvm::Twine &message) {
  llvm::errs() << "mem-opt-zoo: "
               << (kind == mlir::memopt::ZooDiagnosticKind::Warning
                       ? "warning: "
                       : "")
               << message << "\n";
}

/// The options of the command line as the library takes them; the sizes
/// given explicitly override the model's defaults.
static mlir::memopt::ZooOptions getOptionsFromCommandLine() {
  mlir::memopt::ZooOptions options;
  options.model = modelName;
  options.cells = numCells;
  if (numChannels.getNumOccurrences())
    options.channels = int64_t(numChannels);
  if (inputResolution.getNumOccurrences())
    options.resolution = int64_t(inputResolution);
  options.seed = randomSeed;
  if (numNodes.getNumOccurrences())
    options.nodes = unsigned(numNodes);
  options.dtype = elementType;
  return options;
}

int main(int argc, char **argv) {
  mlir::memopt::registerVersionPrinter();
  using namespace mlir::memopt;
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::cl::HideUnrelatedOptions(zooCategory);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "mem-opt-zoo: seeded generator of TOSA models for benchmarking "
      "memory-aware operator scheduling\n\n"
      "  mem-opt-zoo --model=<name> [--cells=N] [--channels=C] "
      "[--resolution=R]\n"
      "              [--seed=S] [--nodes=N] [--dtype=f32|i8] [--stats] "
      "[-o out.mlir]\n"
      "  mem-opt-zoo --list\n\n"
      "--stats prints the number of compute ops per op kind to stderr.\n"
      "--model=fuzz (not in --list) writes a random valid TOSA function of\n"
      "--nodes ops for the pass fuzzer (test/fuzz/pass_fuzz.py).\n");

  if (listModels) {
    printZooModelList(llvm::outs());
    return 0;
  }
  if (modelName.empty()) {
    llvm::errs() << "mem-opt-zoo: no model given; use --model=<name> (--list "
                    "shows the models)\n";
    return 1;
  }
  if (!lookupZooModel(modelName)) {
    llvm::errs() << "mem-opt-zoo: unknown model '" << modelName
                 << "'; the models are:\n";
    printZooModelList(llvm::errs());
    return 1;
  }

  mlir::FailureOr<ZooParams> params =
      resolveZooParams(getOptionsFromCommandLine(), reportOption);
  if (mlir::failed(params))
    return 1;

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module = buildZooModule(context, *params);
  if (!module) {
    llvm::errs() << "mem-opt-zoo: internal error: the generated '"
                 << params->model->name << "' model does not verify\n";
    return 1;
  }

  if (llvm::AreStatisticsEnabled())
    printZooStats(llvm::errs(), params->model->name, *module);

  std::string errorMessage;
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << "mem-opt-zoo: " << errorMessage << "\n";
    return 1;
  }
  printZooModule(output->os(), *module, *params);
  output->keep();
  return 0;
}
