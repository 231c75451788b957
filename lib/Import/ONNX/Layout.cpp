//===- Layout.cpp - ONNX value layouts and shapes -------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The layout and shape utilities of the ONNX importer: permutations of shapes
// and of constant data, and the importer's conversions of a value between
// stored layouts (materializing constants, reshapes that avoid transposes,
// Transpose as a change of the recorded layout, broadcasting of elementwise
// operands). ONNXImporter.h describes the layout tracking.
//
//===----------------------------------------------------------------------===//

#include "ONNXImporter.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::onnximport;

//===----------------------------------------------------------------------===//
// Shapes and permutations
//===----------------------------------------------------------------------===//

int64_t onnximport::numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

SmallVector<int64_t> onnximport::identityPerm(int64_t rank) {
  return llvm::to_vector(llvm::seq<int64_t>(0, rank));
}

SmallVector<int64_t> onnximport::preferredPerm(int64_t rank) {
  if (rank == 4)
    return {0, 2, 3, 1};
  return identityPerm(rank);
}

SmallVector<int64_t> onnximport::permuteShape(ArrayRef<int64_t> shape,
                                              ArrayRef<int64_t> perm) {
  SmallVector<int64_t> result;
  for (int64_t p : perm)
    result.push_back(shape[p]);
  return result;
}

SmallVector<int64_t> onnximport::stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

SmallVector<int64_t> onnximport::nonUnitOrder(ArrayRef<int64_t> shape,
                                              ArrayRef<int64_t> perm) {
  SmallVector<int64_t> order;
  for (int64_t p : perm)
    if (shape[p] != 1)
      order.push_back(p);
  return order;
}

//===----------------------------------------------------------------------===//
// Stored layouts of values
//===----------------------------------------------------------------------===//

Value ONNXImporter::valueIn(Tensor &t, ArrayRef<int64_t> perm) {
  if (t.isConst && !t.value) {
    // Materialize in ONNX order once; other layouts are permuted copies.
    std::vector<float> data = t.floats;
    if (!t.isFloat)
      data.assign(t.ints.begin(), t.ints.end());
    if (llvm::equal(perm, t.perm) || t.shape.size() <= 1) {
      t.value = constF32(permuteShape(t.shape, t.perm),
                         permuteData(data, t.shape, t.perm));
      return t.value;
    }
    return constF32(permuteShape(t.shape, perm),
                    permuteData(data, t.shape, perm));
  }
  if (llvm::equal(perm, t.perm))
    return t.value;
  SmallVector<int64_t> target = permuteShape(t.shape, perm);
  // Same order of non-unit dimensions: the data in memory is identical.
  if (nonUnitOrder(t.shape, perm) == nonUnitOrder(t.shape, t.perm))
    return tosa::ReshapeOp::create(builder, f32Type(target), t.value,
                                   constShape(target));
  SmallVector<int64_t> position(t.perm.size());
  for (auto [i, p] : llvm::enumerate(t.perm))
    position[p] = i;
  SmallVector<int32_t> perms;
  for (int64_t p : perm)
    perms.push_back(static_cast<int32_t>(position[p]));
  return tosa::TransposeOp::create(builder, f32Type(target), t.value, perms);
}

