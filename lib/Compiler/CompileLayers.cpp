//===- CompileLayers.cpp - The report's rows: the model's layers ----------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Folds the steps of a scheduled TOSA function into the layers of the source
// model (MemOpt/Support/Layers.h): every step joins the row of its op's
// layer, and a row gets the live bytes, MACs, weight bytes and an
// instruction estimate of its steps. Ops without a layer are rows of their
// own. The instruction estimate is a per-MAC and per-element rate by kernel
// kind and CPU, calibrated on QEMU's counts (docs/CortexM.md, "The compile
// report").
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Compiler/CompileReport.h"

#include "MemOpt/Analysis/BufferLiveness.h"
#include "MemOpt/Compiler/Compiler.h"
#include "MemOpt/Support/Layers.h"
#include "MemOpt/Utils/Attributes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlir::memopt;

//===----------------------------------------------------------------------===//
// Instruction estimate
//===----------------------------------------------------------------------===//

/// Instructions per unit of work of each kernel kind on one CPU, in tenths
/// (integers keep the report deterministic).
struct InstructionRates {
  /// Per MAC of each kind of KernelWork.
  int64_t convMac, narrowConvMac, depthwiseMac, stridedDepthwiseMac,
      fullyConnectedMac, floatMac;
  /// Per accumulator of an int8 op with MACs, with its requantization.
  int64_t accumulator;
  /// Per output element of any other op (rescale, clamp, add, ...).
  int64_t element;
  /// Per element a pooling window or a reduction reads.
  int64_t windowElement;
};

/// Returns the rates of \p cpu: a least-squares fit to QEMU's per-layer
/// counts of person_detect and MLPerf Tiny's four models on M4, M7 and M55
/// (benchmarks/fit-instruction-rates.py; docs/CortexM.md, "Instruction
/// estimate"). M0+, M3 and M33 take M4's. The float rates are not fitted
/// (no float model in the fit).
static InstructionRates getInstructionRates(CortexMCpu cpu) {
  if (cpu == CortexMCpu::CortexM55)
    return {/*convMac=*/2,           /*narrowConvMac=*/4,
            /*depthwiseMac=*/22,     /*stridedDepthwiseMac=*/13,
            /*fullyConnectedMac=*/2, /*floatMac=*/30,
            /*accumulator=*/93,      /*element=*/37,
            /*windowElement=*/14};
  if (cpu == CortexMCpu::CortexM7)
    return {/*convMac=*/15,           /*narrowConvMac=*/22,
            /*depthwiseMac=*/27,      /*stridedDepthwiseMac=*/45,
            /*fullyConnectedMac=*/16, /*floatMac=*/100,
            /*accumulator=*/164,      /*element=*/41,
            /*windowElement=*/30};
  return {/*convMac=*/14,           /*narrowConvMac=*/24,
          /*depthwiseMac=*/31,      /*stridedDepthwiseMac=*/52,
          /*fullyConnectedMac=*/16, /*floatMac=*/100,
          /*accumulator=*/97,       /*element=*/41,
          /*windowElement=*/30};
}

/// Returns the elements of \p value's ranked tensor type, or 0.
static int64_t getNumElements(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() ? type.getNumElements() : 0;
}

/// Returns true if \p op is the rescale of the accumulators of an op with
/// MACs.
static bool isRequantization(Operation *op) {
  if (!isa<tosa::RescaleOp>(op))
    return false;
  Operation *producer = op->getOperand(0).getDefiningOp();
  return producer && getMultiplyAccumulates(producer) > 0;
}

/// Returns the work of \p op by kernel kind.
static KernelWork getKernelWork(Operation *op) {
  KernelWork work;
  // A loop: its body's work, once per trip.
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    KernelWork body;
    for (Operation &inner : loop.getBody()->without_terminator())
      body += getKernelWork(&inner);
    if (std::optional<APInt> trips = loop.getStaticTripCount())
      for (uint64_t trip = 0, e = trips->getZExtValue(); trip < e; ++trip)
        work += body;
    return work;
  }
  if (isViewOp(op) || op->getNumResults() == 0)
    return work;
  int64_t outputs = getNumElements(op->getResult(0));
  if (int64_t macs = getMultiplyAccumulates(op)) {
    auto input = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    if (input && isa<FloatType>(input.getElementType())) {
      work.floatMacs = macs;
      return work;
    }
    work.accumulators = outputs;
    if (auto depthwise = dyn_cast<tosa::DepthwiseConv2DOp>(op)) {
      bool strided = llvm::any_of(depthwise.getStride(),
                                  [](int64_t stride) { return stride > 1; });
      (strided ? work.stridedDepthwiseMacs : work.depthwiseMacs) = macs;
    } else if (isa<tosa::MatMulOp>(op) ||
               (isa<tosa::Conv2DOp>(op) &&
                outputs == cast<ShapedType>(op->getResult(0).getType())
                               .getDimSize(3))) {
      // A fully connected layer: one output pixel (no widened filter).
      work.fullyConnectedMacs = macs;
    } else {
      // The DSP and MVE reductions take 4 input channels per step.
      bool narrow = isa<tosa::Conv2DOp>(op) && input && input.getRank() == 4 &&
                    !input.isDynamicDim(3) && input.getDimSize(3) < 4;
      (narrow ? work.narrowConvMacs : work.convMacs) = macs;
    }
  } else if (isRequantization(op)) {
    // Charged with the accumulators.
  } else if (auto pool = dyn_cast<tosa::AvgPool2dOp>(op)) {
    work.windowElements = outputs * pool.getKernel()[0] * pool.getKernel()[1];
  } else if (auto pool = dyn_cast<tosa::MaxPool2dOp>(op)) {
    work.windowElements = outputs * pool.getKernel()[0] * pool.getKernel()[1];
  } else if (op->getName().getStringRef().starts_with("tosa.reduce_")) {
    work.windowElements = getNumElements(op->getOperand(0));
  } else {
    work.elements = outputs;
  }
  return work;
}

