//===- Zoo.h - Seeded generator of TOSA benchmark models --------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The model zoo as a library: it builds TOSA models (LLVM 22 syntax, NHWC,
// batch 1) whose graphs follow published architectures -- NAS cells from
// their published genotypes, CIFAR- and ImageNet-style stacks of those cells,
// RandWire random graphs, classic blocks and networks -- plus random valid
// functions for the pass fuzzer. Only tensor shapes matter: weights are splat
// constants. Every compute op gets a readable NameLoc, and the same options
// always give the same module. `mem-opt-zoo` is a thin command line over this
// API; docs/Zoo.md lists the models and where each architecture comes from.
//
// The flow is: fill a ZooOptions, resolve it against the model's defaults
// (resolveZooParams), build the module (buildZooModule), print it
// (printZooModule). The library depends on MLIR's func and TOSA dialects only,
// no mem-opt pass.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ZOO_ZOO_H
#define MEMOPT_ZOO_ZOO_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace mlir {
class MLIRContext;

namespace memopt {
namespace zoo {
class TosaGraphBuilder;
} // namespace zoo

/// Element type of the activations of a generated model. F16 and I16 are
/// used by the `fuzz` model only: f16 activations accumulate in f16; i16
/// activations have no convolutions (TOSA would need i48 accumulators), and
/// their pools accumulate in i32.
enum class ZooDType { F32, I8, F16, I16 };

/// What a caller asks for: the model and the sizes, seed and element type
/// given explicitly. Unset sizes take the model's own defaults when the
/// options are resolved (resolveZooParams).
struct ZooOptions {
  /// The model's name, e.g. "darts-v2-cifar" (see getZooModels()).
  std::string model;
  /// Number of cells, blocks, modules or layers (the meaning depends on the
  /// model); 0: the model's own.
  unsigned cells = 0;
  /// Base channel count C; unset: the model's own.
  std::optional<int64_t> channels;
  /// Input height and width R; unset: the model's own.
  std::optional<int64_t> resolution;
  /// Seed of the random graph generators (randwire-ws, randwire-ws-net,
  /// fuzz).
  uint64_t seed = 1;
  /// Nodes of each random graph (RandWire) or ops of the fuzz model; unset:
  /// 32.
  std::optional<unsigned> nodes;
  /// Element type of the activations (F32 or I8; the fuzz model picks its
  /// own).
  ZooDType dtype = ZooDType::F32;
};

struct ZooParams;

/// Builds the body of a model's function.
using ZooBuildFn = void (*)(zoo::TosaGraphBuilder &, const ZooParams &);

/// One model of the zoo.
struct ZooModelInfo {
  /// The --model name.
  const char *name;
  /// One line for --list and the output header.
  const char *description;
  /// Default for --cells; 0 when --cells does not apply.
  unsigned defaultCells;
  /// Default for --channels.
  int64_t defaultChannels;
  /// Default for --resolution.
  int64_t defaultResolution;
  /// Builds the function body.
  ZooBuildFn build;
  /// Largest --cells the model accepts; 0 for no limit.
  unsigned maxCells = 0;
  /// --resolution must be a multiple of this.
  int64_t resolutionMultiple = 1;
  /// Whether --list shows it (the benchmark scripts generate every listed
  /// model; the fuzz model is for the pass fuzzer only).
  bool listed = true;
};

/// Resolved parameters of a generated model: the options with the model's
/// defaults filled in and checked.
struct ZooParams {
  /// The model.
  const ZooModelInfo *model = nullptr;
  /// Base channel count C.
  int64_t channels = 0;
  /// Input height and width R.
  int64_t resolution = 0;
  /// Number of cells, blocks, modules or layers (model-specific).
  unsigned cells = 0;
  /// Seed of the random graph generators.
  uint64_t seed = 1;
  /// Nodes of each random graph (RandWire) or ops of the fuzz model.
  unsigned nodes = 32;
  /// Element type the builder starts with.
  ZooDType dtype = ZooDType::F32;
};

/// Severity of a message about the options.
enum class ZooDiagnosticKind {
  /// The option does not apply and is ignored.
  Warning,
  /// The options are invalid; resolution fails.
  Error
};

/// Receives the messages of resolveZooParams. They start lower-case, have
/// no trailing period and name the options as the command line spells them
/// (`--cells`, `--nodes`, ...).
using ZooDiagnosticFn =
    llvm::function_ref<void(ZooDiagnosticKind, const llvm::Twine &)>;

/// Returns every model, in the order --list shows them (unlisted ones
/// included).
ArrayRef<ZooModelInfo> getZooModels();

/// Returns the model called \p name, or nullptr.
const ZooModelInfo *lookupZooModel(StringRef name);

/// Prints the listed models with their descriptions and defaults to \p os,
/// one a line.
void printZooModelList(raw_ostream &os);

/// Fills in the defaults of the model \p options names and checks the
/// ranges; reports warnings (ignored options) and errors through \p report
/// and fails on an error or an unknown model.
FailureOr<ZooParams> resolveZooParams(const ZooOptions &options,
                                      ZooDiagnosticFn report);

/// Builds the module of \p params (one `func.func` named after the model,
/// `-` becoming `_`) in \p context, loading the func and TOSA dialects, and
/// verifies it. Returns a null module when it does not verify (an internal
/// error; the verifier's diagnostics go to the context).
OwningOpRef<ModuleOp> buildZooModule(MLIRContext &context,
                                     const ZooParams &params);

/// Counts the compute ops (everything but constants and the terminator) of
/// every function in \p module, per op name.
std::map<std::string, unsigned> countZooComputeOps(ModuleOp module);

/// Prints the total and per-kind compute op counts of \p module, a model
/// called \p modelName, on one line.
void printZooStats(raw_ostream &os, StringRef modelName, ModuleOp module);

/// Prints \p module as mem-opt-zoo writes it: a comment line with the
/// options that regenerate it, one with the model's description and
/// compute-op count, then the module with its locations inline.
void printZooModule(raw_ostream &os, ModuleOp module, const ZooParams &params);

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_ZOO_ZOO_H
