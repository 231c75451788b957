//===- FuseRescaleAccumulators.cpp - fuse-rescale-accumulators pass -------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Fuses an int8 convolution, depthwise convolution or matmul into the
// elementwise op that rescales its i32 accumulator, as MCU kernels do: the
// rescale is tiled to one output pixel (one row for a matmul) with all
// channels, and the accumulator op and its bias/zero initialization are
// computed inside that loop, so the i32 accumulator is one pixel, never the
// whole tensor. A padded input is read through one padded window per pixel
// built inside the loop, never a padded copy of the whole input. An
// accumulator of one pixel (a fully connected layer on one vector) is fused
// one output element at a time instead, with the element's accumulator
// marked a register (`memopt.register_accumulator`): no i32 buffer in the
// arena, as TFLite Micro's fully connected kernels.
//
// In the pipeline (`require-marks`), the memory model decides which chains
// are fused (isFusedAccumulator): `mark-fused-elementwise` marks their
// accumulators on TOSA, and this pass fuses exactly the marked chains; its
// structural match only says whether it can. A marked accumulator it cannot
// fuse is an error, never a lowering that allocates what the model did not
// count.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Conversion/Passes.h"

#include "MemOpt/Conversion/LocationMarks.h"
#include "MemOpt/Utils/Attributes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_FUSERESCALEACCUMULATORSPASS
#include "MemOpt/Conversion/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

/// Returns the number of leading output dimensions of \p op that are
/// independent output pixels (N, H, W of a convolution; batch and row of a
/// matmul), or 0 if \p op is not an accumulating op this pass fuses.
static unsigned getNumPixelDims(Operation *op) {
  if (isa<linalg::Conv2DNhwcFhwcOp, linalg::Conv2DNhwcFhwcQOp,
          linalg::Conv2DNhwcHwcfOp, linalg::Conv2DNhwcHwcfQOp,
          linalg::DepthwiseConv2DNhwcHwcOp, linalg::DepthwiseConv2DNhwcHwcQOp>(
          op))
    return 3;
  if (isa<linalg::BatchMatmulOp, linalg::QuantizedBatchMatmulOp>(op))
    return 2;
  if (isa<linalg::MatmulOp, linalg::QuantizedMatmulOp>(op))
    return 1;
  return 0;
}

/// Returns true if \p value is a weight (a constant, or a view of one: the
/// channel slices of an in-place depthwise convolution), not an activation.
static bool isConstantValue(Value value) {
  Operation *def = value.getDefiningOp();
  while (def && isa<tensor::ExtractSliceOp, tensor::CollapseShapeOp,
                    tensor::ExpandShapeOp>(def))
    def = def->getOperand(0).getDefiningOp();
  return def && def->hasTrait<OpTrait::ConstantLike>();
}

/// Returns true if the location of \p op carries the accumulator mark of
/// `mark-fused-elementwise` (the model's isFusedAccumulator, or a pad fused
/// into its window: isPadFusedIntoWindow). The lowering of a marked TOSA op
/// (the accumulator, its initialization and padding, a depthwise bias add)
/// has the op's location.
static bool isMarkedAccumulator(Operation *op) {
  return hasLocationMark(op, kFusedAccumulatorLocName);
}

/// Returns true if \p op is at function level or directly in a loop at
/// function level (the channel loop of an in-place depthwise convolution),
/// where this pass fuses accumulators.
static bool isFusionScope(Operation *op, func::FuncOp func) {
  Operation *parent = op->getParentOp();
  return parent == func ||
         (isa<scf::ForOp>(parent) && parent->getParentOp() == func);
}

/// Returns true if \p op is an all-parallel linalg.generic with one tensor
/// result and identity output map.
static bool isElementwiseGeneric(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  return generic && generic.getNumDpsInits() == 1 &&
         generic.getNumResults() == 1 &&
         generic.getNumLoops() == generic.getNumParallelLoops() &&
         generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
             .isIdentity();
}

/// Returns the element bit width of the tensor \p value, or 0.
static unsigned getElementBits(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.getElementType().isIntOrFloat())
    return 0;
  return type.getElementType().getIntOrFloatBitWidth();
}

