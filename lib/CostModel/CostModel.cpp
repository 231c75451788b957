//===- CostModel.cpp - What every op and tensor costs in memory -----------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The per-op rules of the lowering's memory model. Each rule states which
// buffers the Cortex-M lowering (tosa-to-linalg, fuse-rescale-accumulators,
// prepare-bufferization, one-shot bufferization) creates for one op, and in
// which order they are live; docs/MemoryModel.md lists them with examples.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/CostModel/CostModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Tosa/Utils/ConversionUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

#include "MemOpt/CostModel/States.h"
#include "MemOpt/Utils/StorageSize.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::memopt;

std::optional<MemoryModelKind>
mlir::memopt::parseMemoryModelKind(StringRef name) {
  return llvm::StringSwitch<std::optional<MemoryModelKind>>(name)
      .Case("canonical", MemoryModelKind::Canonical)
      .Case("lowering", MemoryModelKind::Lowering)
      .Default(std::nullopt);
}

std::optional<IOPlacement> mlir::memopt::parseIOPlacement(StringRef name) {
  return llvm::StringSwitch<std::optional<IOPlacement>>(name)
      .Case("arena", IOPlacement::Arena)
      .Case("caller", IOPlacement::Caller)
      .Default(std::nullopt);
}

int64_t mlir::memopt::getArenaAlignment(int64_t elementAlignment,
                                        bool holdsGraphIO,
                                        int64_t arenaAlignment) {
  if (!holdsGraphIO)
    return arenaAlignment;
  return std::clamp<int64_t>(elementAlignment, 1, arenaAlignment);
}

int64_t mlir::memopt::getArenaBytes(int64_t storageBytes, int64_t alignment) {
  return static_cast<int64_t>(llvm::alignTo(storageBytes, alignment));
}

bool mlir::memopt::isViewOp(Operation *op) {
  return isa<tosa::ReshapeOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp,
             tensor::CastOp, tosa::SliceOp, tensor::ExtractSliceOp>(op);
}

/// Returns true if \p value is returned, maybe through reshapes.
static bool isReturnedThroughReshapes(Value value) {
  return llvm::any_of(value.getUsers(), [](Operation *user) {
    if (user->hasTrait<OpTrait::ReturnLike>())
      return true;
    return isa<tosa::ReshapeOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
               user) &&
           isReturnedThroughReshapes(user->getResult(0));
  });
}

bool mlir::memopt::isCopiedSlice(Operation *op) {
  return isa<tosa::SliceOp, tensor::ExtractSliceOp>(op) &&
         isReturnedThroughReshapes(op->getResult(0));
}

/// Returns true if the lowering may write over the buffer of \p input at the
/// op that reads it: see canOverwriteOperand, without its type check.
static bool isOverwritableInput(Value input) {
  // Through reshapes (which keep every byte) to the op that computes it; a
  // slice is part of a larger buffer that would outlive the op.
  for (Value value = input;;) {
    Operation *def = value.getDefiningOp();
    if (!value.hasOneUse() || !def || def->hasTrait<OpTrait::ConstantLike>() ||
        isa<tosa::SliceOp, tensor::ExtractSliceOp>(def))
      return false;
    if (!isViewOp(def))
      return true;
    value = def->getOperand(0);
  }
}

bool mlir::memopt::canOverwriteOperand(Value input, Type resultType) {
  return input.getType() == resultType && isOverwritableInput(input);
}

bool mlir::memopt::isElementwiseOp(Operation *op) {
  return op->getNumResults() == 1 &&
         (op->hasTrait<OpTrait::tosa::TosaElementwiseOperator>() ||
          // tosa.mul is one elementwise generic too; its shift operand is a
          // constant scalar.
          isa<tosa::RescaleOp, tosa::CastOp, tosa::TableOp, tosa::MulOp>(op));
}

std::optional<unsigned> mlir::memopt::getOverwrittenOperand(Operation *op) {
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
    if (canOverwriteOperand(insert.getDest(), insert.getType()))
      return insert.getDestMutable().getOperandNumber();
    return std::nullopt;
  }
  if (!isElementwiseOp(op) || isFusedGroupRoot(op))
    return std::nullopt;
  Type resultType = op->getResult(0).getType();
  for (OpOperand &operand : op->getOpOperands())
    if (canOverwriteOperand(operand.get(), resultType))
      return operand.getOperandNumber();
  return std::nullopt;
}

// An int8 convolution, depthwise convolution or matmul whose only user is a
// narrowing tosa.rescale is fused with it by the lowering
// (fuse-rescale-accumulators): the rescale's loop computes one output pixel
// (one row of a matmul) at a time, so the i32 accumulator is one pixel's
// channels, never the whole tensor. A depthwise convolution is fused only if
// its channel or multiplier count is 1 (its 5-d linalg form stops the fusion
// otherwise). An accumulator of one pixel (a fully connected layer on one
// vector) is fused one output element at a time instead
// (isRegisterAccumulator), when it is an unpadded convolution or a matmul;
// a one-pixel depthwise or padded convolution is not fused: one pixel's
// accumulator would be the whole tensor.
bool mlir::memopt::isFourDimDepthwise(Operation *op) {
  auto depthwise = dyn_cast<tosa::DepthwiseConv2DOp>(op);
  if (!depthwise)
    return false;
  auto weight = dyn_cast<RankedTensorType>(depthwise.getWeight().getType());
  return weight && weight.getRank() == 4 &&
         (weight.getDimSize(2) == 1 || weight.getDimSize(3) == 1);
}

