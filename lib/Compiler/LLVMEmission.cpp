//===- LLVMEmission.cpp - LLVM IR to a Cortex-M object --------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The LLVM half of the compile driver: the ARM target machine of a Cortex-M
// CPU, the extraction of each layer's loop nest into a function of its own,
// the optimization at the chosen level and the emission of the object with
// LLVM's ARM backend, in-process.
//
//===----------------------------------------------------------------------===//

#include "CompilerInternal.h"
#include "LLVMAnalyses.h"

#include "MemOpt/Pipelines/Pipelines.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/Timing.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/Transforms/IPO/MergeFunctions.h"
#include "llvm/Transforms/Utils/CodeExtractor.h"

using namespace mlir;
using namespace mlir::memopt;

namespace {
/// What `-O<level>` asks of LLVM.
struct LevelParameters {
  /// Speed level of the IR passes, 0-3.
  unsigned speed = 2;
  /// Size level: 0, 1 (`s`: optsize) or 2 (`z`: minsize).
  unsigned size = 0;
};
} // namespace

/// Returns the speed and size levels of \p level.
static LevelParameters getLevelParameters(OptLevel level) {
  switch (level) {
  case OptLevel::O0:
    return {0, 0};
  case OptLevel::O1:
    return {1, 0};
  case OptLevel::O2:
    return {2, 0};
  case OptLevel::O3:
    return {3, 0};
  case OptLevel::Os:
    return {2, 1};
  case OptLevel::Oz:
    return {2, 2};
  }
  llvm_unreachable("unknown OptLevel");
}

/// Returns the code generator's level for the IR passes' speed level.
static llvm::CodeGenOptLevel getCodeGenLevel(LevelParameters level) {
  switch (level.speed) {
  case 0:
    return llvm::CodeGenOptLevel::None;
  case 1:
    return llvm::CodeGenOptLevel::Less;
  case 2:
    return llvm::CodeGenOptLevel::Default;
  default:
    return llvm::CodeGenOptLevel::Aggressive;
  }
}

/// The software pipeliner is off (docs/CortexM.md, "Code generation"): on
/// Cortex-M7 it took almost all of the compile time for loops that run a few
/// times per layer.
std::unique_ptr<llvm::TargetMachine>
mlir::memopt::createTargetMachine(MLIRContext *context,
                                  const CortexMTarget &target, OptLevel level) {
  std::string error;
  llvm::Triple triple(target.triple);
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget) {
    emitError(UnknownLoc::get(context)) << error;
    return nullptr;
  }
  llvm::TargetOptions targetOptions;
  targetOptions.FloatABIType =
      target.floatAbi == "hard" ? llvm::FloatABI::Hard : llvm::FloatABI::Soft;
  std::string features = "-use-mipipeliner";
  if (!target.features.empty())
    features += ("," + target.features).str();
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      triple, target.cpu, features, targetOptions, llvm::Reloc::Static,
      std::nullopt, getCodeGenLevel(getLevelParameters(level))));
  if (machine->createDataLayout().getStringRepresentation() !=
      target.dataLayout) {
    emitError(UnknownLoc::get(context))
        << "the pipeline's data layout for " << target.cpu
        << " differs from the ARM backend's: "
        << machine->createDataLayout().getStringRepresentation();
    return nullptr;
  }
  return machine;
}

/// Moves every top-level loop nest of the model's functions into a function
/// of its own, kept out of line. A model is one function with a loop nest
/// per layer; LLVM's loop passes (induction variable simplification, loop
/// rotation, loop strength reduction) take time superlinear in the loops of
/// one function, and per-layer functions keep them linear. The call per
/// layer costs nothing next to its loops. (LLVM's `loop-extract` pass does
/// the same but rebuilds the extractor's analysis of the whole function for
/// every loop, quadratic in the layers; the analysis stays valid across
/// extractions, so it is built once here.)
static LogicalResult extractLoopNests(MLIRContext *context,
                                      llvm::Module &llvmModule,
                                      llvm::TargetMachine &machine) {
  // Loops in simplified form: a preheader, one backedge, dedicated exits.
  LLVMAnalyses analyses(machine);
  llvm::ModulePassManager passes;
  if (llvm::Error err =
          analyses.builder.parsePassPipeline(passes, "function(loop-simplify)"))
    return emitError(UnknownLoc::get(context))
           << "cannot build loop-simplify: " << llvm::toString(std::move(err));
  passes.run(llvmModule, analyses.module);

  SmallVector<llvm::Function *> functions;
  for (llvm::Function &function : llvmModule)
    if (!function.isDeclaration())
      functions.push_back(&function);
  for (llvm::Function *function : functions) {
    llvm::DominatorTree dominators(*function);
    llvm::LoopInfo loops(dominators);
    // Top-level loops, in block order.
    SmallVector<llvm::Loop *> nests;
    for (llvm::BasicBlock &block : *function)
      if (llvm::Loop *loop = loops.getLoopFor(&block))
        if (!loop->getParentLoop() && loop->getHeader() == &block)
          nests.push_back(loop);
    llvm::CodeExtractorAnalysisCache cache(*function);
    for (llvm::Loop *nest : nests) {
      llvm::CodeExtractor extractor(nest->getBlocks(), &dominators);
      if (!extractor.isEligible())
        continue;
      if (llvm::Function *extracted = extractor.extractCodeRegion(cache))
        extracted->addFnAttr(llvm::Attribute::NoInline);
    }
  }
  return success();
}

