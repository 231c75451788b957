//===- SpeedChoice.cpp - What --optimize=speed takes from -O2, per layer --===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// `--optimize=speed` starts from the default's code (`-Os`, the DSP kernels'
// reduction loops unrolled by 4) and takes `-O2`'s code of a layer function
// only where an estimate of the instructions it executes per call is lower.
// LLVM's own unrolling at `-O2` is not faster everywhere: it unrolls the
// border loops of small depthwise convolutions and spills their pointers,
// and without the kernels' unroll hints it leaves a fully connected
// layer's reduction loop rolled (docs/CortexM.md, "`--optimize=speed`
// never slower than the default").
//
// The estimate runs on the optimized LLVM IR of each level: every block's
// executions per call (loop trip counts from scalar evolution, the
// probability of a block within its loop's iteration from the block
// frequencies) times the code-size cost of its instructions, which is
// about one Thumb instruction each. It sees neither spills nor how often a
// border branch is taken, so -O2's code is taken only where every loop of
// both versions has a constant trip count (no border loop of a padded
// window) and the estimate is lower by more than a margin. The final
// module is optimized once more at -O2 with `optsize` on the functions
// that keep the default's code: the passes read the attribute, and such a
// function gets the code of -Os (with every function `optsize`, the
// object equals -Os's byte for byte on kws, ad01 and person_detect, M4 and
// M55); with no function taken, the module is optimized at -Os.
//
//===----------------------------------------------------------------------===//

#include "CompilerInternal.h"
#include "LLVMAnalyses.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Analysis/BlockFrequencyInfo.h"
#include "llvm/Analysis/BranchProbabilityInfo.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::memopt;

/// How much lower -O2's estimate must be, as a fraction of the default's.
/// The estimate sees neither spills nor addressing modes: on the benchmark
/// models (docs/CortexM.md) the layers where -O2 was slower and every trip
/// count constant were estimated at most 2.2% faster.
static constexpr double kMargin = 0.03;

namespace {
/// Executions per call of the blocks of one function, from its loops' trip
/// counts and its block frequencies.
class BlockCounts {
public:
  BlockCounts(llvm::Function &function, llvm::FunctionAnalysisManager &fam)
      : function(function), loops(fam.getResult<llvm::LoopAnalysis>(function)),
        scev(fam.getResult<llvm::ScalarEvolutionAnalysis>(function)),
        frequencies(fam.getResult<llvm::BlockFrequencyAnalysis>(function)),
        probabilities(
            fam.getResult<llvm::BranchProbabilityAnalysis>(function)) {}

  /// Loops whose trip count is not a constant (bounded or not).
  unsigned inexactLoops = 0;

  /// Returns how often \p block runs per call of the function.
  double getCount(const llvm::BasicBlock *block) {
    auto it = blockCounts.find(block);
    if (it != blockCounts.end())
      return it->second;
    // A block reached again while its count is computed (irreducible
    // control flow): once.
    blockCounts[block] = 1.0;
    double count;
    if (llvm::Loop *loop = loops.getLoopFor(block))
      count = getHeaderCount(loop) *
              getRatio(block, loop->getHeader()); // per iteration
    else
      count = getRatio(block, &function.getEntryBlock());
    blockCounts[block] = count;
    return count;
  }

private:
  /// Returns frequency(\p block) / frequency(\p base), at most 1.
  double getRatio(const llvm::BasicBlock *block, const llvm::BasicBlock *base) {
    double baseFrequency = frequencies.getBlockFreq(base).getFrequency();
    if (baseFrequency <= 0)
      return 0.0;
    return std::min(1.0, frequencies.getBlockFreq(block).getFrequency() /
                             baseFrequency);
  }

  /// Returns how often the header of \p loop runs per call: its entries
  /// times its trip count.
  double getHeaderCount(llvm::Loop *loop) {
    auto it = headerCounts.find(loop);
    if (it != headerCounts.end())
      return it->second;
    double count = computeHeaderCount(loop);
    headerCounts[loop] = count;
    return count;
  }

  /// Returns getHeaderCount(\p loop), computed.
  double computeHeaderCount(llvm::Loop *loop) {
    const llvm::BasicBlock *header = loop->getHeader();
    double entries = 0.0, entryFrequency = 0.0;
    for (const llvm::BasicBlock *pred : llvm::predecessors(header)) {
      if (loop->contains(pred))
        continue;
      llvm::BranchProbability edge =
          probabilities.getEdgeProbability(pred, header);
      double probability =
          double(edge.getNumerator()) / double(edge.getDenominator());
      entries += getCount(pred) * probability;
      entryFrequency +=
          frequencies.getBlockFreq(pred).getFrequency() * probability;
    }
    double trips = scev.getSmallConstantTripCount(loop);
    if (trips == 0) {
      ++inexactLoops;
      trips = scev.getSmallConstantMaxTripCount(loop);
    }
    if (trips == 0)
      trips =
          entryFrequency > 0
              ? frequencies.getBlockFreq(header).getFrequency() / entryFrequency
              : 1.0;
    return entries * trips;
  }

