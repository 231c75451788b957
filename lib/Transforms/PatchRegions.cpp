//===- PatchRegions.cpp - Regions and the patch rewrite of patch-prefix ---===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The machinery PatchRegions.h declares: the region of every prefix value
// that a patch of the cut value needs (receptive fields through windows,
// pads, slices and elementwise ops), the activation ops and cuts of a
// function, and the rewrite of the ops up to a cut into a grid of patches,
// each op of a patch tagged with its grid and index (kPatchAttrName).
//
//===----------------------------------------------------------------------===//

#include "PatchRegions.h"
#include "MemOpt/CostModel/CostModel.h"
#include "MemOpt/Utils/Attributes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Tosa/Utils/ConversionUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::memopt;

namespace {
/// The window of a convolution or pooling along one spatial dimension.
struct Window {
  int64_t kernel = 1, stride = 1, dilation = 1, padBefore = 0, padAfter = 0;
};

/// The input rows [lo, hi) one dimension of a windowed op reads for output
/// rows [o0, o1), and the padding it needs around them.
struct Span {
  int64_t lo = 0, hi = 0, padBefore = 0, padAfter = 0;
};

} // namespace

/// Returns the input span that \p window reads for output rows [o0, o1) of an
/// input of \p inputSize rows; unless \p clamp, the rows outside the input
/// (its padding) are part of the span.
static Span getInputSpan(const Window &window, int64_t o0, int64_t o1,
                         int64_t inputSize, bool clamp = true) {
  int64_t lo = o0 * window.stride - window.padBefore;
  int64_t hi = (o1 - 1) * window.stride - window.padBefore +
               (window.kernel - 1) * window.dilation + 1;
  if (!clamp)
    return {lo, hi, 0, 0};
  int64_t clampedLo = std::max<int64_t>(lo, 0);
  int64_t clampedHi = std::min(hi, inputSize);
  return {clampedLo, clampedHi, clampedLo - lo, hi - clampedHi};
}

/// Returns the windows (height, width) of a convolution or pooling \p op, or
/// nothing for other ops.
static std::optional<std::array<Window, 2>> getWindows(Operation *op) {
  auto array = [&](StringRef name) -> ArrayRef<int64_t> {
    if (auto attr = op->getAttrOfType<DenseI64ArrayAttr>(name))
      return attr.asArrayRef();
    return {};
  };
  ArrayRef<int64_t> pad = array("pad"), stride = array("stride");
  ArrayRef<int64_t> dilation = array("dilation");
  int64_t kernel[2];
  if (isa<tosa::Conv2DOp, tosa::DepthwiseConv2DOp>(op)) {
    auto weight = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
    if (!weight || weight.getRank() != 4 || !weight.hasStaticShape())
      return std::nullopt;
    // conv2d [OC, KH, KW, IC]; depthwise [KH, KW, C, M].
    unsigned first = isa<tosa::Conv2DOp>(op) ? 1 : 0;
    kernel[0] = weight.getDimSize(first);
    kernel[1] = weight.getDimSize(first + 1);
  } else if (isa<tosa::AvgPool2dOp, tosa::MaxPool2dOp>(op)) {
    ArrayRef<int64_t> size = array("kernel");
    if (size.size() != 2)
      return std::nullopt;
    kernel[0] = size[0];
    kernel[1] = size[1];
  } else {
    return std::nullopt;
  }
  if (pad.size() != 4 || stride.size() != 2 ||
      (!dilation.empty() && dilation.size() != 2))
    return std::nullopt;
  std::array<Window, 2> windows;
  for (unsigned dim = 0; dim < 2; ++dim)
    windows[dim] = {kernel[dim], stride[dim],
                    dilation.empty() ? 1 : dilation[dim], pad[2 * dim],
                    pad[2 * dim + 1]};
  return windows;
}

/// Returns \p type if it is a static NHWC tensor, else null.
RankedTensorType mlir::memopt::getImageType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() != 4 || !tensor.hasStaticShape())
    return {};
  return tensor;
}

/// Returns the values of the `tosa.const_shape` \p value, or nothing.
static std::optional<SmallVector<int64_t>> getShapeValues(Value value) {
  SmallVector<int64_t> values;
  Operation *def = value.getDefiningOp();
  if (!def || !tosa::getConstShapeValues(def, values))
    return std::nullopt;
  return values;
}

/// Returns the dimensions of \p op's activation operands that hold the
/// height and width of its result: 1 and 2 (NHWC), except for a transpose,
/// whose permutation says where they come from.
static std::array<unsigned, 2> getOperandSpatialDims(Operation *op) {
  if (auto transpose = dyn_cast<tosa::TransposeOp>(op)) {
    ArrayRef<int32_t> perms = transpose.getPerms();
    return {static_cast<unsigned>(perms[1]), static_cast<unsigned>(perms[2])};
  }
  return {1, 2};
}

