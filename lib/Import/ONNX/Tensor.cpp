//===- Tensor.cpp - ONNX data movement operators --------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Converters of the ONNX operators that move data without arithmetic:
// Concat, Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Slice, Split,
// Pad, Identity and Dropout. Reshapes and transposes mostly change the
// recorded layout (Layout.cpp); a zero Pad read only by an AveragePool is
// left to that pool.
//
//===----------------------------------------------------------------------===//

#include "ONNXImporter.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::onnximport;

//===----------------------------------------------------------------------===//
// Concat
//===----------------------------------------------------------------------===//

/// Concat: `tosa.concat` in the layout of the first non-constant input;
/// folded when every input is a constant.
static LogicalResult convertConcat(ONNXImporter &importer) {
  const onnx::NodeProto &node = importer.getNode();
  if (node.input_size() < 1)
    return importer.nodeError() << "needs at least one input";
  SmallVector<Tensor *> inputs;
  for (int i = 0; i < node.input_size(); ++i) {
    Tensor *t = importer.getInput(i);
    if (!t)
      return failure();
    inputs.push_back(t);
  }
  int64_t rank = inputs[0]->shape.size();
  int64_t axis = importer.attrInt("axis", 0);
  if (failed(importer.normalizeAxis(axis, rank)))
    return failure();
  SmallVector<int64_t> shape = inputs[0]->shape;
  shape[axis] = 0;
  for (Tensor *t : inputs) {
    if (static_cast<int64_t>(t->shape.size()) != rank)
      return importer.nodeError() << "inputs have different ranks";
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && t->shape[d] != inputs[0]->shape[d])
        return importer.nodeError() << "input shapes differ outside the axis";
    shape[axis] += t->shape[axis];
  }
  if (llvm::all_of(inputs, [](Tensor *t) { return t->isConst && !t->value; }))
    return foldConstantConcat(importer);
  SmallVector<int64_t> perm = preferredPerm(rank);
  for (Tensor *t : inputs)
    if (!t->isConst) {
      perm = t->perm;
      break;
    }
  SmallVector<Value> operands;
  for (Tensor *t : inputs)
    operands.push_back(importer.valueIn(*t, perm));
  Tensor out;
  out.shape = shape;
  out.perm = perm;
  int32_t storedAxis = llvm::find(perm, axis) - perm.begin();
  ImplicitLocOpBuilder &builder = importer.getBuilder();
  out.value =
      tosa::ConcatOp::create(builder, importer.storedType(out), operands,
                             builder.getI32IntegerAttr(storedAxis));
  importer.setOutput(0, std::move(out));
  return success();
}

//===----------------------------------------------------------------------===//
// Reshapes
//===----------------------------------------------------------------------===//

/// Binds output 0 to \p x reshaped to \p newShape, which must hold as many
/// elements.
static LogicalResult emitReshape(ONNXImporter &importer, Tensor &x,
                                 ArrayRef<int64_t> newShape) {
  if (numElements(newShape) != numElements(x.shape))
    return importer.nodeError()
           << "the new shape has " << numElements(newShape)
           << " elements, the input " << numElements(x.shape);
  importer.setOutput(0, importer.reshapeTensor(x, newShape));
  return success();
}

/// Flatten: [outer, inner] around the `axis` attribute.
static LogicalResult convertFlatten(ONNXImporter &importer) {
  Tensor *x = importer.getInput(0);
  if (!x)
    return failure();
  int64_t rank = x->shape.size();
  int64_t axis = importer.attrInt("axis", 1);
  if (axis < -rank || axis > rank)
    return importer.nodeError() << "axis " << axis << " is out of range";
  if (axis < 0)
    axis += rank;
  int64_t outer = numElements(ArrayRef<int64_t>(x->shape).take_front(axis));
  SmallVector<int64_t> newShape = {outer, numElements(x->shape) /
                                              std::max<int64_t>(outer, 1)};
  if (outer == 0)
    newShape[1] = 0;
  return emitReshape(importer, *x, newShape);
}