namespace {
/// A rescale and the ops fused into its tile loop.
struct FusionChain {
  /// The narrowing elementwise op that is tiled (the lowered rescale).
  linalg::GenericOp consumer;
  /// The accumulating op (convolution or matmul).
  linalg::LinalgOp accumulator;
  /// Every producer fused into the loop: the accumulator, the elementwise
  /// i32 ops between it and the consumer (a depthwise bias add), and the
  /// accumulator's initialization (zero fill or bias broadcast).
  llvm::SetVector<Operation *> fused;
  /// Whether the accumulator has one pixel and is fused one output element
  /// at a time, in a register (the model's isRegisterAccumulator).
  bool perElement = false;
};

/// The output channels a one-pixel accumulator is computed for at a time
/// (when they divide its channels; else 2 or 1): the DSP and MVE kernels
/// widen each input word once for the block, and LLVM keeps the block's
/// accumulators in registers.
constexpr int64_t kRegisterBlock = 4;

/// Returns the block of output channels of a one-pixel accumulator of
/// \p channels channels: kRegisterBlock, 2 or 1, the largest that divides
/// \p channels (no partial block, whose dynamic shape the kernels skip).
static int64_t getRegisterBlock(int64_t channels) {
  for (int64_t block = kRegisterBlock; block > 1; block /= 2)
    if (channels % block == 0)
      return block;
  return 1;
}

/// Returns true if the one-pixel accumulator \p acc can be computed one
/// output element at a time with its accumulator in a register: a
/// convolution (not depthwise) of an unpadded input, or a matmul.
static bool isRegisterAccumulatorOp(linalg::LinalgOp acc) {
  if (getNumPixelDims(acc) != 3)
    return getNumPixelDims(acc) != 0;
  if (isa<linalg::DepthwiseConv2DNhwcHwcOp, linalg::DepthwiseConv2DNhwcHwcQOp>(
          acc.getOperation()))
    return false;
  return !acc.getDpsInputOperand(0)->get().getDefiningOp<tensor::PadOp>();
}

/// Rewrites `collapse_shape(depthwise_conv_2d_nhwc_hwcm[_q])` that merges
/// the channel and multiplier dimensions, when one of them is 1, into a
/// 4-d op: a depthwise_conv_2d_nhwc_hwc[_q] (multiplier 1) or a
/// conv_2d_nhwc_hwcf[_q] (one input channel, whose HWCM filter is an HWCF
/// filter). tosa-to-linalg produces the 5-d form, whose collapse_shape would
/// stop the fusion.
struct DepthwiseToFourDims : OpRewritePattern<tensor::CollapseShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::CollapseShapeOp collapse,
                                PatternRewriter &rewriter) const override {
    Operation *def = collapse.getSrc().getDefiningOp();
    if (!def ||
        !isa<linalg::DepthwiseConv2DNhwcHwcmOp,
             linalg::DepthwiseConv2DNhwcHwcmQOp>(def) ||
        !collapse.getSrc().hasOneUse())
      return failure();
    auto dw = cast<linalg::LinalgOp>(def);
    SmallVector<ReassociationIndices> expected = {{0}, {1}, {2}, {3, 4}};
    if (collapse.getReassociationIndices() != expected)
      return failure();
    Value input = dw.getDpsInputOperand(0)->get();
    Value filter = dw.getDpsInputOperand(1)->get();
    auto filterType = cast<RankedTensorType>(filter.getType());
    if (!filterType.hasStaticShape())
      return failure();
    int64_t channels = filterType.getDimSize(2);
    int64_t multiplier = filterType.getDimSize(3);
    if (channels != 1 && multiplier != 1)
      return failure();

    Location loc = dw.getLoc();
    Value init = tensor::CollapseShapeOp::create(
        rewriter, loc, dw.getDpsInitOperand(0)->get(), expected);
    SmallVector<Value> inputs = {input};
    bool quantized = isa<linalg::DepthwiseConv2DNhwcHwcmQOp>(def);
    SmallVector<NamedAttribute> attrs = {
        rewriter.getNamedAttr("strides", def->getAttr("strides")),
        rewriter.getNamedAttr("dilations", def->getAttr("dilations"))};
    Type resultTypes = collapse.getResultType();
    Operation *replacement;
    if (multiplier == 1) {
      // HWC1 -> HWC: one output channel per input channel.
      inputs.push_back(tensor::CollapseShapeOp::create(
          rewriter, loc, filter,
          SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}}));
      llvm::append_range(inputs, llvm::drop_begin(dw.getDpsInputs(), 2));
      if (quantized)
        replacement = linalg::DepthwiseConv2DNhwcHwcQOp::create(
            rewriter, loc, resultTypes, inputs, ValueRange{init}, attrs);
      else
        replacement = linalg::DepthwiseConv2DNhwcHwcOp::create(
            rewriter, loc, resultTypes, inputs, ValueRange{init}, attrs);
    } else {
      // One input channel: out[.., m] = sum in[.., 0] * w[kh, kw, 0, m], a
      // convolution whose HWCF filter is the HWCM filter itself.
      inputs.push_back(filter);
      llvm::append_range(inputs, llvm::drop_begin(dw.getDpsInputs(), 2));
      if (quantized)
        replacement = linalg::Conv2DNhwcHwcfQOp::create(
            rewriter, loc, resultTypes, inputs, ValueRange{init}, attrs);
      else
        replacement = linalg::Conv2DNhwcHwcfOp::create(
            rewriter, loc, resultTypes, inputs, ValueRange{init}, attrs);
    }
    rewriter.replaceOp(collapse, replacement->getResults());
    rewriter.eraseOp(def);
    return success();
  }
};