/// Returns the region of operand \p operand of \p op that computing the
/// region \p out of its result reads, with the padding a windowed op needs
/// around it in \p pad (top, bottom, left, right). Operands of height or
/// width 1 are broadcast and read whole along that dimension.
static Box getOperandRegion(Operation *op, Value operand, const Box &out,
                            SmallVectorImpl<int64_t> *pad = nullptr,
                            bool clamp = true) {
  RankedTensorType type = getImageType(operand.getType());
  std::array<unsigned, 2> dims = getOperandSpatialDims(op);
  int64_t height = type.getDimSize(dims[0]), width = type.getDimSize(dims[1]);
  if (isa<tosa::TransposeOp>(op))
    return out;
  if (isa<tosa::SliceOp>(op)) {
    SmallVector<int64_t> start = *getShapeValues(op->getOperand(1));
    return {out.h0 + start[1], out.h1 + start[1], out.w0 + start[2],
            out.w1 + start[2]};
  }
  if (isa<tosa::PadOp>(op)) {
    // Output row o reads input row o - padBefore, or is padding.
    SmallVector<int64_t> padding = *getShapeValues(op->getOperand(1));
    Window h{1, 1, 1, padding[2], padding[3]};
    Window w{1, 1, 1, padding[4], padding[5]};
    Span hs = getInputSpan(h, out.h0, out.h1, height);
    Span ws = getInputSpan(w, out.w0, out.w1, width);
    if (pad)
      pad->assign(
          {0, 0, hs.padBefore, hs.padAfter, ws.padBefore, ws.padAfter, 0, 0});
    return {hs.lo, hs.hi, ws.lo, ws.hi};
  }
  if (std::optional<std::array<Window, 2>> windows = getWindows(op)) {
    Span h = getInputSpan((*windows)[0], out.h0, out.h1, height, clamp);
    Span w = getInputSpan((*windows)[1], out.w0, out.w1, width, clamp);
    if (pad)
      pad->assign({h.padBefore, h.padAfter, w.padBefore, w.padAfter});
    return {h.lo, h.hi, w.lo, w.hi};
  }
  Box region = out;
  if (height == 1)
    region.h0 = 0, region.h1 = 1;
  if (width == 1)
    region.w0 = 0, region.w1 = 1;
  return region;
}

/// Returns true if the rewrite can compute \p op patch by patch: a windowed
/// op over its input 0, an elementwise op or a concat along channels, on
/// static NHWC tensors whose height and width equal the result's or are 1;
/// \p isActivation tells which operands are activations (the rest are
/// weights and pass through).
static bool isPatchable(Operation *op, function_ref<bool(Value)> isActivation) {
  if (op->getNumResults() != 1)
    return false;
  RankedTensorType result = getImageType(op->getResult(0).getType());
  if (!result)
    return false;
  if (!isActivation(op->getOperand(0)) ||
      !getImageType(op->getOperand(0).getType()))
    return false;
  if (auto transpose = dyn_cast<tosa::TransposeOp>(op))
    return transpose.getPerms()[0] == 0;
  if (isa<tosa::SliceOp>(op))
    return getShapeValues(op->getOperand(1)).has_value();
  if (isa<tosa::PadOp>(op)) {
    // Padding along height and width only.
    std::optional<SmallVector<int64_t>> padding =
        getShapeValues(op->getOperand(1));
    return padding && padding->size() == 8 && (*padding)[0] == 0 &&
           (*padding)[1] == 0 && (*padding)[6] == 0 && (*padding)[7] == 0;
  }
  bool windowed = getWindows(op).has_value();
  if (!windowed && !isElementwiseOp(op)) {
    auto concat = dyn_cast<tosa::ConcatOp>(op);
    if (!concat || concat.getAxis() != 3)
      return false;
  }
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isActivation(operand.get()))
      continue;
    RankedTensorType type = getImageType(operand.get().getType());
    if (!type)
      return false;
    if (windowed) {
      if (operand.getOperandNumber() != 0)
        return false;
      continue;
    }
    for (unsigned dim : {1u, 2u})
      if (type.getDimSize(dim) != 1 &&
          type.getDimSize(dim) != result.getDimSize(dim))
        return false;
  }
  return true;
}

