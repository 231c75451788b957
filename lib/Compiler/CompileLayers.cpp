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
  /// Per MAC of an int8 convolution, depthwise convolution and matmul
  /// (fully connected); of a float one.
  int64_t convMac, depthwiseMac, matmulMac, floatMac;
  /// Per output element of any other op (rescale, clamp, add, ...).
  int64_t element;
  /// Per element a pooling window or a reduction reads.
  int64_t windowElement;
};

/// Returns the rates of \p cpu. M4, M7 and M33 (the DSP kernels): fitted
/// to QEMU's per-function counts of person_detect on M4 (docs/CortexM.md,
/// "The compile report"): a pointwise convolution takes 1.6 instructions per
/// MAC, a 3x3 depthwise one 4, and the requantization after it 21.4 per
/// output element. M55 (the MVE kernels): the same rates scaled by the ratio
/// of the two CPUs' totals on person_detect (5,483,675 / 19,012,927).
static InstructionRates getInstructionRates(CortexMCpu cpu) {
  if (cpu == CortexMCpu::CortexM55)
    return {
        /*convMac=*/5,   /*depthwiseMac=*/12, /*matmulMac=*/5,
        /*floatMac=*/30, /*element=*/62,      /*windowElement=*/12};
  return {
      /*convMac=*/16,   /*depthwiseMac=*/40, /*matmulMac=*/16,
      /*floatMac=*/100, /*element=*/214,     /*windowElement=*/40};
}

/// Returns the elements of \p value's ranked tensor type, or 0.
static int64_t getNumElements(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() ? type.getNumElements() : 0;
}

/// Returns the estimated instructions of \p op, in tenths.
static int64_t estimateTenths(Operation *op, const InstructionRates &rates) {
  if (isViewOp(op) || op->getNumResults() == 0)
    return 0;
  int64_t outputs = getNumElements(op->getResult(0));
  if (int64_t macs = getMultiplyAccumulates(op)) {
    auto input = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    if (input && isa<FloatType>(input.getElementType()))
      return macs * rates.floatMac;
    int64_t rate = isa<tosa::DepthwiseConv2DOp>(op) ? rates.depthwiseMac
                   : isa<tosa::MatMulOp>(op)        ? rates.matmulMac
                                                    : rates.convMac;
    // The requantization of the outputs is the rescale's (an op of its own).
    return macs * rate;
  }
  if (auto pool = dyn_cast<tosa::AvgPool2dOp>(op))
    return outputs * pool.getKernel()[0] * pool.getKernel()[1] *
           rates.windowElement;
  if (auto pool = dyn_cast<tosa::MaxPool2dOp>(op))
    return outputs * pool.getKernel()[0] * pool.getKernel()[1] *
           rates.windowElement;
  if (op->getName().getStringRef().starts_with("tosa.reduce_"))
    return getNumElements(op->getOperand(0)) * rates.windowElement;
  return outputs * rates.element;
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
  SmallVector<int64_t> tenths;
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
      tenths.push_back(0);
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
      tenths[row] += estimateTenths(op, rates);
    }
    if (step == liveness.peakStep)
      report.peakLayer = row;
  }
  for (auto [row, entry] : llvm::enumerate(report.layers))
    entry.instructions = (tenths[row] + 5) / 10;

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
    if (!row)
      for (Operation *user : constant->getUsers())
        if (auto found = rowOfOp.find(user); found != rowOfOp.end()) {
          row = found->second;
          break;
        }
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
  report.macs = 0;
  report.weightBytes = 0;
  func.walk([&](Operation *op) {
    report.macs += getMultiplyAccumulates(op);
    if (op->getName().getStringRef() == "tosa.const")
      report.weightBytes += getConstantBytes(op);
  });
  return success();
}
