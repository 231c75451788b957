//===- PaddedWindow.cpp - Padded windows read in place --------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The padded-window matcher of the DSP and MVE kernels (PaddedWindow.h).
//
//===----------------------------------------------------------------------===//

#include "PaddedWindow.h"

#include "MemOpt/Conversion/LocationMarks.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::armkernels;

bool armkernels::isUnitStrideView(memref::SubViewOp view) {
  return view && view.getSourceType().getRank() == view.getType().getRank() &&
         llvm::all_of(view.getMixedStrides(), [](OpFoldResult stride) {
           return isConstantIntValue(stride, 1);
         });
}

std::optional<PaddedWindow> armkernels::matchPaddedWindow(Operation *conv,
                                                          Value window,
                                                          int64_t zeroPoint,
                                                          WindowUsers users) {
  auto windowType = dyn_cast<MemRefType>(window.getType());
  if (!windowType || windowType.getRank() != 4 || !windowType.hasStaticShape())
    return std::nullopt;
  Block *block = conv->getBlock();
  PaddedWindow result;
  for (Operation *user : window.getUsers()) {
    if (user == conv)
      continue;
    if (users == WindowUsers::OutsideBlock &&
        !block->findAncestorOpInBlock(*user))
      continue;
    if (auto fill = dyn_cast<linalg::FillOp>(user)) {
      if (result.fill || fill.getOutputs()[0] != window)
        return std::nullopt;
      result.fill = fill;
      continue;
    }
    auto view = dyn_cast<memref::SubViewOp>(user);
    if (!view || result.target || !view->hasOneUse())
      return std::nullopt;
    auto copy = dyn_cast<linalg::CopyOp>(*view->user_begin());
    if (!copy || copy.getOutputs()[0] != view.getResult())
      return std::nullopt;
    result.target = view;
    result.copy = copy;
  }
  if (!result.fill || !result.copy || result.fill->getBlock() != block ||
      result.copy->getBlock() != block ||
      !result.fill->isBeforeInBlock(result.copy) ||
      !result.copy->isBeforeInBlock(conv))
    return std::nullopt;
  // The window is the zero point where the copy does not write.
  APInt fillValue;
  if (!matchPattern(result.fill.getInputs()[0], m_ConstantInt(&fillValue)) ||
      fillValue.getBitWidth() != 8 || fillValue.getSExtValue() != zeroPoint)
    return std::nullopt;
  if (!isUnitStrideView(result.target))
    return std::nullopt;
  SmallVector<OpFoldResult> offsets = result.target.getMixedOffsets();
  SmallVector<OpFoldResult> sizes = result.target.getMixedSizes();
  // N and C are copied whole.
  for (unsigned dim : {0u, 3u})
    if (!isConstantIntValue(offsets[dim], 0) ||
        !isConstantIntValue(sizes[dim], windowType.getDimSize(dim)))
      return std::nullopt;
  result.source = result.copy.getInputs()[0];
  result.sourceView = result.source.getDefiningOp<memref::SubViewOp>();
  result.offsetH = offsets[1];
  result.offsetW = offsets[2];
  result.sizeH = sizes[1];
  result.sizeW = sizes[2];
  result.height = windowType.getDimSize(1);
  result.width = windowType.getDimSize(2);
  result.exact = hasLocationMark(result.copy, kPaddedWindowLocName);
  return result;
}