PrefixAnalysis::PrefixAnalysis(func::FuncOp func, Value start) {
  Block &body = func.getBody().front();
  // From a start value: the values computed from the arguments, which a
  // segment op may not read unless they are its activations.
  DenseSet<Value> data;
  for (BlockArgument arg : body.getArguments())
    (start ? data : activations).insert(arg);
  if (start)
    activations.insert(start);
  bool started = !start || isa<BlockArgument>(start);
  SmallPtrSet<Operation *, 4> readsOtherData;
  for (Operation &op : body.without_terminator()) {
    totalMacs += getMultiplyAccumulates(&op);
    bool isData = llvm::any_of(op.getOperands(), [&](Value v) {
      return data.contains(v) || activations.contains(v);
    });
    if (start && isData)
      data.insert(op.result_begin(), op.result_end());
    if (!started || llvm::none_of(op.getOperands(), [&](Value v) {
          return activations.contains(v);
        })) {
      started |= start && start.getDefiningOp() == &op;
      continue;
    }
    if (llvm::any_of(op.getOperands(), [&](Value v) {
          return data.contains(v) && !activations.contains(v);
        }))
      readsOtherData.insert(&op);
    ops.push_back(&op);
    activations.insert(op.result_begin(), op.result_end());
  }
  // Position of every activation op, and the last position reading each
  // value (the terminator reads after everything).
  DenseMap<Operation *, unsigned> position;
  for (auto [index, op] : llvm::enumerate(ops))
    position[op] = index;
  unsigned end = ops.size();
  auto lastUse = [&](Value value) {
    unsigned last = 0;
    for (Operation *user : value.getUsers()) {
      auto it = position.find(user);
      last = std::max(last, it == position.end() ? end : it->second);
    }
    return last;
  };
  // Values of the prefix still read after it, counted incrementally.
  DenseMap<unsigned, unsigned> closingAt;
  unsigned open = 0;
  bool windowed = false;
  auto isAct = [&](Value v) { return isActivation(v); };
  for (auto [index, op] : llvm::enumerate(ops)) {
    if (!isPatchable(op, isAct) || readsOtherData.contains(op))
      break;
    windowed |= getWindows(op).has_value();
    Value result = op->getResult(0);
    unsigned last = lastUse(result);
    if (last > index) {
      ++open;
      ++closingAt[last];
    }
    // Values whose last reader is this op close here.
    if (auto it = closingAt.find(index); it != closingAt.end())
      open -= it->second;
    if (windowed && open == 1 && last > index)
      cuts.push_back(index);
  }
}

/// Returns the rows [begin, end) of part \p index of \p parts of \p size.
static std::pair<int64_t, int64_t> getPart(int64_t size, int64_t parts,
                                           int64_t index) {
  return {index * size / parts, (index + 1) * size / parts};
}

/// Returns the region each prefix value (up to and including op \p cut of
/// \p analysis) must hold to compute the patch \p out of the cut value.
/// Values the patch does not need have no entry.
DenseMap<Value, Box>
mlir::memopt::getNeededRegions(const PrefixAnalysis &analysis, unsigned cut,
                               const Box &out, bool clamp) {
  DenseMap<Value, Box> needed;
  needed[analysis.ops[cut]->getResult(0)] = out;
  for (int index = cut; index >= 0; --index) {
    Operation *op = analysis.ops[index];
    auto it = needed.find(op->getResult(0));
    if (it == needed.end())
      continue;
    Box region = it->second;
    for (Value operand : op->getOperands()) {
      if (!analysis.isActivation(operand))
        continue;
      Box in = getOperandRegion(op, operand, region, nullptr, clamp);
      auto [entry, inserted] = needed.try_emplace(operand, in);
      if (!inserted)
        entry->second = entry->second.unite(in);
    }
  }
  return needed;
}

/// Returns the multiply-accumulates of the prefix up to op \p cut when it
/// runs as the \p rows x \p cols grid (1 x 1: unpatched).
int64_t mlir::memopt::getPrefixMacs(const PrefixAnalysis &analysis,
                                    unsigned cut, int64_t rows, int64_t cols,
                                    bool clamp) {
  RankedTensorType cutType =
      getImageType(analysis.ops[cut]->getResult(0).getType());
  int64_t macs = 0;
  for (int64_t row = 0; row < rows; ++row) {
    for (int64_t col = 0; col < cols; ++col) {
      auto [h0, h1] = getPart(cutType.getDimSize(1), rows, row);
      auto [w0, w1] = getPart(cutType.getDimSize(2), cols, col);
      DenseMap<Value, Box> needed =
          getNeededRegions(analysis, cut, {h0, h1, w0, w1}, clamp);
      for (unsigned index = 0; index <= cut; ++index) {
        Operation *op = analysis.ops[index];
        auto it = needed.find(op->getResult(0));
        int64_t opMacs = getMultiplyAccumulates(op);
        if (it == needed.end() || opMacs == 0)
          continue;
        RankedTensorType type = getImageType(op->getResult(0).getType());
        macs += opMacs / (type.getDimSize(1) * type.getDimSize(2)) *
                it->second.getArea();
      }
    }
  }
  return macs;
}

