//===- Int8KernelUtils.cpp - Matching int8 convolutions for kernels -------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//

#include "Int8KernelUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::armkernels;

/// Returns the constant value of the i32 zero point \p value if it is one
/// an int8 operand can have.
static std::optional<int64_t> getZeroPoint(Value value) {
  APInt constant;
  if (!matchPattern(value, m_ConstantInt(&constant)))
    return std::nullopt;
  int64_t zp = constant.getSExtValue();
  if (zp < -128 || zp > 127)
    return std::nullopt;
  return zp;
}

bool armkernels::isStaticIntMemRef(Value value, unsigned width) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && type.hasStaticShape() &&
         type.getElementType().isInteger(width);
}

FailureOr<ConvParts> armkernels::matchInt8Conv(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() ||
      (op.getNumDpsInputs() != 4 && op.getNumDpsInputs() != 2) ||
      op.getNumDpsInits() != 1)
    return failure();
  ConvParts parts;
  parts.input = op.getDpsInputOperand(0)->get();
  parts.filter = op.getDpsInputOperand(1)->get();
  parts.output = op.getDpsInitOperand(0)->get();
  if (!isStaticIntMemRef(parts.input, 8) ||
      !isStaticIntMemRef(parts.filter, 8) ||
      !isStaticIntMemRef(parts.output, 32))
    return failure();
  bool quantized = op.getNumDpsInputs() == 4;
  std::optional<int64_t> inputZp =
      quantized ? getZeroPoint(op.getDpsInputOperand(2)->get()) : 0;
  std::optional<int64_t> filterZp =
      quantized ? getZeroPoint(op.getDpsInputOperand(3)->get()) : 0;
  if (!inputZp || !filterZp)
    return failure();
  parts.inputZp = *inputZp;
  parts.filterZp = *filterZp;
  auto strides = op->getAttrOfType<DenseIntElementsAttr>("strides");
  auto dilations = op->getAttrOfType<DenseIntElementsAttr>("dilations");
  if (!strides || !dilations || strides.getNumElements() != 2 ||
      dilations.getNumElements() != 2)
    return failure();
  auto strideValues = llvm::to_vector(strides.getValues<int64_t>());
  auto dilationValues = llvm::to_vector(dilations.getValues<int64_t>());
  parts.strideH = strideValues[0];
  parts.strideW = strideValues[1];
  parts.dilationH = dilationValues[0];
  parts.dilationW = dilationValues[1];
  return parts;
}

Value armkernels::getI32Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), value);
}

Value armkernels::addScaled(OpBuilder &b, Location loc, Value a, Value c,
                            int64_t scale) {
  if (scale == 0)
    return a;
  if (scale != 1)
    c = arith::MulIOp::create(b, loc, c, getI32Constant(b, loc, scale));
  return arith::AddIOp::create(b, loc, a, c);
}

std::optional<SmallVector<int64_t>> armkernels::getStaticStrides(Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  return strides;
}

FailureOr<ByteView> armkernels::getByteView(OpBuilder &b, Location loc,
                                            Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return failure();
  ByteView view;
  Value pointer =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  pointer = arith::IndexCastOp::create(b, loc, b.getI32Type(), pointer);
  view.base = LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), pointer);
  if (ShapedType::isDynamic(offset)) {
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
    view.offset = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                             metadata.getOffset());
  } else {
    view.offset = getI32Constant(b, loc, offset);
  }
  view.strides = std::move(strides);
  view.shape = type.getShape();
  return view;
}

SmallVector<Value> armkernels::forWithAccs(OpBuilder &b, Location loc,
                                           int64_t lb, int64_t ub, int64_t step,
                                           ValueRange accs, LoopBody body,
                                           unsigned unrollCount) {
  if (lb >= ub)
    return SmallVector<Value>(accs);
  if (lb + step >= ub)
    return body(b, loc, getI32Constant(b, loc, lb), accs);
  auto loop = scf::ForOp::create(
      b, loc, getI32Constant(b, loc, lb), getI32Constant(b, loc, ub),
      getI32Constant(b, loc, step), accs,
      [&](OpBuilder &b, Location loc, Value iv, ValueRange args) {
        SmallVector<Value> results = body(b, loc, iv, args);
        scf::YieldOp::create(b, loc, results);
      });
  if (unrollCount > 1)
    setUnrollCount(loop, unrollCount);
  return SmallVector<Value>(loop.getResults());
}

