//===- LLVMAnalyses.h - LLVM's analysis managers, registered ----*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The four analysis managers of LLVM's new pass manager with every analysis
// of a target machine registered and the proxies between them, for the
// compiler's own passes over the LLVM module (loop extraction, the speed
// estimate). Private to lib/Compiler.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_COMPILER_LLVMANALYSES_H
#define MEMOPT_LIB_COMPILER_LLVMANALYSES_H

#include "llvm/Passes/PassBuilder.h"

namespace mlir {
namespace memopt {

/// LLVM's loop, function, CGSCC and module analysis managers and the pass
/// builder of \p machine that registered them.
struct LLVMAnalyses {
  explicit LLVMAnalyses(llvm::TargetMachine &machine) : builder(&machine) {
    builder.registerModuleAnalyses(module);
    builder.registerCGSCCAnalyses(cgscc);
    builder.registerFunctionAnalyses(function);
    builder.registerLoopAnalyses(loop);
    builder.crossRegisterProxies(loop, function, cgscc, module);
  }

  llvm::LoopAnalysisManager loop;
  llvm::FunctionAnalysisManager function;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager module;
  llvm::PassBuilder builder;
};

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_LIB_COMPILER_LLVMANALYSES_H