Tensor ONNXImporter::reshapeTensor(Tensor &t, ArrayRef<int64_t> newShape) {
  Tensor out;
  out.shape.assign(newShape.begin(), newShape.end());
  if (t.isConst && !t.value) {
    out.isConst = true;
    out.isFloat = t.isFloat;
    out.floats =
        t.isFloat ? permuteData(t.floats, t.shape, identityPerm(t.shape.size()))
                  : std::vector<float>();
    out.ints = t.ints;
    out.perm = identityPerm(newShape.size());
    return out;
  }
  // Group the non-unit input dimensions with the non-unit output dimensions
  // they become (equal products).
  SmallVector<int64_t> inDims, outDims;
  for (auto [i, d] : llvm::enumerate(t.shape))
    if (d != 1)
      inDims.push_back(i);
  for (auto [i, d] : llvm::enumerate(newShape))
    if (d != 1)
      outDims.push_back(i);
  SmallVector<SmallVector<int64_t>> inGroups, outGroups;
  SmallVector<int64_t> groupOf(t.shape.size(), -1);
  size_t i = 0, j = 0;
  while (i < inDims.size() || j < outDims.size()) {
    SmallVector<int64_t> ig, og;
    int64_t pi = 1, pj = 1;
    do {
      if (pi <= pj && i < inDims.size()) {
        pi *= t.shape[inDims[i]];
        ig.push_back(inDims[i++]);
      } else if (j < outDims.size()) {
        pj *= newShape[outDims[j]];
        og.push_back(outDims[j++]);
      } else {
        break;
      }
    } while (pi != pj);
    for (int64_t d : ig)
      groupOf[d] = inGroups.size();
    inGroups.push_back(ig);
    outGroups.push_back(og);
  }
  // Order the groups as they first appear in the stored layout.
  SmallVector<int64_t> stored = nonUnitOrder(t.shape, t.perm);
  SmallVector<int64_t> groupOrder;
  for (int64_t d : stored)
    if (!llvm::is_contained(groupOrder, groupOf[d]))
      groupOrder.push_back(groupOf[d]);
  SmallVector<int64_t> wantIn, outOrder;
  for (int64_t g : groupOrder) {
    llvm::append_range(wantIn, inGroups[g]);
    llvm::append_range(outOrder, outGroups[g]);
  }
  Value input = t.value;
  SmallVector<int64_t> inPerm = t.perm;
  // Reshape the source of a reshape directly: the data is the same.
  if (auto prior = input.getDefiningOp<tosa::ReshapeOp>())
    input = prior.getInput1();
  if (wantIn != stored) {
    // Make every group contiguous and in ONNX order: one transpose.
    inPerm = wantIn;
    for (auto [d, size] : llvm::enumerate(t.shape))
      if (size == 1)
        inPerm.push_back(d);
    input = valueIn(t, inPerm);
  }
  SmallVector<int64_t> outPerm = preferredPerm(newShape.size());
  if (nonUnitOrder(newShape, outPerm) != outOrder) {
    outPerm = outOrder;
    for (auto [d, size] : llvm::enumerate(newShape))
      if (size == 1)
        outPerm.push_back(d);
  }
  out.perm = outPerm;
  SmallVector<int64_t> target = permuteShape(newShape, outPerm);
  if (cast<RankedTensorType>(input.getType()).getShape() ==
      ArrayRef<int64_t>(target))
    out.value = input;
  else
    out.value = tosa::ReshapeOp::create(builder, f32Type(target), input,
                                        constShape(target));
  return out;
}

Tensor ONNXImporter::transposeTensor(Tensor &t, ArrayRef<int64_t> perm) {
  Tensor out;
  out.shape = permuteShape(t.shape, perm);
  if (t.isConst && !t.value) {
    out = t;
    out.shape = permuteShape(t.shape, perm);
    out.perm = identityPerm(perm.size());
    if (t.isFloat)
      out.floats = permuteData(t.floats, t.shape, perm);
    else
      out.ints = permuteData(t.ints, t.shape, perm);
    return out;
  }
  // Output dimension k is input dimension perm[k]; input dimension d is
  // output dimension inverse[d]. The stored tensor does not change.
  SmallVector<int64_t> inverse(perm.size());
  for (auto [k, p] : llvm::enumerate(perm))
    inverse[p] = k;
  for (int64_t p : t.perm)
    out.perm.push_back(inverse[p]);
  out.value = t.value;
  return out;
}

LogicalResult ONNXImporter::broadcastOperands(Tensor &a, Tensor &b, Value &va,
                                              Value &vb, Tensor &out) {
  size_t rank = std::max(a.shape.size(), b.shape.size());
  SmallVector<int64_t> sa(rank - a.shape.size(), 1),
      sb(rank - b.shape.size(), 1);
  llvm::append_range(sa, a.shape);
  llvm::append_range(sb, b.shape);
  out.shape.clear();
  for (size_t i = 0; i < rank; ++i) {
    if (sa[i] != sb[i] && sa[i] != 1 && sb[i] != 1)
      return nodeError() << "operand shapes do not broadcast";
    out.shape.push_back(std::max(sa[i], sb[i]));
  }
  // The layout follows the full-rank non-constant operand.
  Tensor *lead = (!a.isConst && a.shape.size() == rank) ? &a : &b;
  if (lead->isConst || lead->shape.size() != rank)
    lead = (!a.isConst) ? &a : &b;
  if (lead->shape.size() == rank)
    out.perm = lead->perm;
  else
    out.perm = preferredPerm(rank);
  auto prepare = [&](Tensor &t, ArrayRef<int64_t> full) -> Value {
    if (t.shape.size() == rank)
      return valueIn(t, out.perm);
    Tensor expanded = reshapeTensor(t, full);
    return valueIn(expanded, out.perm);
  };
  va = prepare(a, sa);
  vb = prepare(b, sb);
  return success();
}
