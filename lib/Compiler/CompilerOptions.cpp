//===- CompilerOptions.cpp - Names of the compiler's options --------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The names of the typed options of the compile driver (the ones
// mem-opt-compile's command line and cortex-m-pipeline's options use), the
// level an optimization goal chooses, and the registration a process needs
// once before compiling.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Compiler/Compiler.h"

#include "MemOpt/InitAll.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/TargetSelect.h"

using namespace mlir;
using namespace mlir::memopt;

StringRef mlir::memopt::stringifyCortexMCpu(CortexMCpu cpu) {
  switch (cpu) {
  case CortexMCpu::CortexM0Plus:
    return "cortex-m0plus";
  case CortexMCpu::CortexM3:
    return "cortex-m3";
  case CortexMCpu::CortexM4:
    return "cortex-m4";
  case CortexMCpu::CortexM7:
    return "cortex-m7";
  case CortexMCpu::CortexM33:
    return "cortex-m33";
  case CortexMCpu::CortexM55:
    return "cortex-m55";
  }
  llvm_unreachable("unknown CortexMCpu");
}

std::optional<CortexMCpu> mlir::memopt::parseCortexMCpu(StringRef name) {
  return llvm::StringSwitch<std::optional<CortexMCpu>>(name)
      .Case("cortex-m0plus", CortexMCpu::CortexM0Plus)
      .Case("cortex-m3", CortexMCpu::CortexM3)
      .Case("cortex-m4", CortexMCpu::CortexM4)
      .Case("cortex-m7", CortexMCpu::CortexM7)
      .Case("cortex-m33", CortexMCpu::CortexM33)
      .Case("cortex-m55", CortexMCpu::CortexM55)
      .Default(std::nullopt);
}

StringRef mlir::memopt::stringifyFloatABI(FloatABI abi) {
  switch (abi) {
  case FloatABI::Hard:
    return "hard";
  case FloatABI::SoftFP:
    return "softfp";
  case FloatABI::Soft:
    return "soft";
  }
  llvm_unreachable("unknown FloatABI");
}

std::optional<FloatABI> mlir::memopt::parseFloatABI(StringRef name) {
  return llvm::StringSwitch<std::optional<FloatABI>>(name)
      .Case("hard", FloatABI::Hard)
      .Case("softfp", FloatABI::SoftFP)
      .Case("soft", FloatABI::Soft)
      .Default(std::nullopt);
}

StringRef mlir::memopt::stringifyOptimizeGoal(OptimizeGoal goal) {
  switch (goal) {
  case OptimizeGoal::Memory:
    return "memory";
  case OptimizeGoal::Balanced:
    return "balanced";
  case OptimizeGoal::Speed:
    return "speed";
  }
  llvm_unreachable("unknown OptimizeGoal");
}

std::optional<OptimizeGoal> mlir::memopt::parseOptimizeGoal(StringRef name) {
  return llvm::StringSwitch<std::optional<OptimizeGoal>>(name)
      .Case("memory", OptimizeGoal::Memory)
      .Case("balanced", OptimizeGoal::Balanced)
      .Case("speed", OptimizeGoal::Speed)
      .Default(std::nullopt);
}

StringRef mlir::memopt::stringifyOptLevel(OptLevel level) {
  switch (level) {
  case OptLevel::O0:
    return "0";
  case OptLevel::O1:
    return "1";
  case OptLevel::O2:
    return "2";
  case OptLevel::O3:
    return "3";
  case OptLevel::Os:
    return "s";
  case OptLevel::Oz:
    return "z";
  }
  llvm_unreachable("unknown OptLevel");
}

std::optional<OptLevel> mlir::memopt::parseOptLevel(StringRef name) {
  return llvm::StringSwitch<std::optional<OptLevel>>(name)
      .Case("0", OptLevel::O0)
      .Case("1", OptLevel::O1)
      .Case("2", OptLevel::O2)
      .Case("3", OptLevel::O3)
      .Case("s", OptLevel::Os)
      .Case("z", OptLevel::Oz)
      .Default(std::nullopt);
}

StringRef
mlir::memopt::stringifyScheduleAlgorithm(schedule::Algorithm algorithm) {
  switch (algorithm) {
  case schedule::Algorithm::Exact:
    return "exact";
  case schedule::Algorithm::Input:
    return "input";
  case schedule::Algorithm::Kahn:
    return "kahn";
  case schedule::Algorithm::ReversePostOrder:
    return "rpo";
  case schedule::Algorithm::Greedy:
    return "greedy";
  }
  llvm_unreachable("unknown schedule::Algorithm");
}

StringRef
mlir::memopt::stringifyPlacementAlgorithm(PlacementAlgorithm algorithm) {
  switch (algorithm) {
  case PlacementAlgorithm::Best:
    return "best";
  case PlacementAlgorithm::GreedyBySize:
    return "greedy-by-size";
  case PlacementAlgorithm::NoReuse:
    return "no-reuse";
  }
  llvm_unreachable("unknown PlacementAlgorithm");
}

StringRef mlir::memopt::stringifyPartitionMode(PartitionMode mode) {
  switch (mode) {
  case PartitionMode::Off:
    return "off";
  case PartitionMode::Auto:
    return "auto";
  case PartitionMode::Always:
    return "always";
  }
  llvm_unreachable("unknown PartitionMode");
}

std::optional<PartitionMode> mlir::memopt::parsePartitionMode(StringRef name) {
  return llvm::StringSwitch<std::optional<PartitionMode>>(name)
      .Case("off", PartitionMode::Off)
      .Case("auto", PartitionMode::Auto)
      .Case("always", PartitionMode::Always)
      .Default(std::nullopt);
}

StringRef mlir::memopt::stringifyReportFormat(ReportFormat format) {
  switch (format) {
  case ReportFormat::None:
    return "none";
  case ReportFormat::Text:
    return "text";
  case ReportFormat::JSON:
    return "json";
  case ReportFormat::CSV:
    return "csv";
  }
  llvm_unreachable("unknown ReportFormat");
}

std::optional<ReportFormat> mlir::memopt::parseReportFormat(StringRef name) {
  return llvm::StringSwitch<std::optional<ReportFormat>>(name)
      .Case("text", ReportFormat::Text)
      .Case("json", ReportFormat::JSON)
      .Case("csv", ReportFormat::CSV)
      .Default(std::nullopt);
}

OptLevel CompileOptions::getOptLevel() const {
  if (optLevel)
    return *optLevel;
  switch (optimize) {
  case OptimizeGoal::Memory:
    return OptLevel::Oz;
  case OptimizeGoal::Balanced:
    return OptLevel::Os;
  case OptimizeGoal::Speed:
    return OptLevel::O2;
  }
  llvm_unreachable("unknown OptimizeGoal");
}

int64_t CompileOptions::getWideFilterBytes() const {
  if (wideFilterBytes)
    return *wideFilterBytes;
  return getOptLevel() == OptLevel::Oz ? 0 : 32768;
}

void mlir::memopt::registerCompilerDialects(DialectRegistry &registry) {
  memopt::registerAllDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}

void mlir::memopt::initializeCompiler() {
  LLVMInitializeARMTargetInfo();
  LLVMInitializeARMTarget();
  LLVMInitializeARMTargetMC();
  LLVMInitializeARMAsmPrinter();
  mlir::registerAllPasses();
  memopt::registerAllPasses();
}
