//===- StorageSize.h - The one byte-size rule of mem-opt --------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The bytes a statically shaped tensor or memref occupies on the target, and
// the alignment its elements need. The dataflow graph, the arena planner and
// the `memplan` verifier all use this one rule, so a tensor and the memref it
// becomes always have the same size and alignment (the arena's share of it:
// getArenaAlignment in MemOpt/CostModel/CostModel.h).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_UTILS_STORAGESIZE_H
#define MEMOPT_UTILS_STORAGESIZE_H

#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <optional>

namespace mlir {
class DataLayout;
class Type;

namespace memopt {

/// Returns the bytes one element of \p elementType occupies in memory: its
/// size under \p layout rounded up to its ABI alignment, as LLVM's
/// allocation size does (an `i24` takes four bytes, an `i1` or `i4` one).
/// Quantized types take their storage type's size; `complex<T>` two T.
/// Returns std::nullopt for types without a fixed size in memory.
std::optional<int64_t> getElementStorageBytes(Type elementType,
                                              const DataLayout &layout);

/// Returns the alignment in bytes one element of \p elementType needs in
/// memory: its ABI alignment under \p layout (a quantized type its storage
/// type's, `complex<T>` T's), what a C array of it gets and what the loads
/// of the lowering assume. Returns std::nullopt for types without a fixed
/// size in memory.
std::optional<int64_t> getElementStorageAlignment(Type elementType,
                                                  const DataLayout &layout);

/// Returns the bytes of a statically shaped tensor or memref \p type:
/// elements times getElementStorageBytes. Returns std::nullopt for unranked
/// or dynamic shapes, element types without a fixed size, and sizes that
/// overflow int64_t.
std::optional<int64_t> getStorageBytes(Type type, const DataLayout &layout);

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_UTILS_STORAGESIZE_H