/// Makes functions that compute the same thing one function (LLVM's
/// MergeFunctions): the loop nests of the patches of a patched prefix with
/// the same shapes and padding, of repeated blocks, or ones that the
/// optimizer made equal. Their buffers are arguments, so they differ only
/// in what their callers pass.
static void mergeIdenticalFunctions(llvm::Module &llvmModule,
                                    llvm::TargetMachine &machine) {
  LLVMAnalyses analyses(machine);
  llvm::ModulePassManager merge;
  merge.addPass(llvm::MergeFunctionsPass());
  merge.run(llvmModule, analyses.module);
}

/// Runs LLVM's optimizing pipeline of \p level on \p llvmModule.
static LogicalResult optimizeAtLevel(MLIRContext *context,
                                     llvm::Module &llvmModule,
                                     llvm::TargetMachine &machine,
                                     LevelParameters level,
                                     const CompileProgress &progress) {
  // -Os/-Oz: the IR passes and the code generator read the function
  // attributes, not only the pipeline's level.
  if (level.size > 0)
    for (llvm::Function &function : llvmModule)
      if (!function.isDeclaration()) {
        function.addFnAttr(llvm::Attribute::OptimizeForSize);
        if (level.size > 1)
          function.addFnAttr(llvm::Attribute::MinSize);
      }
  CompileHeartbeat heartbeat(progress, "optimizing LLVM IR");
  auto optimize = makeOptimizingTransformer(level.speed, level.size, &machine);
  if (llvm::Error err = optimize(&llvmModule))
    return emitError(UnknownLoc::get(context))
           << "LLVM optimization failed: " << llvm::toString(std::move(err));
  return success();
}

LogicalResult mlir::memopt::optimizeLLVMModule(MLIRContext *context,
                                               llvm::Module &llvmModule,
                                               llvm::TargetMachine &machine,
                                               OptLevel optLevel,
                                               const CompileProgress &progress,
                                               TimingScope &timing,
                                               SpeedChoice *speedChoice) {
  LevelParameters level = getLevelParameters(optLevel);
  TimingScope extractTiming = timing.nest("Extract loop nests");
  if (level.speed > 0) {
    if (failed(extractLoopNests(context, llvmModule, machine)))
      return failure();
    mergeIdenticalFunctions(llvmModule, machine);
  }
  extractTiming.stop();
  TimingScope optimizeTiming = timing.nest("Optimize LLVM IR");
  if (speedChoice) {
    CompileHeartbeat heartbeat(progress, "optimizing LLVM IR");
    FailureOr<SpeedChoice> choice =
        optimizeForSpeed(context, llvmModule, machine);
    if (failed(choice))
      return failure();
    *speedChoice = std::move(*choice);
  } else if (failed(optimizeAtLevel(context, llvmModule, machine, level,
                                    progress))) {
    return failure();
  }
  mergeIdenticalFunctions(llvmModule, machine);
  optimizeTiming.stop();
  return success();
}

LogicalResult mlir::memopt::emitObject(MLIRContext *context,
                                       llvm::Module &llvmModule,
                                       llvm::TargetMachine &machine,
                                       llvm::raw_pwrite_stream &os) {
  llvm::legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, os, nullptr,
                                  llvm::CodeGenFileType::ObjectFile))
    return emitError(UnknownLoc::get(context))
           << "the ARM backend cannot emit an object file";
  codegen.run(llvmModule);
  return success();
}
