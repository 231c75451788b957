//===- Compiler.cpp - A model to a Cortex-M object ------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The flow of the compile driver: C names for the public functions,
// `cortex-m-pipeline`, the translation to LLVM IR, LLVM's optimization and
// code generation, then the header and the report. Each output goes to the
// caller's hook as soon as it is ready.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Compiler/Compiler.h"

#include "CompilerInternal.h"
#include "MemOpt/Pipelines/Pipelines.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;
using namespace mlir::memopt;

/// Hands \p bytes to the output hook of \p hooks, if there is one.
static LogicalResult handOver(const CompileHooks &hooks, CompileOutputKind kind,
                              StringRef bytes) {
  if (!hooks.output)
    return success();
  return hooks.output(kind, bytes);
}

FailureOr<CompileResult>
mlir::memopt::compileModule(ModuleOp module, const CompileOptions &requested,
                            const CompileHooks &hooks) {
  MLIRContext *context = module.getContext();
  // The options compiled: the requested ones, with the patches a budget
  // chose.
  CompileOptions options = requested;
  CompileProgress progress(hooks.progress);
  TimingScope noTiming;
  TimingScope &timing = hooks.timing ? *hooks.timing : noTiming;
  std::string targetError;
  std::optional<CortexMTarget> target = getCortexMTarget(
      stringifyCortexMCpu(options.cpu),
      options.floatAbi ? stringifyFloatABI(*options.floatAbi) : "",
      &targetError);
  if (!target)
    return emitError(UnknownLoc::get(context)) << targetError;
  OptLevel level = options.getOptLevel();
  bool wantReport = options.report != ReportFormat::None;

  if (failed(renamePublicFunctions(module, options)))
    return failure();
  FailureOr<SmallVector<FunctionInfo>> infos = collectFunctions(module);
  if (failed(infos) || failed(checkTensorSizes(module)))
    return failure();

  std::optional<BudgetReport> budget;
  if (options.budgetSearch && options.sramBytes > 0 &&
      options.patches == "off") {
    TimingScope budgetTiming = timing.nest("Budget search");
    FailureOr<BudgetReport> chosen =
        chooseBudgetConfiguration(module, *infos, options, progress);
    if (failed(chosen))
      return failure();
    if (chosen->chosen)
      options.patches = chosen->candidates[*chosen->chosen].patches;
    budget = std::move(*chosen);
  }

  llvm::StringMap<FunctionReport> reports;
  if (failed(runCortexMPipeline(module, options, progress, timing, reports)))
    return failure();

  std::unique_ptr<llvm::TargetMachine> machine =
      createTargetMachine(context, *target, level);
  if (!machine)
    return failure();
  progress.print("translating to LLVM IR and optimizing (" +
                 (options.choosesSpeed()
                      ? std::string("-Os or -O2 per layer")
                      : "-O" + stringifyOptLevel(level).str()) +
                 ")");
  TimingScope translateTiming = timing.nest("Translate to LLVM IR");
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, options.modelPath);
  translateTiming.stop();
  if (!llvmModule)
    return emitError(UnknownLoc::get(context))
           << "cannot translate the lowered module to LLVM IR";
  SpeedChoice speedChoice;
  if (failed(optimizeLLVMModule(
          context, *llvmModule, *machine, level, progress, timing,
          options.choosesSpeed() ? &speedChoice : nullptr)))
    return failure();
  if (options.choosesSpeed()) {
    progress.print(llvm::formatv("--optimize=speed: -O2's code for {0} of {1} "
                                 "functions, the default's for the others",
                                 speedChoice.fastFunctions,
                                 speedChoice.functions.size()));
    // The one line that says a level cannot win (a remark: --quiet drops
    // it).
    if (speedChoice.fastFunctions == 0)
      emitRemark(module.getLoc())
          << "--optimize=speed: no faster configuration than the default for "
          << options.modelPath << " (its code is the default's)";
  }

  CompileResult result;
  if (options.emitLLVMIR) {
    llvm::raw_string_ostream os(result.llvmIR);
    llvmModule->print(os, nullptr);
    if (failed(handOver(hooks, CompileOutputKind::LLVMIR, result.llvmIR)))
      return failure();
  }

  // The object, in memory: the report reads its section sizes.
  if (options.emitObject || wantReport) {
    progress.print("generating code for " + stringifyCortexMCpu(options.cpu));
    TimingScope codegenTiming = timing.nest("Generate code");
    SmallVector<char, 0> object;
    llvm::raw_svector_ostream os(object);
    CompileHeartbeat codegenHeartbeat(progress, "generating code");
    if (failed(emitObject(context, *llvmModule, *machine, os)))
      return failure();
    codegenTiming.stop();
    result.object.assign(object.data(), object.size());
  }
  if (options.emitObject &&
      failed(handOver(hooks, CompileOutputKind::Object, result.object)))
    return failure();

  {
    llvm::raw_string_ostream os(result.header);
    printHeader(os, module, *infos, options);
  }
  if (failed(handOver(hooks, CompileOutputKind::Header, result.header)))
    return failure();
  progress.print("done");
  if (!wantReport)
    return result;

  FailureOr<CompileReport> report =
      buildCompileReport(module, *infos, reports, result.object, options);
  if (failed(report))
    return failure();
  if (budget) {
    if (budget->chosen && report->object)
      budget->candidates[*budget->chosen].codeBytes = report->object->codeBytes;
    report->candidates = std::move(budget);
  }
  llvm::raw_string_ostream os(result.reportText);
  if (options.report == ReportFormat::JSON)
    os << llvm::formatv("{0:2}", report->toJSON()) << "\n";
  else if (options.report == ReportFormat::CSV)
    report->printCSV(os);
  else
    report->printText(os);
  result.report = std::move(*report);
  return result;
}

FailureOr<CompileResult>
mlir::memopt::compileModel(StringRef bytes, MLIRContext *context,
                           const CompileOptions &options,
                           const CompileHooks &hooks) {
  StringRef name = options.modelPath;
  if (name == "-")
    name = "<stdin>";
  // A copy: the MLIR lexer needs the null terminator.
  OwningOpRef<ModuleOp> module = loadModel(
      llvm::MemoryBuffer::getMemBufferCopy(bytes, name), context, options);
  if (!module)
    return failure();
  return compileModule(*module, options, hooks);
}