/// Rewrites the window `extract_slice(tensor.pad %src)` that a fused
/// accumulator reads inside its loop into a window of its own: a
/// `linalg.fill` of the padding value and a `tensor.insert_slice` of the part
/// of %src the window covers (clamped to %src; possibly empty). The padded
/// copy of the whole input is then dead. Returns failure, without changing
/// anything, unless the pad has static low/high amounts and a constant
/// padding value and the slice has unit strides and no rank reduction.
static LogicalResult rewritePaddedWindow(RewriterBase &rewriter,
                                         tensor::ExtractSliceOp slice) {
  auto pad = slice.getSource().getDefiningOp<tensor::PadOp>();
  if (!pad || !pad.getResult().hasOneUse())
    return failure();
  Value padValue = pad.getConstantPaddingValue();
  RankedTensorType sourceType = pad.getSourceType();
  RankedTensorType windowType = slice.getResultType();
  if (!padValue || !sourceType.hasStaticShape() ||
      !windowType.hasStaticShape() ||
      windowType.getRank() != sourceType.getRank() ||
      ShapedType::isDynamicShape(pad.getStaticLow()) ||
      !llvm::all_of(slice.getMixedStrides(), [](OpFoldResult stride) {
        return isConstantIntValue(stride, 1);
      }))
    return failure();

  Location loc = slice.getLoc();
  rewriter.setInsertionPoint(slice);
  Value empty = tensor::EmptyOp::create(rewriter, loc, windowType.getShape(),
                                        windowType.getElementType());
  Value filled =
      linalg::FillOp::create(rewriter, loc, padValue, empty).getResult(0);
  MLIRContext *context = rewriter.getContext();
  AffineExpr s0 = getAffineSymbolExpr(0, context);
  AffineExpr s1 = getAffineSymbolExpr(1, context);
  SmallVector<OpFoldResult> sourceOffsets, sizes, windowOffsets;
  for (auto [dim, offset] : llvm::enumerate(slice.getMixedOffsets())) {
    // A copy: lambdas capture structured bindings only from C++20 on.
    OpFoldResult offsetValue = offset;
    int64_t low = pad.getStaticLow()[dim];
    int64_t extent = sourceType.getDimSize(dim);
    int64_t size = windowType.getDimSize(dim);
    // The window covers rows [offset - low, offset - low + size) of %src;
    // clamp both ends to [0, extent].
    auto clamp = [&](int64_t shift) {
      OpFoldResult lower = affine::makeComposedFoldedAffineMax(
          rewriter, loc,
          AffineMap::get(0, 1, {s0 + shift, getAffineConstantExpr(0, context)},
                         context),
          {offsetValue});
      return affine::makeComposedFoldedAffineMin(
          rewriter, loc,
          AffineMap::get(0, 1, {s0, getAffineConstantExpr(extent, context)},
                         context),
          {lower});
    };
    OpFoldResult begin = clamp(-low);
    OpFoldResult end = clamp(size - low);
    sourceOffsets.push_back(begin);
    sizes.push_back(affine::makeComposedFoldedAffineApply(
        rewriter, loc, s0 - s1, {end, begin}));
    windowOffsets.push_back(affine::makeComposedFoldedAffineApply(
        rewriter, loc, s0 - s1 + low, {begin, offset}));
  }
  SmallVector<OpFoldResult> strides(windowType.getRank(),
                                    rewriter.getIndexAttr(1));
  Value part = tensor::ExtractSliceOp::create(rewriter, loc, pad.getSource(),
                                              sourceOffsets, sizes, strides);
  auto window = tensor::InsertSliceOp::create(rewriter, loc, part, filled,
                                              windowOffsets, sizes, strides);
  // The copy covers exactly the window's intersection with %src: kernels
  // may test a tap against %src's bounds instead (arm-dsp-int8-kernels).
  addLocationMark(window, kPaddedWindowLocName);
  rewriter.replaceOp(slice, window.getResult());
  rewriter.eraseOp(pad);
  return success();
}

