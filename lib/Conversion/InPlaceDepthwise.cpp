//===- InPlaceDepthwise.cpp - inplace-depthwise pass ----------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// In-place depthwise convolution (as in TinyEngine): a depthwise convolution
// with multiplier 1, stride 1 and 'same' padding reads only input channel c
// to compute output channel c. When its input dies at it, the lowering
// computes one channel at a time into a one-channel buffer and writes it over
// the input channel it no longer needs, so input and output never coexist.
// On tensors this is an scf.for over channels whose iteration argument is the
// input; one-shot bufferization then writes each channel in place. Which
// convolutions qualify is the cost model's isInPlaceDepthwise.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Conversion/Passes.h"

#include "MemOpt/CostModel/CostModel.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_INPLACEDEPTHWISEPASS
#include "MemOpt/Conversion/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

/// Returns \p value if it holds one entry for all channels (dimension
/// \p dim of size 1), else a view of the entries of channel \p channel.
static Value sliceChannel(OpBuilder &builder, Location loc, Value value,
                          unsigned dim, Value channel) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getDimSize(dim) == 1)
    return value;
  SmallVector<OpFoldResult> offsets(type.getRank(), builder.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes,
      strides(type.getRank(), builder.getIndexAttr(1));
  for (int64_t size : type.getShape())
    sizes.push_back(builder.getIndexAttr(size));
  offsets[dim] = channel;
  sizes[dim] = builder.getIndexAttr(1);
  return tensor::ExtractSliceOp::create(builder, loc, value, offsets, sizes,
                                        strides);
}

/// Returns \p type with its last dimension set to 1.
static RankedTensorType getOneChannelType(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(tensor.getShape());
  shape.back() = 1;
  return tensor.clone(shape);
}

/// Rewrites the in-place depthwise convolution \p depthwise (and its fused
/// rescale) into a loop over its channels that writes each output channel
/// over its input channel.
static void rewriteInPlace(tosa::DepthwiseConv2DOp depthwise) {
  Operation *root = depthwise;
  auto rescale = dyn_cast<tosa::RescaleOp>(*depthwise->user_begin());
  if (isFusedAccumulator(depthwise))
    root = rescale;
  else
    rescale = {};
  Value input = depthwise.getInput();
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t channels = inputType.getDimSize(3);

  OpBuilder builder(root);
  Location loc = root->getLoc();
  Value lower = arith::ConstantIndexOp::create(builder, loc, 0);
  Value upper = arith::ConstantIndexOp::create(builder, loc, channels);
  Value step = arith::ConstantIndexOp::create(builder, loc, 1);
  auto loop = scf::ForOp::create(
      builder, loc, lower, upper, step, ValueRange{input},
      [&](OpBuilder &body, Location bodyLoc, Value channel, ValueRange args) {
        Value image = args.front();
        // Channel c of the input, as a view of the iteration argument: the
        // channels before it are already outputs, the ones after it inputs.
        Value inputChannel = sliceChannel(body, bodyLoc, image, 3, channel);
        IRMapping mapping;
        mapping.map(input, inputChannel);
        // HWCM weights with M = 1, and one bias per channel (or one for all).
        mapping.map(
            depthwise.getWeight(),
            sliceChannel(body, bodyLoc, depthwise.getWeight(), 2, channel));
        mapping.map(
            depthwise.getBias(),
            sliceChannel(body, bodyLoc, depthwise.getBias(), 0, channel));
        Operation *conv = body.clone(*depthwise, mapping);
        conv->getResult(0).setType(getOneChannelType(depthwise.getType()));
        Operation *last = conv;
        if (rescale) {
          mapping.map(rescale.getInput(), conv->getResult(0));
          if (rescale.getPerChannel()) {
            mapping.map(rescale.getMultiplier(),
                        sliceChannel(body, bodyLoc, rescale.getMultiplier(), 0,
                                     channel));
            mapping.map(
                rescale.getShift(),
                sliceChannel(body, bodyLoc, rescale.getShift(), 0, channel));
          }
          last = body.clone(*rescale, mapping);
          last->getResult(0).setType(getOneChannelType(rescale.getType()));
        }
        // Over the input channel, which nothing reads any more.
        auto type = cast<RankedTensorType>(image.getType());
        SmallVector<OpFoldResult> offsets(4, body.getIndexAttr(0));
        offsets[3] = channel;
        SmallVector<OpFoldResult> sizes = {
            body.getIndexAttr(type.getDimSize(0)),
            body.getIndexAttr(type.getDimSize(1)),
            body.getIndexAttr(type.getDimSize(2)), body.getIndexAttr(1)};
        SmallVector<OpFoldResult> strides(4, body.getIndexAttr(1));
        Value inserted = tensor::InsertSliceOp::create(
            body, bodyLoc, last->getResult(0), image, offsets, sizes, strides);
        scf::YieldOp::create(body, bodyLoc, inserted);
      });
  root->getResult(0).replaceAllUsesWith(loop.getResult(0));
  if (rescale)
    rescale->erase();
  depthwise->erase();
}

namespace {
/// Computes every in-place depthwise convolution of a function channel by
/// channel over its input.
struct InPlaceDepthwisePass
    : memopt::impl::InPlaceDepthwisePassBase<InPlaceDepthwisePass> {
  using InPlaceDepthwisePassBase::InPlaceDepthwisePassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return markAllAnalysesPreserved();
    // Decide first: each rewrite changes the uses the rule looks at. The
    // memory model applies the rule in the bodies of loops over patches too.
    SmallVector<tosa::DepthwiseConv2DOp> inPlace;
    func.walk([&](tosa::DepthwiseConv2DOp depthwise) {
      if (isInPlaceDepthwise(depthwise))
        inPlace.push_back(depthwise);
    });
    for (tosa::DepthwiseConv2DOp depthwise : inPlace)
      rewriteInPlace(depthwise);
    numInPlace += inPlace.size();
  }
};
} // namespace