void armkernels::setUnrollCount(scf::ForOp loop, unsigned count) {
  MLIRContext *context = loop.getContext();
  auto unroll = LLVM::LoopUnrollAttr::get(
      context, /*disable=*/nullptr,
      IntegerAttr::get(IntegerType::get(context, 32), count),
      /*runtimeDisable=*/nullptr, /*full=*/nullptr, /*followupUnrolled=*/{},
      /*followupRemainder=*/{}, /*followupAll=*/{});
  auto annotation = LLVM::LoopAnnotationAttr::get(
      context, /*disableNonforced=*/nullptr, /*vectorize=*/{},
      /*interleave=*/{}, unroll, /*unrollAndJam=*/{}, /*licm=*/{},
      /*distribute=*/{}, /*pipeline=*/{}, /*peeled=*/{}, /*unswitch=*/{},
      /*mustProgress=*/nullptr, /*isVectorized=*/nullptr,
      /*startLoc=*/{}, /*endLoc=*/{}, /*parallelAccesses=*/{});
  loop->setAttr(LLVM::BrOp::getLoopAnnotationAttrName(
                    OperationName(LLVM::BrOp::getOperationName(), context)),
                annotation);
}

SmallVector<Value> armkernels::forTapsWithAccs(OpBuilder &b, Location loc,
                                               bool unroll, int64_t ub,
                                               ValueRange accs, LoopBody body) {
  if (!unroll)
    return forWithAccs(b, loc, 0, ub, 1, accs, body);
  SmallVector<Value> current(accs);
  for (int64_t i = 0; i < ub; ++i)
    current = body(b, loc, getI32Constant(b, loc, i), current);
  return current;
}

void armkernels::forEachOutputPixel(
    OpBuilder &b, Location loc, ArrayRef<int64_t> outShape, const ByteView &in,
    const ConvParts &parts,
    function_ref<void(OpBuilder &, Location, Value, Value, Value, Value)>
        body) {
  forWithAccs(
      b, loc, 0, outShape[0], 1, {},
      [&](OpBuilder &b, Location loc, Value n, ValueRange) {
        Value rowBase = addScaled(b, loc, in.offset, n, in.strides[0]);
        forWithAccs(
            b, loc, 0, outShape[1], 1, {},
            [&](OpBuilder &b, Location loc, Value oh, ValueRange) {
              Value colBase =
                  addScaled(b, loc, rowBase, oh, parts.strideH * in.strides[1]);
              forWithAccs(
                  b, loc, 0, outShape[2], 1, {},
                  [&](OpBuilder &b, Location loc, Value ow, ValueRange) {
                    Value pixel = addScaled(b, loc, colBase, ow,
                                            parts.strideW * in.strides[2]);
                    body(b, loc, n, oh, ow, pixel);
                    return SmallVector<Value>();
                  });
              return SmallVector<Value>();
            });
        return SmallVector<Value>();
      });
}

namespace {
/// The buffer that a memref views and the bytes of it that it may cover.
struct BufferRange {
  Value buffer;
  int64_t begin, end;
};
} // namespace

/// The buffer that \p memref views and the bytes [begin, end) of it that
/// it may cover: through subviews and reshapes to a memref.view at a
/// constant byte shift (the planned arena), or a function argument.
static std::optional<BufferRange> getBufferRange(Value memref) {
  while (Operation *def = memref.getDefiningOp()) {
    if (!isa<memref::SubViewOp, memref::CollapseShapeOp, memref::ExpandShapeOp,
             memref::CastOp>(def))
      break;
    memref = def->getOperand(0);
  }
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
    return std::nullopt;
  int64_t bytes = type.getNumElements() * type.getElementTypeBitWidth() / 8;
  if (isa<BlockArgument>(memref))
    return BufferRange{memref, 0, bytes};
  auto view = memref.getDefiningOp<memref::ViewOp>();
  std::optional<int64_t> shift =
      view ? getConstantIntValue(view.getByteShift()) : std::nullopt;
  if (!shift || !view.getSizes().empty())
    return std::nullopt;
  return BufferRange{view.getSource(), *shift, *shift + bytes};
}