/// Returns true if an amount of the padding \p pad is not 0.
static bool hasPadding(ArrayRef<int64_t> pad) {
  return llvm::any_of(pad, [](int64_t amount) { return amount != 0; });
}

/// Returns the static type of the result of \p op if it is an accumulating
/// op (conv2d, 4-d depthwise conv2d, matmul) whose only user is a narrowing
/// `tosa.rescale`, or null.
static RankedTensorType getRescaledAccumulatorType(Operation *op) {
  if (!isa<tosa::Conv2DOp, tosa::DepthwiseConv2DOp, tosa::MatMulOp>(op) ||
      op->getNumResults() != 1 || !op->getResult(0).hasOneUse())
    return {};
  if (auto depthwise = dyn_cast<tosa::DepthwiseConv2DOp>(op))
    if (!isFourDimDepthwise(depthwise))
      return {};
  auto rescale = dyn_cast<tosa::RescaleOp>(*op->getResult(0).user_begin());
  if (!rescale)
    return {};
  auto inType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  auto outType = dyn_cast<RankedTensorType>(rescale.getOutput().getType());
  if (!inType || !outType || inType.getRank() == 0 ||
      !inType.hasStaticShape() || !inType.getElementType().isIntOrFloat() ||
      !outType.getElementType().isIntOrFloat() ||
      outType.getElementType().getIntOrFloatBitWidth() >=
          inType.getElementType().getIntOrFloatBitWidth())
    return {};
  return inType;
}

bool mlir::memopt::isRegisterAccumulator(Operation *op) {
  RankedTensorType type = getRescaledAccumulatorType(op);
  if (!type || type.getNumElements() != type.getShape().back())
    return false;
  if (isa<tosa::MatMulOp>(op))
    return true;
  // An unpadded convolution of an input that is not an explicit pad (or a
  // slice of one): there is no window to build per output.
  auto conv = dyn_cast<tosa::Conv2DOp>(op);
  if (!conv || hasPadding(conv.getPad()))
    return false;
  Operation *input = conv.getInput().getDefiningOp();
  if (auto slice = dyn_cast_or_null<tosa::SliceOp>(input))
    input = slice.getInput1().getDefiningOp();
  return !isa_and_nonnull<tosa::PadOp>(input);
}

bool mlir::memopt::isFusedAccumulator(Operation *op) {
  RankedTensorType type = getRescaledAccumulatorType(op);
  if (!type)
    return false;
  return type.getNumElements() != type.getShape().back() ||
         isRegisterAccumulator(op);
}

/// Returns the bit width of the integer elements of the shaped \p type, or 0.
static unsigned getIntegerBits(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  auto element =
      shaped ? dyn_cast<IntegerType>(shaped.getElementType()) : IntegerType();
  return element ? element.getWidth() : 0;
}

/// Returns the only user of the single result of \p op if it is in \p op's
/// block, or null (several users, or a result the function returns).
static Operation *getOnlyUser(Operation *op) {
  if (op->getNumResults() != 1 || !op->getResult(0).hasOneUse())
    return nullptr;
  Operation *user = *op->getResult(0).user_begin();
  if (user->getBlock() != op->getBlock() ||
      user->hasTrait<OpTrait::IsTerminator>())
    return nullptr;
  return user;
}

/// Returns true if \p op is an integer rescale or cast of a tensor with a
/// static shape that computes from a narrower activation: it widens
/// (fewer input than result bits), or it keeps the width and its input is
/// computed by such an op whose only user it is. The second case is a chain
/// of rescales, e.g. TFLite's ADD operand: i8 -> i32 by 2^20, then an
/// i32 -> i32 rescale with TFLite's rounding.
static bool isWideningOp(Operation *op) {
  if (!isa<tosa::RescaleOp, tosa::CastOp>(op) || op->getNumResults() != 1)
    return false;
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  unsigned inBits = getIntegerBits(op->getOperand(0).getType());
  unsigned outBits = getIntegerBits(op->getResult(0).getType());
  if (!result || !result.hasStaticShape() || inBits == 0 || inBits > outBits)
    return false;
  // A widening of a constant is folded or computed once, not per element.
  Operation *def = op->getOperand(0).getDefiningOp();
  if (def && def->hasTrait<OpTrait::ConstantLike>())
    return false;
  if (inBits < outBits)
    return true;
  return def && getOnlyUser(def) == op && isWideningOp(def);
}

/// Returns true if \p operand of the add, sub or mul \p op is an activation
/// it computes with (not the shift of a mul).
static bool isArithmeticInput(Operation *op, OpOperand &operand) {
  if (auto mul = dyn_cast<tosa::MulOp>(op))
    return operand.get() != mul.getShift();
  return true;
}

/// Returns true if the widening op \p op is computed inside its only user:
/// an add, sub, mul or reduce_sum, or a widening op that is itself fused
/// (the first steps of a chain of rescales).
static bool isWideningFusedIntoUser(Operation *op) {
  if (!isWideningOp(op))
    return false;
  Operation *user = getOnlyUser(op);
  if (!user)
    return false;
  if (isa<tosa::ReduceSumOp>(user))
    return true;
  if (isa<tosa::RescaleOp, tosa::CastOp>(user))
    return isWideningFusedIntoUser(user);
  if (!isa<tosa::AddOp, tosa::SubOp, tosa::MulOp>(user))
    return false;
  OpOperand &use = *op->getResult(0).use_begin();
  return isArithmeticInput(user, use);
}

