//===- MemRefLiveness.h - Liveness of buffers in bufferized IR --*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Buffer liveness on bufferized IR. Every statically shaped `memref.alloc` or
// `memref.alloca` at the top level of a one-block `func.func`, together with
// every alias of it (views, casts, reshapes, anything through
// ViewLikeOpInterface, and conservatively any other op result computed from
// it), is one buffer. The buffer lives from the step of its allocation to the
// step of the last use of any alias, where steps number the top-level ops of
// the function and a use inside a nested region (a linalg.generic body, an
// scf.for) counts at its top-level ancestor. `memref.dealloc` is not a use.
// A loop whose body allocates buffers itself (a loop over patches) is a step
// for its start, the steps of its body's ops (numbered the same way), and a
// step for its end: every iteration reuses the body's buffers, and a buffer
// allocated before the loop that the body uses lives until the loop's end.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_MEMREFLIVENESS_H
#define MEMOPT_ANALYSIS_MEMREFLIVENESS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

#include <cstdint>

namespace mlir {
class DataLayout;
namespace func {
class FuncOp;
} // namespace func
namespace memopt {

/// One buffer of bufferized IR: an allocation and all its aliases.
struct MemRefBuffer {
  /// The `memref.alloc` or `memref.alloca` that creates the buffer.
  Operation *alloc = nullptr;
  /// Bytes the buffer occupies (elements times element byte size).
  int64_t sizeInBytes = 0;
  /// The `alignment` attribute of the allocation, 0 if it has none.
  int64_t requestedAlignment = 0;
  /// Step of the allocation.
  unsigned first = 0;
  /// Step of the last use of any alias (at least `first`).
  unsigned last = 0;
  /// The `memref.dealloc` ops that free the buffer or one of its aliases.
  llvm::SmallVector<Operation *> deallocs;
};

/// Buffer liveness of one `func.func` in bufferized form. Passes get it with
/// `getAnalysis<MemRefLiveness>()`; construction emits an error at the
/// offending op if the function cannot be analyzed (several blocks, dynamic
/// shapes, allocations in nested regions, returned buffers, frees other than
/// `memref.dealloc`), in which case isValid() is false.
class MemRefLiveness {
public:
  /// Analyzes \p op, which must be a `func.func`. A declaration has no
  /// buffers.
  explicit MemRefLiveness(Operation *op);

  /// For a function with `memplan.io_in_arena`: the buffer each operand of
  /// the return is (a view of), or std::nullopt if it is none or several.
  llvm::ArrayRef<std::optional<unsigned>> getReturnedBuffers() const {
    return returnedBuffers;
  }
  /// Returns false if the function could not be analyzed.
  bool isValid() const { return valid; }
  /// The buffers in the order of their allocations.
  llvm::ArrayRef<MemRefBuffer> getBuffers() const { return buffers; }
  /// The top-level op of each step.
  llvm::ArrayRef<Operation *> getStepOps() const { return stepOps; }
  /// Bytes of the buffers live at each step.
  llvm::ArrayRef<int64_t> getLiveBytes() const { return liveBytes; }
  /// The largest entry of getLiveBytes() (0 without buffers).
  int64_t getPeakBytes() const { return peakBytes; }
  /// The first step at which the peak is reached.
  unsigned getPeakStep() const { return peakStep; }

  /// Prints the buffers, the bytes live at each step and the peak.
  void print(llvm::raw_ostream &os) const;
  /// Prints to llvm::errs().
  void dump() const;

private:
  /// Walks the function and fills the buffers; emits a diagnostic and returns
  /// failure if it cannot be analyzed.
  LogicalResult analyze(Operation *op);
  /// Adds the steps of the ops of \p block, a block of \p func, and their
  /// buffers; \p aliases maps each memref value to the buffers it aliases.
  LogicalResult
  analyzeBlock(Block &block, func::FuncOp func, const DataLayout &layout,
               llvm::DenseMap<Value, llvm::SmallVector<unsigned, 1>> &aliases);

  /// False if analysis failed.
  bool valid = false;
  /// The buffers, in allocation order.
  llvm::SmallVector<MemRefBuffer> buffers;
  /// Buffers returned by a function whose outputs live in the arena.
  llvm::SmallVector<std::optional<unsigned>> returnedBuffers;
  /// The top-level ops, one per step.
  llvm::SmallVector<Operation *> stepOps;
  /// Live bytes per step.
  llvm::SmallVector<int64_t> liveBytes;
  /// Peak of liveBytes and its first step.
  int64_t peakBytes = 0;
  unsigned peakStep = 0;
};

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_ANALYSIS_MEMREFLIVENESS_H