bool armkernels::areDisjoint(Value a, Value b) {
  std::optional<BufferRange> first = getBufferRange(a);
  std::optional<BufferRange> second = getBufferRange(b);
  if (!first || !second)
    return false;
  if (first->buffer == second->buffer)
    return first->end <= second->begin || second->end <= first->begin;
  auto isNoAlias = [](Value buffer) {
    auto arg = dyn_cast<BlockArgument>(buffer);
    auto func =
        arg ? dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp())
            : FunctionOpInterface();
    return func && func.getArgAttr(arg.getArgNumber(), "llvm.noalias");
  };
  return isNoAlias(first->buffer) || isNoAlias(second->buffer);
}

std::optional<ChannelCopy> armkernels::matchChannelCopy(linalg::CopyOp op,
                                                         int64_t minPixels) {
  if (!op.hasPureBufferSemantics())
    return std::nullopt;
  Value source = op.getInputs()[0], target = op.getOutputs()[0];
  if (!isStaticIntMemRef(source, 8) || !isStaticIntMemRef(target, 8))
    return std::nullopt;
  auto sourceType = cast<MemRefType>(source.getType());
  ArrayRef<int64_t> shape = sourceType.getShape();
  std::optional<SmallVector<int64_t>> sourceStrides = getStaticStrides(source);
  std::optional<SmallVector<int64_t>> targetStrides = getStaticStrides(target);
  int64_t pixels = shape.size() == 4 ? shape[1] * shape[2] : 0;
  if (shape.size() != 4 || shape[0] != 1 || shape[3] != 1 ||
      pixels < minPixels || !sourceStrides || !targetStrides ||
      !sourceType.getLayout().isIdentity() ||
      (*targetStrides)[1] != shape[2] * (*targetStrides)[2] ||
      !areDisjoint(source, target))
    return std::nullopt;
  return ChannelCopy{source, target, pixels, (*targetStrides)[2]};
}

SmallVector<Value> armkernels::toIndices(OpBuilder &b, Location loc,
                                         ArrayRef<Value> values) {
  SmallVector<Value> indices;
  for (Value value : values)
    indices.push_back(
        arith::IndexCastOp::create(b, loc, b.getIndexType(), value));
  return indices;
}

std::optional<SmallVector<int64_t>> armkernels::getGlobalValues(Value operand) {
  while (Operation *def = operand.getDefiningOp()) {
    if (!isa<memref::SubViewOp, memref::CollapseShapeOp, memref::ExpandShapeOp,
             memref::CastOp>(def))
      break;
    operand = def->getOperand(0);
  }
  auto getGlobal = operand.getDefiningOp<memref::GetGlobalOp>();
  if (!getGlobal)
    return std::nullopt;
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      getGlobal, getGlobal.getNameAttr());
  if (!global || !global.getConstant())
    return std::nullopt;
  auto values =
      dyn_cast_if_present<DenseIntElementsAttr>(global.getConstantInitValue());
  if (!values)
    return std::nullopt;
  SmallVector<int64_t> result;
  for (const APInt &value : values.getValues<APInt>())
    result.push_back(value.getSExtValue());
  return result;
}

/// Returns the constant global that the memref \p value is read from if it
/// is a memref.get_global of a constant global with dense integer values and
/// the identity layout (its values in row-major order), else null.
static memref::GlobalOp getConstantGlobal(Value value, SymbolTable &symbols) {
  auto getGlobal = value.getDefiningOp<memref::GetGlobalOp>();
  if (!getGlobal || !getGlobal.getType().getLayout().isIdentity())
    return {};
  auto global = symbols.lookup<memref::GlobalOp>(getGlobal.getName());
  if (!global || !global.getConstant() ||
      !isa_and_present<DenseIntElementsAttr>(global.getConstantInitValue()))
    return {};
  return global;
}

armkernels::ConstantRows armkernels::getConstantRows(Value value,
                                                     SymbolTable &symbols) {
  auto subview = value.getDefiningOp<memref::SubViewOp>();
  if (!subview)
    return {getConstantGlobal(value, symbols), {}};
  memref::GlobalOp global = getConstantGlobal(subview.getSource(), symbols);
  if (!global)
    return {};
  ArrayRef<int64_t> shape = subview.getSourceType().getShape();
  for (auto [dim, offset, size, stride] :
       llvm::enumerate(subview.getMixedOffsets(), subview.getMixedSizes(),
                       subview.getMixedStrides())) {
    if (!isConstantIntValue(stride, 1) ||
        (dim > 0 && (!isConstantIntValue(offset, 0) ||
                     !isConstantIntValue(size, shape[dim]))))
      return {};
  }
  if (subview.getType().getRank() != subview.getSourceType().getRank())
    return {};
  return {global, subview};
}
