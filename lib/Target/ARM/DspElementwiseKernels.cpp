//===- DspElementwiseKernels.cpp - DSP rescale and clamp ------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The DSP kernels of elementwise ops: a lowered tosa.rescale's 64-bit
// rounding multiply as one SMULL (SMLAL for TFLite's double rounding) and
// 32-bit shifts (ApplyScale.cpp), and an int8 clamp four
// bytes at a time (SSUB8, SEL). See DspInt8Kernels.cpp.
//
//===----------------------------------------------------------------------===//

#include "ApplyScale.h"
#include "DspKernels.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::armkernels;
using namespace mlir::memopt::armkernels::dsp;

/// Returns true if \p value is a contiguous row-major memref of int8 with a
/// static shape.
static bool isContiguousInt8MemRef(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type || !type.getElementType().isInteger(8) || !type.hasStaticShape() ||
      failed(type.getStridesAndOffset(strides, offset)))
    return false;
  // Row-major: each dimension (of more than one element) strides over the
  // ones after it.
  int64_t expected = 1;
  for (int64_t dim = type.getRank() - 1; dim >= 0; --dim) {
    if (type.getDimSize(dim) != 1 && strides[dim] != expected)
      return false;
    expected *= type.getDimSize(dim);
  }
  return true;
}

namespace {
/// Rewrites an elementwise clamp of int8 values (a linalg.generic whose body
/// is arith.maxsi and/or arith.minsi of the element with constants, as a
/// lowered tosa.clamp is) four bytes at a time: SSUB8 of the word and the
/// bound repeated in each byte sets the GE flag of each byte where the
/// element is at least the bound, and SEL picks the element or the bound
/// per byte. Bytes left over are clamped one at a time.
struct ClampToDsp : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 1 ||
        op.getNumDpsInits() != 1 ||
        op.getNumParallelLoops() != op.getNumLoops() ||
        !llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); }))
      return failure();
    Value input = op.getDpsInputOperand(0)->get();
    Value output = op.getDpsInitOperand(0)->get();
    if (!isContiguousInt8MemRef(input) || !isContiguousInt8MemRef(output) ||
        cast<MemRefType>(input.getType()).getShape() !=
            cast<MemRefType>(output.getType()).getShape())
      return failure();
    // The chain of bounds from the element to the yielded value: (bound,
    // isMax) per op.
    Block &body = op.getRegion().front();
    Value current = body.getArgument(0);
    SmallVector<std::pair<int64_t, bool>> bounds;
    for (Operation &inner : body.without_terminator()) {
      if (!isa<arith::MaxSIOp, arith::MinSIOp>(inner) ||
          inner.getOperand(0) != current)
        return failure();
      APInt bound;
      if (!matchPattern(inner.getOperand(1), m_ConstantInt(&bound)))
        return failure();
      bounds.push_back({bound.getSExtValue(), isa<arith::MaxSIOp>(inner)});
      current = inner.getResult(0);
    }
    if (bounds.empty() || body.getTerminator()->getOperand(0) != current)
      return failure();

    if (!armkernels::getStaticStrides(input) ||
        !armkernels::getStaticStrides(output))
      return failure();
    KernelBuilder kb(rewriter, op.getLoc());
    FailureOr<ByteView> in = getByteView(kb, input);
    FailureOr<ByteView> out = getByteView(kb, output);
    int64_t numElements = cast<MemRefType>(input.getType()).getNumElements();
    int64_t words = numElements - numElements % 4;
    SmallVector<Value> state = {kb.address(in->base, in->offset),
                                kb.address(out->base, out->offset)};
    state = forWithAccs(
        kb, 0, words, 4, state,
        [&](KernelBuilder &kb, Value, ValueRange state) {
          Value word = kb.loadWordAt(state[0]);
          for (auto [bound, isMax] : bounds) {
            uint32_t byte = static_cast<uint32_t>(bound) & 0xFFu;
            Value packed =
                kb.constant(static_cast<int32_t>(byte * 0x01010101u));
            // GE per byte where word >= bound.
            kb.intrinsic("llvm.arm.ssub8", {word, packed});
            word = isMax ? kb.intrinsic("llvm.arm.sel", {word, packed})
                         : kb.intrinsic("llvm.arm.sel", {packed, word});
          }
          LLVM::StoreOp::create(kb.b, kb.loc, word, state[1],
                                /*alignment=*/1);
          return SmallVector<Value>{kb.offsetPointer(state[0], 4),
                                    kb.offsetPointer(state[1], 4)};
        });
    forWithAccs(
        kb, words, numElements, 1, state,
        [&](KernelBuilder &kb, Value, ValueRange state) {
          Value value = LLVM::LoadOp::create(kb.b, kb.loc, kb.i8, state[0], 1);
          for (auto [bound, isMax] : bounds) {
            Value c = arith::ConstantIntOp::create(kb.b, kb.loc, kb.i8, bound);
            value =
                isMax
                    ? arith::MaxSIOp::create(kb.b, kb.loc, value, c).getResult()
                    : arith::MinSIOp::create(kb.b, kb.loc, value, c)
                          .getResult();
          }
          LLVM::StoreOp::create(kb.b, kb.loc, value, state[1], 1);
          return SmallVector<Value>{kb.offsetPointer(state[0], 1),
                                    kb.offsetPointer(state[1], 1)};
        });
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void dsp::populateElementwisePatterns(RewritePatternSet &patterns) {
  populateScalarRescalePatterns(patterns, /*doubleRoundOnly=*/false,
                                /*shiftValuesOnly=*/false);
  patterns.add<ClampToDsp>(patterns.getContext());
}