/// Reshape to the constant shape of input 1 (0 copies an input dimension
/// unless allowzero, one -1 is inferred).
static LogicalResult convertReshape(ONNXImporter &importer) {
  Tensor *x = importer.getInput(0);
  if (!x)
    return failure();
  int64_t rank = x->shape.size();
  FailureOr<std::vector<int64_t>> spec = importer.getConstInts(1, "the shape");
  if (failed(spec))
    return failure();
  SmallVector<int64_t> newShape;
  int64_t known = 1, inferred = -1;
  bool allowZero = importer.attrInt("allowzero", 0) != 0;
  for (auto [i, d] : llvm::enumerate(*spec)) {
    if (d == 0 && !allowZero) {
      if (static_cast<int64_t>(i) >= rank)
        return importer.nodeError()
               << "shape entry 0 has no input dimension to copy";
      d = x->shape[i];
    }
    if (d == -1) {
      if (inferred >= 0)
        return importer.nodeError() << "more than one -1 in the shape";
      inferred = i;
      newShape.push_back(1);
      continue;
    }
    if (d < 0 || d > kMaxElements)
      return importer.nodeError() << "invalid shape entry " << d;
    known *= d;
    if (known > kMaxElements)
      return importer.nodeError() << "invalid shape";
    newShape.push_back(d);
  }
  if (inferred >= 0) {
    if (known == 0 || numElements(x->shape) % known)
      return importer.nodeError() << "cannot infer the -1 dimension";
    newShape[inferred] = numElements(x->shape) / known;
  }
  return emitReshape(importer, *x, newShape);
}

/// Squeeze: drops the unit dimensions listed in the axes (attribute in old
/// opsets, input 1 in new ones), or every unit dimension.
static LogicalResult convertSqueeze(ONNXImporter &importer) {
  Tensor *x = importer.getInput(0);
  if (!x)
    return failure();
  int64_t rank = x->shape.size();
  FailureOr<SmallVector<int64_t>> axes = importer.getAxes();
  if (failed(axes))
    return failure();
  for (int64_t &a : *axes)
    if (failed(importer.normalizeAxis(a, rank)))
      return failure();
  SmallVector<int64_t> newShape;
  for (int64_t d = 0; d < rank; ++d) {
    bool drop = axes->empty() ? x->shape[d] == 1 : llvm::is_contained(*axes, d);
    if (drop && x->shape[d] != 1)
      return importer.nodeError()
             << "cannot squeeze dimension " << d << " of size " << x->shape[d];
    if (!drop)
      newShape.push_back(x->shape[d]);
  }
  return emitReshape(importer, *x, newShape);
}

/// Unsqueeze: inserts unit dimensions at the axes of the output (attribute
/// in old opsets, input 1 in new ones).
static LogicalResult convertUnsqueeze(ONNXImporter &importer) {
  Tensor *x = importer.getInput(0);
  if (!x)
    return failure();
  int64_t rank = x->shape.size();
  FailureOr<SmallVector<int64_t>> axes = importer.getAxes();
  if (failed(axes))
    return failure();
  int64_t outRank = rank + axes->size();
  for (int64_t &a : *axes)
    if (failed(importer.normalizeAxis(a, outRank)))
      return failure();
  SmallVector<int64_t> newShape;
  for (int64_t d = 0, src = 0; d < outRank; ++d) {
    if (llvm::is_contained(*axes, d))
      newShape.push_back(1);
    else if (src < rank)
      newShape.push_back(x->shape[src++]);
    else
      return importer.nodeError() << "repeated axes";
  }
  return emitReshape(importer, *x, newShape);
}

/// Transpose: only the recorded layout changes (constants are permuted).
static LogicalResult convertTranspose(ONNXImporter &importer) {
  Tensor *x = importer.getInput(0);
  if (!x)
    return failure();
  int64_t rank = x->shape.size();
  SmallVector<int64_t> perm = importer.attrInts("perm");
  if (perm.empty())
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  SmallVector<int64_t> sorted = perm;
  llvm::sort(sorted);
  if (sorted != identityPerm(rank))
    return importer.nodeError()
           << "perm is not a permutation of " << rank << " dimensions";
  importer.setOutput(0, importer.transposeTensor(*x, perm));
  return success();
}

//===----------------------------------------------------------------------===//
// Slice and Split
//===----------------------------------------------------------------------===//

