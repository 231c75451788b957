//===- DspLoops.cpp - The DSP kernels' loops ------------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The loops of the DSP kernels (DspKernels.h): accumulators threaded through
// i32 loops or emitted in line, channel blocks with their scalar tails, the
// output's accumulators and the output pixel loops.
//
//===----------------------------------------------------------------------===//

#include "DspKernels.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::armkernels;
using namespace mlir::memopt::armkernels::dsp;

/// Iterations up to which a reduction loop is emitted unrolled.
static constexpr int64_t kMaxUnrolledSteps = 4;

/// The body \p body of a loop with accumulators as an armkernels::LoopBody.
static auto withKernelBuilder(AccsBody body) {
  return [body](OpBuilder &b, Location loc, Value iv, ValueRange args) {
    KernelBuilder inner(b, loc);
    return body(inner, iv, args);
  };
}

FailureOr<ByteView> dsp::getByteView(KernelBuilder &kb, Value memref) {
  return armkernels::getByteView(kb.b, kb.loc, memref);
}

SmallVector<Value> dsp::forWithAccs(KernelBuilder &kb, int64_t lb, int64_t ub,
                                    int64_t step, ValueRange accs,
                                    AccsBody body, unsigned unrollCount) {
  return armkernels::forWithAccs(kb.b, kb.loc, lb, ub, step, accs,
                                 withKernelBuilder(body), unrollCount);
}

SmallVector<Value> dsp::forStepsWithAccs(KernelBuilder &kb, int64_t lb,
                                         int64_t ub, int64_t step,
                                         ValueRange accs, AccsBody body,
                                         unsigned unrollCount) {
  if (ub <= lb || (ub - lb + step - 1) / step > kMaxUnrolledSteps)
    return forWithAccs(kb, lb, ub, step, accs, body, unrollCount);
  SmallVector<Value> current(accs);
  for (int64_t i = lb; i < ub; i += step)
    current = body(kb, kb.constant(i), current);
  return current;
}

SmallVector<Value> dsp::forTapsWithAccs(KernelBuilder &kb, bool unroll,
                                        int64_t ub, ValueRange accs,
                                        AccsBody body) {
  return armkernels::forTapsWithAccs(kb.b, kb.loc, unroll, ub, accs,
                                     withKernelBuilder(body));
}

void dsp::forChannelBlocks(
    KernelBuilder &kb, int64_t blockedEnd, int64_t numChannels, int64_t block,
    function_ref<void(KernelBuilder &, Value, int64_t)> emit) {
  forWithAccs(kb, 0, blockedEnd, block, {},
              [&](KernelBuilder &kb, Value first, ValueRange) {
                emit(kb, first, block);
                return SmallVector<Value>();
              });
  forWithAccs(kb, blockedEnd, numChannels, 1, {},
              [&](KernelBuilder &kb, Value channel, ValueRange) {
                emit(kb, channel, 1);
                return SmallVector<Value>();
              });
}

Value dsp::getPackedNegation(KernelBuilder &kb, int64_t zp) {
  if (zp == 0)
    return nullptr;
  uint32_t half = static_cast<uint32_t>(-zp) & 0xFFFFu;
  return kb.constant(static_cast<int32_t>(half | (half << 16)));
}

SmallVector<Value> dsp::loadAccumulators(KernelBuilder &kb, Value output,
                                         Value n, Value oh, Value ow,
                                         Value first, int64_t width,
                                         SmallVectorImpl<Value> &channels) {
  SmallVector<Value> accs;
  for (int64_t j = 0; j < width; ++j) {
    Value channel = kb.add(first, kb.constant(j));
    channels.push_back(channel);
    accs.push_back(memref::LoadOp::create(
        kb.b, kb.loc, output, toIndices(kb.b, kb.loc, {n, oh, ow, channel})));
  }
  return accs;
}

void dsp::storeAccumulators(KernelBuilder &kb, Value output, Value n, Value oh,
                            Value ow, ArrayRef<Value> channels,
                            ValueRange accs) {
  for (auto [acc, channel] : llvm::zip(accs, channels))
    memref::StoreOp::create(kb.b, kb.loc, acc, output,
                            toIndices(kb.b, kb.loc, {n, oh, ow, channel}));
}

void dsp::forEachPixel(
    KernelBuilder &kb, ArrayRef<int64_t> outShape, const ByteView &in,
    const ConvParts &parts,
    function_ref<void(KernelBuilder &, Value, Value, Value, Value)> body) {
  forEachOutputPixel(kb.b, kb.loc, outShape, in, parts,
                     [&](OpBuilder &b, Location loc, Value n, Value oh,
                         Value ow, Value pixel) {
                       KernelBuilder inner(b, loc);
                       body(inner, n, oh, ow, pixel);
                     });
}
