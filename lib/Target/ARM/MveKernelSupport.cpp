//===- MveKernelSupport.cpp - MVE channels, scalars and windows -----------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// What the MVE convolution kernels share (MveKernels.h): channel groups,
// output offsets, scalar loads, and a padded window of one output pixel
// read in place (matchPaddedWindow, then the taps of its copied part).
//
//===----------------------------------------------------------------------===//

#include "MveKernels.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::armkernels;
using namespace mlir::memopt::armkernels::mve;

void mve::forEachChannelGroup(
    OpBuilder &b, Location loc, int64_t channels,
    function_ref<void(OpBuilder &, Location, Value, int64_t, int64_t)> emit) {
  int64_t by8 = channels - channels % 8;
  forWithAccs(b, loc, 0, by8, 8, {},
              [&](OpBuilder &b, Location loc, Value first, ValueRange) {
                emit(b, loc, first, 8, 8);
                return SmallVector<Value>();
              });
  int64_t next = by8;
  if (channels - next >= 4) {
    emit(b, loc, getI32Constant(b, loc, next), 4, 4);
    next += 4;
  }
  if (next < channels)
    emit(b, loc, getI32Constant(b, loc, next), 4, channels - next);
}

Value mve::getOutputOffset(OpBuilder &b, Location loc, const ByteView &out,
                           Value n, Value oh, Value ow, Value channel) {
  Value offset = addScaled(b, loc, out.offset, n, out.strides[0]);
  offset = addScaled(b, loc, offset, oh, out.strides[1]);
  offset = addScaled(b, loc, offset, ow, out.strides[2]);
  return addScaled(b, loc, offset, channel, out.strides[3]);
}

Value mve::loadScalar(OpBuilder &b, Location loc, Value base, Value offset,
                      int64_t zp) {
  VectorBuilder vb(b, loc);
  Value byte =
      LLVM::LoadOp::create(b, loc, vb.i8, vb.address(base, offset, vb.i8), 1);
  Value value = arith::ExtSIOp::create(b, loc, vb.i32, byte);
  return zp == 0 ? value : vb.add(value, vb.constant(-zp));
}

std::optional<PaddedWindow>
mve::matchFilledPixelWindow(Operation *op, const ConvParts &parts) {
  std::optional<int64_t> fillValue;
  for (Operation *user : parts.input.getUsers())
    if (auto fill = dyn_cast<linalg::FillOp>(user))
      fillValue = getConstantIntValue(fill.getInputs()[0]);
  return fillValue ? matchPixelWindow(op, parts, fillValue) : std::nullopt;
}

std::optional<PaddedWindow>
mve::matchPixelWindow(Operation *op, const ConvParts &parts,
                      std::optional<int64_t> fillValue) {
  auto inType = cast<MemRefType>(parts.input.getType());
  auto outType = cast<MemRefType>(parts.output.getType());
  if (inType.getRank() != 4 || inType.getDimSize(0) != 1 ||
      outType.getDimSize(0) != 1 || outType.getDimSize(1) != 1 ||
      outType.getDimSize(2) != 1 || parts.dilationH != 1 ||
      parts.dilationW != 1)
    return std::nullopt;
  std::optional<PaddedWindow> window =
      matchPaddedWindow(op, parts.input, fillValue.value_or(parts.inputZp),
                        WindowUsers::OutsideBlock);
  if (!window || !getStaticStrides(window->source))
    return std::nullopt;
  for (Operation *between = window->copy->getNextNode(); between != op;
       between = between->getNextNode()) {
    // Ops without memory effects (e.g. arm-dsp-fold-zero-points'
    // memref.get_global of the folded bias) write nothing.
    if (isMemoryEffectFree(between))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(between);
    if (!linalgOp || !linalgOp.hasPureBufferSemantics() ||
        !llvm::all_of(linalgOp.getDpsInits(),
                      [&](Value init) { return init == parts.output; }))
      return std::nullopt;
  }
  return window;
}

void mve::eraseWindowWrites(PatternRewriter &rewriter,
                            const PaddedWindow &window) {
  rewriter.eraseOp(window.copy);
  rewriter.eraseOp(window.target);
  rewriter.eraseOp(window.fill);
}

