//===- PaddedWindow.h - Padded windows read in place ------------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The one matcher of the padded window a convolution reads
// (fuse-rescale-accumulators: a buffer filled with the input zero point,
// then partly overwritten by a copy of the part of the input it covers),
// shared by the DSP and the MVE kernels. Both then read the copy's source in
// place, skip the taps outside the copied part (their products with the
// zero point are 0) and erase the fill and the copy; each adds what its
// kernels need of the source (DspWindow.cpp, MveKernelSupport.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_TARGET_ARM_PADDEDWINDOW_H
#define MEMOPT_LIB_TARGET_ARM_PADDEDWINDOW_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlir {
namespace memopt {
namespace armkernels {

/// A padded window W (N x H x W x C) that a convolution reads as its NHWC
/// input,
///   linalg.fill ins(zp) outs(W)
///   %target = memref.subview W[0, oh, ow, 0] [N, h, w, C] [1, 1, 1, 1]
///   linalg.copy ins(%source) outs(%target)
/// with the fill and the copy before the convolution in its block. A tap
/// outside the copied part [oh, oh + h) x [ow, ow + w) holds zp and adds
/// (zp - zp) * w = 0, so the kernels read the source in place instead; the
/// fill and the copy are then dead, and W stays where the arena plan put it.
struct PaddedWindow {
  /// The fill of W with the zero point.
  linalg::FillOp fill;
  /// The view of W that the copy writes.
  memref::SubViewOp target;
  /// The copy into it.
  linalg::CopyOp copy;
  /// What the copy reads.
  Value source;
  /// The memref.subview that \p source is (the part of the image in
  /// fuse-rescale-accumulators' windows), or null.
  memref::SubViewOp sourceView;
  /// The copied part's offsets and sizes along W's H and W.
  OpFoldResult offsetH, offsetW, sizeH, sizeW;
  /// W's H and W.
  int64_t height = 0, width = 0;
  /// Whether the copy carries fuse-rescale-accumulators' mark
  /// (kPaddedWindowLocName): it covers exactly W's intersection with the
  /// image, so a tap is copied iff it lies in the image.
  bool exact = false;
};

/// Which users of a padded window, besides its convolution, its fill and
/// its copy's view, matchPaddedWindow allows.
enum class WindowUsers {
  /// None: the convolution is the window's one reader (the DSP kernels).
  Exclusive,
  /// Those outside the convolution's block (neither in it nor nested in an
  /// op of it), which cannot run between the copy and the convolution: the
  /// other loops that reuse a window of one output pixel (the MVE kernels,
  /// for the in-place depthwise convolution's border loops).
  OutsideBlock,
};

/// Returns true if \p view is a rank-preserving memref.subview with unit
/// strides (false if it is null).
bool isUnitStrideView(memref::SubViewOp view);

/// Matches the PaddedWindow \p window that \p conv reads: a statically
/// shaped rank-4 memref whose users, besides those \p users allows, are
/// \p conv, one linalg.fill of it with the int8 constant \p zeroPoint and one
/// rank-preserving unit-stride memref.subview of it whose one user is a
/// linalg.copy into it that covers the window's N and C entirely. The fill
/// and the copy must be in \p conv's block, in this order, before \p conv.
std::optional<PaddedWindow> matchPaddedWindow(Operation *conv, Value window,
                                              int64_t zeroPoint,
                                              WindowUsers users);

} // namespace armkernels
} // namespace memopt
} // namespace mlir

#endif // MEMOPT_LIB_TARGET_ARM_PADDEDWINDOW_H