bool mlir::memopt::isFusedIntoConsumer(Operation *op) {
  if (isWideningFusedIntoUser(op))
    return true;
  if (!isa<tosa::AddOp, tosa::SubOp, tosa::MulOp>(op))
    return false;
  auto rescale = dyn_cast_or_null<tosa::RescaleOp>(getOnlyUser(op));
  if (!rescale || getIntegerBits(op->getResult(0).getType()) == 0 ||
      getIntegerBits(rescale.getOutput().getType()) >=
          getIntegerBits(op->getResult(0).getType()))
    return false;
  // Every activation it computes with is widened inside it: the group
  // starts from narrow tensors only.
  return llvm::all_of(op->getOpOperands(), [&](OpOperand &operand) {
    if (!isArithmeticInput(op, operand))
      return true;
    Operation *def = operand.get().getDefiningOp();
    return def && isWideningFusedIntoUser(def);
  });
}

/// Appends the group inputs of \p op to \p inputs and its fused ops to
/// \p fused (see getFusedGroupInputs).
static void collectFusedGroup(Operation *op, SmallVectorImpl<Value> &inputs,
                              SmallVectorImpl<Operation *> *fused) {
  for (Value operand : op->getOperands()) {
    Operation *def = operand.getDefiningOp();
    if (!def || !isFusedIntoConsumer(def)) {
      inputs.push_back(operand);
      continue;
    }
    collectFusedGroup(def, inputs, fused);
    if (fused)
      fused->push_back(def);
  }
}

SmallVector<Value>
mlir::memopt::getFusedGroupInputs(Operation *root,
                                  SmallVectorImpl<Operation *> *fused) {
  SmallVector<Value> inputs;
  collectFusedGroup(root, inputs, fused);
  return inputs;
}

bool mlir::memopt::isFusedGroupRoot(Operation *op) {
  return !isFusedIntoConsumer(op) &&
         llvm::any_of(op->getOperands(), [](Value operand) {
           Operation *def = operand.getDefiningOp();
           return def && isFusedIntoConsumer(def);
         });
}

/// The padding, dilation and kernel extent of a convolution-like TOSA op.
namespace {
struct WindowShape {
  ArrayRef<int64_t> pad;
  int64_t height = 1, width = 1;
};
} // namespace

/// Returns the window of \p op (a conv2d, depthwise_conv2d or pooling), or
/// std::nullopt for other ops.
static std::optional<WindowShape> getWindowShape(Operation *op) {
  WindowShape shape;
  auto extent = [](int64_t kernel, int64_t dilation) {
    return (kernel - 1) * dilation + 1;
  };
  if (auto conv = dyn_cast<tosa::Conv2DOp>(op)) {
    auto weight = cast<RankedTensorType>(conv.getWeight().getType()); // OHWI
    shape.pad = conv.getPad();
    shape.height = extent(weight.getDimSize(1), conv.getDilation()[0]);
    shape.width = extent(weight.getDimSize(2), conv.getDilation()[1]);
    return shape;
  }
  if (auto depthwise = dyn_cast<tosa::DepthwiseConv2DOp>(op)) {
    auto weight =
        cast<RankedTensorType>(depthwise.getWeight().getType()); // HWCM
    shape.pad = depthwise.getPad();
    shape.height = extent(weight.getDimSize(0), depthwise.getDilation()[0]);
    shape.width = extent(weight.getDimSize(1), depthwise.getDilation()[1]);
    return shape;
  }
  if (auto pool = dyn_cast<tosa::AvgPool2dOp>(op)) {
    shape.pad = pool.getPad();
    shape.height = pool.getKernel()[0];
    shape.width = pool.getKernel()[1];
    return shape;
  }
  if (auto pool = dyn_cast<tosa::MaxPool2dOp>(op)) {
    shape.pad = pool.getPad();
    shape.height = pool.getKernel()[0];
    shape.width = pool.getKernel()[1];
    return shape;
  }
  return std::nullopt;
}

/// Returns the storage bytes of one element of \p type's element type.
static int64_t getElementBytes(Type type, const DataLayout &layout) {
  Type element = cast<ShapedType>(type).getElementType();
  return getElementStorageBytes(element, layout).value_or(0);
}

/// Returns true if \p value is read only as input 0 of a fused accumulator.
static bool feedsFusedAccumulator(Value value) {
  if (!value.hasOneUse())
    return false;
  Operation *user = *value.user_begin();
  return isa<tosa::Conv2DOp, tosa::DepthwiseConv2DOp>(user) &&
         user->getOperand(0) == value && isFusedAccumulator(user);
}

/// Returns the constant padding value of the `tosa.pad` \p pad, or null.
static Attribute getConstantPadValue(tosa::PadOp pad) {
  DenseElementsAttr value;
  if (!matchPattern(pad.getPadConst(), m_Constant(&value)) || !value.isSplat())
    return {};
  return value.getSplatValue<Attribute>();
}

Value mlir::memopt::getMergedPadSource(Operation *op) {
  auto pad = cast<tosa::PadOp>(op);
  Attribute value = getConstantPadValue(pad);
  auto inner = pad.getInput1().getDefiningOp<tosa::PadOp>();
  if (!value || !inner || getConstantPadValue(inner) != value)
    return pad.getInput1();
  return getMergedPadSource(inner);
}