/// Copies the h x w pixels of C bytes of \p window's copy with vector
/// loads and stores, 16 channels at a time (the last chunk masked), in
/// place of the copy, which LLVM otherwise lowers to a loop of single bytes.
/// Does nothing (the copy stays) unless source and target have static
/// strides and contiguous channels.
static void vectorizeWindowCopy(PatternRewriter &rewriter, linalg::CopyOp copy,
                                Value source, memref::SubViewOp target,
                                OpFoldResult sizeH, OpFoldResult sizeW) {
  std::optional<SmallVector<int64_t>> sourceStrides = getStaticStrides(source);
  std::optional<SmallVector<int64_t>> targetStrides =
      getStaticStrides(target.getResult());
  auto targetType = cast<MemRefType>(target.getType());
  if (!sourceStrides || !targetStrides || (*sourceStrides)[3] != 1 ||
      (*targetStrides)[3] != 1 || targetType.isDynamicDim(3) ||
      targetType.getDimSize(0) != 1)
    return;
  int64_t channels = targetType.getDimSize(3);
  Location loc = copy.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(copy);
  FailureOr<ByteView> from = getByteView(rewriter, loc, source);
  FailureOr<ByteView> to = getByteView(rewriter, loc, target.getResult());
  auto toI32 = [&](OpFoldResult value) {
    Value index = getValueOrCreateConstantIndexOp(rewriter, loc, value);
    return arith::IndexCastOp::create(rewriter, loc, rewriter.getI32Type(),
                                      index)
        .getResult();
  };
  Value h = toI32(sizeH), w = toI32(sizeW);
  auto loop = [&](OpBuilder &b, Location loc, Value ub,
                  function_ref<void(OpBuilder &, Location, Value)> body) {
    scf::ForOp::create(b, loc, getI32Constant(b, loc, 0), ub,
                       getI32Constant(b, loc, 1), ValueRange{},
                       [&](OpBuilder &b, Location loc, Value iv, ValueRange) {
                         body(b, loc, iv);
                         scf::YieldOp::create(b, loc);
                       });
  };
  constexpr int64_t lanes = 16;
  int64_t windowWidth =
      cast<MemRefType>(target.getSource().getType()).getDimSize(2);
  if ((*sourceStrides)[2] == channels && (*targetStrides)[2] == channels &&
      windowWidth * channels <= lanes) {
    // A row of w pixels is w * C contiguous bytes in both, at most 16: one
    // vector per row, its first w * C lanes active (VCTP8).
    Value rowBytes = arith::MulIOp::create(
        rewriter, loc, w, getI32Constant(rewriter, loc, channels));
    auto maskType = VectorType::get({lanes}, rewriter.getI1Type());
    Value mask =
        LLVM::CallIntrinsicOp::create(
            rewriter, loc, maskType,
            rewriter.getStringAttr("llvm.arm.mve.vctp8"), ValueRange{rowBytes})
            ->getResult(0);
    loop(rewriter, loc, h, [&](OpBuilder &b, Location loc, Value y) {
      VectorBuilder vb(b, loc);
      auto type = VectorType::get({lanes}, vb.i8);
      Value zero = arith::ConstantOp::create(
          b, loc, type, DenseElementsAttr::get(type, b.getZeroAttr(vb.i8)));
      Value bytes = LLVM::MaskedLoadOp::create(
          b, loc, type,
          vb.address(from->base,
                     addScaled(b, loc, from->offset, y, from->strides[1]),
                     vb.i8),
          mask, zero, 1);
      LLVM::MaskedStoreOp::create(
          b, loc, bytes,
          vb.address(to->base, addScaled(b, loc, to->offset, y, to->strides[1]),
                     vb.i8),
          mask, 1);
    });
    rewriter.eraseOp(copy);
    return;
  }
  loop(rewriter, loc, h, [&](OpBuilder &b, Location loc, Value y) {
    Value fromRow = addScaled(b, loc, from->offset, y, from->strides[1]);
    Value toRow = addScaled(b, loc, to->offset, y, to->strides[1]);
    loop(b, loc, w, [&](OpBuilder &b, Location loc, Value x) {
      Value fromPixel = addScaled(b, loc, fromRow, x, from->strides[2]);
      Value toPixel = addScaled(b, loc, toRow, x, to->strides[2]);
      for (int64_t c = 0; c < channels; c += lanes) {
        VectorBuilder vb(b, loc);
        int64_t active = std::min(lanes, channels - c);
        Value chunk = getI32Constant(b, loc, c);
        Value bytes =
            vb.load(from->base, vb.add(fromPixel, chunk), vb.i8, lanes, active);
        vb.store(bytes, to->base, vb.add(toPixel, chunk), active);
      }
    });
  });
  rewriter.eraseOp(copy);
}