/// Fuses every rescaled accumulator of a function.
struct FuseRescaleAccumulatorsPass
    : memopt::impl::FuseRescaleAccumulatorsPassBase<
          FuseRescaleAccumulatorsPass> {
  using FuseRescaleAccumulatorsPassBase::FuseRescaleAccumulatorsPassBase;

  void runOnOperation() override;

private:
  /// Adds to \p chain the producers of \p op's activation input, down to an
  /// accumulator; returns false if there is none.
  bool collectChain(linalg::GenericOp op, FusionChain &chain);
};
} // namespace

/// Moves the register mark of each tiled one-element accumulator of \p func
/// to the `tensor.empty` its initialization writes (the element's
/// accumulator, which bufferizes to one allocation). Fails at an accumulator
/// whose initialization is not built on a `tensor.empty` of its own.
static LogicalResult markRegisterAccumulators(func::FuncOp func) {
  WalkResult walk = func.walk([](linalg::LinalgOp op) {
    if (getNumPixelDims(op) == 0 ||
        !hasLocationMark(op, kRegisterAccumulatorName))
      return WalkResult::advance();
    removeLocationMark(op, kRegisterAccumulatorName);
    // The init, through the fill or bias broadcast that writes it.
    Value init = op.getDpsInitOperand(0)->get();
    while (auto writer = init.getDefiningOp<linalg::LinalgOp>()) {
      if (writer.getNumDpsInits() != 1)
        break;
      init = writer.getDpsInitOperand(0)->get();
    }
    auto empty = init.getDefiningOp<tensor::EmptyOp>();
    if (!empty || !init.hasOneUse() ||
        cast<RankedTensorType>(empty.getType()).getNumElements() >
            kRegisterBlock) {
      op->emitOpError("is the accumulator of a block of output elements, but "
                      "its initialization is not a block of its own");
      return WalkResult::interrupt();
    }
    addLocationMark(empty, kRegisterAccumulatorName);
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

bool FuseRescaleAccumulatorsPass::collectChain(linalg::GenericOp op,
                                               FusionChain &chain) {
  // The one activation input of `op`, read element for element.
  OpOperand *activation = nullptr;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    if (isConstantValue(operand->get()))
      continue;
    if (activation)
      return false;
    activation = operand;
  }
  if (!activation || !op.getMatchingIndexingMap(activation).isIdentity())
    return false;
  Value value = activation->get();
  Operation *def = value.getDefiningOp();
  if (!def || !value.hasOneUse() || def->getNumResults() != 1)
    return false;

  if (getNumPixelDims(def) != 0) {
    auto acc = cast<linalg::LinalgOp>(def);
    if (acc.getNumDpsInits() != 1 ||
        acc.getRank(acc.getDpsInitOperand(0)) != op.getNumLoops())
      return false;
    chain.accumulator = acc;
    chain.fused.insert(def);
    // Its zero fill or bias broadcast (computed from constants only), if
    // nothing else reads it.
    Value init = acc.getDpsInitOperand(0)->get();
    Operation *initDef = init.getDefiningOp();
    if (initDef && init.hasOneUse() &&
        (isa<linalg::FillOp>(initDef) ||
         (isElementwiseGeneric(initDef) &&
          llvm::all_of(cast<linalg::GenericOp>(initDef).getDpsInputs(),
                       isConstantValue))))
      chain.fused.insert(initDef);
    return true;
  }
  // An elementwise op on the accumulator type (a depthwise bias add).
  if (!isElementwiseGeneric(def))
    return false;
  auto generic = cast<linalg::GenericOp>(def);
  if (generic.getNumLoops() != op.getNumLoops() ||
      getElementBits(generic.getDpsInitOperand(0)->get()) !=
          getElementBits(value))
    return false;
  for (OpOperand *operand : generic.getDpsInputOperands())
    if (!isConstantValue(operand->get()) &&
        getElementBits(operand->get()) != getElementBits(value))
      return false;
  chain.fused.insert(def);
  return collectChain(generic, chain);
}

void FuseRescaleAccumulatorsPass::runOnOperation() {
  func::FuncOp func = getOperation();
  MLIRContext *context = &getContext();

  // 1. Four-dimensional depthwise convolutions, with their initializations
  // reshaped (fill and empty fold through the collapse).
  {
    RewritePatternSet patterns(context);
    patterns.add<DepthwiseToFourDims>(context);
    linalg::FillOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::EmptyOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();
  }

  // 2. The chains: a narrowing elementwise op whose activation input is an
  // accumulator, possibly through elementwise ops on the accumulator type.
  SmallVector<FusionChain> chains;
  func.walk([&](linalg::GenericOp op) {
    if (!isElementwiseGeneric(op) || !isFusionScope(op, func))
      return;
    FusionChain chain;
    chain.consumer = op;
    if (!collectChain(op, chain))
      return;
    Value accumulated = chain.accumulator->getResult(0);
    if (getElementBits(op.getResult(0)) >= getElementBits(accumulated))
      return;
    // A single pixel is computed one output element at a time, its i32
    // accumulator in a register (the model's isRegisterAccumulator); a
    // padded or depthwise one would keep its whole accumulator.
    auto accType = cast<RankedTensorType>(accumulated.getType());
    if (!accType.hasStaticShape())
      return;
    if (accType.getNumElements() == accType.getShape().back()) {
      if (!isRegisterAccumulatorOp(chain.accumulator))
        return;
      chain.perElement = true;
    }
    // The model fused the chain only if its accumulator and every op
    // between it and the rescale come from the marked TOSA op: an unmarked
    // i32 op in between (conv -> add -> rescale) is a chain the model did
    // not accept.
    // (The initialization, built from constants, decides nothing.)
    Operation *init =
        chain.accumulator.getDpsInitOperand(0)->get().getDefiningOp();
    if (requireMarks && !llvm::all_of(chain.fused, [&](Operation *fusedOp) {
          return fusedOp == init || isMarkedAccumulator(fusedOp);
        }))
      return;
    chains.push_back(std::move(chain));
  });

  // Every marked accumulator must head a chain: the model counted one pixel
  // of its accumulator, never the whole tensor.
  llvm::SmallPtrSet<Operation *, 8> chained;
  for (FusionChain &chain : chains)
    chained.insert(chain.accumulator);
  WalkResult unfused = func.walk([&](linalg::LinalgOp op) {
    if (getNumPixelDims(op) == 0 || !isMarkedAccumulator(op) ||
        chained.contains(op))
      return WalkResult::advance();
    op->emitOpError("is computed inside the loop of its rescale by the "
                    "memory model (isFusedAccumulator), but could not be "
                    "fused with it");
    return WalkResult::interrupt();
  });
  if (unfused.wasInterrupted())
    return signalPassFailure();

  // 3. Tile each consumer to one pixel with all channels, fusing the chain
  // (a one-pixel chain to one output element).
  IRRewriter rewriter(context);
  for (FusionChain &chain : chains) {
    unsigned pixelDims = chain.perElement ? chain.consumer.getNumLoops()
                                          : getNumPixelDims(chain.accumulator);
    SmallVector<OpFoldResult> tileSizes(chain.consumer.getNumLoops(),
                                        rewriter.getIndexAttr(0));
    for (unsigned i = 0; i < pixelDims; ++i)
      tileSizes[i] = rewriter.getIndexAttr(1);
    if (chain.perElement) {
      auto type = cast<RankedTensorType>(chain.consumer.getResult(0).getType());
      tileSizes.back() =
          rewriter.getIndexAttr(getRegisterBlock(type.getShape().back()));
    }
    scf::SCFTileAndFuseOptions options;
    options.tilingOptions.setTileSizes(tileSizes);
    const llvm::SetVector<Operation *> &fused = chain.fused;
    options.setFusionControlFn(
        [&fused](tensor::ExtractSliceOp, OpResult producer, bool)
            -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          if (!fused.contains(producer.getOwner()))
            return std::nullopt;
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        });
    rewriter.setInsertionPoint(chain.consumer);
    FailureOr<scf::SCFTileAndFuseResult> result =
        scf::tileConsumerAndFuseProducersUsingSCF(
            rewriter, cast<TilingInterface>(chain.consumer.getOperation()),
            options);
    if (failed(result)) {
      chain.consumer.emitOpError("could not be fused with its accumulator");
      return signalPassFailure();
    }
    if (result->fusedProducers.size() != fused.size()) {
      chain.consumer.emitOpError("fused ")
          << result->fusedProducers.size() << " of " << fused.size()
          << " producers of its accumulator";
      return signalPassFailure();
    }
    // A fused op has had its fusion: running the pass again must not take
    // it for a marked accumulator left unfused.
    for (Operation *tiled : result->tiledAndFusedOps) {
      removeLocationMark(tiled, kFusedAccumulatorLocName);
      if (chain.perElement && getNumPixelDims(tiled) != 0)
        addLocationMark(tiled, kRegisterAccumulatorName);
    }
    rewriter.replaceOp(chain.consumer, result->replacements.lookup(
                                           chain.consumer->getResult(0)));
  }

  // 4. Slices of empty tensors become small empty tensors inside the loops,
  // and the untiled producers are dead.
  RewritePatternSet patterns(context);
  tensor::populateFoldTensorEmptyPatterns(patterns);
  tensor::ExtractSliceOp::getCanonicalizationPatterns(patterns, context);
  if (failed(applyPatternsGreedily(func, std::move(patterns))))
    return signalPassFailure();
  if (failed(markRegisterAccumulators(func)))
    return signalPassFailure();

  if (!fusePadding)
    return;
  // 5. Convolutions left unfused whose input is padded (f32 ones, and int8
  // ones with another reader of their accumulator) are computed one output
  // pixel at a time too, so that their input is read through a window.
  SmallVector<linalg::LinalgOp> padded;
  func.walk([&](linalg::LinalgOp op) {
    if (!isFusionScope(op, func) || getNumPixelDims(op) != 3 ||
        op.getNumDpsInits() != 1)
      return;
    auto pad = op.getDpsInputOperand(0)->get().getDefiningOp<tensor::PadOp>();
    if (pad && pad->hasOneUse() && pad.getConstantPaddingValue())
      padded.push_back(op);
  });
  for (linalg::LinalgOp op : padded) {
    SmallVector<OpFoldResult> tileSizes(op.getNumLoops(),
                                        rewriter.getIndexAttr(0));
    for (unsigned i = 0; i < 3; ++i)
      tileSizes[i] = rewriter.getIndexAttr(1);
    scf::SCFTilingOptions options;
    options.setTileSizes(tileSizes);
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(op.getOperation()), options);
    if (failed(tiled)) {
      op.emitOpError("could not be computed one output pixel at a time");
      return signalPassFailure();
    }
    rewriter.replaceOp(op, tiled->replacements);
  }

  // 6. A padded input becomes one padded window per pixel, inside the loop,
  // instead of a padded copy of the whole input.
  SmallVector<tensor::ExtractSliceOp> windows;
  func.walk([&](linalg::LinalgOp op) {
    if (getNumPixelDims(op) == 0 || !op->getParentOfType<scf::ForOp>())
      return;
    if (auto slice = op.getDpsInputOperand(0)
                         ->get()
                         .getDefiningOp<tensor::ExtractSliceOp>())
      if (slice->hasOneUse())
        windows.push_back(slice);
  });
  for (tensor::ExtractSliceOp slice : windows)
    (void)rewritePaddedWindow(rewriter, slice);

  // The model reads the padded input of a marked accumulator (its padding
  // attribute, or an explicit pad it fused: isPadFusedIntoWindow) through
  // one window per pixel: a marked padded copy left is an error.
  WalkResult leftPad = func.walk([&](tensor::PadOp pad) {
    if (!isMarkedAccumulator(pad))
      return WalkResult::advance();
    pad.emitOpError("is read through one window per pixel by the memory "
                    "model (a fused accumulator's padding), but its padded "
                    "copy could not be replaced by windows");
    return WalkResult::interrupt();
  });
  if (leftPad.wasInterrupted())
    signalPassFailure();
}