/// Returns the region \p want of \p value, which holds the region \p have
/// along its dimensions \p dims: a view made with \p builder. The other
/// dimensions are taken whole, unless \p start and \p size (one entry per
/// dimension, as a `tosa.slice`'s) say otherwise.
static Value sliceRegion(OpBuilder &builder, Location loc, Value value,
                         const Box &have, const Box &want,
                         std::array<unsigned, 2> dims = {1, 2},
                         ArrayRef<int64_t> start = {},
                         ArrayRef<int64_t> size = {}) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> offsets(4, 0), sizes(type.getShape());
  if (!start.empty()) {
    offsets.assign(start.begin(), start.end());
    sizes.assign(size.begin(), size.end());
  }
  offsets[dims[0]] = want.h0 - have.h0;
  offsets[dims[1]] = want.w0 - have.w0;
  sizes[dims[0]] = want.getHeight();
  sizes[dims[1]] = want.getWidth();
  if (llvm::all_of(offsets, [](int64_t o) { return o == 0; }) &&
      ArrayRef<int64_t>(sizes) == type.getShape())
    return value;
  SmallVector<int64_t> strides(4, 1);
  MLIRContext *context = builder.getContext();
  return tensor::ExtractSliceOp::create(
      builder, loc, value, getAsIndexOpFoldResult(context, offsets),
      getAsIndexOpFoldResult(context, sizes),
      getAsIndexOpFoldResult(context, strides));
}

/// Erases the ops of \p analysis up to op \p cut, in reverse, once the cut
/// value is replaced: the original prefix is dead then (its only outside
/// value was the cut). Fails if one is still used.
static LogicalResult erasePrefix(const PrefixAnalysis &analysis,
                                 unsigned cut) {
  for (int index = cut; index >= 0; --index) {
    Operation *op = analysis.ops[index];
    if (!op->use_empty())
      return failure();
    op->erase();
  }
  return success();
}

/// Rewrites the prefix of \p analysis up to \p plan's cut into \p plan's
/// grid of patches, appending the patches' ops to \p clones if given.
/// Fails (and leaves \p func to be discarded) if a patch would read no
/// input row or the result does not verify.
LogicalResult
mlir::memopt::applyPatchPlan(const PrefixAnalysis &analysis,
                             const PatchPlan &plan,
                             SmallVectorImpl<Operation *> *clones) {
  Operation *cutOp = analysis.ops[plan.cut];
  Value cutValue = cutOp->getResult(0);
  auto cutType = cast<RankedTensorType>(cutValue.getType());
  OpBuilder builder(cutOp->getContext());
  builder.setInsertionPointAfter(cutOp);
  Location loc = cutOp->getLoc();
  // The grid's number in the function: one above the grids already there.
  int64_t grid = 0;
  cutOp->getParentOp()->walk([&](Operation *op) {
    auto tag = op->getAttrOfType<DenseI64ArrayAttr>(kPatchAttrName);
    if (tag && !tag.empty())
      grid = std::max(grid, tag[0] + 1);
  });
  Value whole;
  for (int64_t row = 0; row < plan.rows; ++row) {
    for (int64_t col = 0; col < plan.cols; ++col) {
      // The op before the patch's first: the patch's ops follow it.
      Operation *before = &*std::prev(builder.getInsertionPoint());
      auto [h0, h1] = getPart(cutType.getDimSize(1), plan.rows, row);
      auto [w0, w1] = getPart(cutType.getDimSize(2), plan.cols, col);
      Box out{h0, h1, w0, w1};
      DenseMap<Value, Box> needed = getNeededRegions(analysis, plan.cut, out);
      // The patch value of every prefix value, and the region it holds.
      DenseMap<Value, std::pair<Value, Box>> patch;
      auto lookup = [&](Value original,
                        std::array<unsigned, 2> dims) -> std::pair<Value, Box> {
        auto it = patch.find(original);
        if (it != patch.end())
          return it->second;
        // A function argument: a view of the region the patch reads.
        auto type = cast<RankedTensorType>(original.getType());
        Box all{0, type.getDimSize(dims[0]), 0, type.getDimSize(dims[1])};
        Box region = needed.lookup(original);
        Value view = sliceRegion(builder, loc, original, all, region, dims);
        patch[original] = {view, region};
        return {view, region};
      };
      for (unsigned index = 0; index <= plan.cut; ++index) {
        Operation *op = analysis.ops[index];
        auto it = needed.find(op->getResult(0));
        if (it == needed.end())
          continue;
        Box region = it->second;
        if (region.getHeight() <= 0 || region.getWidth() <= 0)
          return failure();
        std::array<unsigned, 2> dims = getOperandSpatialDims(op);
        if (isa<tosa::SliceOp>(op)) {
          // A slice is a view of its operand's patch.
          Box want = getOperandRegion(op, op->getOperand(0), region);
          auto [value, have] = lookup(op->getOperand(0), dims);
          SmallVector<int64_t> start = *getShapeValues(op->getOperand(1));
          SmallVector<int64_t> size = *getShapeValues(op->getOperand(2));
          patch[op->getResult(0)] = {sliceRegion(builder, op->getLoc(), value,
                                                 have, want, dims, start, size),
                                     region};
          continue;
        }
        IRMapping mapping;
        SmallVector<int64_t> pad;
        for (Value operand : op->getOperands()) {
          if (!analysis.isActivation(operand) || mapping.contains(operand))
            continue;
          Box want = getOperandRegion(op, operand, region, &pad);
          if (want.getHeight() <= 0 || want.getWidth() <= 0)
            return failure();
          auto [value, have] = lookup(operand, dims);
          mapping.map(operand, sliceRegion(builder, op->getLoc(), value, have,
                                           want, dims));
        }
        if (isa<tosa::PadOp>(op)) {
          ImplicitLocOpBuilder shapeBuilder(op->getLoc(), builder);
          mapping.map(op->getOperand(1),
                      tosa::getTosaConstShape(shapeBuilder, pad));
        }
        Operation *clone = builder.clone(*op, mapping);
        if (clones)
          clones->push_back(clone);
        auto type = cast<RankedTensorType>(op->getResult(0).getType());
        clone->getResult(0).setType(
            RankedTensorType::get({type.getDimSize(0), region.getHeight(),
                                   region.getWidth(), type.getDimSize(3)},
                                  type.getElementType()));
        if (getWindows(op))
          clone->setAttr("pad", builder.getDenseI64ArrayAttr(pad));
        patch[op->getResult(0)] = {clone->getResult(0), region};
      }
      // The patch's ops (not the cut value's tensor.empty and insert).
      DenseI64ArrayAttr tag =
          builder.getDenseI64ArrayAttr({grid, row * plan.cols + col});
      for (Operation *op = before->getNextNode();
           op != &*builder.getInsertionPoint(); op = op->getNextNode())
        op->setAttr(kPatchAttrName, tag);
      if (!whole)
        whole = tensor::EmptyOp::create(builder, loc, cutType.getShape(),
                                        cutType.getElementType());
      SmallVector<int64_t> offsets = {0, h0, w0, 0};
      SmallVector<int64_t> sizes = {cutType.getDimSize(0), h1 - h0, w1 - w0,
                                    cutType.getDimSize(3)};
      SmallVector<int64_t> strides(4, 1);
      MLIRContext *context = builder.getContext();
      whole = tensor::InsertSliceOp::create(
          builder, loc, patch[cutValue].first, whole,
          getAsIndexOpFoldResult(context, offsets),
          getAsIndexOpFoldResult(context, sizes),
          getAsIndexOpFoldResult(context, strides));
    }
  }
  cutValue.replaceAllUsesExcept(whole, whole.getDefiningOp());
  // Patch 0's insert read the cut through the mapping, not directly.
  return erasePrefix(analysis, plan.cut);
}


