//===- MveChannelRows.cpp - The in-place depthwise's channel loops --------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Matches the in-place depthwise convolution's channel loops (ChannelRows,
// MveKernels.h) that the MVE channel vectors rewrite: the window of each
// output pixel, its convolution, bias and rescale, with the index
// computations evaluated at every output pixel at compile time.
//
//===----------------------------------------------------------------------===//

#include "MveKernels.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::armkernels;
using namespace mlir::memopt::armkernels::mve;

/// Evaluates the index \p value, given the values of the loop induction
/// variables in \p known: constants and affine.apply/min/max of them.
static std::optional<int64_t>
evaluateIndex(Value value, const DenseMap<Value, int64_t> &known) {
  if (auto it = known.find(value); it != known.end())
    return it->second;
  if (std::optional<int64_t> constant = getConstantInt(value))
    return constant;
  Operation *def = value.getDefiningOp();
  AffineMap map;
  if (auto apply = dyn_cast_if_present<affine::AffineApplyOp>(def))
    map = apply.getAffineMap();
  else if (auto min = dyn_cast_if_present<affine::AffineMinOp>(def))
    map = min.getAffineMap();
  else if (auto max = dyn_cast_if_present<affine::AffineMaxOp>(def))
    map = max.getAffineMap();
  else
    return std::nullopt;
  SmallVector<Attribute> operands;
  for (Value operand : def->getOperands()) {
    std::optional<int64_t> operandValue = evaluateIndex(operand, known);
    if (!operandValue)
      return std::nullopt;
    operands.push_back(
        IntegerAttr::get(IndexType::get(value.getContext()), *operandValue));
  }
  SmallVector<Attribute> results;
  if (failed(map.constantFold(operands, results)) || results.empty())
    return std::nullopt;
  SmallVector<int64_t> values;
  for (Attribute result : results)
    values.push_back(cast<IntegerAttr>(result).getInt());
  if (isa<affine::AffineMinOp>(def))
    return *llvm::min_element(values);
  if (isa<affine::AffineMaxOp>(def))
    return *llvm::max_element(values);
  return values.front();
}

/// Evaluates \p value (an attribute or an index value) like evaluateIndex.
static std::optional<int64_t>
evaluateIndex(OpFoldResult value, const DenseMap<Value, int64_t> &known) {
  if (std::optional<int64_t> constant = getConstantIntValue(value))
    return constant;
  return evaluateIndex(cast<Value>(value), known);
}