/// Binds output 0 to the slice of \p x given by \p starts, \p ends, \p axes
/// and \p steps (ONNX Slice semantics; steps of 1 only). Constant inputs
/// are sliced at import time.
static LogicalResult emitSlice(ONNXImporter &importer, Tensor &x,
                               ArrayRef<int64_t> starts, ArrayRef<int64_t> ends,
                               SmallVector<int64_t> axes,
                               ArrayRef<int64_t> steps) {
  int64_t rank = x.shape.size();
  if (axes.empty())
    axes = identityPerm(starts.size());
  if (starts.size() != ends.size() || axes.size() != starts.size() ||
      (!steps.empty() && steps.size() != starts.size()))
    return importer.nodeError()
           << "starts, ends, axes and steps differ in length";
  if (llvm::any_of(steps, [](int64_t s) { return s != 1; }))
    return importer.nodeError() << "only steps of 1 are supported";
  SmallVector<int64_t> begin(rank, 0), size = x.shape;
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (failed(importer.normalizeAxis(axis, rank)))
      return failure();
    int64_t dim = x.shape[axis];
    auto clampIndex = [dim](int64_t v) {
      if (v < 0)
        v += dim;
      return std::clamp<int64_t>(v, 0, dim);
    };
    int64_t s = clampIndex(starts[i]), e = clampIndex(ends[i]);
    begin[axis] = s;
    size[axis] = std::max<int64_t>(e - s, 0);
    if (size[axis] == 0)
      return importer.nodeError() << "empty slices are not supported";
  }
  Tensor out;
  out.shape = size;
  if (x.isConst && !x.value) {
    // Constant slices (shape computations): copy the elements.
    out.isConst = true;
    out.isFloat = x.isFloat;
    out.perm = identityPerm(rank);
    SmallVector<int64_t> strides = stridesOf(x.shape);
    SmallVector<int64_t> index(rank, 0);
    for (int64_t flat = 0, n = numElements(size); flat < n; ++flat) {
      int64_t src = 0;
      for (int64_t d = 0; d < rank; ++d)
        src += (index[d] + begin[d]) * strides[d];
      if (x.isFloat)
        out.floats.push_back(x.floats[src]);
      else
        out.ints.push_back(x.ints[src]);
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++index[d] < size[d])
          break;
        index[d] = 0;
      }
    }
    importer.setOutput(0, std::move(out));
    return success();
  }
  out.perm = x.perm;
  out.value =
      tosa::SliceOp::create(importer.getBuilder(), importer.storedType(out),
                            importer.valueIn(x, x.perm),
                            importer.constShape(permuteShape(begin, x.perm)),
                            importer.constShape(permuteShape(size, x.perm)));
  importer.setOutput(0, std::move(out));
  return success();
}

/// Slice before opset 10: starts, ends and axes are attributes.
static LogicalResult convertSliceAttributes(ONNXImporter &importer) {
  Tensor *x = importer.getInput(0);
  if (!x)
    return failure();
  return emitSlice(importer, *x, importer.attrInts("starts"),
                   importer.attrInts("ends"), importer.attrInts("axes"),
                   /*steps=*/{});
}

/// Slice from opset 10: starts, ends, axes and steps are constant inputs.
static LogicalResult convertSliceInputs(ONNXImporter &importer) {
  Tensor *x = importer.getInput(0);
  if (!x)
    return failure();
  FailureOr<std::vector<int64_t>> s = importer.getConstInts(1, "starts");
  if (failed(s))
    return failure();
  FailureOr<std::vector<int64_t>> e = importer.getConstInts(2, "ends");
  if (failed(e))
    return failure();
  SmallVector<int64_t> starts(s->begin(), s->end()), ends(e->begin(), e->end());
  SmallVector<int64_t> axes, steps;
  if (importer.getInput(3, false)) {
    FailureOr<std::vector<int64_t>> a = importer.getConstInts(3, "axes");
    if (failed(a))
      return failure();
    axes.assign(a->begin(), a->end());
  }
  if (importer.getInput(4, false)) {
    FailureOr<std::vector<int64_t>> st = importer.getConstInts(4, "steps");
    if (failed(st))
      return failure();
    steps.assign(st->begin(), st->end());
  }
  return emitSlice(importer, *x, starts, ends, std::move(axes), steps);
}

