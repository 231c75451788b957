//===- DspWindow.cpp - DSP kernels' padded windows ------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The DSP kernels' padded windows (DspKernels.h): a convolution whose input
// is a padded window (matchPaddedWindow) reads the image in place, taps
// outside the image are skipped (their products are 0), with bounds checks
// only where the window leaves the image, and the fill and the copy are
// erased.
//
//===----------------------------------------------------------------------===//

#include "DspKernels.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::armkernels;
using namespace mlir::memopt::armkernels::dsp;

/// Matches the padded window \p window that \p conv reads as its NHWC input
/// with the zero point \p zeroPoint (matchPaddedWindow, no other reader),
/// whose copy reads a unit-stride view of a statically shaped rank-4 int8
/// memref, the image the kernels read in place.
static std::optional<PaddedWindow>
matchImageWindow(Value window, int64_t zeroPoint, Operation *conv) {
  std::optional<PaddedWindow> result =
      matchPaddedWindow(conv, window, zeroPoint, WindowUsers::Exclusive);
  if (!result || !isUnitStrideView(result->sourceView) ||
      !isStaticIntMemRef(result->sourceView.getSource(), 8) ||
      result->sourceView.getSourceType().getRank() != 4)
    return std::nullopt;
  return result;
}

/// The i32 value of \p value (an index value or attribute).
static Value getI32(KernelBuilder &kb, OpFoldResult value) {
  if (std::optional<int64_t> constant = getConstantIntValue(value))
    return kb.constant(*constant);
  return arith::IndexCastOp::create(kb.b, kb.loc, kb.i32, cast<Value>(value));
}

/// Builds what the kernels read of \p window: the ByteView of its image
/// shifted to the window's origin (window element (n, y, x, c) at
/// n * strides[0] + y * strides[1] + ... after the offset, as for the window
/// itself), and in \p guard the bounds of the copied part.
static FailureOr<ByteView> getWindowByteView(KernelBuilder &kb,
                                             const PaddedWindow &window,
                                             WindowGuard &guard) {
  memref::SubViewOp source = window.sourceView, target = window.target;
  FailureOr<ByteView> view = getByteView(kb, source.getSource());
  if (failed(view))
    return failure();
  for (auto [dim, sourceOffset, targetOffset] :
       llvm::enumerate(source.getMixedOffsets(), target.getMixedOffsets())) {
    Value origin = arith::SubIOp::create(kb.b, kb.loc, getI32(kb, sourceOffset),
                                         getI32(kb, targetOffset));
    view->offset = kb.addScaled(view->offset, origin, view->strides[dim]);
    if (dim == 1)
      guard.originH = origin;
    if (dim == 2)
      guard.originW = origin;
  }
  guard.offsetH = getI32(kb, window.offsetH);
  guard.offsetW = getI32(kb, window.offsetW);
  guard.sizeH = getI32(kb, window.sizeH);
  guard.sizeW = getI32(kb, window.sizeW);
  guard.exact = window.exact;
  guard.height = window.height;
  guard.width = window.width;
  guard.extentH = source.getSourceType().getDimSize(1);
  guard.extentW = source.getSourceType().getDimSize(2);
  return view;
}

/// Whether window row (or column) \p index lies in [offset, offset + size):
/// (index - offset) <u size. Null without a guard.
static Value isCopied(KernelBuilder &kb, const WindowGuard *guard, Value index,
                      bool row) {
  if (!guard)
    return nullptr;
  if (guard->exact) {
    Value inSource = kb.add(row ? guard->originH : guard->originW, index);
    return arith::CmpIOp::create(
        kb.b, kb.loc, arith::CmpIPredicate::ult, inSource,
        kb.constant(row ? guard->extentH : guard->extentW));
  }
  Value offset = row ? guard->offsetH : guard->offsetW;
  Value size = row ? guard->sizeH : guard->sizeW;
  Value relative = arith::SubIOp::create(kb.b, kb.loc, index, offset);
  return arith::CmpIOp::create(kb.b, kb.loc, arith::CmpIPredicate::ult,
                               relative, size);
}

Value dsp::isTapCopied(KernelBuilder &kb, const WindowGuard *guard, bool row,
                       Value o, int64_t stride, Value k, int64_t dilation) {
  if (!guard)
    return nullptr;
  Value index =
      kb.addScaled(kb.addScaled(kb.constant(0), o, stride), k, dilation);
  return isCopied(kb, guard, index, row);
}

SmallVector<Value> dsp::ifWithAccs(
    KernelBuilder &kb, Value condition, ValueRange accs,
    function_ref<SmallVector<Value>(KernelBuilder &, ValueRange)> body) {
  if (!condition)
    return body(kb, accs);
  auto ifOp = scf::IfOp::create(
      kb.b, kb.loc, condition,
      [&](OpBuilder &b, Location loc) {
        KernelBuilder inner(b, loc);
        scf::YieldOp::create(b, loc, body(inner, accs));
      },
      [&](OpBuilder &b, Location loc) { scf::YieldOp::create(b, loc, accs); });
  return SmallVector<Value>(ifOp.getResults());
}