  llvm::Function &function;
  llvm::LoopInfo &loops;
  llvm::ScalarEvolution &scev;
  llvm::BlockFrequencyInfo &frequencies;
  llvm::BranchProbabilityInfo &probabilities;
  llvm::DenseMap<const llvm::BasicBlock *, double> blockCounts;
  llvm::DenseMap<const llvm::Loop *, double> headerCounts;
};
} // namespace

namespace {
/// The estimate of one function.
struct Estimate {
  /// Instructions per call.
  double instructions = 0;
  /// Loops without a constant trip count.
  unsigned inexactLoops = 0;
};
} // namespace

/// Returns the estimated instructions of one call of \p function.
static Estimate estimateInstructions(llvm::Function &function,
                                     llvm::FunctionAnalysisManager &fam) {
  BlockCounts counts(function, fam);
  llvm::TargetTransformInfo &tti =
      fam.getResult<llvm::TargetIRAnalysis>(function);
  double total = 0.0;
  for (llvm::BasicBlock &block : function) {
    int64_t cost = 0;
    for (llvm::Instruction &instruction : block) {
      llvm::InstructionCost instructionCost = tti.getInstructionCost(
          &instruction, llvm::TargetTransformInfo::TCK_CodeSize);
      if (instructionCost.isValid())
        cost += instructionCost.getValue();
    }
    if (cost > 0)
      total += counts.getCount(&block) * double(cost);
  }
  return {total, counts.inexactLoops};
}

/// Returns the estimated instructions per call of every function of
/// \p module with a body, by name.
static llvm::StringMap<Estimate> estimateModule(llvm::Module &module,
                                                llvm::TargetMachine &machine) {
  LLVMAnalyses analyses(machine);
  llvm::StringMap<Estimate> estimates;
  for (llvm::Function &function : module)
    if (!function.isDeclaration())
      estimates[function.getName()] =
          estimateInstructions(function, analyses.function);
  return estimates;
}

/// Optimizes \p module at LLVM's speed level 2 and size level \p sizeLevel.
static LogicalResult runPipeline(MLIRContext *context, llvm::Module &module,
                                 llvm::TargetMachine &machine,
                                 unsigned sizeLevel) {
  auto optimize = makeOptimizingTransformer(2, sizeLevel, &machine);
  if (llvm::Error err = optimize(&module))
    return emitError(UnknownLoc::get(context))
           << "LLVM optimization failed: " << llvm::toString(std::move(err));
  return success();
}

FailureOr<SpeedChoice>
mlir::memopt::optimizeForSpeed(MLIRContext *context, llvm::Module &llvmModule,
                               llvm::TargetMachine &machine) {
  // The default's code: -Os, every function optsize.
  std::unique_ptr<llvm::Module> small = llvm::CloneModule(llvmModule);
  for (llvm::Function &function : *small)
    if (!function.isDeclaration())
      function.addFnAttr(llvm::Attribute::OptimizeForSize);
  if (failed(runPipeline(context, *small, machine, 1)))
    return failure();
  std::unique_ptr<llvm::Module> fast = llvm::CloneModule(llvmModule);
  if (failed(runPipeline(context, *fast, machine, 0)))
    return failure();
  llvm::StringMap<Estimate> smallEstimates = estimateModule(*small, machine);
  llvm::StringMap<Estimate> fastEstimates = estimateModule(*fast, machine);

  // -O2's code of a function where it is estimated faster; both levels
  // keep every function of the unoptimized module (the layer functions are
  // noinline, the model's functions public).
  SpeedChoice choice;
  for (llvm::Function &function : llvmModule) {
    if (function.isDeclaration())
      continue;
    auto smallIt = smallEstimates.find(function.getName());
    auto fastIt = fastEstimates.find(function.getName());
    Estimate smallEstimate =
        smallIt == smallEstimates.end() ? Estimate() : smallIt->second;
    Estimate fastEstimate =
        fastIt == fastEstimates.end() ? smallEstimate : fastIt->second;
    // Only where every loop of both has a constant trip count and -O2's
    // estimate is lower by more than the margin.
    bool takeFast = smallEstimate.inexactLoops == 0 &&
                    fastEstimate.inexactLoops == 0 &&
                    fastEstimate.instructions <
                        smallEstimate.instructions * (1.0 - kMargin);
    choice.functions.push_back({function.getName().str(),
                                smallEstimate.instructions,
                                fastEstimate.instructions, takeFast});
    if (takeFast)
      ++choice.fastFunctions;
    else
      function.addFnAttr(llvm::Attribute::OptimizeForSize);
  }
  // Nothing estimated faster: the default's pipeline, so its code.
  if (failed(runPipeline(context, llvmModule, machine,
                         choice.fastFunctions == 0 ? 1 : 0)))
    return failure();
  return choice;
}
