//===- OverwriteBoundTest.cpp - Overwrite shift vs a byte simulation ------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// getOverwriteBound says how far below its input a convolution's output may
// start when the lowering writes it over the input, one output pixel at a
// time, each pixel reading its whole window before writing. An independent
// simulation replays that order on bytes: every pixel's taps (kernel, stride
// and padding) and every pixel's written bytes. At the bound, and at any
// alignment of it, no pixel may write a byte that a later pixel reads; when
// each window starts inside the image and the windows cover it without gaps,
// one byte more already clobbers a read.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/CostModel/CostModel.h"

// rapidcheck/gtest.h needs gtest/gtest.h first.
#include "gtest/gtest.h"

#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

#include <algorithm>
#include <cstdint>
#include <vector>

using namespace mlir::memopt;

namespace {

/// A convolution's window beside the geometry getOverwriteBound sees.
struct Convolution {
  OverwriteWindow window;
  int64_t kernelHeight = 1, kernelWidth = 1;
};

/// Returns the smallest input byte that an output pixel after \p pixel
/// reads (the input's size if none), by listing every tap of every later
/// pixel.
int64_t firstLaterRead(const Convolution &conv, int64_t pixel) {
  const OverwriteWindow &w = conv.window;
  int64_t first = w.inputHeight * w.inputWidth * w.inputPixelBytes;
  for (int64_t later = pixel + 1; later < w.outputHeight * w.outputWidth;
       ++later) {
    int64_t row = later / w.outputWidth, col = later % w.outputWidth;
    for (int64_t i = 0; i < conv.kernelHeight; ++i)
      for (int64_t j = 0; j < conv.kernelWidth; ++j) {
        int64_t y = row * w.strideHeight - w.padTop + i;
        int64_t x = col * w.strideWidth - w.padLeft + j;
        if (y >= 0 && y < w.inputHeight && x >= 0 && x < w.inputWidth)
          first = std::min(first, (y * w.inputWidth + x) * w.inputPixelBytes);
      }
  }
  return first;
}

/// Returns true if the output written \p shift bytes from the input, pixel
/// after pixel, never writes an input byte that a later pixel reads. Input
/// bytes read by no later pixel may be overwritten; a pixel's own reads
/// come before its writes.
bool isSafeShift(const Convolution &conv, int64_t shift) {
  const OverwriteWindow &w = conv.window;
  int64_t pixels = w.outputHeight * w.outputWidth;
  for (int64_t pixel = 0; pixel + 1 < pixels; ++pixel) {
    int64_t writtenEnd = shift + (pixel + 1) * w.outputPixelBytes;
    // The bytes written at `pixel` are [writtenEnd - outputPixelBytes,
    // writtenEnd); the later reads start at firstLaterRead, and every
    // earlier pixel wrote below this one.
    if (writtenEnd > firstLaterRead(conv, pixel))
      return false;
  }
  return true;
}

/// A random convolution of at most 10x10 pixels.
rc::Gen<Convolution> genConvolution() {
  return rc::gen::exec([] {
    Convolution conv;
    OverwriteWindow &w = conv.window;
    w.inputHeight = *rc::gen::inRange<int64_t>(1, 11);
    w.inputWidth = *rc::gen::inRange<int64_t>(1, 11);
    w.inputPixelBytes = *rc::gen::inRange<int64_t>(1, 9);
    w.outputPixelBytes = *rc::gen::inRange<int64_t>(1, 17);
    conv.kernelHeight = *rc::gen::inRange<int64_t>(1, 5);
    conv.kernelWidth = *rc::gen::inRange<int64_t>(1, 5);
    w.strideHeight = *rc::gen::inRange<int64_t>(1, 4);
    w.strideWidth = *rc::gen::inRange<int64_t>(1, 4);
    w.padTop = *rc::gen::inRange<int64_t>(0, conv.kernelHeight);
    w.padLeft = *rc::gen::inRange<int64_t>(0, conv.kernelWidth);
    int64_t padBottom = *rc::gen::inRange<int64_t>(0, conv.kernelHeight);
    int64_t padRight = *rc::gen::inRange<int64_t>(0, conv.kernelWidth);
    int64_t spanHeight = w.inputHeight + w.padTop + padBottom;
    int64_t spanWidth = w.inputWidth + w.padLeft + padRight;
    RC_PRE(spanHeight >= conv.kernelHeight && spanWidth >= conv.kernelWidth);
    w.outputHeight = (spanHeight - conv.kernelHeight) / w.strideHeight + 1;
    w.outputWidth = (spanWidth - conv.kernelWidth) / w.strideWidth + 1;
    return conv;
  });
}

RC_GTEST_PROP(OverwriteBound, IsSafeAtEveryAlignment, ()) {
  Convolution conv = *genConvolution();
  int64_t bound = getOverwriteBound(conv.window);
  RC_ASSERT(bound <= 0);
  for (int64_t alignment : {1, 2, 4, 8, 16}) {
    int64_t shift = alignOverwriteShift(bound, alignment);
    RC_ASSERT(shift <= bound);
    RC_ASSERT(shift > bound - alignment);
    RC_ASSERT(shift % alignment == 0);
    RC_ASSERT(isSafeShift(conv, shift));
  }
}

RC_GTEST_PROP(OverwriteBound, IsTightWithoutGapsOrPadding, ()) {
  Convolution conv = *genConvolution();
  OverwriteWindow &w = conv.window;
  // Every window starts at its top-left tap inside the image, and the
  // windows of a row and of consecutive rows leave no input pixel unread.
  RC_PRE(w.padTop == 0 && w.padLeft == 0 &&
         conv.kernelHeight >= w.strideHeight &&
         conv.kernelWidth >= w.strideWidth);
  int64_t bound = getOverwriteBound(w);
  if (bound < 0)
    RC_ASSERT(!isSafeShift(conv, bound + 1));
  else
    RC_ASSERT(isSafeShift(conv, 0));
}

// Hand-worked cases, the arithmetic in the comments.
TEST(OverwriteBound, OneByOneConvolutions) {
  // 4x4 pixels in and out; 8 channels in, 8 out: pixel q writes
  // [8q, 8q + 8), pixel q + 1 reads from 8(q + 1): no shift.
  OverwriteWindow w{/*input*/ 4, 4, 8, /*output*/ 4, 4, 8};
  EXPECT_EQ(getOverwriteBound(w), 0);
  // 8 in, 4 out: shrinking, no shift either.
  w.outputPixelBytes = 4;
  EXPECT_EQ(getOverwriteBound(w), 0);
  // 4 in, 8 out: pixel q (q < 15) ends at shift + 8(q + 1), at most 4(q + 1);
  // the tightest is q = 14: shift <= 60 - 120 = -60.
  w.inputPixelBytes = 4;
  w.outputPixelBytes = 8;
  EXPECT_EQ(getOverwriteBound(w), -60);
  EXPECT_EQ(alignOverwriteShift(-60, 16), -64);
  // The input's 64 bytes and the output's 128 at -64 share [0, 64).
  EXPECT_EQ(getOverwriteOverlap(64, 128, -64), 64);
}

TEST(OverwriteBound, StridedPaddedDepthwise) {
  // A 10x8 depthwise convolution (1 channel in, 8 out), stride 2, padding 4
  // above and 3 on the left, from 49x40 to 25x20: micro_speech's first
  // layer.
  OverwriteWindow w{/*input*/ 49, 40, 1, /*output*/ 25, 20, 8,
                    /*stride*/ 2, 2, /*pad top, left*/ 4, 3};
  // Output pixel q = 20r + c ends at 8(q + 1); the next pixel's window
  // starts at row 2r - 4 and column 2c - 3 (clamped). The outputs grow
  // faster than the windows advance, so the tightest pixel is the last but
  // one, (24, 18): it ends at 8 * 499 = 3992, and pixel (24, 19) reads from
  // row 44, column 35, byte 44 * 40 + 35 = 1795: 1795 - 3992 = -2197.
  EXPECT_EQ(getOverwriteBound(w), -2197);
  EXPECT_EQ(alignOverwriteShift(-2197, 16), -2208);
}

} // namespace