bool mlir::memopt::isPadMergedIntoUsers(Operation *op) {
  auto pad = dyn_cast<tosa::PadOp>(op);
  if (!pad || pad->use_empty())
    return false;
  return llvm::all_of(pad->getUsers(), [&](Operation *user) {
    return isa<tosa::PadOp>(user) && user->getOperand(0) == pad.getResult() &&
           getMergedPadSource(user) != pad.getResult();
  });
}

bool mlir::memopt::isPadFusedIntoWindow(Operation *op) {
  // A slice of a pad (an asymmetric padding) folds into the pad.
  if (auto slice = dyn_cast<tosa::SliceOp>(op)) {
    auto pad = slice.getInput1().getDefiningOp<tosa::PadOp>();
    return pad && pad->getResult(0).hasOneUse() &&
           feedsFusedAccumulator(slice.getResult());
  }
  auto pad = dyn_cast<tosa::PadOp>(op);
  if (!pad || !pad->getResult(0).hasOneUse())
    return false;
  if (auto slice = dyn_cast<tosa::SliceOp>(*pad->getResult(0).user_begin()))
    return isPadFusedIntoWindow(slice);
  return feedsFusedAccumulator(pad.getResult());
}

int64_t mlir::memopt::getFusedWindowBytes(Operation *op) {
  std::optional<WindowShape> window = getWindowShape(op);
  Operation *input = op->getOperand(0).getDefiningOp();
  if (!window ||
      (!hasPadding(window->pad) && !(input && isPadFusedIntoWindow(input))))
    return 0;
  auto inputType = cast<RankedTensorType>(op->getOperand(0).getType());
  DataLayout layout = DataLayout::closest(op);
  return window->height * window->width * inputType.getShape().back() *
         getElementBytes(inputType, layout);
}

bool mlir::memopt::isInPlaceDepthwise(Operation *op) {
  auto depthwise = dyn_cast<tosa::DepthwiseConv2DOp>(op);
  if (!depthwise)
    return false;
  auto input = dyn_cast<RankedTensorType>(depthwise.getInput().getType());
  auto weight = dyn_cast<RankedTensorType>(depthwise.getWeight().getType());
  auto output = dyn_cast<RankedTensorType>(depthwise.getType());
  if (!input || !weight || !output || input.getRank() != 4 ||
      weight.getRank() != 4 || !input.hasStaticShape() ||
      !weight.hasStaticShape() || !output.hasStaticShape())
    return false;
  // Multiplier 1, several channels, stride 1 and 'same' padding: output
  // channel c is computed from input channel c alone and has its shape.
  if (weight.getDimSize(3) != 1 || input.getDimSize(3) < 2 ||
      llvm::any_of(depthwise.getStride(),
                   [](int64_t stride) { return stride != 1; }) ||
      output.getShape() != input.getShape())
    return false;
  // The value the group computes: the fused rescale's result, or the
  // convolution's. It must be able to take over the input's buffer.
  Value result = depthwise.getResult();
  if (isFusedAccumulator(op))
    result = (*result.user_begin())->getResult(0);
  return canOverwriteOperand(depthwise.getInput(), result.getType());
}

Operation *mlir::memopt::getInPlaceDepthwise(Operation *op) {
  if (isa<tosa::DepthwiseConv2DOp>(op))
    return !isFusedAccumulator(op) && isInPlaceDepthwise(op) ? op : nullptr;
  if (!isa<tosa::RescaleOp>(op))
    return nullptr;
  Operation *def = op->getOperand(0).getDefiningOp();
  if (def && isa<tosa::DepthwiseConv2DOp>(def) && isFusedAccumulator(def) &&
      isInPlaceDepthwise(def))
    return def;
  return nullptr;
}

int64_t mlir::memopt::getInPlaceDepthwiseWorkspace(Operation *op,
                                                   int64_t alignment) {
  auto depthwise = cast<tosa::DepthwiseConv2DOp>(op);
  auto align = [&](int64_t bytes) {
    return static_cast<int64_t>(llvm::alignTo(bytes, alignment));
  };
  DataLayout layout = DataLayout::closest(op);
  auto input = cast<RankedTensorType>(depthwise.getInput().getType());
  bool fused = isFusedAccumulator(op);
  // The channel's output: the rescaled channel (fused), or the channel's
  // accumulator initialized with the bias, which is the output (f32).
  Type channelType = fused ? (*depthwise->user_begin())->getResult(0).getType()
                           : depthwise.getType();
  int64_t channelPixels =
      input.getDimSize(0) * input.getDimSize(1) * input.getDimSize(2);
  int64_t bytes = align(channelPixels * getElementBytes(channelType, layout));
  // One pixel of one channel of the i32 accumulator.
  if (fused)
    bytes += align(getElementBytes(depthwise.getType(), layout));
  // The padded window of one output pixel, one channel.
  std::optional<WindowShape> window = getWindowShape(op);
  if (hasPadding(window->pad))
    bytes +=
        align(window->height * window->width * getElementBytes(input, layout));
  return bytes;
}

