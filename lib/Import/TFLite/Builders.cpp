//===- Builders.cpp - TOSA builder helpers of the TFLite importer ---------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Small TOSA builders every TFLite converter uses: ops by name, scalar and
// shape constants, reshapes, and the explicit padding (and input slicing) of
// TFLite's SAME/VALID windows, which TOSA needs in exact form.
//
//===----------------------------------------------------------------------===//

#include "TFLiteImporter.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::tfliteimport;

Value TFLiteImporter::create(StringRef name, Type type, ValueRange operands,
                             ArrayRef<NamedAttribute> attrs, Location loc) {
  OperationState state(loc, name);
  state.addOperands(operands);
  state.addTypes(type);
  state.addAttributes(attrs);
  return builder.create(state)->getResult(0);
}

Value TFLiteImporter::scalarConst(Type elementType, double value,
                                  Location loc) {
  auto type = RankedTensorType::get({1}, elementType);
  Attribute element;
  if (isa<FloatType>(elementType))
    element = builder.getFloatAttr(elementType, value);
  else
    element = builder.getIntegerAttr(elementType, static_cast<int64_t>(value));
  return create(
      "tosa.const", type, {},
      {builder.getNamedAttr("values", DenseElementsAttr::get(type, element))},
      loc);
}

Value TFLiteImporter::shapeConst(ArrayRef<int64_t> shape, Location loc) {
  auto attrType = RankedTensorType::get({static_cast<int64_t>(shape.size())},
                                        builder.getIndexType());
  return create("tosa.const_shape",
                tosa::shapeType::get(context, static_cast<int>(shape.size())),
                {},
                {builder.getNamedAttr(
                    "values", DenseIntElementsAttr::get(attrType, shape))},
                loc);
}

Value TFLiteImporter::reshape(Value value, ArrayRef<int64_t> shape,
                              Location loc) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  // A reshape of a reshape views the first one's source, as canonicalize
  // folds it: the IR then has the steps the compile pipeline schedules.
  if (Operation *def = value.getDefiningOp();
      def && def->getName().getStringRef() == "tosa.reshape")
    return reshape(def->getOperand(0), shape, loc);
  return create("tosa.reshape",
                RankedTensorType::get(shape, type.getElementType()),
                {value, shapeConst(shape, loc)}, {}, loc);
}

LogicalResult TFLiteImporter::spatialPadding(
    int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t dilation,
    tfl::Padding padding, int64_t &before, int64_t &after, int64_t &usedIn) {
  if (stride <= 0 || dilation <= 0 || kernel <= 0 || stride > (1 << 16) ||
      dilation > (1 << 16) || kernel > (1 << 16))
    return opError() << "invalid stride " << stride << ", dilation " << dilation
                     << " or kernel size " << kernel;
  int64_t effective = (kernel - 1) * dilation + 1;
  int64_t expected = padding == tfl::Padding::SAME
                         ? (in + stride - 1) / stride
                         : (in - effective + stride) / stride;
  if (expected <= 0 || expected != out)
    return opError() << "output size " << out << " does not match input size "
                     << in << " with kernel " << kernel << ", stride " << stride
                     << (padding == tfl::Padding::SAME ? " (SAME)" : " (VALID)")
                     << " (expected " << expected << ")";
  int64_t total = 0;
  if (padding == tfl::Padding::SAME)
    total = std::max<int64_t>((out - 1) * stride + effective - in, 0);
  before = total / 2;
  // TOSA wants (in - 1 + pads - (kernel - 1) * dilation) == (out - 1) *
  // stride exactly; drop input rows that no output reads.
  after = (out - 1) * stride + effective - in - before;
  usedIn = in;
  if (after < 0) {
    usedIn = in + after;
    after = 0;
  }
  return success();
}

Value TFLiteImporter::sliceSpatial(Value value, int64_t h, int64_t w,
                                   Location loc) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getDimSize(1) == h && type.getDimSize(2) == w)
    return value;
  SmallVector<int64_t> size = {type.getDimSize(0), h, w, type.getDimSize(3)};
  return create(
      "tosa.slice", RankedTensorType::get(size, type.getElementType()),
      {value, shapeConst({0, 0, 0, 0}, loc), shapeConst(size, loc)}, {}, loc);
}
