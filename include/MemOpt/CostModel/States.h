//===- States.h - The states of a model: names and rules --------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// A state is a variable of a model (an SVDF activation state, TFLite's
// variable tensor): a function argument that holds its value when the call
// starts, marked with the result that holds its value after the call. This
// header names the attributes that mark states and the state buffer that
// `bind-state-buffers` gives a compiled function (kept beside
// MemOpt/Utils/Attributes.h's names, for the same reason: one place for
// writer and reader), and holds the memory model's rules for states, which
// the model (DataflowGraph), `bind-state-buffers` and mem-opt-compile's
// header share. docs/MemoryModel.md ("States") describes them.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_COSTMODEL_STATES_H
#define MEMOPT_COSTMODEL_STATES_H

#include "MemOpt/Support/StateNames.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

namespace mlir {
class Operation;
namespace func {
class FuncOp;
} // namespace func

namespace memopt {

/// Unit attribute on the `memref<Nxi8>` argument that `bind-state-buffers`
/// gives a function with states: the caller's state buffer, which holds
/// every state at its offset (kStateOffsetsAttrName) and is not an arena
/// buffer.
constexpr llvm::StringLiteral kStateBufferAttrName = "memopt.state_buffer";
/// On a function with states (`bind-state-buffers`): the byte offset of each
/// state in the state buffer, in argument order (a DenseI64ArrayAttr), the
/// buffer's size and its alignment (the largest of its elements').
constexpr llvm::StringLiteral kStateOffsetsAttrName = "memopt.state_offsets";
constexpr llvm::StringLiteral kStateSizeAttrName = "memopt.state_size";
constexpr llvm::StringLiteral kStateAlignmentAttrName =
    "memopt.state_alignment";

/// One state of a function (a variable of the model, such as an SVDF
/// activation state): argument `argument` holds its value when the call
/// starts, result `result` its value after the call (kStateAttrName, MemOpt/Support/StateNames.h, on the
/// argument, MemOpt/Utils/Attributes.h).
struct StateBinding {
  unsigned argument = 0;
  unsigned result = 0;
};

/// Returns the states of \p func in argument order, from the kStateAttrName
/// attributes of its arguments. Emits an error at \p func and fails if an
/// attribute is not an integer, names no result of \p func, names a result
/// whose type is not the argument's (a ranked tensor, or a memref after
/// bufferization), or names a result that another argument names.
FailureOr<SmallVector<StateBinding>> getStateBindings(func::FuncOp func);

/// Returns the `tosa.concat` whose result is the new value of \p state and
/// that the lowering computes over the state's own buffer, or null. The
/// rule (the shift of a sliding window, as an SVDF updates its state):
/// result `state.result` is, maybe through `tosa.reshape`s, a `tosa.concat`
/// of two operands along an axis whose first operand is a `tosa.slice` of
/// argument `state.argument` (maybe through reshapes to the concat's type)
/// that drops the first s entries along that axis and keeps the rest, s
/// being the second operand's extent there; the argument, the reshapes and
/// the slice are each read once, and the concat and the reshapes after it
/// are returned only as that result (other ops may read them). The lowering
/// copies every kept entry s entries towards the start in increasing
/// address order, each read before anything writes over it (a copy within
/// one row of the outer dimensions, to a lower address), and then writes
/// the new entries (the second operand, an activation) at the end: the
/// state is never copied as a whole. The memory model counts neither the
/// argument's nor the concat's buffer in the arena.
Operation *getInPlaceStateUpdate(func::FuncOp func, StateBinding state);

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_COSTMODEL_STATES_H
