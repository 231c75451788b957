//===- Int8KernelUtils.h - int8 convolutions for kernels --------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// What the Arm int8 kernel passes share: matching a bufferized int8
// convolution (operands, constant zero points, strides, dilations), reading
// a memref through a byte pointer with static strides, whether two memrefs
// overlap and the in-place depthwise's channel copy back, i32 loops that
// thread loop-carried values, and the builder of their i32 arithmetic. Used
// by the MVE and the DSP kernels (MveKernels.h, DspKernels.h).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_TARGET_ARM_INT8KERNELUTILS_H
#define MEMOPT_LIB_TARGET_ARM_INT8KERNELUTILS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlir {
namespace memopt {
namespace armkernels {

/// An int8 memref read through a byte pointer: element (i0, i1, ...) is at
/// base + offset + sum(i_k * strides[k]) (offset and indices are i32).
struct ByteView {
  Value base;
  Value offset;
  SmallVector<int64_t> strides;
  ArrayRef<int64_t> shape;
};

/// The operands and attributes of a quantized NHWC convolution on memrefs.
struct ConvParts {
  Value input, filter, output;
  int64_t inputZp, filterZp;
  int64_t strideH, strideW, dilationH, dilationW;
};

/// Returns true if \p value is a statically shaped memref of \p width-bit
/// integers.
bool isStaticIntMemRef(Value value, unsigned width);

/// Matches \p op, a `linalg` convolution on statically shaped memrefs with
/// int8 input and filter, an int32 output and constant int8 zero points (the
/// `_q` ops; the plain ones have none, i.e. 0).
FailureOr<ConvParts> matchInt8Conv(linalg::LinalgOp op);

/// The pattern of a kernel of the int8 convolution \p ConvOp: matches it
/// (matchInt8Conv) and hands its parts to rewriteConv.
template <typename ConvOp> struct Int8ConvPattern : OpRewritePattern<ConvOp> {
  using OpRewritePattern<ConvOp>::OpRewritePattern;

  /// Rewrites \p op, whose operands and attributes are \p parts.
  virtual LogicalResult rewriteConv(ConvOp op, const ConvParts &parts,
                                    PatternRewriter &rewriter) const = 0;

  /// Matches \p op and calls rewriteConv.
  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const final {
    FailureOr<ConvParts> parts =
        matchInt8Conv(cast<linalg::LinalgOp>(op.getOperation()));
    if (failed(parts))
      return rewriter.notifyMatchFailure(
          op, llvm::is_one_of<ConvOp, linalg::DepthwiseConv2DNhwcHwcOp,
                              linalg::DepthwiseConv2DNhwcHwcQOp>::value
                  ? "not an int8 depthwise conv on memrefs with constant "
                    "zero points"
                  : "not an int8 conv on memrefs with constant zero points");
    return rewriteConv(op, *parts, rewriter);
  }
};

/// Returns the static strides of \p memref, or nothing if one is dynamic.
std::optional<SmallVector<int64_t>> getStaticStrides(Value memref);

/// Builds the ByteView of \p memref at the builder's insertion point, or
/// fails (creating nothing) if its strides are not static.
FailureOr<ByteView> getByteView(OpBuilder &b, Location loc, Value memref);

/// An i32 constant.
Value getI32Constant(OpBuilder &b, Location loc, int64_t value);

/// Returns \p a + \p scale * \p c (i32), folding the trivial cases.
Value addScaled(OpBuilder &b, Location loc, Value a, Value c, int64_t scale);

/// The body of a loop: the induction variable and the carried values in,
/// the carried values of the next iteration out.
using LoopBody =
    function_ref<SmallVector<Value>(OpBuilder &, Location, Value, ValueRange)>;

/// Calls \p body for iv = lb, lb + step, ... < ub, threading \p accs
/// through an scf.for with i32 bounds (one iteration: no loop; none: \p
/// accs). Returns the final values. An \p unrollCount above 1 asks LLVM to
/// unroll the loop by that count (see setUnrollCount).
SmallVector<Value> forWithAccs(OpBuilder &b, Location loc, int64_t lb,
                               int64_t ub, int64_t step, ValueRange accs,
                               LoopBody body, unsigned unrollCount = 0);

/// Attaches `#llvm.loop_annotation<unroll = <count = \p count>>` to \p
/// loop: convert-scf-to-cf copies it to the loop's back edge and
/// convert-cf-to-llvm to the `loop_annotation` of its llvm.br, which
/// becomes `llvm.loop.unroll.count` metadata. LLVM's loop unroller honours
/// the count at -Os too (where it unrolls nothing of its own accord), so
/// only the annotated loops grow.
void setUnrollCount(scf::ForOp loop, unsigned count);

/// Like forWithAccs from 0 to \p ub by 1, but every iteration in line when
/// \p unroll.
SmallVector<Value> forTapsWithAccs(OpBuilder &b, Location loc, bool unroll,
                                   int64_t ub, ValueRange accs, LoopBody body);

/// The loops over the output's N, H and W: calls \p body(b, loc, n, oh, ow,
/// pixel) with the i32 offset \p pixel of the window's origin in \p in.
void forEachOutputPixel(
    OpBuilder &b, Location loc, ArrayRef<int64_t> outShape, const ByteView &in,
    const ConvParts &parts,
    function_ref<void(OpBuilder &, Location, Value, Value, Value, Value)> body);

/// Returns the constant integers that \p operand (a memref operand of a
/// linalg op) holds: a view (subview, reshape, cast) of a constant
/// memref.global, all of whose values are returned.
std::optional<SmallVector<int64_t>> getGlobalValues(Value operand);

/// A constant memref.global with dense integer values and the identity
/// layout, read whole, or as the rows [offset, offset + size) of its first
/// dimension (a unit-stride subview that keeps every other dimension whole).
struct ConstantRows {
  memref::GlobalOp global;
  /// The subview of the rows, or null when the global is read whole.
  memref::SubViewOp rows;
};

/// Returns the constant global the memref \p value reads, directly (a
/// memref.get_global) or through a subview of rows of it, else an empty
/// global.
ConstantRows getConstantRows(Value value, SymbolTable &symbols);

/// Returns true if the memrefs \p a and \p b provably do not overlap:
/// disjoint bytes of one buffer, or two buffers one of which is a
/// `llvm.noalias` function argument (the arena).
bool areDisjoint(Value a, Value b);

/// A linalg.copy of int8 from a contiguous one-channel buffer (1 x H x W x
/// 1, the in-place depthwise convolution's channel) into a view with a
/// uniform pixel stride (a channel of an NHWC tensor: rows W * stride bytes
/// apart) that does not overlap it.
struct ChannelCopy {
  /// The channel buffer and the view it is copied into.
  Value source, target;
  /// H * W, and the target's bytes from one pixel to the next.
  int64_t pixels, stride;
};

/// Matches \p op as a ChannelCopy of at least \p minPixels pixels, both
/// memrefs with static strides (the copy-back kernels of the DSP and the
/// MVE channels).
std::optional<ChannelCopy> matchChannelCopy(linalg::CopyOp op,
                                            int64_t minPixels);

/// Index-typed casts of the i32 \p values (indices of a memref).
SmallVector<Value> toIndices(OpBuilder &b, Location loc,
                             ArrayRef<Value> values);

/// Emits the kernels' i32 arithmetic at one insertion point; the DSP and MVE
/// builders add their own operations.
struct ScalarBuilder {
  ScalarBuilder(OpBuilder &builder, Location loc)
      : b(builder), loc(loc), i8(builder.getI8Type()),
        i32(builder.getI32Type()),
        ptr(LLVM::LLVMPointerType::get(builder.getContext())) {}

  /// An i32 constant.
  Value constant(int64_t value) { return getI32Constant(b, loc, value); }
  /// \p a + \p c.
  Value add(Value a, Value c) { return arith::AddIOp::create(b, loc, a, c); }
  /// \p a * \p c.
  Value mul(Value a, Value c) { return arith::MulIOp::create(b, loc, a, c); }

  /// The builder and location of the operations.
  OpBuilder &b;
  Location loc;
  /// The types the kernels use: i8, i32 and the LLVM pointer.
  Type i8, i32, ptr;
};

} // namespace armkernels
} // namespace memopt
} // namespace mlir

#endif // MEMOPT_LIB_TARGET_ARM_INT8KERNELUTILS_H