/// Split: one `tosa.slice` per output, sizes from the `split` attribute or
/// input 1, or equal parts.
static LogicalResult convertSplit(ONNXImporter &importer) {
  Tensor *x = importer.getInput(0);
  if (!x)
    return failure();
  int64_t rank = x->shape.size();
  int64_t axis = importer.attrInt("axis", 0);
  if (failed(importer.normalizeAxis(axis, rank)))
    return failure();
  SmallVector<int64_t> split = importer.attrInts("split");
  if (importer.getInput(1, false)) {
    FailureOr<std::vector<int64_t>> s = importer.getConstInts(1, "split");
    if (failed(s))
      return failure();
    split.assign(s->begin(), s->end());
  }
  int64_t parts = importer.getNode().output_size();
  if (split.empty()) {
    if (parts < 1 || x->shape[axis] % parts)
      return importer.nodeError()
             << "cannot split " << x->shape[axis] << " evenly in " << parts;
    split.assign(parts, x->shape[axis] / parts);
  }
  if (static_cast<int64_t>(split.size()) != parts ||
      llvm::any_of(split, [](int64_t s) { return s < 1; }) ||
      llvm::sum_of(split) != x->shape[axis])
    return importer.nodeError() << "invalid split sizes";
  if (x->isConst && !x->value)
    return importer.nodeError() << "splitting a constant is not supported";
  Value input = importer.valueIn(*x, x->perm);
  int64_t offset = 0;
  for (int64_t p = 0; p < parts; ++p) {
    SmallVector<int64_t> begin(rank, 0), size = x->shape;
    begin[axis] = offset;
    size[axis] = split[p];
    offset += split[p];
    Tensor out;
    out.shape = size;
    out.perm = x->perm;
    out.value = tosa::SliceOp::create(
        importer.getBuilder(), importer.storedType(out), input,
        importer.constShape(permuteShape(begin, x->perm)),
        importer.constShape(permuteShape(size, x->perm)));
    importer.setOutput(p, std::move(out));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Pad
//===----------------------------------------------------------------------===//

/// Returns true if the current Pad node, of \p x with \p pads and
/// \p padValue, is a zero padding of H and W read only by an AveragePool
/// without pads of its own; the padding is then deferred to that pool.
static bool deferToAveragePool(ONNXImporter &importer, const Tensor &x,
                               ArrayRef<int64_t> pads, float padValue) {
  int64_t rank = x.shape.size();
  const std::string &padOut = importer.getNode().output(0);
  if (rank != 4 || padValue != 0.0f || pads[0] != 0 || pads[1] != 0 ||
      pads[4] != 0 || pads[5] != 0 || !importer.hasSingleReader(padOut) ||
      x.isConst)
    return false;
  for (const onnx::NodeProto &cand : importer.getGraphNodes()) {
    if (!llvm::is_contained(cand.input(), padOut))
      continue;
    bool noPads = true;
    for (const onnx::AttributeProto &a : cand.attribute())
      if (a.name() == "pads")
        noPads = llvm::all_of(a.ints(), [](int64_t p) { return p == 0; });
      else if (a.name() == "auto_pad")
        noPads &= a.s() == "NOTSET" || a.s() == "VALID";
    if (cand.op_type() == "AveragePool" && cand.input(0) == padOut && noPads) {
      importer.deferPoolPads(padOut, {pads[2], pads[3], pads[6], pads[7]});
      return true;
    }
    return false;
  }
  return false;
}

/// Binds output 0 to \p x padded with \p pads ([begins..., ends...]) of
/// \p padValue: `tosa.pad` without the unpadded unit dimensions.
static LogicalResult emitPad(ONNXImporter &importer, Tensor &x,
                             ArrayRef<int64_t> pads, float padValue) {
  ImplicitLocOpBuilder &builder = importer.getBuilder();
  int64_t rank = x.shape.size();
  if (static_cast<int64_t>(pads.size()) != 2 * rank)
    return importer.nodeError() << "expected " << 2 * rank << " pads";
  if (llvm::any_of(pads, [](int64_t p) { return p < 0 || p > (1 << 20); }))
    return importer.nodeError() << "only non-negative pads are supported";
  if (llvm::all_of(pads, [](int64_t p) { return p == 0; })) {
    importer.setOutput(0, x);
    return success();
  }
  // Zero padding of H and W read only by an AveragePool without pads of
  // its own: fold it into the pool (no padded copy).
  if (deferToAveragePool(importer, x, pads, padValue)) {
    importer.setOutput(0, x);
    return success();
  }
  Tensor out;
  out.shape = x.shape;
  for (int64_t d = 0; d < rank; ++d)
    out.shape[d] += pads[d] + pads[d + rank];
  if (numElements(out.shape) > kMaxElements)
    return importer.nodeError() << "the padded tensor is too large";
  out.perm = x.perm;
  // Leave out unpadded unit dimensions: TOSA's level check limits the
  // padding shape to 6 entries (rank 3), so NHWC batch 1 pads as HWC.
  SmallVector<int64_t> padding, reducedIn, reducedOut;
  for (int64_t d : x.perm) {
    if (x.shape[d] == 1 && pads[d] == 0 && pads[d + rank] == 0)
      continue;
    padding.push_back(pads[d]);
    padding.push_back(pads[d + rank]);
    reducedIn.push_back(x.shape[d]);
    reducedOut.push_back(out.shape[d]);
  }
  Value input = importer.valueIn(x, x.perm);
  bool reduce = static_cast<int64_t>(reducedIn.size()) < rank;
  if (reduce)
    input = tosa::ReshapeOp::create(builder, importer.f32Type(reducedIn), input,
                                    importer.constShape(reducedIn));
  out.value = tosa::PadOp::create(builder, importer.f32Type(reducedOut), input,
                                  importer.constShape(padding),
                                  importer.constF32({1}, {padValue}));
  if (reduce) {
    SmallVector<int64_t> stored = permuteShape(out.shape, out.perm);
    out.value = tosa::ReshapeOp::create(builder, importer.f32Type(stored),
                                        out.value, importer.constShape(stored));
  }
  importer.setOutput(0, std::move(out));
  return success();
}

/// Reads input 0 of a Pad and checks that its mode is "constant".
static Tensor *getPadInput(ONNXImporter &importer) {
  Tensor *x = importer.getInput(0);
  if (!x)
    return nullptr;
  std::string mode = importer.attrString("mode", "constant");
  if (mode != "constant") {
    importer.nodeError() << "only constant padding is supported, not '" << mode
                         << "'";
    return nullptr;
  }
  return x;
}

/// Pad before opset 11: `pads` and `value` are attributes.
static LogicalResult convertPadAttributes(ONNXImporter &importer) {
  Tensor *x = getPadInput(importer);
  if (!x)
    return failure();
  return emitPad(importer, *x, importer.attrInts("pads"),
                 importer.attrFloat("value", 0.0f));
}

/// Pad from opset 11: the pads and the optional value are constant inputs
/// (the `value` attribute, if any, is the default value); no axes input.
static LogicalResult convertPadInputs(ONNXImporter &importer) {
  Tensor *x = getPadInput(importer);
  if (!x)
    return failure();
  float padValue = importer.attrFloat("value", 0.0f);
  FailureOr<std::vector<int64_t>> p = importer.getConstInts(1, "pads");
  if (failed(p))
    return failure();
  SmallVector<int64_t> pads(p->begin(), p->end());
  if (Tensor *v = importer.getInput(2, false)) {
    if (!v->isConst || !v->isFloat || v->floats.size() != 1)
      return importer.nodeError() << "the pad value must be a constant scalar";
    padValue = v->floats[0];
  }
  if (importer.getInput(3, false))
    return importer.nodeError() << "the axes input is not supported";
  return emitPad(importer, *x, pads, padValue);
}

//===----------------------------------------------------------------------===//
// Identity and Dropout
//===----------------------------------------------------------------------===//

/// Identity: output 0 is input 0.
static LogicalResult convertIdentity(ONNXImporter &importer) {
  Tensor *x = importer.getInput(0);
  if (!x)
    return failure();
  importer.setOutput(0, *x);
  return success();
}

/// Dropout (inference): output 0 is input 0; the mask output is refused.
static LogicalResult convertDropout(ONNXImporter &importer) {
  Tensor *x = importer.getInput(0);
  if (!x)
    return failure();
  const onnx::NodeProto &node = importer.getNode();
  if (node.output_size() > 1 && !node.output(1).empty())
    return importer.nodeError() << "the mask output is not supported";
  importer.setOutput(0, *x);
  return success();
}

void onnximport::populateTensorConverters(ConverterTable &table) {
  table.onOp("Concat", 1, convertConcat);
  table.onOp("Reshape", 1, convertReshape);
  table.onOp("Flatten", 1, convertFlatten);
  table.onOp("Squeeze", 1, convertSqueeze);
  table.onOp("Unsqueeze", 1, convertUnsqueeze);
  table.onOp("Transpose", 1, convertTranspose);
  table.onOp("Slice", 1, convertSliceAttributes);
  table.onOp("Slice", 10, convertSliceInputs);
  table.onOp("Split", 1, convertSplit);
  table.onOp("Pad", 1, convertPadAttributes);
  table.onOp("Pad", 11, convertPadInputs);
  table.onOp("Identity", 1, convertIdentity);
  table.onOp("Dropout", 1, convertDropout);
}
