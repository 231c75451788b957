//===- Zoo.cpp - The model table and the zoo's public API -----------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The table of the zoo's models (name, description, defaults, limits and
// family builder), the resolution of options against a model's defaults,
// and the building, counting and printing of a model's module.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Zoo/Zoo.h"

#include "Families.h"
#include "TosaGraphBuilder.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <iterator>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::zoo;

//===----------------------------------------------------------------------===//
// Model table
//===----------------------------------------------------------------------===//

/// Every model, in the order of --list; the name is the --model value.
static const ZooModelInfo models[] = {
    {"nasnet-a-normal", "NASNet-A normal cell (Zoph et al. 2018), 5 blocks", 0,
     16, 32,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildNasCell(g, p, NasFamilyKind::NasNetA, /*reduction=*/false);
     }},
    {"nasnet-a-reduction",
     "NASNet-A reduction cell (Zoph et al. 2018), 5 blocks", 0, 16, 32,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildNasCell(g, p, NasFamilyKind::NasNetA, /*reduction=*/true);
     }},
    {"amoebanet-a-normal", "AmoebaNet-A normal cell (Real et al. 2019)", 0, 16,
     32,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildNasCell(g, p, NasFamilyKind::AmoebaNetA, /*reduction=*/false);
     }},
    {"amoebanet-a-reduction", "AmoebaNet-A reduction cell (Real et al. 2019)",
     0, 16, 32,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildNasCell(g, p, NasFamilyKind::AmoebaNetA, /*reduction=*/true);
     }},
    {"pnas-cell", "PNASNet-5 cell (Liu et al. 2018)", 0, 16, 32,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildNasCell(g, p, NasFamilyKind::Pnas, /*reduction=*/false);
     }},
    {"darts-v2-normal", "DARTS_V2 normal cell (Liu et al. 2019)", 0, 16, 32,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildNasCell(g, p, NasFamilyKind::DartsV2, /*reduction=*/false);
     }},
    {"darts-v2-reduction", "DARTS_V2 reduction cell (Liu et al. 2019)", 0, 16,
     32,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildNasCell(g, p, NasFamilyKind::DartsV2, /*reduction=*/true);
     }},
    {"nasnet-a-cifar", "CIFAR-style stack of NASNet-A cells", 5, 16, 32,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildNasCifarNetwork(g, p, NasFamilyKind::NasNetA);
     }},
    {"amoebanet-a-cifar", "CIFAR-style stack of AmoebaNet-A cells", 5, 16, 32,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildNasCifarNetwork(g, p, NasFamilyKind::AmoebaNetA);
     }},
    {"darts-v2-cifar", "CIFAR-style stack of DARTS_V2 cells", 6, 16, 32,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildNasCifarNetwork(g, p, NasFamilyKind::DartsV2);
     }},
    {"pnas-cifar", "CIFAR-style stack of PNASNet-5 cells", 4, 16, 32,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildNasCifarNetwork(g, p, NasFamilyKind::Pnas);
     }},
    {"nasnet-a-imagenet", "ImageNet-style stack of NASNet-A cells", 5, 16, 224,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildNasImageNetNetwork(g, p, NasFamilyKind::NasNetA);
     }},
    {"amoebanet-a-imagenet", "ImageNet-style stack of AmoebaNet-A cells", 5, 16,
     224,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildNasImageNetNetwork(g, p, NasFamilyKind::AmoebaNetA);
     }},
    {"darts-v2-imagenet", "ImageNet-style stack of DARTS_V2 cells", 6, 16, 224,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildNasImageNetNetwork(g, p, NasFamilyKind::DartsV2);
     }},
    {"pnas-imagenet", "ImageNet-style stack of PNASNet-5 cells", 4, 16, 224,
     [](TosaGraphBuilder &g, const ZooParams &p) {
       buildNasImageNetNetwork(g, p, NasFamilyKind::Pnas);
     }},
    {"randwire-ws",
     "RandWire cell on a seeded Watts-Strogatz WS(32, 4, 0.75) graph (Xie et "
     "al. 2019)",
     0, 16, 32, buildRandWire},
    {"randwire-ws-net",
     "RandWire network: stem, --cells WS(N, 4, 0.75) stages, classifier", 3, 16,
     32, buildRandWireNet},
    {"swiftnet-vww-cell",
     "SwiftNet-like irregular multi-branch cell (approximation)", 0, 16, 32,
     buildSwiftNetCell},
    {"inception-v3-block", "Inception-v3 Inception-A blocks (Mixed_5b..)", 1,
     16, 35, buildInceptionA},
    {"squeezenet-fire", "SqueezeNet 1.1 with its fire modules", 8, 16, 64,
     buildSqueezeNet, /*maxCells=*/8},
    {"densenet-block", "DenseNet-121 dense block (6 layers by default)", 6, 16,
     32, buildDenseBlock},
    {"mobilenet-v2", "MobileNetV2, width multiplier C/32 (0.5 by default)", 0,
     16, 96, buildMobileNetV2},
    {"mcunet",
     "MCUNet-style inverted residuals, kernels 3/5/7, expansions 3/4/6", 0, 16,
     96, buildMcuNet},
    {"resnet-block", "ResNet-18 basic blocks, two per stage", 4, 16, 32,
     buildResNetBlocks},
    {"hrnet-w18-small-block",
     "HRNet-W18-small-like two-resolution stage with fuse layers", 1, 18, 32,
     buildHrNet, /*maxCells=*/0,
     /*resolutionMultiple=*/2},
    {"fuzz",
     "Random valid TOSA function for the pass fuzzer: --nodes ops, tensors "
     "up to R x R x C (f32, f16, i8, i16, i1; test/fuzz/pass_fuzz.py)",
     0, 8, 8, buildFuzz, /*maxCells=*/0, /*resolutionMultiple=*/1,
     /*listed=*/false},
};

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

