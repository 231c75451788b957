//===- DspWidenFilters.cpp - arm-dsp-widen-filters ------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Stores the constant filters of int8 convolutions whose input channels are
// a multiple of 4 a second time, widened to halfword pairs in the order the
// DSP kernels' SMLADs take them, so that the reduction loop loads two words
// per four input channels and output channel instead of widening one word
// with SXTB16 and SXTB16 ROR #8 for every pixel:
//
//   int8 w0 w1 w2 w3  ->  halfwords (w0 - zw, w2 - zw), (w1 - zw, w3 - zw)
//
// matching the input's SXTB16 pairs (x0, x2) and (x1, x3). The copy is
// aligned to 8 bytes and every group starts at a multiple of 8, so the two
// words of a group are one LDRD. Every byte
// offset of a group of four in the int8 filter is half of its offset in the
// widened copy, so the kernels read a block of rows of the filter (a fully
// connected layer's subview) at twice its offset. The convolution is
// marked (kDspWideFilterAttr) with the copy's symbol and type; the kernels
// of arm-dsp-int8-kernels read it instead. The copy is flash, not SRAM: the
// arena does not change, the object's constants grow by the filters
// widened (the int8 global, if nothing else reads it, is dropped by LLVM).
// A filter read for a single output pixel (fully connected layers) gains
// one SXTB16 per two weights for twice its flash and stays int8. The
// copies' extra flash has a budget (max-bytes, the int8 bytes of the
// filters widened): the filters read for the most output pixels, which
// gain the most per byte, are widened first, so a model of megabytes of
// weights (MobileNetV2-224) widens its early layers and still fits a
// board's flash.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Target/ARM/Passes.h"

#include "Int8KernelUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_ARMDSPWIDENFILTERSPASS
#include "MemOpt/Target/ARM/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

/// How many output pixels \p conv computes with its filter: its output's
/// pixels times the trip counts of the scf.for loops around it (a loop
/// without constant bounds counts as many).
static int64_t getPixelsPerFilter(Operation *conv) {
  auto output =
      cast<MemRefType>(conv->getOperand(conv->getNumOperands() - 1).getType());
  int64_t pixels =
      output.getDimSize(0) * output.getDimSize(1) * output.getDimSize(2);
  for (auto loop = conv->getParentOfType<scf::ForOp>(); loop;
       loop = loop->getParentOfType<scf::ForOp>()) {
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!lb || !ub || !step || *step <= 0)
      return std::numeric_limits<int32_t>::max();
    pixels *= std::max<int64_t>(0, (*ub - *lb + *step - 1) / *step);
  }
  return pixels;
}

/// The constant int8 global that the filter \p filter reads whole, or a
/// block of whose rows (output channels) it reads (getConstantRows); else
/// null.
static memref::GlobalOp getFilterGlobal(Value filter, SymbolTable &symbols) {
  memref::GlobalOp global = armkernels::getConstantRows(filter, symbols).global;
  if (!global)
    return {};
  auto type = cast<MemRefType>(global.getType());
  return type.getRank() == 4 && type.getElementType().isInteger(8)
             ? global
             : memref::GlobalOp();
}

/// The widened copy of \p global (int8 [OC, KH, KW, IC], IC a multiple of
/// 4) minus the zero point \p zp: [OC, KH, KW, 2 * IC] bytes, each group of
/// four values the little-endian halfwords (w0, w2, w1, w3).
static DenseIntElementsAttr widen(memref::GlobalOp global, int64_t zp) {
  auto type = cast<MemRefType>(global.getType());
  auto values = cast<DenseIntElementsAttr>(*global.getInitialValue());
  SmallVector<int64_t> weights;
  for (const APInt &w : values.getValues<APInt>())
    weights.push_back(w.getSExtValue() - zp);
  SmallVector<int8_t> bytes;
  bytes.reserve(weights.size() * 2);
  static constexpr int kOrder[4] = {0, 2, 1, 3};
  for (size_t group = 0; group < weights.size(); group += 4) {
    for (int k : kOrder) {
      auto half = static_cast<uint16_t>(weights[group + k]);
      bytes.push_back(static_cast<int8_t>(half & 0xFF));
      bytes.push_back(static_cast<int8_t>(half >> 8));
    }
  }
  SmallVector<int64_t> shape(type.getShape());
  shape[3] *= 2;
  auto tensorType =
      RankedTensorType::get(shape, IntegerType::get(global.getContext(), 8));
  return DenseIntElementsAttr::get(tensorType, ArrayRef<int8_t>(bytes));
}