//===----------------------------------------------------------------------===//
// One loop over the patches
//===----------------------------------------------------------------------===//

/// Returns the value a windowed op \p op reads outside its input (its
/// padding): a convolution's input zero point, the lowest value for a max
/// pool, nothing for other ops (an average pool leaves its padding out of
/// the count).
static std::optional<TypedAttr> getPadValue(Operation *op) {
  if (isa<tosa::Conv2DOp, tosa::DepthwiseConv2DOp>(op)) {
    DenseElementsAttr zeroPoint;
    if (!matchPattern(op->getOperand(3), m_Constant(&zeroPoint)) ||
        zeroPoint.empty())
      return std::nullopt;
    return cast<TypedAttr>(*zeroPoint.getValues<Attribute>().begin());
  }
  if (isa<tosa::MaxPool2dOp>(op)) {
    Type type = getElementTypeOrSelf(op->getOperand(0).getType());
    Builder builder(op->getContext());
    if (auto integer = dyn_cast<IntegerType>(type))
      return cast<TypedAttr>(builder.getIntegerAttr(
          type, APInt::getSignedMinValue(integer.getWidth())));
    if (auto floating = dyn_cast<FloatType>(type))
      return cast<TypedAttr>(builder.getFloatAttr(
          type, APFloat::getInf(floating.getFloatSemantics(), true)));
  }
  return std::nullopt;
}

namespace {
/// How one op of the loop's body reads one activation operand (or the
/// region a body value holds): the region in patch (0, 0), which moves by
/// (rows, columns) per patch row and column, whether it reaches outside the
/// image in some patch, and the value a windowed op needs there.
struct LoopRead {
  Box first;
  int64_t rowStep = 0, colStep = 0;
  bool outside = false;
  std::optional<TypedAttr> fill;
};
} // namespace

