//===- InitAll.h - Register everything mem-opt provides ---------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// One place that registers mem-opt's passes and the upstream dialects it works
// on, so the driver and the plugin cannot drift apart.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_INITALL_H
#define MEMOPT_INITALL_H

namespace mlir {
class DialectRegistry;

namespace memopt {

/// Registers the upstream dialects mem-opt reads and lowers through (func,
/// tosa, arith, tensor, linalg, bufferization, memref, scf, cf, math, affine,
/// llvm) with their interface models and extensions, and mem-opt's own
/// `memplan` dialect.
void registerAllDialects(DialectRegistry &registry);

/// Registers every mem-opt pass with the global pass registry.
void registerAllPasses();

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_INITALL_H