/// Returns the estimated instructions of \p work at \p rates.
static int64_t estimateInstructions(const KernelWork &work,
                                    const InstructionRates &rates) {
  int64_t tenths =
      work.convMacs * rates.convMac +
      work.narrowConvMacs * rates.narrowConvMac +
      work.depthwiseMacs * rates.depthwiseMac +
      work.stridedDepthwiseMacs * rates.stridedDepthwiseMac +
      work.fullyConnectedMacs * rates.fullyConnectedMac +
      work.floatMacs * rates.floatMac + work.accumulators * rates.accumulator +
      work.elements * rates.element + work.windowElements * rates.windowElement;
  return (tenths + 5) / 10;
}

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

/// Returns the bytes of the constant \p op's value.
static int64_t getConstantBytes(Operation *op) {
  int64_t bytes = 0;
  for (Type type : op->getResultTypes())
    if (FailureOr<int64_t> size = getTensorSizeInBytes(type); succeeded(size))
      bytes += *size;
  return bytes;
}

/// Returns the layer \p op came from, if its location says.
static std::optional<LayerIdentity> getOpLayer(Operation *op) {
  return findLayer(op->getLoc());
}

LogicalResult
mlir::memopt::analyzeScheduledFunction(func::FuncOp func,
                                       const CostModelOptions &options,
                                       CortexMCpu cpu, FunctionReport &report) {
  BufferLiveness analysis(func, options);
  if (!analysis.isValid())
    return failure();
  const DataflowGraph &graph = analysis.getGraph();
  const ScheduleLiveness &liveness = analysis.getProgramLiveness();
  InstructionRates rates = getInstructionRates(cpu);

  // Rows in the order of their first step; a layer's steps join its row.
  report.layers.clear();
  llvm::DenseMap<int64_t, unsigned> rowOfLayer;
  llvm::DenseMap<Operation *, unsigned> rowOfOp;
  for (auto [step, node] : llvm::enumerate(liveness.order)) {
    const Node &n = graph.getNode(node);
    std::optional<LayerIdentity> layer = getOpLayer(n.op);
    for (Operation *fused : n.fusedOps)
      if (!layer)
        layer = getOpLayer(fused);
    unsigned row;
    auto found = layer ? rowOfLayer.find(layer->index) : rowOfLayer.end();
    if (found != rowOfLayer.end()) {
      row = found->second;
    } else {
      row = report.layers.size();
      LayerReport entry;
      entry.firstStep = step;
      if (layer) {
        rowOfLayer[layer->index] = row;
        entry.sourceIndex = layer->index;
        entry.kind = layer->kind;
        entry.name = layer->name;
      } else {
        entry.kind = n.op->getName().getStringRef().str();
        entry.name = graph.getNodeName(node);
      }
      report.layers.push_back(std::move(entry));
    }
    LayerReport &entry = report.layers[row];
    ++entry.steps;
    entry.liveBytes = std::max(entry.liveBytes, liveness.liveBytes[step]);
    // The fused ops run first (an accumulator inside its rescale's loop).
    SmallVector<Operation *> ops(n.fusedOps.begin(), n.fusedOps.end());
    ops.push_back(n.op);
    for (Operation *op : ops) {
      rowOfOp[op] = row;
      entry.tosaOps.push_back(op->getName().getStringRef().str());
      entry.macs += getMultiplyAccumulates(op);
      entry.work += getKernelWork(op);
    }
    if (step == liveness.peakStep)
      report.peakLayer = row;
  }
  for (LayerReport &entry : report.layers)
    entry.instructions = estimateInstructions(entry.work, rates);

  // Weights: the constants that hold the model's weight tensors (marked by
  // the importer); without any mark (TOSA input), every constant. Each goes
  // to its layer's row, else to the row of its first user.
  SmallVector<Operation *> constants;
  func.walk([&](Operation *op) {
    if (op->getName().getStringRef() == "tosa.const")
      constants.push_back(op);
  });
  bool marked = llvm::any_of(
      constants, [](Operation *op) { return isWeightLoc(op->getLoc()); });
  for (Operation *constant : constants) {
    if (marked && !isWeightLoc(constant->getLoc()))
      continue;
    std::optional<unsigned> row;
    if (std::optional<LayerIdentity> layer = getOpLayer(constant)) {
      auto found = rowOfLayer.find(layer->index);
      if (found != rowOfLayer.end())
        row = found->second;
    }
    // A user in a loop's body counts at the loop.
    for (Operation *user : constant->getUsers())
      for (Operation *op = user; op && !row; op = op->getParentOp())
        if (auto found = rowOfOp.find(op); found != rowOfOp.end())
          row = found->second;
    if (row)
      report.layers[*row].weightBytes += getConstantBytes(constant);
  }

  report.steps = liveness.order.size();
  report.profilePeak = liveness.peakBytes;
  report.peakStep = liveness.peakStep;
  report.patches = PatchSummary::read(func);
  if (auto blocks = func->getAttrOfType<ArrayAttr>(kPatchBlocksAttrName))
    for (auto line : blocks.getAsRange<StringAttr>())
      report.patchBlocks.push_back(line.str());
  // Totals over every op of the body, independent of the graph.
  report.macs = getTotalMultiplyAccumulates(func);
  report.weightBytes = 0;
  func.walk([&](Operation *op) {
    if (op->getName().getStringRef() == "tosa.const")
      report.weightBytes += getConstantBytes(op);
  });
  return success();
}