LogicalResult mlir::memopt::applyPatchLoop(const PrefixAnalysis &analysis,
                                           const PatchPlan &plan) {
  Operation *cutOp = analysis.ops[plan.cut];
  Value cutValue = cutOp->getResult(0);
  auto cutType = cast<RankedTensorType>(cutValue.getType());
  int64_t rows = plan.rows, cols = plan.cols;
  if (cutType.getDimSize(1) % rows || cutType.getDimSize(2) % cols)
    return failure();
  int64_t patchHeight = cutType.getDimSize(1) / rows;
  int64_t patchWidth = cutType.getDimSize(2) / cols;
  auto getOutput = [&](int64_t row, int64_t col) {
    return Box{row * patchHeight, (row + 1) * patchHeight, col * patchWidth,
               (col + 1) * patchWidth};
  };
  // Every op's region in every patch, unclamped; in patch (row, col) it must
  // be patch (0, 0)'s moved by row and col steps, and so must every operand
  // region each op reads.
  SmallVector<DenseMap<Value, Box>> regions;
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t col = 0; col < cols; ++col)
      regions.push_back(getNeededRegions(analysis, plan.cut,
                                         getOutput(row, col), false));
  auto moved = [](const Box &box, int64_t dh, int64_t dw) {
    return Box{box.h0 + dh, box.h1 + dh, box.w0 + dw, box.w1 + dw};
  };
  SmallVector<Operation *> bodyOps;
  // The region each body value holds, and how each op reads each operand.
  DenseMap<Value, LoopRead> held;
  DenseMap<std::pair<Operation *, Value>, LoopRead> reads;
  // Returns how the boxes of all patches, in grid order, move from patch
  // (0, 0), or nothing if they do not move by fixed steps.
  auto getSteps = [&](ArrayRef<Box> boxes) -> std::optional<LoopRead> {
    LoopRead read;
    read.first = boxes.front();
    read.rowStep = rows > 1 ? boxes[cols].h0 - boxes.front().h0 : 0;
    read.colStep = cols > 1 ? boxes[1].w0 - boxes.front().w0 : 0;
    for (auto [index, box] : llvm::enumerate(boxes))
      if (!(box == moved(read.first, index / cols * read.rowStep,
                         index % cols * read.colStep)))
        return std::nullopt;
    return read;
  };
  // The padding value the windowed readers of a body value need outside
  // the image.
  DenseMap<Value, TypedAttr> fills;
  for (unsigned index = 0; index <= plan.cut; ++index) {
    Operation *op = analysis.ops[index];
    if (!regions.front().contains(op->getResult(0)))
      continue;
    bodyOps.push_back(op);
    SmallVector<Box> boxes;
    for (const DenseMap<Value, Box> &patch : regions)
      boxes.push_back(patch.lookup(op->getResult(0)));
    std::optional<LoopRead> region = getSteps(boxes);
    if (!region)
      return failure();
    held[op->getResult(0)] = *region;
    bool windowed = getWindows(op).has_value();
    if (isa<tosa::AvgPool2dOp>(op) &&
        llvm::any_of(cast<tosa::AvgPool2dOp>(op).getPad(),
                     [](int64_t amount) { return amount != 0; }))
      return failure();
    if (!windowed && !isElementwiseOp(op) &&
        !(isa<tosa::ConcatOp>(op) && cast<tosa::ConcatOp>(op).getAxis() == 3))
      return failure();
    auto result = cast<RankedTensorType>(op->getResult(0).getType());
    for (Value operand : op->getOperands()) {
      if (!analysis.isActivation(operand))
        continue;
      RankedTensorType type = getImageType(operand.getType());
      if (!type || (!windowed && (type.getDimSize(1) != result.getDimSize(1) ||
                                  type.getDimSize(2) != result.getDimSize(2))))
        return failure();
      SmallVector<Box> wants;
      for (const DenseMap<Value, Box> &patch : regions)
        wants.push_back(getOperandRegion(op, operand,
                                         patch.lookup(op->getResult(0)),
                                         nullptr, false));
      std::optional<LoopRead> steps = getSteps(wants);
      if (!steps)
        return failure();
      LoopRead read = *steps;
      read.outside = llvm::any_of(wants, [&](const Box &want) {
        return want.h0 < 0 || want.w0 < 0 || want.h1 > type.getDimSize(1) ||
               want.w1 > type.getDimSize(2);
      });
      if (read.outside && windowed && !(read.fill = getPadValue(op)))
        return failure();
      // A body value is filled once, in place, for all its windowed readers.
      if (read.fill && held.contains(operand)) {
        auto [it, inserted] = fills.try_emplace(operand, *read.fill);
        if (!inserted && it->second != *read.fill)
          return failure();
      }
      reads[{op, operand}] = read;
    }
  }
  // The loop, where the cut was.
  OpBuilder builder(cutOp->getContext());
  builder.setInsertionPointAfter(cutOp);
  Location loc = cutOp->getLoc();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  Value init = tensor::EmptyOp::create(builder, loc, cutType.getShape(),
                                       cutType.getElementType());
  auto loop = scf::ForOp::create(builder, loc, constant(0),
                                 constant(rows * cols), constant(1),
                                 ValueRange{init});
  builder.setInsertionPointToStart(loop.getBody());
  Value patch = loop.getInductionVar();
  Value row = arith::DivUIOp::create(builder, loc, patch, constant(cols));
  Value col = arith::RemUIOp::create(builder, loc, patch, constant(cols));
  // base + step * (row or col), as an index.
  auto affine = [&](int64_t base, int64_t step, Value along) -> Value {
    if (step == 0)
      return constant(base);
    Value scaled = arith::MulIOp::create(builder, loc, along, constant(step));
    return arith::AddIOp::create(builder, loc, scaled, constant(base));
  };
  auto minMax = [&](Value value, int64_t bound, bool max) -> Value {
    return max ? Value(arith::MaxSIOp::create(builder, loc, value,
                                              constant(bound)))
               : Value(arith::MinSIOp::create(builder, loc, value,
                                              constant(bound)));
  };
  // The tile of every body value: its region in this patch, as the region
  // of patch (0, 0) moved by the value's steps.
  DenseMap<Value, Value> tiles;
  MLIRContext *context = builder.getContext();
  SmallVector<OpFoldResult> unitStrides(4, builder.getIndexAttr(1));
  // Reads `read` of `value`: of the whole image, or of the value's tile.
  auto readRegion = [&](Value value, const LoopRead &read) -> Value {
    auto type = cast<RankedTensorType>(value.getType());
    auto it = tiles.find(value);
    bool fromTile = it != tiles.end();
    Value source = fromTile ? it->second : value;
    SmallVector<int64_t> shape = {type.getDimSize(0), read.first.getHeight(),
                                  read.first.getWidth(), type.getDimSize(3)};
    auto resultType = RankedTensorType::get(shape, type.getElementType());
    if (fromTile) {
      // Inside the tile (filled outside the image), at a fixed place.
      if (source.getType() == resultType)
        return source;
      const Box &have = held[value].first;
      SmallVector<int64_t> offsets = {0, read.first.h0 - have.h0,
                                      read.first.w0 - have.w0, 0};
      return tensor::ExtractSliceOp::create(
          builder, loc, resultType, source,
          getAsIndexOpFoldResult(context, offsets),
          getAsIndexOpFoldResult(context, shape), unitStrides);
    }
    Value h0 = affine(read.first.h0, read.rowStep, row);
    Value w0 = affine(read.first.w0, read.colStep, col);
    if (!fromTile && !read.outside)
      return tensor::ExtractSliceOp::create(
          builder, loc, resultType, source,
          {builder.getIndexAttr(0), h0, w0, builder.getIndexAttr(0)},
          getAsIndexOpFoldResult(context, shape), unitStrides);
    int64_t height = type.getDimSize(1), width = type.getDimSize(2);
    // The part of the image inside the region, padded with the fill (zero
    // if any value does): a view of dynamic size and a tensor.pad to the
    // static region.
    TypedAttr fill = read.fill ? *read.fill
                               : cast<TypedAttr>(builder.getZeroAttr(
                                     type.getElementType()));
    Value h1 = arith::AddIOp::create(builder, loc, h0,
                                     constant(read.first.getHeight()));
    Value w1 = arith::AddIOp::create(builder, loc, w0,
                                     constant(read.first.getWidth()));
    Value loH = minMax(minMax(h0, 0, true), height, false);
    Value hiH = minMax(minMax(h1, 0, true), height, false);
    Value loW = minMax(minMax(w0, 0, true), width, false);
    Value hiW = minMax(minMax(w1, 0, true), width, false);
    SmallVector<OpFoldResult> offsets = {
        builder.getIndexAttr(0),
        OpFoldResult(loH), OpFoldResult(loW),
        builder.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {
        builder.getIndexAttr(shape[0]),
        OpFoldResult(arith::SubIOp::create(builder, loc, hiH, loH)),
        OpFoldResult(arith::SubIOp::create(builder, loc, hiW, loW)),
        builder.getIndexAttr(shape[3])};
    Value inside = tensor::ExtractSliceOp::create(builder, loc, source,
                                                  offsets, sizes, unitStrides);
    SmallVector<OpFoldResult> low = {
        builder.getIndexAttr(0),
        OpFoldResult(arith::SubIOp::create(builder, loc, loH, h0)),
        OpFoldResult(arith::SubIOp::create(builder, loc, loW, w0)),
        builder.getIndexAttr(0)};
    SmallVector<OpFoldResult> high = {
        builder.getIndexAttr(0),
        OpFoldResult(arith::SubIOp::create(builder, loc, h1, hiH)),
        OpFoldResult(arith::SubIOp::create(builder, loc, w1, hiW)),
        builder.getIndexAttr(0)};
    Value fillValue = arith::ConstantOp::create(builder, loc, fill);
    return tensor::PadOp::create(builder, loc, resultType, inside, low, high,
                                 fillValue);
  };
  // Writes the fill of `value` (fills) over the rows and columns of its
  // tile `tileValue` (holding `tile`) outside the image, in place: inserts
  // of views of a constant, of the sizes the loop computes (0 inside).
  auto fillOutside = [&](Value tileValue, const LoopRead &tile,
                         Value value) -> Value {
    auto it = fills.find(value);
    if (it == fills.end())
      return tileValue;
    auto type = cast<RankedTensorType>(tileValue.getType());
    auto image = cast<RankedTensorType>(value.getType());
    int64_t height = type.getDimSize(1), width = type.getDimSize(2);
    // The most rows (columns) any patch has outside the image.
    int64_t lastRow = (rows - 1) * tile.rowStep;
    int64_t lastCol = (cols - 1) * tile.colStep;
    int64_t maxRows = std::max(
        {int64_t(0), -tile.first.h0, -(tile.first.h0 + lastRow),
         tile.first.h1 - image.getDimSize(1),
         tile.first.h1 + lastRow - image.getDimSize(1)});
    int64_t maxCols = std::max(
        {int64_t(0), -tile.first.w0, -(tile.first.w0 + lastCol),
         tile.first.w1 - image.getDimSize(2),
         tile.first.w1 + lastCol - image.getDimSize(2)});
    maxRows = std::min(maxRows, height);
    maxCols = std::min(maxCols, width);
    Value h0 = affine(tile.first.h0, tile.rowStep, row);
    Value w0 = affine(tile.first.w0, tile.colStep, col);
    // Rows (columns) outside: min(max(0 - h0, 0), max) before, min(max(h0 +
    // height - imageHeight, 0), max) after.
    auto count = [&](Value excess, int64_t most) {
      return minMax(minMax(excess, 0, true), most, false);
    };
    Value zero = constant(0);
    Value before = count(arith::SubIOp::create(builder, loc, zero, h0),
                         maxRows);
    Value after = count(
        arith::AddIOp::create(builder, loc, h0,
                              constant(height - image.getDimSize(1))),
        maxRows);
    Value left = count(arith::SubIOp::create(builder, loc, zero, w0), maxCols);
    Value right = count(
        arith::AddIOp::create(builder, loc, w0,
                              constant(width - image.getDimSize(2))),
        maxCols);
    auto strip = [&](ArrayRef<int64_t> shape) -> Value {
      auto stripType = RankedTensorType::get(shape, type.getElementType());
      return tosa::ConstOp::create(
          builder, loc, stripType,
          DenseElementsAttr::get(stripType, ArrayRef<Attribute>(it->second)));
    };
    auto insert = [&](Value into, Value constantStrip,
                      ArrayRef<OpFoldResult> offsets,
                      ArrayRef<OpFoldResult> sizes) -> Value {
      SmallVector<OpFoldResult> zeros(4, builder.getIndexAttr(0));
      Value view = tensor::ExtractSliceOp::create(builder, loc, constantStrip,
                                                  zeros, sizes, unitStrides);
      return tensor::InsertSliceOp::create(builder, loc, view, into, offsets,
                                           sizes, unitStrides);
    };
    // Rows (dimension 1), then columns (2): a strip before and one after.
    for (auto [dim, most, before, after] :
         {std::make_tuple(1u, maxRows, before, after),
          std::make_tuple(2u, maxCols, left, right)}) {
      if (most == 0)
        continue;
      SmallVector<int64_t> stripShape(type.getShape());
      stripShape[dim] = most;
      Value constantStrip = strip(stripShape);
      SmallVector<OpFoldResult> offsets(4, builder.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes =
          getAsIndexOpFoldResult(context, type.getShape());
      sizes[dim] = before;
      tileValue = insert(tileValue, constantStrip, offsets, sizes);
      sizes[dim] = after;
      offsets[dim] = arith::SubIOp::create(
          builder, loc, constant(type.getDimSize(dim)), after).getResult();
      tileValue = insert(tileValue, constantStrip, offsets, sizes);
    }
    return tileValue;
  };
  for (Operation *op : bodyOps) {
    IRMapping mapping;
    for (Value operand : op->getOperands())
      if (auto it = reads.find({op, operand}); it != reads.end())
        mapping.map(operand, readRegion(operand, it->second));
    Operation *clone = builder.clone(*op, mapping);
    clone->removeAttr(kPatchAttrName);
    Value result = op->getResult(0);
    const Box &first = held[result].first;
    auto type = cast<RankedTensorType>(result.getType());
    clone->getResult(0).setType(RankedTensorType::get(
        {type.getDimSize(0), first.getHeight(), first.getWidth(),
         type.getDimSize(3)},
        type.getElementType()));
    if (getWindows(op))
      clone->setAttr("pad", builder.getDenseI64ArrayAttr({0, 0, 0, 0}));
    tiles[result] = fillOutside(clone->getResult(0), held[result], result);
  }
  SmallVector<OpFoldResult> offsets = {
      builder.getIndexAttr(0), OpFoldResult(affine(0, patchHeight, row)),
      OpFoldResult(affine(0, patchWidth, col)), builder.getIndexAttr(0)};
  SmallVector<int64_t> sizes = {cutType.getDimSize(0), patchHeight,
                                patchWidth, cutType.getDimSize(3)};
  Value inserted = tensor::InsertSliceOp::create(
      builder, loc, tiles[cutValue], loop.getRegionIterArgs().front(),
      offsets, getAsIndexOpFoldResult(context, sizes), unitStrides);
  scf::YieldOp::create(builder, loc, inserted);
  cutValue.replaceAllUsesWith(loop.getResult(0));
  return erasePrefix(analysis, plan.cut);
}