Value mlir::memopt::getOverwrittenValue(Operation *op) {
  // The fused generic of a group writes over the first group input it may
  // overwrite (prepare-bufferization reads its inputs in this order).
  if (isElementwiseOp(op) && isFusedGroupRoot(op)) {
    Type resultType = op->getResult(0).getType();
    for (Value input : getFusedGroupInputs(op))
      if (canOverwriteOperand(input, resultType))
        return input;
    return {};
  }
  if (std::optional<unsigned> operand = getOverwrittenOperand(op))
    return op->getOperand(*operand);
  if (Operation *depthwise = getInPlaceDepthwise(op))
    return depthwise->getOperand(0);
  return {};
}

namespace {
/// One moment of an op's lowering: what is live besides the other buffers.
struct SubStep {
  /// The op's input 0 is still read at or after this moment.
  bool readsInput;
  /// Scratch bytes live at this moment.
  int64_t scratch;
  /// The output is allocated by this moment.
  bool hasOutput;
};
} // namespace

/// Folds the moments of an op's lowering into the two numbers of the step
/// model: the step holds `input + output + workspace` when the input stays
/// live, and `saving` less when it dies at the op.
static OpWorkspace foldSubSteps(ArrayRef<SubStep> steps, int64_t inputBytes,
                                int64_t outputBytes) {
  int64_t keep = 0, dies = 0;
  for (const SubStep &step : steps) {
    int64_t out = step.hasOutput ? outputBytes : 0;
    keep = std::max(keep, inputBytes + step.scratch + out);
    dies =
        std::max(dies, (step.readsInput ? inputBytes : 0) + step.scratch + out);
  }
  OpWorkspace result;
  result.workspaceBytes = keep - inputBytes - outputBytes;
  result.savingIfInputDies = keep - dies;
  return result;
}

OpWorkspace mlir::memopt::getLoweringWorkspace(Operation *op,
                                               int64_t inputBytes,
                                               int64_t outputBytes,
                                               int64_t alignment) {
  auto align = [&](int64_t bytes) {
    return static_cast<int64_t>(llvm::alignTo(bytes, alignment));
  };
  // tosa-to-linalg resizes an input whose height or width is 1 and grows
  // at that size 1 first, into a buffer of its own, then broadcasts that
  // buffer into the output (upstream's MaterializeResizeBroadcast; found by
  // the pass fuzzer, test/fuzz/pass_fuzz.py).
  if (auto resize = dyn_cast<tosa::ResizeOp>(op)) {
    auto inputType = cast<RankedTensorType>(resize.getInput().getType());
    auto outputType = cast<RankedTensorType>(resize.getOutput().getType());
    SmallVector<int64_t, 4> shape(outputType.getShape());
    bool broadcast = false;
    for (unsigned dim : {1u, 2u})
      if (inputType.getDimSize(dim) == 1 && outputType.getDimSize(dim) != 1) {
        shape[dim] = 1;
        broadcast = true;
      }
    // Nothing left to resize (a 1x1 input): the input is broadcast as is.
    if (!broadcast || !outputType.hasStaticShape() ||
        ArrayRef<int64_t>(shape) == inputType.getShape())
      return {};
    int64_t resizedBytes =
        align(llvm::product_of(shape) *
              getElementBytes(outputType, DataLayout::closest(op)));
    return foldSubSteps(
        {{true, resizedBytes, false}, {false, resizedBytes, true}}, inputBytes,
        outputBytes);
  }
  std::optional<WindowShape> window = getWindowShape(op);
  if (!window || op->getNumResults() != 1)
    return {};
  DataLayout layout = DataLayout::closest(op);
  auto inputType = cast<RankedTensorType>(op->getOperand(0).getType());
  auto outputType = cast<RankedTensorType>(op->getResult(0).getType());
  // tensor.pad: a padded copy of the whole input, made just before the op.
  int64_t padBytes = 0;
  if (hasPadding(window->pad)) {
    ArrayRef<int64_t> pad = window->pad; // top, bottom, left, right
    int64_t height = inputType.getDimSize(1) + pad[0] + pad[1];
    int64_t width = inputType.getDimSize(2) + pad[2] + pad[3];
    padBytes = inputType.getDimSize(0) * height * width *
               inputType.getDimSize(3) * getElementBytes(inputType, layout);
    padBytes = align(padBytes);
  }
  bool isPool = isa<tosa::AvgPool2dOp, tosa::MaxPool2dOp>(op);
  if (!isPool) {
    if (!padBytes)
      return {};
    // A convolution computed one output pixel at a time reads its input
    // through one padded window (fuse-rescale-accumulators), allocated once
    // after the output.
    auto depthwise = dyn_cast<tosa::DepthwiseConv2DOp>(op);
    if (!depthwise || isFourDimDepthwise(depthwise))
      return {align(getFusedWindowBytes(op)), 0};
    // Otherwise a pad copy (reads the input), then the output, then the
    // convolution.
    return foldSubSteps({{true, padBytes, false}, {false, padBytes, true}},
                        inputBytes, outputBytes);
  }
  // Poolings read a window operand of the kernel's shape, of the
  // accumulator's element type.
  Type accType = outputType.getElementType();
  if (auto avg = dyn_cast<tosa::AvgPool2dOp>(op))
    accType = avg.getAccType();
  int64_t accElement = getElementStorageBytes(accType, layout).value_or(0);
  int64_t windowBytes = align(window->height * window->width * accElement);
  int64_t accBytes = 0;
  if (accType != outputType.getElementType())
    accBytes = align(outputType.getNumElements() * accElement);
  if (accBytes) {
    // int8 average: pad copy, i32 accumulator, window, then the rescale
    // into the output.
    return foldSubSteps({{true, padBytes, false},
                         {!padBytes, padBytes + accBytes + windowBytes, false},
                         {false, accBytes, true}},
                        inputBytes, outputBytes);
  }
  return foldSubSteps(
      {{true, padBytes, false}, {!padBytes, padBytes + windowBytes, true}},
      inputBytes, outputBytes);
}

