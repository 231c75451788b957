//===- ConstantFolding.cpp - ONNX constants and shape arithmetic ----------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Constant nodes and the operators the importer evaluates at import time on
// constants: Shape, Gather, Cast, and (from Math.cpp and Tensor.cpp) Concat
// and binary arithmetic whose inputs are all constants. These are the shape
// computations of exported models (ShuffleNet's split sizes); integer
// arithmetic wraps so that corrupt files cannot reach undefined behaviour.
//
//===----------------------------------------------------------------------===//

#include "ONNXImporter.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::onnximport;

/// Constant: a tensor `value` attribute.
static LogicalResult convertConstant(ONNXImporter &importer) {
  const onnx::AttributeProto *value = importer.attr("value");
  if (!value || !value->has_t())
    return importer.nodeError()
           << "only tensor constants ('value') are supported";
  Tensor out;
  if (failed(importer.decodeTensor(value->t(), out)))
    return failure();
  importer.setOutput(0, std::move(out));
  return success();
}

/// Shape: the input's ONNX shape as an int64 constant.
static LogicalResult convertShape(ONNXImporter &importer) {
  Tensor *x = importer.getInput(0);
  if (!x)
    return failure();
  Tensor out;
  out.isConst = true;
  out.isFloat = false;
  out.shape = {static_cast<int64_t>(x->shape.size())};
  out.perm = {0};
  out.ints.assign(x->shape.begin(), x->shape.end());
  importer.setOutput(0, std::move(out));
  return success();
}

/// Gather: from a constant vector along axis 0.
static LogicalResult convertGather(ONNXImporter &importer) {
  Tensor *x = importer.getInput(0);
  Tensor *idx = x ? importer.getInput(1) : nullptr;
  if (!idx)
    return failure();
  if (!x->isConst || x->value || !idx->isConst || idx->isFloat ||
      x->shape.size() != 1 || importer.attrInt("axis", 0) != 0)
    return importer.nodeError()
           << "only gathers from constant vectors are supported";
  Tensor out;
  out.isConst = true;
  out.isFloat = x->isFloat;
  out.shape = idx->shape;
  out.perm = identityPerm(idx->shape.size());
  int64_t n = x->shape[0];
  for (int64_t i : idx->ints) {
    if (i < -n || i >= n)
      return importer.nodeError() << "index " << i << " is out of range";
    if (i < 0)
      i += n;
    if (x->isFloat)
      out.floats.push_back(x->floats[i]);
    else
      out.ints.push_back(x->ints[i]);
  }
  importer.setOutput(0, std::move(out));
  return success();
}

/// Cast: of a constant, between float and int32/int64.
static LogicalResult convertCast(ONNXImporter &importer) {
  Tensor *x = importer.getInput(0);
  if (!x)
    return failure();
  if (!x->isConst || x->value)
    return importer.nodeError() << "only casts of constants are supported";
  int64_t to = importer.attrInt("to", 0);
  Tensor out = *x;
  if (to == onnx::TensorProto::FLOAT && !x->isFloat) {
    out.isFloat = true;
    out.floats.assign(x->ints.begin(), x->ints.end());
    out.ints.clear();
  } else if ((to == onnx::TensorProto::INT64 ||
              to == onnx::TensorProto::INT32) &&
             x->isFloat) {
    out.isFloat = false;
    for (float f : x->floats)
      out.ints.push_back(static_cast<int64_t>(f));
    out.floats.clear();
  } else if (to != onnx::TensorProto::FLOAT && to != onnx::TensorProto::INT64 &&
             to != onnx::TensorProto::INT32) {
    return importer.nodeError() << "unsupported cast target type " << to;
  }
  importer.setOutput(0, std::move(out));
  return success();
}

LogicalResult onnximport::foldConstantConcat(ONNXImporter &importer) {
  // Constant concatenation (shape vectors).
  const onnx::NodeProto &node = importer.getNode();
  Tensor out;
  out.isConst = true;
  for (int i = 0; i < node.input_size(); ++i) {
    Tensor *t = importer.getInput(i);
    if (!t)
      return failure();
    if (t->shape.size() != 1 || (i > 0 && t->isFloat != out.isFloat))
      return importer.nodeError() << "cannot fold this operator on constants";
    out.isFloat = t->isFloat;
    llvm::append_range(out.floats, t->floats);
    llvm::append_range(out.ints, t->ints);
  }
  out.shape = {
      static_cast<int64_t>(out.isFloat ? out.floats.size() : out.ints.size())};
  out.perm = {0};
  importer.setOutput(0, std::move(out));
  return success();
}

LogicalResult onnximport::foldConstantArithmetic(ONNXImporter &importer,
                                                 StringRef opType) {
  // Binary arithmetic on constants, with broadcasting.
  Tensor *a = importer.getInput(0);
  Tensor *b = a ? importer.getInput(1) : nullptr;
  if (!b)
    return failure();
  if (a->isFloat != b->isFloat)
    return importer.nodeError() << "operands have different element types";
  size_t rank = std::max(a->shape.size(), b->shape.size());
  SmallVector<int64_t> sa(rank - a->shape.size(), 1),
      sb(rank - b->shape.size(), 1), shape;
  llvm::append_range(sa, a->shape);
  llvm::append_range(sb, b->shape);
  for (size_t i = 0; i < rank; ++i) {
    if (sa[i] != sb[i] && sa[i] != 1 && sb[i] != 1)
      return importer.nodeError() << "operand shapes do not broadcast";
    shape.push_back(std::max(sa[i], sb[i]));
  }
  SmallVector<int64_t> stA = stridesOf(sa), stB = stridesOf(sb);
  Tensor out;
  out.isConst = true;
  out.isFloat = a->isFloat;
  out.shape = shape;
  out.perm = identityPerm(rank);
  SmallVector<int64_t> index(rank, 0);
  for (int64_t flat = 0, n = numElements(shape); flat < n; ++flat) {
    int64_t ia = 0, ib = 0;
    for (size_t d = 0; d < rank; ++d) {
      ia += (sa[d] == 1 ? 0 : index[d]) * stA[d];
      ib += (sb[d] == 1 ? 0 : index[d]) * stB[d];
    }
    if (out.isFloat) {
      float x = a->floats[ia], y = b->floats[ib];
      out.floats.push_back(opType == "Add"   ? x + y
                           : opType == "Sub" ? x - y
                           : opType == "Mul" ? x * y
                                             : x / y);
    } else {
      int64_t x = a->ints[ia], y = b->ints[ib];
      if (opType == "Div" && y == 0)
        return importer.nodeError() << "integer division by zero";
      // Wrapping arithmetic: corrupt files must not reach undefined
      // behaviour.
      uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
      if (opType == "Div" && y == -1)
        out.ints.push_back(static_cast<int64_t>(0 - ux));
      else
        out.ints.push_back(opType == "Add"   ? static_cast<int64_t>(ux + uy)
                           : opType == "Sub" ? static_cast<int64_t>(ux - uy)
                           : opType == "Mul" ? static_cast<int64_t>(ux * uy)
                                             : x / y);
    }
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  importer.setOutput(0, std::move(out));
  return success();
}

void onnximport::populateConstantFoldingConverters(ConverterTable &table) {
  table.onOp("Constant", 1, convertConstant);
  table.onOp("Shape", 1, convertShape);
  table.onOp("Gather", 1, convertGather);
  table.onOp("Cast", 1, convertCast);
}