ArrayRef<ZooModelInfo> mlir::memopt::getZooModels() { return models; }

const ZooModelInfo *mlir::memopt::lookupZooModel(StringRef name) {
  for (const ZooModelInfo &model : models)
    if (name == model.name)
      return &model;
  return nullptr;
}

void mlir::memopt::printZooModelList(raw_ostream &os) {
  for (const ZooModelInfo &model : models) {
    if (!model.listed)
      continue;
    os << llvm::left_justify(model.name, 24) << model.description
       << " [C=" << model.defaultChannels << ", R=" << model.defaultResolution;
    if (model.defaultCells)
      os << ", cells=" << model.defaultCells;
    os << "]\n";
  }
}

FailureOr<ZooParams> mlir::memopt::resolveZooParams(const ZooOptions &options,
                                                    ZooDiagnosticFn report) {
  const ZooModelInfo *found = lookupZooModel(options.model);
  if (!found) {
    report(ZooDiagnosticKind::Error,
           "unknown model '" + Twine(options.model) + "'");
    return failure();
  }
  const ZooModelInfo &model = *found;
  ZooParams params;
  params.model = &model;
  params.channels = options.channels.value_or(model.defaultChannels);
  params.resolution = options.resolution.value_or(model.defaultResolution);
  params.cells = options.cells ? options.cells : model.defaultCells;
  params.seed = options.seed;
  params.nodes = options.nodes.value_or(32);
  params.dtype = options.dtype;
  bool isFuzz = StringRef(model.name) == "fuzz";
  bool isRandWire = StringRef(model.name).starts_with("randwire");
  if (options.nodes && !isRandWire && !isFuzz)
    report(ZooDiagnosticKind::Warning, "--nodes does not apply to '" +
                                           Twine(model.name) +
                                           "' and is ignored");
  unsigned minNodes = isFuzz ? 1 : 5;
  if (params.nodes < minNodes || params.nodes > 2000) {
    report(ZooDiagnosticKind::Error,
           "--nodes must be in [" + Twine(minNodes) + ", 2000]");
    return failure();
  }
  if (options.cells && !model.defaultCells)
    report(ZooDiagnosticKind::Warning, "--cells does not apply to '" +
                                           Twine(model.name) +
                                           "' and is ignored");
  if (params.channels < 2 || params.channels > 4096) {
    report(ZooDiagnosticKind::Error, "--channels must be in [2, 4096]");
    return failure();
  }
  if (params.resolution < 4 || params.resolution > 4096) {
    report(ZooDiagnosticKind::Error, "--resolution must be in [4, 4096]");
    return failure();
  }
  unsigned maxCells = model.maxCells ? model.maxCells : 1000;
  if (params.cells > maxCells) {
    report(ZooDiagnosticKind::Error, "--cells must be at most " +
                                         Twine(maxCells) + " for '" +
                                         model.name + "'");
    return failure();
  }
  if (params.resolution % model.resolutionMultiple != 0) {
    report(ZooDiagnosticKind::Error,
           "'" + Twine(model.name) +
               "' needs --resolution to be a multiple of " +
               Twine(model.resolutionMultiple));
    return failure();
  }
  return params;
}

