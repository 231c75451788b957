//===- PatchPrefix.cpp - patch-based inference of a network prefix --------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The `patch-prefix` pass: MCUNetV2's patch-based inference as an identity
// rewrite on TOSA. The prefix of a function up to a cut value is cloned once
// per patch of a grid over the cut's height and width; each clone computes
// its patch from the input region its receptive field needs, and inserts it
// into its slice of the cut value. The memory model (tensor.insert_slice
// writes in place, slices are views) counts exactly what the lowering
// allocates, so the scheduler and the arena planner see the patched peak.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Transforms/PatchPrefix.h"
#include "MemOpt/Analysis/DataflowGraph.h"
#include "MemOpt/Analysis/ScheduleProblemBuilder.h"
#include "MemOpt/CostModel/CostModel.h"
#include "MemOpt/Schedule/StepModel.h"
#include "MemOpt/Transforms/Passes.h"
#include "MemOpt/Utils/Attributes.h"
#include "PatchRegions.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Tosa/Utils/ConversionUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_PATCHPREFIXPASS
#include "MemOpt/Transforms/Passes.h.inc"
} // namespace memopt
} // namespace mlir

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
/// input of \p inputSize rows.
static Span getInputSpan(const Window &window, int64_t o0, int64_t o1,
                         int64_t inputSize) {
  int64_t lo = o0 * window.stride - window.padBefore;
  int64_t hi = (o1 - 1) * window.stride - window.padBefore +
               (window.kernel - 1) * window.dilation + 1;
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
                            SmallVectorImpl<int64_t> *pad = nullptr) {
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
    Span h = getInputSpan((*windows)[0], out.h0, out.h1, height);
    Span w = getInputSpan((*windows)[1], out.w0, out.w1, width);
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
                               const Box &out) {
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
      Box in = getOperandRegion(op, operand, region);
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
                                    unsigned cut, int64_t rows, int64_t cols) {
  RankedTensorType cutType =
      getImageType(analysis.ops[cut]->getResult(0).getType());
  int64_t macs = 0;
  for (int64_t row = 0; row < rows; ++row) {
    for (int64_t col = 0; col < cols; ++col) {
      auto [h0, h1] = getPart(cutType.getDimSize(1), rows, row);
      auto [w0, w1] = getPart(cutType.getDimSize(2), cols, col);
      DenseMap<Value, Box> needed =
          getNeededRegions(analysis, cut, {h0, h1, w0, w1});
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
    if (auto tag = op->getAttrOfType<DenseI64ArrayAttr>(kPatchAttrName))
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
  // The original prefix is dead now (its only outside value was the cut).
  for (int index = plan.cut; index >= 0; --index) {
    Operation *op = analysis.ops[index];
    // Patch 0's insert read the cut through the mapping, not directly.
    if (!op->use_empty())
      return failure();
    op->erase();
  }
  return success();
}

/// Returns the peak of \p func under \p options in block order, or failure
/// (with errors emitted) if it cannot be modelled.
FailureOr<int64_t>
mlir::memopt::getBlockOrderPeak(func::FuncOp func,
                                const CostModelOptions &options) {
  FailureOr<DataflowGraph> graph = DataflowGraph::build(func, options);
  if (failed(graph))
    return failure();
  return evaluateSchedulePeak(*graph, graph->getProgramOrder());
}

/// The block-order peaks of a patched function.
struct PlanPeaks {
  /// The whole function's.
  int64_t peak = 0;
  /// The steps up to the last patch's cut value (the prefix's own).
  int64_t prefixPeak = 0;
};

/// Returns the peaks of \p plan: patches a copy of \p func and measures it.
static FailureOr<PlanPeaks> evaluatePlanPeaks(func::FuncOp func,
                                              const PatchPlan &plan,
                                              const CostModelOptions &options) {
  func::FuncOp copy = func.clone();
  FailureOr<PlanPeaks> peaks = failure();
  {
    PrefixAnalysis analysis(copy);
    SmallVector<Operation *> clones;
    if (succeeded(applyPatchPlan(analysis, plan, &clones)) &&
        succeeded(verify(copy))) {
      FailureOr<DataflowGraph> graph = DataflowGraph::build(copy, options);
      if (succeeded(graph)) {
        SmallVector<NodeId> order = graph->getProgramOrder();
        schedule::Evaluation profile =
            schedule::evaluate(buildScheduleProblem(*graph), order);
        PlanPeaks result{profile.peakBytes, 0};
        // The last patch's cut value is the last clone with a node.
        std::optional<NodeId> last;
        for (Operation *clone : llvm::reverse(clones))
          if ((last = graph->lookupNode(clone)))
            break;
        for (auto [step, node] : llvm::enumerate(order)) {
          result.prefixPeak =
              std::max(result.prefixPeak, profile.liveBytes[step]);
          if (last && node == *last)
            break;
        }
        peaks = result;
      }
    }
  }
  copy.erase();
  return peaks;
}

/// Returns the block-order peak of \p plan and a proven lower bound on the
/// peak of every order of the patched function (the exact scheduler's, with
/// one search state), or failure if the plan does not apply.
static FailureOr<std::pair<int64_t, int64_t>>
evaluatePlanBounds(func::FuncOp func, const PatchPlan &plan,
                   const CostModelOptions &options) {
  func::FuncOp copy = func.clone();
  FailureOr<std::pair<int64_t, int64_t>> bounds = failure();
  {
    PrefixAnalysis analysis(copy);
    if (succeeded(applyPatchPlan(analysis, plan)) && succeeded(verify(copy))) {
      FailureOr<DataflowGraph> graph = DataflowGraph::build(copy, options);
      if (succeeded(graph)) {
        ScheduleResult result = scheduleForMemory(
            *graph, ScheduleAlgorithm::Exact, SchedulerLimits{0, 1});
        bounds = std::make_pair(result.inputPeakBytes, result.lowerBound);
      }
    }
  }
  copy.erase();
  return bounds;
}

/// Parses "<rows>x<cols>" or "<rows>x<cols>@<cut>" into \p rows, \p cols
/// and \p cut.
static bool parseGrid(StringRef text, int64_t &rows, int64_t &cols,
                      std::optional<unsigned> &cut) {
  auto [grid, cutText] = text.split('@');
  auto [left, right] = grid.split('x');
  if (left.getAsInteger(10, rows) || right.getAsInteger(10, cols) ||
      rows <= 0 || cols <= 0)
    return false;
  if (!text.contains('@'))
    return true;
  unsigned index = 0;
  if (cutText.getAsInteger(10, index))
    return false;
  cut = index;
  return true;
}

namespace {
struct PatchPrefixPass
    : public memopt::impl::PatchPrefixPassBase<PatchPrefixPass> {
  using PatchPrefixPassBase::PatchPrefixPassBase;

  void runOnOperation() override;

private:
  /// Runs the prefix part of \p spec (`patches=` without `+blocks`).
  /// With \p forBlocks (`+blocks`), auto's ties go to the smaller peak of
  /// the prefix's own steps: the bands lower the blocks after it.
  LogicalResult patchPrefix(func::FuncOp func, StringRef spec, bool forBlocks);
  /// Chooses the plan of patches=auto, or nothing if none lowers the peak;
  /// then \p whyNone says why, in one line.
  FailureOr<std::optional<PatchPlan>>
  chooseAutoPlan(func::FuncOp func, const PrefixAnalysis &analysis,
                 const CostModelOptions &options, bool forBlocks,
                 int64_t &peakBefore, int64_t &peakAfter,
                 std::string &whyNone);
};
} // namespace

FailureOr<std::optional<PatchPlan>> PatchPrefixPass::chooseAutoPlan(
    func::FuncOp func, const PrefixAnalysis &analysis,
    const CostModelOptions &options, bool forBlocks, int64_t &peakBefore,
    int64_t &peakAfter, std::string &whyNone) {
  FailureOr<DataflowGraph> graph = DataflowGraph::build(func, options);
  if (failed(graph))
    return failure();
  // What the scheduler reaches without patches, and the live bytes of each
  // step in block order, whose suffix after a cut patches cannot change.
  ScheduleResult unpatched =
      scheduleForMemory(*graph, ScheduleAlgorithm::Exact,
                        SchedulerLimits{schedule::kDefaultTimeLimitMs,
                                        schedule::kDefaultMaxStates});
  peakBefore = unpatched.peakBytes;
  schedule::Problem problem = buildScheduleProblem(*graph);
  schedule::Evaluation profile =
      schedule::evaluate(problem, graph->getProgramOrder());
  SmallVector<int64_t> suffixPeak(profile.liveBytes.size() + 1, 0);
  for (int step = profile.liveBytes.size() - 1; step >= 0; --step)
    suffixPeak[step] = std::max(suffixPeak[step + 1], profile.liveBytes[step]);

  std::optional<PatchPlan> best;
  int64_t bestPeak = peakBefore, bestPrefixPeak = 0;
  double limit = maxMacOverhead / 100.0 * analysis.totalMacs;
  // Why no grid was chosen: the cuts the peak comes after, the cheapest
  // grid over the MAC limit, and the best grid that did not lower the peak.
  unsigned cutsBeforeTail = 0;
  std::optional<PatchPlan> cheapestOver, bestKept;
  int64_t bestKeptPeak = 0;
  for (unsigned cut : analysis.cuts) {
    std::optional<NodeId> node = graph->lookupNode(analysis.ops[cut]);
    if (!node)
      continue;
    // Steps after the cut are unchanged (the cut's node is step *node in
    // block order): a plan there cannot beat their peak.
    // With +blocks a plan that ties may still have the lower prefix.
    if (suffixPeak[*node + 1] > bestPeak ||
        (!forBlocks && suffixPeak[*node + 1] == bestPeak)) {
      ++cutsBeforeTail;
      continue;
    }
    RankedTensorType cutType =
        getImageType(analysis.ops[cut]->getResult(0).getType());
    int64_t prefixMacs = getPrefixMacs(analysis, cut, 1, 1);
    for (int64_t grid = 2; grid <= maxGrid; ++grid) {
      if (grid > cutType.getDimSize(1) || grid > cutType.getDimSize(2))
        break;
      PatchPlan plan{cut, grid, grid, analysis.totalMacs, 0};
      plan.macsAfter = analysis.totalMacs - prefixMacs +
                       getPrefixMacs(analysis, cut, grid, grid);
      if (plan.macsAfter - plan.macsBefore > limit) {
        if (!cheapestOver || plan.macsAfter < cheapestOver->macsAfter)
          cheapestOver = plan;
        break;
      }
      FailureOr<PlanPeaks> peaks = evaluatePlanPeaks(func, plan, options);
      std::optional<int64_t> peak;
      if (succeeded(peaks))
        peak = peaks->peak;
      bool prefixLower = forBlocks && best && peak && *peak == bestPeak &&
                         peaks->prefixPeak < bestPrefixPeak;
      if (peak && (*peak < bestPeak || prefixLower)) {
        bestPeak = *peak;
        bestPrefixPeak = peaks->prefixPeak;
        best = plan;
      } else if (peak && (!bestKept || *peak < bestKeptPeak)) {
        bestKept = plan;
        bestKeptPeak = *peak;
      }
    }
  }
  peakAfter = bestPeak;
  if (best)
    return best;

  // No grid: one line that says why.
  auto name = [&](const PatchPlan &plan) {
    Operation *op = analysis.ops[plan.cut];
    return llvm::formatv("{0}x{1} up to {2} at {3}", plan.rows, plan.cols,
                         op->getName().getStringRef(),
                         getLocationLabel(op->getLoc()))
        .str();
  };
  auto extra = [&](const PatchPlan &plan) {
    return llvm::formatv("{0:F1}",
                         100.0 * double(plan.macsAfter - plan.macsBefore) /
                             double(plan.macsBefore))
        .str();
  };
  llvm::raw_string_ostream os(whyNone);
  os << "no patch grid: ";
  if (bestKept) {
    os << "no grid within " << llvm::format("%g", double(maxMacOverhead))
       << "% extra MACs lowers the peak of " << peakBefore
       << " bytes (the best, " << name(*bestKept) << ", needs " << bestKeptPeak
       << ")";
  } else if (cheapestOver) {
    os << "every grid of a cut before the peak needs more than "
       << llvm::format("%g", double(maxMacOverhead))
       << "% extra MACs (the cheapest, " << name(*cheapestOver) << ", +"
       << extra(*cheapestOver) << "%)";
  } else if (cutsBeforeTail == analysis.cuts.size()) {
    // The first step after the last cut where the unpatched peak is reached.
    Operation *lastCut = analysis.ops[analysis.cuts.back()];
    unsigned step = *graph->lookupNode(lastCut) + 1;
    while (step + 1 < profile.liveBytes.size() &&
           profile.liveBytes[step] < peakBefore)
      ++step;
    SmallVector<NodeId> order = graph->getProgramOrder();
    Operation *peakOp = graph->getNode(order[step]).op;
    os << "the peak of " << peakBefore << " bytes is at "
       << peakOp->getName().getStringRef() << " at "
       << getLocationLabel(peakOp->getLoc()) << ", after the last cut ("
       << lastCut->getName().getStringRef() << " at "
       << getLocationLabel(lastCut->getLoc()) << ")";
  } else {
    os << "no cut is 2x2 pixels or more";
  }
  return best;
}

LogicalResult PatchPrefixPass::patchPrefix(func::FuncOp func, StringRef spec,
                                           bool forBlocks) {
  if (spec == "off")
    return success();
  int64_t rows = 0, cols = 0;
  std::optional<unsigned> forcedCut;
  bool isAuto = spec == "auto";
  if (!isAuto && !parseGrid(spec, rows, cols, forcedCut)) {
    emitError(func.getLoc(),
              "patch-prefix: patches must be 'auto', 'off', "
              "<rows>x<cols> or <rows>x<cols>@<cut> with "
              "positive counts, optionally followed by '+blocks', not '")
        << patches << "'";
    return failure();
  }
  if (maxMacOverhead < 0) {
    emitError(func.getLoc(),
              "patch-prefix: max-mac-overhead must be a percentage >= 0");
    return failure();
  }
  if (!func.getBody().hasOneBlock())
    return success();
  CostModelOptions options{model, io, alignment};
  PrefixAnalysis analysis(func);
  if (analysis.cuts.empty()) {
    if (!isAuto)
      emitWarning(func.getLoc(),
                  "patch-prefix: no prefix of convolutions, poolings and "
                  "elementwise ops ends in a single value; nothing patched");
    else
      emitRemark(func.getLoc(),
                 "patch-prefix: no patch grid: no prefix of convolutions, "
                 "poolings and elementwise ops ends in a single value");
    return success();
  }

  std::optional<PatchPlan> plan;
  int64_t peakBefore = 0, peakAfter = 0;
  if (isAuto) {
    std::string whyNone;
    FailureOr<std::optional<PatchPlan>> chosen =
        chooseAutoPlan(func, analysis, options, forBlocks, peakBefore,
                       peakAfter, whyNone);
    if (failed(chosen))
      return failure();
    plan = *chosen;
    if (!plan)
      emitRemark(func.getLoc(), "patch-prefix: ") << whyNone;
  } else {
    // The forced grid, on the longest prefix within the MAC limit (or the
    // shortest one the grid fits if none is).
    FailureOr<int64_t> unpatched = getBlockOrderPeak(func, options);
    if (failed(unpatched))
      return failure();
    peakBefore = *unpatched;
    double limit = maxMacOverhead / 100.0 * analysis.totalMacs;
    if (forcedCut && *forcedCut >= analysis.cuts.size()) {
      emitError(func.getLoc(), "patch-prefix: cut ")
          << *forcedCut << " does not exist (the function has "
          << analysis.cuts.size() << " cuts)";
      return failure();
    }
    for (unsigned index = analysis.cuts.size(); index-- > 0;) {
      // A forced cut (@<cut>) is taken whatever its MACs.
      if (forcedCut && index != *forcedCut)
        continue;
      unsigned cut = analysis.cuts[index];
      RankedTensorType cutType =
          getImageType(analysis.ops[cut]->getResult(0).getType());
      if (rows > cutType.getDimSize(1) || cols > cutType.getDimSize(2))
        continue;
      PatchPlan candidate{cut, rows, cols, analysis.totalMacs, 0};
      candidate.macsAfter = analysis.totalMacs -
                            getPrefixMacs(analysis, cut, 1, 1) +
                            getPrefixMacs(analysis, cut, rows, cols);
      plan = candidate;
      if (candidate.macsAfter - candidate.macsBefore <= limit)
        break;
    }
    if (!plan) {
      emitWarning(func.getLoc(), "patch-prefix: no cut is at least ")
          << rows << "x" << cols << " pixels; nothing patched";
      return success();
    }
    FailureOr<PlanPeaks> peaks = evaluatePlanPeaks(func, *plan, options);
    if (failed(peaks))
      return failure();
    peakAfter = peaks->peak;
  }
  if (!plan)
    return success();

  Operation *cutOp = analysis.ops[plan->cut];
  std::string cutName = (cutOp->getName().getStringRef() + " at " +
                         getLocationLabel(cutOp->getLoc()))
                            .str();
  if (failed(applyPatchPlan(analysis, *plan))) {
    return cutOp->emitError("patch-prefix: the ")
           << plan->rows << "x" << plan->cols
           << " grid leaves a patch without input";
  }
  PatchSummary{cutName,         plan->rows, plan->cols, plan->macsBefore,
               plan->macsAfter, peakBefore, peakAfter}
      .write(func);
  ++prefixesPatched;
  return success();
}

void PatchPrefixPass::runOnOperation() {
  func::FuncOp func = getOperation();
  StringRef spec = patches;
  bool blocks = spec.consume_back("+blocks");
  if (func.isExternal() || (spec == "off" && !blocks))
    return markAllAnalysesPreserved();
  if (failed(patchPrefix(func, spec, blocks)))
    return signalPassFailure();
  if (!blocks || !func.getBody().hasOneBlock())
    return;
  // The MAC limit counts from the unpatched function.
  int64_t baseMacs = 0;
  if (std::optional<PatchSummary> summary = PatchSummary::read(func))
    baseMacs = summary->macsBefore;
  else
    func.walk([&](Operation *op) { baseMacs += getMultiplyAccumulates(op); });
  SmallVector<std::string> applied;
  if (failed(patchBlocks(func, CostModelOptions{model, io, alignment}, baseMacs,
                         maxMacOverhead, maxGrid, applied)))
    return signalPassFailure();
  if (applied.empty())
    return;
  Builder builder(func.getContext());
  func->setAttr(
      kPatchBlocksAttrName,
      builder.getStrArrayAttr(llvm::to_vector_of<StringRef>(applied)));
  blocksPatched += applied.size();
}

//===----------------------------------------------------------------------===//
// Plans for a caller that chooses
//===----------------------------------------------------------------------===//

std::string PatchPlanCandidate::getOption() const {
  return llvm::formatv("{0}x{1}@{2}", rows, cols, cutIndex).str();
}

FailureOr<SmallVector<PatchPlanCandidate>>
mlir::memopt::listPatchPlans(func::FuncOp func, const CostModelOptions &options,
                             unsigned maxGrid, double maxMacOverhead) {
  SmallVector<PatchPlanCandidate> plans;
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return plans;
  PrefixAnalysis analysis(func);
  double limit = maxMacOverhead / 100.0 * analysis.totalMacs;
  for (auto [cutIndex, cut] : llvm::enumerate(analysis.cuts)) {
    Operation *cutOp = analysis.ops[cut];
    RankedTensorType cutType = getImageType(cutOp->getResult(0).getType());
    std::string cutName = (cutOp->getName().getStringRef() + " at " +
                           getLocationLabel(cutOp->getLoc()))
                              .str();
    int64_t prefixMacs = getPrefixMacs(analysis, cut, 1, 1);
    for (int64_t rows = 1; rows <= maxGrid; ++rows) {
      for (int64_t cols = std::max<int64_t>(1, rows - 1);
           cols <= std::min<int64_t>(maxGrid, rows + 1); ++cols) {
        if (rows * cols == 1 || rows > cutType.getDimSize(1) ||
            cols > cutType.getDimSize(2))
          continue;
        PatchPlan plan{cut, rows, cols, analysis.totalMacs, 0};
        plan.macsAfter = analysis.totalMacs - prefixMacs +
                         getPrefixMacs(analysis, cut, rows, cols);
        if (plan.macsAfter - plan.macsBefore > limit)
          continue;
        FailureOr<std::pair<int64_t, int64_t>> bounds =
            evaluatePlanBounds(func, plan, options);
        if (failed(bounds))
          continue;
        PatchPlanCandidate candidate;
        candidate.cutIndex = cutIndex;
        candidate.cut = cutName;
        candidate.rows = rows;
        candidate.cols = cols;
        candidate.prefixOps = cut + 1;
        candidate.macsBefore = plan.macsBefore;
        candidate.macsAfter = plan.macsAfter;
        candidate.blockOrderPeak = bounds->first;
        candidate.peakLowerBound = bounds->second;
        plans.push_back(std::move(candidate));
      }
    }
  }
  return plans;
}

//===----------------------------------------------------------------------===//
// PatchSummary
//===----------------------------------------------------------------------===//

std::optional<PatchSummary> PatchSummary::read(Operation *func) {
  auto dict = func->getAttrOfType<DictionaryAttr>(kPatchesAttrName);
  if (!dict)
    return std::nullopt;
  auto cut = dict.getAs<StringAttr>("cut");
  if (!cut)
    return std::nullopt;
  PatchSummary summary;
  summary.cut = cut.str();
  int64_t *fields[] = {&summary.rows,       &summary.cols,
                       &summary.macsBefore, &summary.macsAfter,
                       &summary.peakBefore, &summary.peakAfter};
  StringRef names[] = {"rows",       "cols",        "macs_before",
                       "macs_after", "peak_before", "peak_after"};
  for (auto [field, name] : llvm::zip_equal(fields, names)) {
    auto value = dict.getAs<IntegerAttr>(name);
    if (!value)
      return std::nullopt;
    *field = value.getInt();
  }
  return summary;
}

void PatchSummary::write(Operation *func) const {
  Builder builder(func->getContext());
  auto integer = [&](StringRef name, int64_t value) {
    return builder.getNamedAttr(name, builder.getI64IntegerAttr(value));
  };
  func->setAttr(
      kPatchesAttrName,
      builder.getDictionaryAttr(
          {builder.getNamedAttr("cut", builder.getStringAttr(cut)),
           integer("rows", rows), integer("cols", cols),
           integer("macs_before", macsBefore), integer("macs_after", macsAfter),
           integer("peak_before", peakBefore),
           integer("peak_after", peakAfter)}));
}

void PatchSummary::print(raw_ostream &os) const {
  double extra =
      macsBefore ? 100.0 * double(macsAfter - macsBefore) / double(macsBefore)
                 : 0.0;
  os << rows << "x" << cols << " patches up to " << cut << ": MACs "
     << macsBefore << " -> " << macsAfter << " (+"
     << llvm::formatv("{0:F1}", extra) << "%), predicted peak " << peakBefore
     << " -> " << peakAfter << " bytes";
}

llvm::json::Object PatchSummary::toJSON() const {
  return llvm::json::Object{{"cut", cut},
                            {"rows", rows},
                            {"cols", cols},
                            {"macs_before", macsBefore},
                            {"macs_after", macsAfter},
                            {"peak_before", peakBefore},
                            {"peak_after", peakAfter}};
}