/// The constant filter zero point of \p conv (0 for the plain op).
static std::optional<int64_t> getFilterZp(Operation *conv) {
  if (!isa<linalg::Conv2DNhwcFhwcQOp>(conv))
    return 0;
  APInt zp;
  if (!matchPattern(conv->getOperand(3), m_ConstantInt(&zp)))
    return std::nullopt;
  return zp.getSExtValue();
}

namespace {
/// Marks the int8 convolutions with a widened copy of their filter.
struct ArmDspWidenFiltersPass
    : memopt::impl::ArmDspWidenFiltersPassBase<ArmDspWidenFiltersPass> {
  using ArmDspWidenFiltersPassBase::ArmDspWidenFiltersPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<Operation *> convs;
    module.walk([&](Operation *op) {
      if (isa<linalg::Conv2DNhwcFhwcQOp, linalg::Conv2DNhwcFhwcOp>(op))
        convs.push_back(op);
    });
    // The candidates, one per filter global and zero point, with the
    // pixels they are read for (their gain per flash byte).
    struct Candidate {
      memref::GlobalOp global;
      int64_t zp = 0;
      int64_t pixels = 0;
      SmallVector<Operation *> convs;
    };
    SmallVector<Candidate> candidates;
    DenseMap<std::pair<Operation *, int64_t>, size_t> index;
    for (Operation *conv : convs) {
      auto linalgOp = cast<linalg::LinalgOp>(conv);
      if (!linalgOp.hasPureBufferSemantics())
        continue;
      std::optional<int64_t> zp = getFilterZp(conv);
      memref::GlobalOp global = getFilterGlobal(conv->getOperand(1), symbols);
      // A filter read for one output pixel (a fully connected layer, or
      // blocks of its rows) saves one SXTB16 per two weights for two flash
      // bytes per weight: it stays int8.
      int64_t pixels = getPixelsPerFilter(conv);
      if (!zp || !global ||
          conv->getOperand(1).getDefiningOp<memref::SubViewOp>() || pixels < 2)
        continue;
      auto type = cast<MemRefType>(global.getType());
      if (type.getRank() != 4 || type.getDimSize(3) % 4 != 0 || *zp < -128 ||
          *zp > 127)
        continue;
      auto [it, inserted] =
          index.try_emplace({global.getOperation(), *zp}, candidates.size());
      if (inserted)
        candidates.push_back({global, *zp, 0, {}});
      Candidate &candidate = candidates[it->second];
      candidate.pixels = std::max(candidate.pixels, pixels);
      candidate.convs.push_back(conv);
    }
    // Within the flash budget, the filters read for the most pixels first
    // (in module order among equals).
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate &a, const Candidate &b) {
                       return a.pixels > b.pixels;
                     });
    int64_t budget = maxBytes;
    for (Candidate &candidate : candidates) {
      auto type = cast<MemRefType>(candidate.global.getType());
      if (type.getNumElements() > budget)
        continue;
      budget -= type.getNumElements();
      SmallVector<int64_t> shape(type.getShape());
      shape[3] *= 2;
      auto wideType =
          MemRefType::get(shape, IntegerType::get(&getContext(), 8));
      OpBuilder builder(candidate.global);
      auto copy = memref::GlobalOp::create(
          builder, candidate.global.getLoc(),
          (candidate.global.getSymName() + "_w16").str(),
          builder.getStringAttr("private"), wideType,
          widen(candidate.global, candidate.zp),
          /*constant=*/true, builder.getI64IntegerAttr(8));
      symbols.insert(copy);
      ++numGlobals;
      for (Operation *conv : candidate.convs) {
        conv->setAttr(
            kDspWideFilterAttr,
            ArrayAttr::get(&getContext(),
                           {FlatSymbolRefAttr::get(copy.getSymNameAttr()),
                            TypeAttr::get(copy.getType())}));
        ++numWidened;
      }
    }
  }
};
} // namespace