void mve::lowerWindowWrites(PatternRewriter &rewriter,
                            const PaddedWindow &window) {
  linalg::FillOp fill = window.fill;
  linalg::CopyOp copy = window.copy;
  memref::SubViewOp target = window.target;
  Location loc = fill.getLoc();
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(copy);
    // The conditions that a size is not the window's (none: always equal).
    SmallVector<Value> partial;
    bool neverCovered = false;
    for (auto [size, full] : {std::pair(window.sizeH, window.height),
                              std::pair(window.sizeW, window.width)}) {
      std::optional<int64_t> constant = getConstantIntValue(size);
      if (constant && *constant == full)
        continue;
      if (constant) {
        neverCovered = true; // The fill always runs.
        break;
      }
      partial.push_back(arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ne, cast<Value>(size),
          arith::ConstantIndexOp::create(rewriter, loc, full)));
    }
    if (!neverCovered && partial.empty()) {
      rewriter.eraseOp(fill);
    } else if (!neverCovered) {
      Value condition = partial[0];
      if (partial.size() == 2)
        condition = arith::OrIOp::create(rewriter, loc, partial[0], partial[1]);
      auto ifOp = scf::IfOp::create(rewriter, loc, condition,
                                    /*withElseRegion=*/false);
      rewriter.moveOpBefore(fill, ifOp.thenBlock()->getTerminator());
    }
  }
  vectorizeWindowCopy(rewriter, copy, window.source, target, window.sizeH,
                      window.sizeW);
}

SmallVector<Value>
mve::forEachTap(OpBuilder &b, Location loc, const ByteView &in, Value pixel,
                const ConvParts &parts, int64_t kh, int64_t kw, bool unroll,
                const PaddedWindow *window, ValueRange accs, TapBody body) {
  auto fullWindow = [&](OpBuilder &b, Location loc, ValueRange accs) {
    return forTapsWithAccs(
        b, loc, unroll, kh, accs,
        [&](OpBuilder &b, Location loc, Value y, ValueRange accs) {
          Value inRow =
              addScaled(b, loc, pixel, y, parts.dilationH * in.strides[1]);
          return forTapsWithAccs(
              b, loc, unroll, kw, accs,
              [&](OpBuilder &b, Location loc, Value x, ValueRange accs) {
                Value inTap = addScaled(b, loc, inRow, x,
                                        parts.dilationW * in.strides[2]);
                return body(b, loc, inTap, y, x, accs);
              });
        });
  };
  if (!window)
    return fullWindow(b, loc, accs);
  auto toI32 = [&](OpFoldResult value) {
    Value index = getValueOrCreateConstantIndexOp(b, loc, value);
    return arith::IndexCastOp::create(b, loc, b.getI32Type(), index)
        .getResult();
  };
  Value oy = toI32(window->offsetH), ox = toI32(window->offsetW);
  Value h = toI32(window->sizeH), w = toI32(window->sizeW);
  Value whole = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, h,
                            getI32Constant(b, loc, kh)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, w,
                            getI32Constant(b, loc, kw)));
  auto dynamicLoop = [&](OpBuilder &b, Location loc, Value ub, ValueRange accs,
                         LoopBody loopBody) {
    auto loop = scf::ForOp::create(
        b, loc, getI32Constant(b, loc, 0), ub, getI32Constant(b, loc, 1), accs,
        [&](OpBuilder &b, Location loc, Value iv, ValueRange args) {
          scf::YieldOp::create(b, loc, loopBody(b, loc, iv, args));
        });
    return SmallVector<Value>(loop.getResults());
  };
  auto ifOp = scf::IfOp::create(
      b, loc, whole,
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, fullWindow(b, loc, accs));
      },
      [&](OpBuilder &b, Location loc) {
        SmallVector<Value> result = dynamicLoop(
            b, loc, h, accs,
            [&](OpBuilder &b, Location loc, Value ty, ValueRange accs) {
              Value inRow = addScaled(b, loc, pixel, ty, in.strides[1]);
              Value y = arith::AddIOp::create(b, loc, oy, ty);
              return dynamicLoop(
                  b, loc, w, accs,
                  [&](OpBuilder &b, Location loc, Value tx, ValueRange accs) {
                    Value inTap = addScaled(b, loc, inRow, tx, in.strides[2]);
                    Value x = arith::AddIOp::create(b, loc, ox, tx);
                    return body(b, loc, inTap, y, x, accs);
                  });
            });
        scf::YieldOp::create(b, loc, result);
      });
  return SmallVector<Value>(ifOp.getResults());
}