/// Returns true if \p value is computed from constants only (a weight in
/// the lowering's model: a rescale is computed at run time).
static bool isComputedFromWeights(Value value, unsigned depth = 0) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return false;
  if (def->hasTrait<OpTrait::ConstantLike>())
    return true;
  if (depth > 16 || def->getNumRegions() != 0 || !isMemoryEffectFree(def) ||
      isa<tosa::RescaleOp>(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value operand) {
    return isComputedFromWeights(operand, depth + 1);
  });
}

/// The most operands a concat may have for its operands to be produced in
/// place: each one's producer then writes into the concat's buffer, and
/// one-shot bufferization analyzes the chain of inserts as one alias set at a
/// cost that grows as n^3 (a concat of 128 operands took 260 s, of 16 under
/// a second). NAS cells concatenate at most 8.
static constexpr unsigned kMaxInPlaceConcatOperands = 16;

/// Returns true if the `tosa.concat` \p concat computes the new value of a
/// state of its function in place (getInPlaceStateUpdate): its buffer is
/// the state's, and the old state must be read before anything is written
/// into it.
static bool isStateUpdate(tosa::ConcatOp concat) {
  auto func = dyn_cast<func::FuncOp>(concat->getParentOp());
  if (!func)
    return false;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    auto result = func.getArgAttrOfType<IntegerAttr>(i, kStateAttrName);
    if (result && result.getValue().isNonNegative() &&
        result.getValue().getZExtValue() < func.getNumResults() &&
        getInPlaceStateUpdate(
            func, {i, static_cast<unsigned>(result.getInt())}) == concat)
      return true;
  }
  return false;
}

Operation *mlir::memopt::getInPlaceConcat(Operation *op, IOPlacement io) {
  if (io != IOPlacement::Caller || op->getNumResults() != 1 ||
      !op->getResult(0).hasOneUse())
    return nullptr;
  auto concat = dyn_cast<tosa::ConcatOp>(*op->getResult(0).user_begin());
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!concat || concat->getBlock() != op->getBlock() ||
      concat->getNumOperands() > kMaxInPlaceConcatOperands || !type ||
      isStateUpdate(concat) ||
      !type.hasStaticShape() || isComputedFromWeights(op->getResult(0)) ||
      llvm::none_of(concat->getUsers(), [](Operation *user) {
        return user->hasTrait<OpTrait::ReturnLike>();
      }))
    return nullptr;
  bool producesOwnBuffer = false;
  // Not a depthwise convolution or an average pooling: their lowering
  // accumulates into a buffer of its own and then writes the result (a
  // bias add, a division, or a reshape of a 5-d result), so the slice would
  // not save that buffer (found by the pass fuzzer, seed 205).
  if (isa<tosa::Conv2DOp, tosa::MatMulOp, tosa::TransposeOp>(op)) {
    producesOwnBuffer = true;
  } else if (auto pool = dyn_cast<tosa::MaxPool2dOp>(op)) {
    producesOwnBuffer = !hasPadding(pool.getPad());
  } else if (isElementwiseOp(op)) {
    // An elementwise op (a fused group's root too) writes into the slice
    // instead of over a dying input: the input is freed at the op either
    // way, and its buffer no longer lives on to the concat. A depthwise
    // convolution computed in place (fused into this rescale) writes over
    // its input channel by channel.
    producesOwnBuffer = !getInPlaceDepthwise(op);
  }
  return producesOwnBuffer ? concat.getOperation() : nullptr;
}

int64_t mlir::memopt::getOverwriteBound(const OverwriteWindow &window) {
  const OverwriteWindow &w = window;
  int64_t inputPixels = w.inputHeight * w.inputWidth;
  // The first input pixel read by the window whose top-left tap is at
  // (row, col), clamped to the image; past its right edge, the next row.
  auto firstRead = [&](int64_t row, int64_t col) {
    row = std::max<int64_t>(row, 0);
    col = std::max<int64_t>(col, 0);
    if (col >= w.inputWidth) {
      ++row;
      col = 0;
    }
    return row >= w.inputHeight ? inputPixels : row * w.inputWidth + col;
  };
  int64_t bound = 0;
  for (int64_t r = 0; r < w.outputHeight; ++r)
    for (int64_t c = 0; c < w.outputWidth; ++c) {
      // The later pixels' windows start at the next one in this row, or at
      // the first of the next row.
      int64_t next = inputPixels;
      if (c + 1 < w.outputWidth)
        next = firstRead(r * w.strideHeight - w.padTop,
                         (c + 1) * w.strideWidth - w.padLeft);
      if (r + 1 < w.outputHeight)
        next = std::min(
            next, firstRead((r + 1) * w.strideHeight - w.padTop, -w.padLeft));
      if (c + 1 == w.outputWidth && r + 1 == w.outputHeight)
        break;
      int64_t written = (r * w.outputWidth + c + 1) * w.outputPixelBytes;
      bound = std::min(bound, next * w.inputPixelBytes - written);
    }
  return bound;
}

