//===- CostModel.h - What every op and tensor costs in memory ---*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The one memory model of mem-opt. It says, for a TOSA function, what each
// activation costs and when: byte sizes (through the one storage-size rule of
// MemOpt/Utils/StorageSize.h), views, in-place elementwise ops, fused int8
// accumulators, padded and pooling windows, workspace, and where graph
// inputs and outputs live. Two models are selectable:
//
// - `canonical`, the model of the memory-aware scheduling papers: every
//   non-view op writes a fresh buffer, nothing else is counted;
// - `lowering`, the bytes the Cortex-M lowering allocates: the number
//   `cortex-m-pipeline` plans in the arena (plus caller-owned I/O).
//
// The lowering passes take their decisions from the predicates below, so that
// each rule is written once. docs/MemoryModel.md describes every rule.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_COSTMODEL_COSTMODEL_H
#define MEMOPT_COSTMODEL_COSTMODEL_H

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace mlir {
class Operation;
class Type;
class Value;

namespace memopt {

/// Which memory model to apply.
enum class MemoryModelKind {
  /// The papers' model: fresh buffers, no workspace, no fusion.
  Canonical,
  /// The Cortex-M lowering's model: what the arena holds.
  Lowering,
};

/// Where the graph's inputs and outputs live.
enum class IOPlacement {
  /// In the arena (TFLite Micro's convention): an input's bytes are reused
  /// once it dies; an output lives from its production to the end.
  Arena,
  /// In buffers the caller owns, live for the whole call and not in the
  /// arena.
  Caller,
};

/// The options of a cost model.
struct CostModelOptions {
  MemoryModelKind kind = MemoryModelKind::Canonical;
  IOPlacement io = IOPlacement::Arena;
  /// Alignment of the buffers in the arena (lowering model only); graph
  /// inputs and outputs in the arena may take less (getArenaAlignment).
  int64_t alignment = 16;
  /// Count every convolution that may write over its dying input at a shift
  /// (getOverwriteCandidate) as if `memory-schedule` had marked it: the
  /// bytes of no schedule of the marked program are below this model's, so
  /// its bounds are lower bounds of any marking (the budget search's).
  bool assumeShiftedOverwrites = false;
};

/// Parses `canonical` or `lowering`.
std::optional<MemoryModelKind> parseMemoryModelKind(StringRef name);
/// Parses `arena` or `caller`.
std::optional<IOPlacement> parseIOPlacement(StringRef name);

//===----------------------------------------------------------------------===//
// Rules shared by the model and the lowering
//===----------------------------------------------------------------------===//

/// The byte rule of the arena, shared by the model (DataflowGraph) and the
/// placement of the lowered buffers (`memplan-plan-arena`): returns the
/// alignment of a buffer whose elements need \p elementAlignment bytes
/// (getElementStorageAlignment), in an arena aligned to \p arenaAlignment.
/// A buffer that holds a graph input or output in the arena
/// (\p holdsGraphIO, `io=arena`) takes its element's alignment, as the
/// caller's own array would under `io=caller` (never more than
/// \p arenaAlignment); every other buffer takes \p arenaAlignment. A buffer
/// occupies its bytes rounded up to its alignment (getArenaBytes).
int64_t getArenaAlignment(int64_t elementAlignment, bool holdsGraphIO,
                          int64_t arenaAlignment);

/// Returns the bytes a buffer of \p storageBytes (getStorageBytes) with
/// alignment \p alignment occupies in the arena: rounded up to it; 0 stays 0.
int64_t getArenaBytes(int64_t storageBytes, int64_t alignment);

/// Returns true if \p op only re-describes the buffer of its first operand
/// in the lowering (a reshape, an expand/collapse_shape, a cast, or a slice,
/// which becomes a strided view): it allocates nothing.
bool isViewOp(Operation *op);

/// Returns true if the slice \p op (a `tosa.slice` or `tensor.extract_slice`)
/// is copied into a buffer of its own at its step: the function returns it,
/// maybe through reshapes (a strided view, or a reshape of one, cannot be a
/// function result; bufferization would copy it at the return). The model
/// counts the copy as the slice's output; `prepare-bufferization` makes it
/// right after the slice (every user then reads the copy), where the schedule
/// put the slice.
bool isCopiedSlice(Operation *op);

/// Returns true if the lowering may write the result of an elementwise op of
/// type \p resultType over its operand \p input: same type, and \p input is
/// read by this op only and computed by an op that is not a constant, maybe
/// through reshapes each read only once (graph inputs are read-only,
/// constants live in flash, and a slice's buffer would outlive the op). Used
/// for TOSA ops by the model and for `linalg.generic` ops by
/// `prepare-bufferization`.
bool canOverwriteOperand(Value input, Type resultType);

/// Returns true if \p op (TOSA) lowers to one elementwise `linalg.generic`
/// whose operands of the result's type are read through identity maps: the
/// TOSA elementwise operators, `tosa.rescale`, `tosa.cast`, `tosa.table` and
/// `tosa.mul` (whose shift is a constant).
bool isElementwiseOp(Operation *op);

/// Returns the operand of \p op whose buffer its result overwrites in the
/// lowering, if any: for an elementwise TOSA op, the first operand that
/// canOverwriteOperand accepts; for a `tensor.insert_slice` (the patches of
/// `patch-prefix`), its destination, when canOverwriteOperand accepts it
/// (the source is copied into its slice of the destination's buffer). None
/// for the root of a fused group (isFusedGroupRoot), whose operands are not
/// buffers: see getOverwrittenValue.
std::optional<unsigned> getOverwrittenOperand(Operation *op);

/// Returns true if \p op is a depthwise convolution that lowers to a 4-d linalg
/// op (one channel, or a multiplier of 1), which can be tiled per pixel and
/// written into its output's buffer; other
/// depthwise convolutions keep their 5-d form, whose result is a reshape of
/// a 5-d buffer.
bool isFourDimDepthwise(Operation *op);

/// Returns true if the int8 convolution, depthwise convolution or matmul
/// \p op is computed inside the loop of the narrowing `tosa.rescale` that is
/// its only user, one output pixel at a time (`fuse-rescale-accumulators`),
/// or, for an accumulator of one pixel, one output element at a time
/// (isRegisterAccumulator).
bool isFusedAccumulator(Operation *op);

/// Returns true if \p op is a fused accumulator (isFusedAccumulator) of one
/// output pixel: an unpadded `tosa.conv2d` (not of an explicit `tosa.pad`)
/// or a `tosa.matmul` whose result has one pixel (one row), a fully
/// connected layer. Its rescale's loop computes one output element at a
/// time, and the i32 accumulator of that element is a register
/// (`memopt.register_accumulator`: a stack slot, never an arena buffer), so
/// the fused pair needs no workspace: its input and its output are all it
/// keeps live, as TFLite Micro's fully connected kernels.
bool isRegisterAccumulator(Operation *op);

/// Returns true if the elementwise TOSA op \p op is computed inside its only
/// user, element by element, so that its result is never a tensor
/// (`fuse-elementwise-groups`): the int32 steps of int8 residual adds and
/// mean pooling, as MCU kernels compute them. It holds for
/// - a widening integer `tosa.rescale` or `tosa.cast` (fewer input than
///   result bits) whose only user, in the same block, is a `tosa.add`,
///   `tosa.sub`, `tosa.mul` (not as its shift) or `tosa.reduce_sum`, or a
///   rescale or cast of the same width that is fused itself (a chain of
///   rescales, as TFLite's ADD operands: i8 -> i32 by 2^20, then
///   i32 -> i32); such a rescale or cast whose input is computed by a
///   widening op of this kind, read by it alone, is a widening op too;
/// - a `tosa.add`, `tosa.sub` or `tosa.mul` whose only user is a narrowing
///   integer `tosa.rescale` (more input than result bits) and whose every
///   operand (but a multiplication's shift) is a widening op fused into it.
/// A result returned by the function, or read by several ops, is never
/// fused. The op is part of the node of the root of its group (the first
/// user that is not fused itself): that node reads the group's external
/// inputs (getFusedGroupInputs) and writes the root's result.
bool isFusedIntoConsumer(Operation *op);

/// Returns the values the fused group rooted at \p root reads: \p root's
/// operands, each one computed by an op fused into its consumer
/// (isFusedIntoConsumer) replaced by that op's own group inputs, in operand
/// order (the operand order of the fused `linalg.generic`). Appends the fused
/// ops to \p fused, if given, producers first.
SmallVector<Value>
getFusedGroupInputs(Operation *root,
                    SmallVectorImpl<Operation *> *fused = nullptr);

/// Returns true if an operand of \p op is computed by an op fused into it
/// (isFusedIntoConsumer): \p op is the root of a fused group.
bool isFusedGroupRoot(Operation *op);

/// Returns the tensor the `tosa.pad` \p pad pads in the lowering: its input,
/// or, when that input is itself a `tosa.pad` with the same constant padding
/// value, that pad's source (recursively). The canonicalization of
/// `tensor.pad` merges such consecutive pads into one pad of the first
/// source; the inner pad is built only for its other users.
Value getMergedPadSource(Operation *pad);

/// Returns true if every user of the `tosa.pad` \p op is a pad merged with
/// it (getMergedPadSource): the lowering never builds its result.
bool isPadMergedIntoUsers(Operation *op);

/// Returns true if the explicit `tosa.pad` \p op is read only by a fused
/// accumulator, which reads it through a padded window per pixel: the
/// padded tensor is never built.
bool isPadFusedIntoWindow(Operation *op);

/// Returns the bytes of the padded window a fused accumulator \p op reads
/// per output pixel (kernel extent x input channels), or 0 if it does not
/// pad its input (by its attribute or an explicit fused `tosa.pad`).
int64_t getFusedWindowBytes(Operation *op);

/// Returns true if the lowering computes the depthwise convolution \p op in
/// place (`inplace-depthwise`): one channel at a time into a one-channel
/// buffer, each channel then written over the input channel it no longer
/// needs, so input and output never coexist. It holds for a
/// `tosa.depthwise_conv2d` with static shapes, channel multiplier 1 and more
/// than one channel, stride 1 and an output of the input's shape ('same'
/// padding), whose result (its fused rescale's, if isFusedAccumulator)
/// has the input's type, where the input dies at the op and may be
/// overwritten (canOverwriteOperand: read by this op only, computed by an op
/// that is not a constant or a slice, not a graph input). This is the one
/// rule: the cost model and the lowering pass both call it.
bool isInPlaceDepthwise(Operation *op);

/// The geometry of a convolution that the lowering computes one output pixel
/// at a time, in order (H, then W; one image), reading all of a pixel's
/// window before writing any of its output (the per-pixel accumulator of
/// `fuse-rescale-accumulators`, which the DSP and MVE kernels keep).
struct OverwriteWindow {
  int64_t inputHeight = 1, inputWidth = 1, inputPixelBytes = 1;
  int64_t outputHeight = 1, outputWidth = 1, outputPixelBytes = 1;
  int64_t strideHeight = 1, strideWidth = 1;
  int64_t padTop = 0, padLeft = 0;
};

/// Returns the largest byte shift, at most 0, at which the output of
/// \p window may start relative to its input's buffer when it is written
/// over it: the output of each pixel ends at or below the first input byte
/// that a later pixel's window reads (its top-left tap, clamped to the
/// image). Not aligned: see alignOverwriteShift.
int64_t getOverwriteBound(const OverwriteWindow &window);

/// Returns the largest multiple of \p alignment at most \p bound (<= 0).
int64_t alignOverwriteShift(int64_t bound, int64_t alignment);

/// Returns the bytes an input buffer of \p inputBytes and an output buffer
/// of \p outputBytes placed at \p shift from it share: the length of the
/// intersection of [0, inputBytes) and [shift, shift + outputBytes).
int64_t getOverwriteOverlap(int64_t inputBytes, int64_t outputBytes,
                            int64_t shift);

/// Unit attribute of a `tosa.rescale` (getOverwriteCandidate) whose
/// convolution's output is written over its input at a shift, or into part
/// of it: `memory-schedule` sets it at the op where the schedule peaks,
/// when the peak falls and the arena planner still places the model's
/// buffers at it. An output that takes exactly its input's bytes needs none.
constexpr llvm::StringLiteral kOverwriteShiftedAttrName =
    "memopt.overwrite_shifted";

/// A convolution whose output the lowering may write over its dying input.
struct Overwrite {
  /// The convolution (fused with the rescale).
  Operation *conv = nullptr;
  /// The input whose buffer the output takes over.
  Value input;
  /// getOverwriteBound of the convolution.
  int64_t bound = 0;
  /// True if the output takes exactly the input's bytes: the same size, at
  /// shift 0.
  bool exact = false;
};

/// Returns the convolution that the lowering may compute over its dying
/// input, if \p op is the rescale fused with it (isFusedAccumulator, not a
/// one-pixel register accumulator): a `tosa.conv2d`, or a
/// `tosa.depthwise_conv2d` not computed in place (getInPlaceDepthwise), on
/// one image, whose input is read by it alone and may be overwritten
/// (computed by an op that is not a constant, a slice or a pad, as
/// canOverwriteOperand; or a graph input in the arena, `io=arena`), and
/// whose rescaled result is not fused into a consumer, neither returned
/// (maybe through reshapes) nor computed into a concat's slice
/// (getInPlaceConcat). std::nullopt otherwise.
std::optional<Overwrite> getOverwriteCandidate(Operation *op, IOPlacement io);

/// Returns getOverwriteCandidate if the lowering computes the convolution
/// over its dying input: the output takes exactly the input's bytes, or
/// \p op carries kOverwriteShiftedAttrName. The output starts
/// alignOverwriteShift(bound) bytes from the input and the two share the
/// rest: the model saves the shared bytes when the input dies there
/// (DataflowGraph), `mark-fused-elementwise` marks the rescale with the
/// bound (addOverwriteMark) and `memplan-plan-arena` places the pair
/// (ArenaBuffer::overwrites). This is the one rule.
std::optional<Overwrite> getOverwrite(Operation *op, IOPlacement io);

/// Returns the depthwise convolution that the node op \p op completes in
/// place: \p op itself if it is one (not fused), or the fused accumulator of
/// the rescale \p op; null otherwise.
Operation *getInPlaceDepthwise(Operation *op);

/// Returns the bytes of the one-channel buffers of the in-place depthwise
/// convolution \p op (isInPlaceDepthwise), allocated once before its
/// channel loop, each rounded up to \p alignment: the channel's output
/// (N x H x W of the result's element; for an f32 convolution, its
/// bias-initialized accumulator) and, if padded, the padded window of one
/// output pixel (kernel extent, one channel); a fused int8 convolution adds
/// its one-pixel, one-channel i32 accumulator.
int64_t getInPlaceDepthwiseWorkspace(Operation *op, int64_t alignment);

/// Returns the value whose buffer the result of the node op \p op
/// overwrites in the lowering (getOverwrittenOperand's operand, or the input
/// of an in-place depthwise convolution, or for the elementwise root of a
/// fused group, the first of its group inputs that canOverwriteOperand
/// accepts), or a null value.
Value getOverwrittenValue(Operation *op);

/// The buffers the lowering of one op creates around its result, beyond its
/// inputs and outputs, in the order they are live.
struct OpWorkspace {
  /// Scratch bytes counted at the op's step when its input stays live.
  int64_t workspaceBytes = 0;
  /// Bytes saved at the op's step when its input 0 dies there (the input is
  /// freed before the last scratch buffer or the output is allocated).
  int64_t savingIfInputDies = 0;
};

/// Returns the lowering's workspace of the TOSA op \p op (not a fused
/// accumulator): the padded window a padded convolution reads per output
/// pixel, the padded copy of a padded pooling (or 5-d depthwise) input, the
/// window operand of a pooling, and the i32 accumulator of an int8 average
/// pooling. \p inputBytes and
/// \p outputBytes are the arena bytes of input 0 and of the result; each
/// scratch buffer takes its size rounded up to \p alignment.
OpWorkspace getLoweringWorkspace(Operation *op, int64_t inputBytes,
                                 int64_t outputBytes, int64_t alignment);

/// Returns the `tosa.concat` whose buffer the lowering computes the result
/// of \p op into, directly into its slice (an *in-place concat operand*), or
/// null if the result gets a buffer of its own and the concat copies it.
/// The rule: under `io=caller` (\p io), \p op's one result is read exactly
/// once, as an operand of a `tosa.concat` of at most 16 operands in the same
/// block whose result the function returns (more operands would make
/// one-shot bufferization's analysis of the chain slow; the operand is not
/// returned, not read by any other op and not repeated in the concat: nothing
/// reads it outside the concat's buffer, which lives at least as long), \p op
/// is not computed from weights only, and its lowering writes its result
/// through the init of a destination-style op into a buffer of the result's
/// type that nothing else shares: a `tosa.conv2d`, a `tosa.matmul`, a
/// `tosa.transpose`, an unpadded `tosa.max_pool2d`, or an elementwise op
/// (isElementwiseOp, a fused group's root included) that is not the rescale
/// of an in-place depthwise convolution. An elementwise op that could
/// overwrite a dying input (getOverwrittenValue) writes into the slice
/// instead: the input dies at it either way, and its buffer then does not
/// live on to the concat. Not views, slices, pads, concats,
/// reductions, resizes, depthwise convolutions, average or padded poolings,
/// whose result is a reshape of another buffer, whose lowering accumulates
/// into a buffer of its own before it writes the result, or makes a copy of
/// the input that the model folds into the output's allocation. Graph
/// inputs are never operands produced in place (nothing produces them).
/// The returned concat is the caller's buffer, live for the whole call, so
/// writing into it never raises a step: every order holds at most the bytes
/// it holds with the copy (the operand's own buffer is gone, and nothing is
/// allocated in its place). An arena concat is not: its buffer would be
/// allocated at the first producer instead of at the concat, which raises
/// the steps in between (Liberis & Lane's Fig. 1 with io=arena: 5216 bytes
/// against 4960), so it stays a copy. The model (DataflowGraph) makes the
/// concat's buffer a multi-writer buffer; `mark-fused-elementwise` marks
/// \p op (kIntoConcatSliceLocName) and `prepare-bufferization` makes its
/// lowering write into the slice.
Operation *getInPlaceConcat(Operation *op, IOPlacement io);

/// Returns the multiply-accumulates of the TOSA op \p op: output elements
/// times the products per element of a convolution (2-d or 3-d), depthwise
/// convolution or matmul; an `scf.for` with a constant trip count, its
/// body's times the trips; 0 for every other op.
int64_t getMultiplyAccumulates(Operation *op);

/// Returns the multiply-accumulates of the ops nested in \p root (a
/// function): getMultiplyAccumulates of each, the ops in a loop's body
/// counted through the loop.
int64_t getTotalMultiplyAccumulates(Operation *root);

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_COSTMODEL_COSTMODEL_H