SmallVector<Value> dsp::forWindowTaps(KernelBuilder &kb,
                                      const WindowGuard *guard, bool unroll,
                                      const ConvParts &parts, Value oh,
                                      Value ow, int64_t kh, int64_t kw,
                                      const ByteView &in, Value inBase,
                                      const ByteView &filter, Value filterBase,
                                      ValueRange accs, WindowTap tap) {
  return forTapsWithAccs(
      kb, unroll, kh, accs, [&](KernelBuilder &kb, Value y, ValueRange accs) {
        Value rowCopied = isTapCopied(kb, guard, /*row=*/true, oh,
                                      parts.strideH, y, parts.dilationH);
        return ifWithAccs(
            kb, rowCopied, accs, [&](KernelBuilder &kb, ValueRange accs) {
              Value inRow =
                  kb.addScaled(inBase, y, parts.dilationH * in.strides[1]);
              Value filterRow = kb.addScaled(filterBase, y, filter.strides[0]);
              return forTapsWithAccs(
                  kb, unroll, kw, accs,
                  [&](KernelBuilder &kb, Value x, ValueRange accs) {
                    Value columnCopied =
                        isTapCopied(kb, guard, /*row=*/false, ow, parts.strideW,
                                    x, parts.dilationW);
                    return ifWithAccs(
                        kb, columnCopied, accs,
                        [&](KernelBuilder &kb, ValueRange accs) {
                          Value inTap = kb.addScaled(
                              inRow, x, parts.dilationW * in.strides[2]);
                          Value filterTap =
                              kb.addScaled(filterRow, x, filter.strides[1]);
                          return tap(kb, y, x, inTap, filterTap, accs);
                        });
                  });
            });
      });
}

/// Whether the window of \p window lies in the copied part entirely (the
/// interior of the image): no tap of it needs a bounds check.
static Value isWholeWindow(KernelBuilder &kb, const WindowGuard &window) {
  auto equals = [&](Value a, int64_t b) {
    return arith::CmpIOp::create(kb.b, kb.loc, arith::CmpIPredicate::eq, a,
                                 kb.constant(b));
  };
  if (window.exact) {
    // The window lies in the image: origin in [0, extent - window].
    auto inside = [&](Value origin, int64_t extent, int64_t size) -> Value {
      if (extent < size)
        return arith::ConstantIntOp::create(kb.b, kb.loc, kb.b.getI1Type(), 0);
      return arith::CmpIOp::create(kb.b, kb.loc, arith::CmpIPredicate::ule,
                                   origin, kb.constant(extent - size));
    };
    return arith::AndIOp::create(
        kb.b, kb.loc, inside(window.originH, window.extentH, window.height),
        inside(window.originW, window.extentW, window.width));
  }
  return arith::AndIOp::create(
      kb.b, kb.loc,
      arith::AndIOp::create(kb.b, kb.loc, equals(window.offsetH, 0),
                            equals(window.sizeH, window.height)),
      arith::AndIOp::create(kb.b, kb.loc, equals(window.offsetW, 0),
                            equals(window.sizeW, window.width)));
}

void dsp::emitForWindow(
    KernelBuilder &kb, const ConvInput &input,
    function_ref<void(KernelBuilder &, const WindowGuard *)> emit) {
  if (!input.window)
    return emit(kb, nullptr);
  const WindowGuard *window = &input.guard;
  scf::IfOp::create(
      kb.b, kb.loc, isWholeWindow(kb, *window),
      [&](OpBuilder &b, Location loc) {
        KernelBuilder inner(b, loc);
        emit(inner, nullptr);
        scf::YieldOp::create(b, loc);
      },
      [&](OpBuilder &b, Location loc) {
        KernelBuilder inner(b, loc);
        emit(inner, window);
        scf::YieldOp::create(b, loc);
      });
}

LogicalResult dsp::emitForFilledWindow(
    KernelBuilder &kb, PatternRewriter &rewriter, const ConvInput &input,
    Value windowMemRef,
    function_ref<void(KernelBuilder &, const ByteView &)> emit) {
  if (!input.window)
    return failure();
  FailureOr<ByteView> windowView = getByteView(kb, windowMemRef);
  if (failed(windowView))
    return failure();
  auto ifOp = scf::IfOp::create(
      kb.b, kb.loc, isWholeWindow(kb, input.guard),
      [&](OpBuilder &b, Location loc) {
        KernelBuilder inner(b, loc);
        emit(inner, input.view);
        scf::YieldOp::create(b, loc);
      },
      [&](OpBuilder &b, Location loc) {
        KernelBuilder inner(b, loc);
        emit(inner, *windowView);
        scf::YieldOp::create(b, loc);
      });
  // The border windows are filled and copied as before, then read without
  // bounds checks: the fill and the copy move to the start of the else
  // branch (their operands are defined before the convolution).
  Block &border = ifOp.getElseRegion().front();
  rewriter.moveOpBefore(input.window->fill, &border, border.begin());
  rewriter.moveOpAfter(input.window->copy, input.window->fill);
  return success();
}

FailureOr<ConvInput>
dsp::getConvInput(KernelBuilder &kb, const ConvParts &parts, Operation *conv) {
  ConvInput input;
  input.window = matchImageWindow(parts.input, parts.inputZp, conv);
  if (!getStaticStrides(input.window ? input.window->sourceView.getSource()
                                     : parts.input) ||
      !getStaticStrides(parts.filter))
    return failure();
  FailureOr<ByteView> view =
      input.window ? getWindowByteView(kb, *input.window, input.guard)
                   : getByteView(kb, parts.input);
  if (failed(view))
    return failure();
  input.view = *view;
  return input;
}

void dsp::eraseWindowWrites(PatternRewriter &rewriter, ConvInput &input) {
  if (!input.window)
    return;
  Operation *target = input.window->target;
  Operation *source = input.window->sourceView;
  rewriter.eraseOp(input.window->copy);
  rewriter.eraseOp(input.window->fill);
  rewriter.eraseOp(target);
  if (source->use_empty())
    rewriter.eraseOp(source);
}