int64_t mlir::memopt::alignOverwriteShift(int64_t bound, int64_t alignment) {
  assert(bound <= 0 && alignment > 0 && "a bound <= 0 expected");
  return -static_cast<int64_t>(llvm::alignTo(-bound, alignment));
}

int64_t mlir::memopt::getOverwriteOverlap(int64_t inputBytes,
                                          int64_t outputBytes, int64_t shift) {
  return std::max<int64_t>(0, std::min(inputBytes, shift + outputBytes) -
                                  std::max<int64_t>(0, shift));
}

std::optional<Overwrite>
mlir::memopt::getOverwriteCandidate(Operation *op, IOPlacement io) {
  auto rescale = dyn_cast<tosa::RescaleOp>(op);
  Operation *conv = rescale ? rescale.getInput().getDefiningOp() : nullptr;
  // A one-pixel accumulator (a fully connected layer) is computed one output
  // element at a time, each reading the whole input; an in-place depthwise
  // convolution, one channel at a time.
  if (!conv || !isa<tosa::Conv2DOp, tosa::DepthwiseConv2DOp>(conv) ||
      !isFusedAccumulator(conv) || isRegisterAccumulator(conv) ||
      getInPlaceDepthwise(op) || isFusedIntoConsumer(op) ||
      isFusedGroupRoot(op) || isReturnedThroughReshapes(rescale.getResult()) ||
      getInPlaceConcat(op, io))
    return std::nullopt;
  // The input is computed by an op that may be overwritten, or a graph
  // input in the arena (maybe through reshapes) that nothing else reads.
  Value input = conv->getOperand(0);
  Value root = input;
  while (root.hasOneUse() && root.getDefiningOp() &&
         isViewOp(root.getDefiningOp()))
    root = root.getDefiningOp()->getOperand(0);
  bool graphInput = isa<BlockArgument>(root) && root.hasOneUse() &&
                    io == IOPlacement::Arena;
  if (!graphInput &&
      (!isOverwritableInput(input) || input.getDefiningOp<tosa::PadOp>()))
    return std::nullopt;
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  auto outputType = dyn_cast<RankedTensorType>(rescale.getType());
  std::optional<WindowShape> shape = getWindowShape(conv);
  if (!inputType || !outputType || !shape || !inputType.hasStaticShape() ||
      !outputType.hasStaticShape() || inputType.getRank() != 4 ||
      outputType.getRank() != 4 || inputType.getDimSize(0) != 1 ||
      outputType.getDimSize(0) != 1)
    return std::nullopt;
  DataLayout layout = DataLayout::closest(op);
  ArrayRef<int64_t> stride =
      isa<tosa::Conv2DOp>(conv) ? cast<tosa::Conv2DOp>(conv).getStride()
                                : cast<tosa::DepthwiseConv2DOp>(conv).getStride();
  OverwriteWindow window;
  window.inputHeight = inputType.getDimSize(1);
  window.inputWidth = inputType.getDimSize(2);
  window.inputPixelBytes =
      inputType.getDimSize(3) * getElementBytes(inputType, layout);
  window.outputHeight = outputType.getDimSize(1);
  window.outputWidth = outputType.getDimSize(2);
  window.outputPixelBytes =
      outputType.getDimSize(3) * getElementBytes(outputType, layout);
  window.strideHeight = stride[0];
  window.strideWidth = stride[1];
  window.padTop = shape->pad[0];
  window.padLeft = shape->pad[2];
  if (window.inputPixelBytes <= 0 || window.outputPixelBytes <= 0)
    return std::nullopt;
  Overwrite overwrite{conv, input, getOverwriteBound(window), false};
  overwrite.exact = overwrite.bound == 0 &&
                    window.inputHeight * window.inputWidth *
                            window.inputPixelBytes ==
                        window.outputHeight * window.outputWidth *
                            window.outputPixelBytes;
  return overwrite;
}

std::optional<Overwrite> mlir::memopt::getOverwrite(Operation *op,
                                                    IOPlacement io) {
  std::optional<Overwrite> overwrite = getOverwriteCandidate(op, io);
  if (overwrite && !overwrite->exact &&
      !op->hasAttr(kOverwriteShiftedAttrName))
    return std::nullopt;
  return overwrite;
}

int64_t mlir::memopt::getMultiplyAccumulates(Operation *op) {
  // A loop: its body's, times its constant trip count.
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    std::optional<APInt> trips = loop.getStaticTripCount();
    if (!trips)
      return 0;
    int64_t body = 0;
    for (Operation &inner : loop.getBody()->without_terminator())
      body += getMultiplyAccumulates(&inner);
    return body * trips->getSExtValue();
  }
  if (op->getNumResults() != 1 || op->getNumOperands() < 2)
    return 0;
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  auto weight = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
  if (!result || !weight || !result.hasStaticShape() ||
      !weight.hasStaticShape())
    return 0;
  int64_t outputs = result.getNumElements();
  // Weights: conv2d [OC, KH, KW, IC], conv3d [OC, KD, KH, KW, IC],
  // depthwise [KH, KW, C, M]; matmul's second operand [N, C, W].
  if (isa<tosa::Conv2DOp>(op))
    return outputs * weight.getDimSize(1) * weight.getDimSize(2) *
           weight.getDimSize(3);
  if (isa<tosa::Conv3DOp>(op))
    return outputs * weight.getDimSize(1) * weight.getDimSize(2) *
           weight.getDimSize(3) * weight.getDimSize(4);
  if (isa<tosa::DepthwiseConv2DOp>(op))
    return outputs * weight.getDimSize(0) * weight.getDimSize(1);
  if (isa<tosa::MatMulOp>(op))
    return outputs * weight.getDimSize(1);
  return 0;
}