OwningOpRef<ModuleOp> mlir::memopt::buildZooModule(MLIRContext &context,
                                                   const ZooParams &params) {
  context.loadDialect<func::FuncDialect, tosa::TosaDialect>();
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  std::string funcName = StringRef(params.model->name).str();
  std::replace(funcName.begin(), funcName.end(), '-', '_');
  {
    TosaGraphBuilder builder(*module, funcName, params.dtype);
    params.model->build(builder, params);
  }
  if (failed(verify(*module)))
    return {};
  return module;
}

std::map<std::string, unsigned>
mlir::memopt::countZooComputeOps(ModuleOp module) {
  std::map<std::string, unsigned> counts;
  module.walk([&](Operation *op) {
    if (isa<ModuleOp, func::FuncOp, func::ReturnOp>(op) ||
        op->hasTrait<OpTrait::ConstantLike>())
      return;
    ++counts[op->getName().getStringRef().str()];
  });
  return counts;
}

/// Returns the sum of \p counts.
static unsigned totalOf(const std::map<std::string, unsigned> &counts) {
  unsigned total = 0;
  for (const auto &entry : counts)
    total += entry.second;
  return total;
}

void mlir::memopt::printZooStats(raw_ostream &os, StringRef modelName,
                                 ModuleOp module) {
  std::map<std::string, unsigned> counts = countZooComputeOps(module);
  os << modelName << ": " << totalOf(counts) << " compute ops (";
  llvm::ListSeparator separator(", ");
  for (const auto &entry : counts)
    os << separator << entry.first << " " << entry.second;
  os << ")\n";
}

void mlir::memopt::printZooModule(raw_ostream &os, ModuleOp module,
                                  const ZooParams &params) {
  const ZooModelInfo &model = *params.model;
  unsigned total = totalOf(countZooComputeOps(module));
  os << "// Generated by mem-opt-zoo --model=" << model.name;
  if (model.defaultCells)
    os << " --cells=" << params.cells;
  os << " --channels=" << params.channels
     << " --resolution=" << params.resolution << " --seed=" << params.seed;
  if ((StringRef(model.name).starts_with("randwire") && params.nodes != 32) ||
      StringRef(model.name) == "fuzz")
    os << " --nodes=" << params.nodes;
  os << " --dtype=" << (params.dtype == ZooDType::I8 ? "i8" : "f32") << "\n"
     << "// " << model.description << "; " << total
     << " compute ops. See docs/Zoo.md.\n";
  // Locations inline (`loc("name")`, no aliases) so that the names stay
  // next to their ops.
  module.print(os, OpPrintingFlags()
                       .enableDebugInfo(/*enable=*/true, /*prettyForm=*/false)
                       .useLocalScope());
  os << "\n";
}