std::optional<ChannelRows> mve::matchChannelRows(scf::ForOp columns,
                                                 bool forVectors) {
  auto rows = dyn_cast<scf::ForOp>(columns->getParentOp());
  // The rows loop holds the column loop only: what is read before it (the
  // weights, bias, multiplier and shift) is not written in it but by the
  // columns.
  if (!rows || columns.getNumRegionIterArgs() != 0 ||
      rows.getNumRegionIterArgs() != 0 ||
      &rows.getBody()->front() != columns.getOperation() ||
      columns->getNextNode() != rows.getBody()->getTerminator())
    return std::nullopt;
  std::optional<int64_t> rowBegin = getConstantIntValue(rows.getLowerBound());
  std::optional<int64_t> rowEnd = getConstantIntValue(rows.getUpperBound());
  std::optional<int64_t> colBegin =
      getConstantIntValue(columns.getLowerBound());
  std::optional<int64_t> colEnd = getConstantIntValue(columns.getUpperBound());
  if (!rowBegin || !rowEnd || !colBegin || !colEnd ||
      getConstantIntValue(rows.getStep()) != 1 ||
      getConstantIntValue(columns.getStep()) != 1 || *rowBegin >= *rowEnd ||
      *colBegin >= *colEnd)
    return std::nullopt;
  auto outside = [&](Value value) {
    return value && rows.isDefinedOutsideOfLoop(value);
  };

  ChannelRows match;
  match.rows = rows;
  match.columns = columns;
  Block *body = columns.getBody();
  Operation *conv = nullptr;
  for (Operation &op : *body)
    if (isa<linalg::DepthwiseConv2DNhwcHwcQOp,
            linalg::DepthwiseConv2DNhwcHwcOp>(op)) {
      if (conv)
        return std::nullopt;
      conv = &op;
    }
  if (!conv)
    return std::nullopt;
  FailureOr<ConvParts> parts = matchInt8Conv(cast<linalg::LinalgOp>(conv));
  if (failed(parts))
    return std::nullopt;
  match.conv = conv;
  match.parts = *parts;
  ArrayRef<int64_t> filterShape =
      cast<MemRefType>(parts->filter.getType()).getShape();
  ArrayRef<int64_t> outShape =
      cast<MemRefType>(parts->output.getType()).getShape();
  if (filterShape.size() != 3 || filterShape[2] != 1 || outShape[3] != 1 ||
      !outside(parts->filter) || !getStaticStrides(parts->filter))
    return std::nullopt;
  match.kh = filterShape[0];
  match.kw = filterShape[1];
  std::optional<PaddedWindow> window = matchPixelWindow(conv, *parts);
  if (!window)
    return std::nullopt;
  memref::SubViewOp sourceView = window->sourceView;
  if (!sourceView || sourceView->getBlock() != body ||
      !outside(sourceView.getSource()) ||
      !getStaticStrides(sourceView.getSource()) ||
      !llvm::all_of(sourceView.getStaticStrides(),
                    [](int64_t s) { return s == 1; }))
    return std::nullopt;
  match.source = sourceView.getSource();
  ArrayRef<int64_t> sourceShape =
      cast<MemRefType>(match.source.getType()).getShape();
  if (sourceShape.size() != 4 || sourceShape[0] != 1 || sourceShape[3] != 1)
    return std::nullopt;

  // The ops on the accumulator A after the window: its fill, the
  // convolution, the bias and the rescale, in this order.
  // The vectors do not write A: every block that uses it elsewhere (the
  // border loops) must write it first.
  Value acc = parts->output;
  if (!outside(acc))
    return std::nullopt;
  for (Operation *user : acc.getUsers()) {
    if (user->getBlock() == body)
      continue;
    Operation *first = user;
    for (Operation *other : acc.getUsers())
      if (other->getBlock() == user->getBlock() &&
          other->isBeforeInBlock(first))
        first = other;
    auto fill = dyn_cast<linalg::FillOp>(first);
    if (!fill || fill.getOutputs()[0] != acc)
      return std::nullopt;
  }
  Operation *fill = nullptr, *biasOp = nullptr;
  linalg::GenericOp rescaleOp;
  memref::SubViewOp outputView;
  for (Operation &op : *body) {
    if (&op == conv || &op == window->fill || &op == window->copy ||
        &op == window->target || &op == sourceView.getOperation() ||
        isa<scf::YieldOp, arith::ConstantOp, affine::AffineApplyOp,
            affine::AffineMinOp, affine::AffineMaxOp>(op))
      continue;
    if (auto accFill = dyn_cast<linalg::FillOp>(op)) {
      std::optional<int64_t> value = getConstantInt(accFill.getInputs()[0]);
      if (fill || !value || accFill.getOutputs()[0] != acc ||
          !op.isBeforeInBlock(conv))
        return std::nullopt;
      fill = &op;
      match.init = *value;
      continue;
    }
    if (auto view = dyn_cast<memref::SubViewOp>(op)) {
      if (outputView || !outside(view.getSource()))
        return std::nullopt;
      outputView = view;
      continue;
    }
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic || !generic.hasPureBufferSemantics() ||
        generic.getNumDpsInits() != 1 || !conv->isBeforeInBlock(&op))
      return std::nullopt;
    // The bias: A = B + A with B one i32 defined outside the rows.
    if (!biasOp && !rescaleOp && generic.getDpsInits()[0] == acc) {
      auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
      auto add = yield.getNumOperands() == 1
                     ? yield.getOperand(0).getDefiningOp<arith::AddIOp>()
                     : arith::AddIOp();
      if (!add || generic.getNumDpsInputs() != 2)
        return std::nullopt;
      for (OpOperand *input : generic.getDpsInputOperands()) {
        if (input->get() == acc)
          continue;
        auto biasType = dyn_cast<MemRefType>(input->get().getType());
        if (match.bias || !outside(input->get()) || !biasType ||
            !biasType.hasStaticShape() || biasType.getNumElements() != 1 ||
            !biasType.getElementType().isInteger(32) ||
            !getStaticStrides(input->get()) || !getGlobalValues(input->get()))
          return std::nullopt;
        match.bias = input->get();
      }
      Block *genericBody = generic.getBody();
      if (!match.bias || add.getLhs().getParentBlock() != genericBody ||
          add.getRhs().getParentBlock() != genericBody ||
          !isa<BlockArgument>(add.getLhs()) ||
          !isa<BlockArgument>(add.getRhs()) || add.getLhs() == add.getRhs() ||
          cast<BlockArgument>(add.getLhs()).getArgNumber() >= 2 ||
          cast<BlockArgument>(add.getRhs()).getArgNumber() >= 2)
        return std::nullopt;
      biasOp = &op;
      continue;
    }
    std::optional<RescaleParts> rescale = matchRescaleBody(generic);
    if (rescaleOp || !rescale || !outputView ||
        generic.getDpsInits()[0] != outputView.getResult() ||
        llvm::any_of(generic.getStaticLoopRanges(),
                     [](int64_t r) { return r != 1; }))
      return std::nullopt;
    std::optional<ChannelOperand> lhs =
        getChannelOperand(generic, rescale->acc);
    std::optional<ChannelOperand> rhs =
        getChannelOperand(generic, rescale->multiplier);
    std::optional<ChannelOperand> shift =
        getChannelOperand(generic, rescale->shift);
    if (!lhs || !rhs || !shift)
      return std::nullopt;
    if (rhs->memref == acc) {
      // DOUBLE_ROUND rounds by the sign of the accumulator: it is acc.
      if (rescale->doubleRound)
        return std::nullopt;
      std::swap(lhs, rhs);
    }
    if (lhs->memref != acc || rhs->memref == acc || shift->memref == acc ||
        (rhs->memref && !outside(rhs->memref)) ||
        (shift->memref && !outside(shift->memref)) ||
        (forVectors && !hasVectorRescaleConstants(*rhs, *shift)))
      return std::nullopt;
    rescaleOp = generic;
    match.rescale = *rescale;
    match.multiplier = *rhs;
    match.shift = *shift;
  }
  if (!fill || !rescaleOp || (biasOp && !biasOp->isBeforeInBlock(rescaleOp)))
    return std::nullopt;
  match.output = outputView.getSource();
  std::optional<SmallVector<int64_t>> outStrides =
      getStaticStrides(match.output);
  if (!outStrides || outStrides->size() != 4 || (*outStrides)[2] != 1 ||
      !llvm::all_of(outputView.getStaticSizes(),
                    [](int64_t s) { return s == 1; }))
    return std::nullopt;

  // Four pixels are read before they are written: the output channel must
  // not overlap the source.
  if (!areDisjoint(match.source, match.output))
    return std::nullopt;

  // Evaluate the windows and the output pixel at every (oh, ow).
  int64_t height = sourceShape[1], width = sourceShape[2];
  SmallVector<OpFoldResult> sourceOffsets = sourceView.getMixedOffsets();
  SmallVector<OpFoldResult> outOffsets = outputView.getMixedOffsets();
  DenseMap<Value, int64_t> known;
  std::optional<int64_t> firstY, firstX;
  match.sh = match.sw = 1;
  match.interiorBegin = *colEnd;
  match.interiorEnd = *colBegin;
  match.interiorRowBegin = *rowEnd;
  match.interiorRowEnd = *rowBegin;
  match.rowAlwaysInside.assign(match.kh, true);
  // Checks that the copy along one axis is [origin, origin + k) cut to
  // [0, extent): the source offset, the window offset and the size.
  auto isExact = [](int64_t origin, int64_t k, int64_t extent,
                    std::optional<int64_t> offset,
                    std::optional<int64_t> windowOffset,
                    std::optional<int64_t> size) {
    int64_t begin = std::clamp<int64_t>(origin, 0, extent);
    int64_t end = std::clamp<int64_t>(origin + k, 0, extent);
    return end > begin && offset == begin && size == end - begin &&
           windowOffset == begin - origin;
  };
  for (int64_t oh = *rowBegin; oh < *rowEnd; ++oh) {
    for (int64_t ow = *colBegin; ow < *colEnd; ++ow) {
      known[rows.getInductionVar()] = oh;
      known[columns.getInductionVar()] = ow;
      std::optional<int64_t> ys = evaluateIndex(sourceOffsets[1], known);
      std::optional<int64_t> xs = evaluateIndex(sourceOffsets[2], known);
      std::optional<int64_t> ty = evaluateIndex(window->offsetH, known);
      std::optional<int64_t> tx = evaluateIndex(window->offsetW, known);
      if (!ys || !xs || !ty || !tx ||
          evaluateIndex(sourceOffsets[0], known) != 0 ||
          evaluateIndex(sourceOffsets[3], known) != 0 ||
          evaluateIndex(outOffsets[0], known) != 0 ||
          evaluateIndex(outOffsets[1], known) != oh ||
          evaluateIndex(outOffsets[2], known) != ow ||
          evaluateIndex(outOffsets[3], known) != 0)
        return std::nullopt;
      int64_t y = *ys - *ty, x = *xs - *tx;
      // The origin is firstY + sh * (oh - rowBegin), firstX + sw * (ow -
      // colBegin); the steps come from the second row and column.
      if (!firstY)
        firstY = y;
      if (!firstX)
        firstX = x;
      if (oh == *rowBegin + 1 && ow == *colBegin)
        match.sh = y - *firstY;
      if (ow == *colBegin + 1 && oh == *rowBegin)
        match.sw = x - *firstX;
      if (match.sh < 1 || match.sw < 1 ||
          y != *firstY + match.sh * (oh - *rowBegin) ||
          x != *firstX + match.sw * (ow - *colBegin) ||
          !isExact(y, match.kh, height, ys, ty,
                   evaluateIndex(window->sizeH, known)) ||
          !isExact(x, match.kw, width, xs, tx,
                   evaluateIndex(window->sizeW, known)))
        return std::nullopt;
      if (x >= 0 && x + match.kw <= width) {
        match.interiorBegin = std::min(match.interiorBegin, ow);
        match.interiorEnd = std::max(match.interiorEnd, ow + 1);
      }
      if (y >= 0 && y + match.kh <= height) {
        match.interiorRowBegin = std::min(match.interiorRowBegin, oh);
        match.interiorRowEnd = std::max(match.interiorRowEnd, oh + 1);
      }
      for (int64_t ky = 0; ky < match.kh; ++ky)
        if (y + ky < 0 || y + ky >= height)
          match.rowAlwaysInside[ky] = false;
    }
  }
  match.originY = *firstY - match.sh * *rowBegin;
  match.originX = *firstX - match.sw * *colBegin;
  if (forVectors && match.interiorEnd - match.interiorBegin < kPixelLanes)
    return std::nullopt;
  match.fill = fill;
  match.biasOp = biasOp;
  match.rescaleOp = rescaleOp;
  return match;
}