int64_t mlir::memopt::getTotalMultiplyAccumulates(Operation *root) {
  int64_t macs = 0;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    macs += getMultiplyAccumulates(op);
    return isa<scf::ForOp>(op) ? WalkResult::skip() : WalkResult::advance();
  });
  return macs;
}

FailureOr<SmallVector<StateBinding>>
mlir::memopt::getStateBindings(func::FuncOp func) {
  SmallVector<StateBinding> states;
  DenseMap<unsigned, unsigned> argumentOfResult;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    Attribute attr = func.getArgAttr(i, kStateAttrName);
    if (!attr)
      continue;
    auto index = dyn_cast<IntegerAttr>(attr);
    if (!index || !index.getType().isInteger())
      return func.emitError("argument #")
             << i << ": " << kStateAttrName
             << " must be an integer, the number of the result that holds "
                "the state after the call";
    int64_t result = index.getInt();
    if (result < 0 || result >= func.getNumResults())
      return func.emitError("argument #")
             << i << " is a state whose new value is result #" << result
             << ", but @" << func.getSymName() << " has "
             << func.getNumResults() << " results";
    Type type = func.getArgumentTypes()[i];
    if (!isa<RankedTensorType, MemRefType>(type) ||
        func.getResultTypes()[result] != type)
      return func.emitError("argument #")
             << i << " is a state of type " << type << " but result #"
             << result << ", its new value, has type "
             << func.getResultTypes()[result];
    auto [it, inserted] = argumentOfResult.try_emplace(result, i);
    if (!inserted)
      return func.emitError("arguments #")
             << it->second << " and #" << i << " are states with one new "
             << "value, result #" << result;
    states.push_back({i, static_cast<unsigned>(result)});
  }
  return states;
}

/// Returns \p value with the `tosa.reshape`s that compute it skipped.
static Value skipReshapes(Value value) {
  while (auto reshape = value.getDefiningOp<tosa::ReshapeOp>())
    value = reshape.getInput1();
  return value;
}

Operation *mlir::memopt::getInPlaceStateUpdate(func::FuncOp func,
                                               StateBinding state) {
  if (func.isExternal() || !func.getBody().hasOneBlock() ||
      state.argument >= func.getNumArguments() ||
      state.result >= func.getNumResults())
    return nullptr;
  Operation *terminator = func.getBody().front().getTerminator();
  auto concat = skipReshapes(terminator->getOperand(state.result))
                    .getDefiningOp<tosa::ConcatOp>();
  if (!concat || concat->getNumOperands() != 2)
    return nullptr;
  // The concat and the reshapes after it are returned as this result only.
  for (auto [i, returned] : llvm::enumerate(terminator->getOperands())) {
    if (i == state.result)
      continue;
    for (Value value = returned;; value = value.getDefiningOp()->getOperand(0)) {
      if (value == concat.getResult())
        return nullptr;
      if (!value.getDefiningOp<tosa::ReshapeOp>())
        break;
    }
  }
  auto type = cast<RankedTensorType>(concat.getType());
  auto slice = concat->getOperand(0).getDefiningOp<tosa::SliceOp>();
  auto fresh = dyn_cast<RankedTensorType>(concat->getOperand(1).getType());
  if (!type.hasStaticShape() || !slice || !slice->hasOneUse() || !fresh ||
      !fresh.hasStaticShape())
    return nullptr;
  // The slice keeps the last n - s entries of the old state along the axis.
  int64_t axis = concat.getAxis();
  SmallVector<int64_t> start, size;
  Operation *startOp = slice.getStart().getDefiningOp();
  Operation *sizeOp = slice.getSize().getDefiningOp();
  if (!startOp || !sizeOp || !tosa::getConstShapeValues(startOp, start) ||
      !tosa::getConstShapeValues(sizeOp, size) ||
      static_cast<int64_t>(start.size()) != type.getRank() ||
      size.size() != start.size())
    return nullptr;
  int64_t shift = fresh.getDimSize(axis);
  for (int64_t d = 0; d < type.getRank(); ++d) {
    int64_t wantStart = d == axis ? shift : 0;
    int64_t wantSize = type.getDimSize(d) - wantStart;
    if (start[d] != wantStart || size[d] != wantSize)
      return nullptr;
  }
  if (shift < 1 || slice.getInput1().getType() != type)
    return nullptr;
  // The old state reaches the slice through reshapes read once.
  Value old = slice.getInput1();
  while (auto reshape = old.getDefiningOp<tosa::ReshapeOp>()) {
    if (!old.hasOneUse())
      return nullptr;
    old = reshape.getInput1();
  }
  auto argument = dyn_cast<BlockArgument>(old);
  if (!argument || argument.getOwner() != &func.getBody().front() ||
      argument.getArgNumber() != state.argument || !argument.hasOneUse())
    return nullptr;
  return concat;
}
