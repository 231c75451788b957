//===- MveKernels.h - The MVE kernels' shared pieces ------------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// What the Armv8.1-M MVE kernels of arm-mve-int8-kernels share (see
// MveInt8Kernels.cpp for what they compute): the builder of their vector
// operations, channel groups, scalar loads and the taps of a padded window
// read in place (MveKernelSupport.cpp), the matching and the vector form of
// a lowered rescale (MveRescale.cpp), the in-place depthwise convolution's
// channel loops (MveChannelRows.cpp), and the pattern sets of the kernel
// files.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_TARGET_ARM_MVEKERNELS_H
#define MEMOPT_LIB_TARGET_ARM_MVEKERNELS_H

#include "Int8KernelUtils.h"
#include "PaddedWindow.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir {
namespace memopt {
namespace armkernels {
namespace mve {

/// Emits the kernels' vector operations at one insertion point.
struct VectorBuilder : ScalarBuilder {
  using ScalarBuilder::ScalarBuilder;

  /// The address of element \p offset (of type \p element) after \p base.
  Value address(Value base, Value offset, Type element) {
    return LLVM::GEPOp::create(b, loc, ptr, element, base, ValueRange{offset});
  }
  /// The mask whose first \p active of \p lanes lanes are set.
  Value mask(int64_t lanes, int64_t active) {
    auto type = VectorType::get({lanes}, b.getI1Type());
    SmallVector<bool> bits(lanes, false);
    std::fill_n(bits.begin(), active, true);
    return arith::ConstantOp::create(b, loc, type,
                                     DenseElementsAttr::get(type, bits));
  }
  /// \p lanes elements of type \p element at \p base + \p offset; only the
  /// first \p active are read (a masked load; the others are 0) when
  /// \p active < \p lanes.
  Value load(Value base, Value offset, Type element, int64_t lanes,
             int64_t active) {
    auto type = VectorType::get({lanes}, element);
    Value at = address(base, offset, element);
    unsigned alignment = element.getIntOrFloatBitWidth() / 8;
    if (active == lanes)
      return LLVM::LoadOp::create(b, loc, type, at, alignment);
    Value zero = arith::ConstantOp::create(
        b, loc, type, DenseElementsAttr::get(type, b.getZeroAttr(element)));
    return LLVM::MaskedLoadOp::create(b, loc, type, at, mask(lanes, active),
                                      zero, alignment);
  }
  /// Stores the first \p active lanes of \p value at \p base + \p offset.
  void store(Value value, Value base, Value offset, int64_t active) {
    auto type = cast<VectorType>(value.getType());
    Type element = type.getElementType();
    Value at = address(base, offset, element);
    unsigned alignment = element.getIntOrFloatBitWidth() / 8;
    int64_t lanes = type.getNumElements();
    if (active == lanes) {
      LLVM::StoreOp::create(b, loc, value, at, alignment);
      return;
    }
    LLVM::MaskedStoreOp::create(b, loc, value, at, mask(lanes, active),
                                alignment);
  }
  /// \p value (a vector of i8) sign-extended to i32 lanes.
  Value widen(Value value) {
    auto type = cast<VectorType>(value.getType());
    return arith::ExtSIOp::create(b, loc, VectorType::get(type.getShape(), i32),
                                  value);
  }
  /// The i32 vector of \p lanes lanes that all hold \p value.
  Value splat(int64_t value, int64_t lanes) {
    auto type = VectorType::get({lanes}, i32);
    return vector::BroadcastOp::create(b, loc, type, constant(value));
  }
  /// The sum of the lanes of \p value.
  Value sum(Value value) {
    return vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD,
                                       value);
  }
};

//===----------------------------------------------------------------------===//
// Channels, scalars and padded windows (MveKernelSupport.cpp)
//===----------------------------------------------------------------------===//

/// Taps of a window up to which its loops are unrolled.
constexpr int64_t kMaxUnrolledTaps = 27;

/// Calls \p emit(b, loc, first, lanes, active) over the channels [0,
/// \p channels): groups of 8 lanes, then one of 4, then a masked one of 4
/// (LLVM scalarizes masked loads of 8 bytes widened to i32, not of 4).
void forEachChannelGroup(
    OpBuilder &b, Location loc, int64_t channels,
    function_ref<void(OpBuilder &, Location, Value, int64_t, int64_t)> emit);

/// The i32 offset of output element (n, oh, ow, channel) in \p out.
Value getOutputOffset(OpBuilder &b, Location loc, const ByteView &out, Value n,
                      Value oh, Value ow, Value channel);

/// The int8 at \p base + \p offset, sign-extended to i32, minus \p zp.
Value loadScalar(OpBuilder &b, Location loc, Value base, Value offset,
                 int64_t zp);

/// Matches the PaddedWindow that \p op, a convolution of one output pixel
/// (dilation 1) with operands \p parts, reads, if any: its window per
/// pixel, whose other pixel loops may use it too (matchPaddedWindow), read
/// from a source with static strides. Nothing may write the source or the
/// window between the copy and \p op except ops whose only outputs are
/// \p op's output, the accumulator, and ops without memory effects.
/// With \p fillValue, the window's fill is that value instead of the input
/// zero point (for kernels that read the window itself).
std::optional<PaddedWindow>
matchPixelWindow(Operation *op, const ConvParts &parts,
                 std::optional<int64_t> fillValue = std::nullopt);

/// matchPixelWindow for the kernels that read every tap of the window
/// itself: its fill, the constant of the linalg.fill of \p parts' input,
/// need not be the zero point (arm-dsp-fold-zero-points folds that into the
/// bias).
std::optional<PaddedWindow> matchFilledPixelWindow(Operation *op,
                                                   const ConvParts &parts);

/// Erases the fill and copy of \p window (after the kernel that reads its
/// source directly was built).
void eraseWindowWrites(PatternRewriter &rewriter, const PaddedWindow &window);

/// Lowers the writes of \p window for the kernels that read the window
/// itself (conv_2d_nhwc_fhwc): the fill runs only when the copy does not
/// cover the whole window (an output pixel at the border), since the copy
/// overwrites every byte of it otherwise (the fill moves to just before the
/// copy; nothing between them reads the window), and the copy becomes vector
/// loads and stores of 16 channels.
void lowerWindowWrites(PatternRewriter &rewriter, const PaddedWindow &window);

/// The body of a tap: the i32 offset of the tap in the input (channel 0),
/// the filter's tap row and column, and the carried values.
using TapBody = function_ref<SmallVector<Value>(OpBuilder &, Location, Value,
                                                Value, Value, ValueRange)>;

/// Calls \p body over the taps of the window at \p pixel in \p in: the KH x
/// KW taps (unrolled when \p unroll), or, when \p window is set, those of
/// its copied part [oy, oy + h) x [ox, ox + w) read from \p in, the window's
/// source: all KH x KW taps unrolled when the part is the whole window (an
/// output pixel away from the border), else loops over the part.
SmallVector<Value> forEachTap(OpBuilder &b, Location loc, const ByteView &in,
                              Value pixel, const ConvParts &parts, int64_t kh,
                              int64_t kw, bool unroll,
                              const PaddedWindow *window, ValueRange accs,
                              TapBody body);

//===----------------------------------------------------------------------===//
// Rescales (MveRescale.cpp)
//===----------------------------------------------------------------------===//

/// The parts of a lowered per-pixel `tosa.rescale` from int32 to int8
/// (tosa-to-arith's 64-bit apply_scale, matchApplyScale):
///   y = clamp(apply_scale(a, m, shift) + zp, lo, hi)
/// in either rounding mode.
struct RescaleParts {
  /// The values a, m and the shift (an i8 value or an i64 constant; the
  /// multiplier an i32 value or an i64 constant).
  Value acc, multiplier, shift;
  /// The zero point and the clamp's bounds.
  int64_t zp, lo, hi;
  /// Whether it rounds twice (DOUBLE_ROUND with shifts above 31): acc is
  /// then the value whose sign the rounding takes.
  bool doubleRound = false;
};

/// How a rescale generic reads one of its values per channel c.
struct ChannelOperand {
  /// The memref operand (null: a constant).
  Value memref;
  /// Whether it is read at offset c (else one value for all channels).
  bool perChannel = false;
  /// The constant, when memref is null.
  std::optional<int64_t> constant;
};

/// Returns the constant integer \p value, if it is one.
std::optional<int64_t> getConstantInt(Value value);

/// Matches the body of a rescale generic: the values of a, m and the i8
/// shift, and the constants.
std::optional<RescaleParts> matchRescaleBody(linalg::GenericOp op);

/// Returns how \p value, a value in the body of \p op, is read: a block
/// argument of an input whose indexing map is the identity or the
/// projection on the last loop (contiguous in its last dimension), or one
/// of no loop (a scalar), or a constant.
std::optional<ChannelOperand> getChannelOperand(linalg::GenericOp op,
                                                Value value);

/// Returns true if every multiplier that \p multiplier can hold is a
/// constant other than INT32_MIN and every shift that \p shift can hold a
/// constant in [32, 62] (unsigned i8), the domain of emitRescale.
bool hasVectorRescaleConstants(const ChannelOperand &multiplier,
                               const ChannelOperand &shift);

/// The rescale of \p rescale applied to the i32 lanes \p a with the
/// multipliers \p m and the shifts \p s (i32 vectors of 4 lanes; every shift
/// in [32, 62], no multiplier INT32_MIN), as the 4 int8 results, in the
/// rescale's rounding mode (see RescaleToMve for why it is exact).
Value emitRescale(VectorBuilder &vb, const RescaleParts &rescale, Value a,
                  Value m, Value s);

/// emitRescale before the narrowing: the 4 results as i32 lanes in [lo, hi]
/// (for a scatter store, which narrows them itself).
Value emitRescaleLanes(VectorBuilder &vb, const RescaleParts &rescale, Value a,
                       Value m, Value s);

//===----------------------------------------------------------------------===//
// The in-place depthwise convolution's channel loops (MveChannelRows.cpp)
//===----------------------------------------------------------------------===//

/// The one-channel depthwise convolution of the in-place depthwise
/// (inplace-depthwise, fuse-rescale-accumulators): an scf.for over output
/// rows oh around an scf.for over output columns ow whose body computes one
/// output pixel of one channel,
///   linalg.fill ins(zx) outs(W)                     the padded window
///   linalg.copy ins(subview S[0, ys, xs, 0] [1, h, w, 1])
///               outs(subview W[0, ty, tx, 0] [1, h, w, 1])
///   linalg.fill ins(c) outs(A)                      the i32 accumulator
///   linalg.depthwise_conv_2d_nhwc_hwc[_q] ins(W, F) outs(A)
///   [linalg.generic A = B + A]                      the bias, one i32
///   linalg.generic ins(A, ...) outs(subview O[0, oh, ow, 0] [1, 1, 1, 1])
///                                                   the rescale to int8
/// with index computations (affine.apply/min/max) in between.
struct ChannelRows {
  /// The loops over the output rows and columns.
  scf::ForOp rows, columns;
  /// The convolution and its operands.
  Operation *conv = nullptr;
  ConvParts parts;
  /// The filter's KH and KW.
  int64_t kh, kw;
  /// The channel S (1 x H x W x 1) and the output channel O.
  Value source, output;
  /// The accumulator's fill constant and the bias B (null: none).
  int64_t init;
  Value bias;
  /// The rescale, and how it reads its multiplier and shift.
  RescaleParts rescale;
  ChannelOperand multiplier, shift;
  /// Window row ky reads source row originY + sh * oh + ky, column kx
  /// source column originX + sw * ow + kx.
  int64_t originY, originX, sh, sw;
  /// The columns whose windows lie inside the source: [interiorBegin,
  /// interiorEnd).
  int64_t interiorBegin, interiorEnd;
  /// The rows whose windows lie inside the source: [interiorRowBegin,
  /// interiorRowEnd).
  int64_t interiorRowBegin, interiorRowEnd;
  /// Whether window row ky lies inside the source for every output row.
  SmallVector<bool> rowAlwaysInside;
  /// The accumulator's fill, the bias (null: none) and the rescale.
  Operation *fill = nullptr, *biasOp = nullptr;
  linalg::GenericOp rescaleOp;
};

/// Output pixels per vector of the channel rows.
constexpr int64_t kPixelLanes = 4;

/// Matches the ChannelRows of the column loop \p columns and checks, by
/// evaluating the index computations at every output pixel, that the copy
/// is exactly the window's intersection with the source, at an origin
/// linear in (oh, ow), and that the pixel written is (oh, ow). With
/// \p forVectors (the MVE channel vectors), also that the rescale's
/// constants suit the vector rescale and that at least kPixelLanes columns
/// are interior; without (the DSP channel rows, which keep the rescale as
/// it is), any rescale matchRescaleBody accepts and any interior.
std::optional<ChannelRows> matchChannelRows(scf::ForOp columns,
                                            bool forVectors = true);

//===----------------------------------------------------------------------===//
// The kernel files' patterns
//===----------------------------------------------------------------------===//

/// Adds the kernels of conv_2d_nhwc_fhwc[_q] and conv_2d_nhwc_hwcf[_q]
/// (MveConvKernels.cpp); see populateArmMveInt8KernelPatterns.
void populateConvPatterns(RewritePatternSet &patterns, unsigned ocBlock);

/// Adds the kernel of depthwise_conv_2d_nhwc_hwc[_q]
/// (MveDepthwiseKernels.cpp).
void populateDepthwisePatterns(RewritePatternSet &patterns);

/// Adds the vector rescale (MveRescale.cpp).
void populateRescalePatterns(RewritePatternSet &patterns);

/// Adds the scatter copy of a channel back into its NHWC tensor
/// (MveChannelKernels.cpp).
void populateChannelCopyPatterns(RewritePatternSet &patterns);

} // namespace mve
} // namespace armkernels
} // namespace memopt
} // namespace mlir

#endif // MEMOPT_LIB_TARGET_ARM_MVEKERNELS_H
