//===- DataflowGraph.cpp - Activation dataflow graph of a function --------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Builds the DataflowGraph of a function body and reports, at their location,
// the constructs the memory model cannot describe.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Analysis/DataflowGraph.h"
#include "MemOpt/Analysis/BufferLiveness.h"
#include "MemOpt/CostModel/States.h"

#include "MemOpt/Utils/Attributes.h"
#include "MemOpt/Utils/StorageSize.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::memopt;

/// Returns the overwrite the model counts for \p op: getOverwrite, or under
/// CostModelOptions::assumeShiftedOverwrites every candidate.
static std::optional<Overwrite>
getModeledOverwrite(Operation *op, const CostModelOptions &options) {
  return options.assumeShiftedOverwrites
             ? getOverwriteCandidate(op, options.io)
             : getOverwrite(op, options.io);
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

FailureOr<int64_t> mlir::memopt::getTensorSizeInBytes(Type type) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType)
    return failure();
  std::optional<int64_t> bytes = getStorageBytes(tensorType, DataLayout());
  if (!bytes)
    return failure();
  return *bytes;
}

std::string mlir::memopt::getLocationLabel(Location loc) {
  if (auto nameLoc = dyn_cast<NameLoc>(loc))
    return nameLoc.getName().str();
  if (auto fileLoc = dyn_cast<FileLineColLoc>(loc))
    return (fileLoc.getFilename().strref() + ":" + Twine(fileLoc.getLine()) +
            ":" + Twine(fileLoc.getColumn()))
        .str();
  if (auto fusedLoc = dyn_cast<FusedLoc>(loc)) {
    for (Location inner : fusedLoc.getLocations()) {
      std::string label = getLocationLabel(inner);
      if (label != "unknown")
        return label;
    }
  }
  if (auto callSiteLoc = dyn_cast<CallSiteLoc>(loc))
    return getLocationLabel(callSiteLoc.getCallee());
  return "unknown";
}

/// Returns true if ops of \p op's dialect have a known memory behaviour: they
/// read their operands and write fresh results.
static bool isKnownDialect(Operation *op) {
  Dialect *dialect = op->getDialect();
  if (!dialect)
    return false;
  StringRef ns = dialect->getNamespace();
  return ns == "tosa" || ns == "tensor" || ns == "arith" || ns == "math" ||
         ns == "func" || ns == "bufferization";
}

/// Returns a description of why \p type cannot be an activation, or an empty
/// string if it can (or is not a shaped type at all).
static std::string checkActivationType(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped)
    return "";
  std::string message;
  llvm::raw_string_ostream os(message);
  if (!isa<TensorType>(type)) {
    os << "type '" << type
       << "' is not a tensor; mem-opt models TOSA/tensor functions";
  } else if (!shaped.hasRank()) {
    os << "unranked tensor '" << type
       << "' is not supported; the memory model needs static shapes";
  } else if (!shaped.hasStaticShape()) {
    os << "dynamic shape '" << type
       << "' is not supported; the memory model needs static shapes";
  } else if (failed(getTensorSizeInBytes(type))) {
    os << "cannot compute the byte size of '" << type << "'";
  }
  return message;
}

//===----------------------------------------------------------------------===//
// DataflowGraphBuilder
//===----------------------------------------------------------------------===//

namespace mlir {
namespace memopt {
/// Builds a DataflowGraph op by op in block order.
class DataflowGraphBuilder {
public:
  /// Creates a builder that fills \p graph for \p func.
  DataflowGraphBuilder(DataflowGraph &graph, func::FuncOp func)
      : graph(graph), layout(DataLayout::closest(func)) {}
  /// Creates a builder that fills \p graph for a loop body under \p layout.
  DataflowGraphBuilder(DataflowGraph &graph, const DataLayout &layout)
      : graph(graph), layout(layout) {}

  /// Builds the graph of \p func; emits diagnostics on failure.
  LogicalResult build(func::FuncOp func);

private:
  /// Adds the ops of \p block (a function's body or a loop's) in order.
  LogicalResult addBlockOps(Block &block);
  /// Adds \p loop as one node: it reads the activations its body reads,
  /// allocates its results (their iter_args start from `tensor.empty`) and
  /// needs its body's peak as workspace (see the definition).
  LogicalResult addLoop(scf::ForOp loop);
  /// Returns true under the lowering's model.
  bool isLowering() const {
    return graph.costModel.kind == MemoryModelKind::Lowering;
  }
  /// Returns \p bytes as the arena holds them: rounded up to the alignment
  /// under the lowering's model.
  int64_t toArenaBytes(int64_t bytes) const {
    if (!isLowering() || bytes == 0)
      return bytes;
    return static_cast<int64_t>(
        llvm::alignTo(bytes, graph.costModel.alignment));
  }
  /// Adds a buffer for \p value and returns its id.
  BufferId addBuffer(Value value, std::optional<NodeId> producer);
  /// Appends \p node (its inputs and predecessors made sorted and unique)
  /// and links it to its inputs, predecessors and ops.
  void pushNode(Node node);
  /// Adds a node for \p op; \p isView makes it a view of its first operand.
  LogicalResult addNode(Operation *op, bool isView);
  /// Applies the lowering's per-op rules to the node \p id: in-place
  /// elementwise ops, padded copies and pooling windows.
  void applyLoweringRules(NodeId id);
  /// Moves the caller-owned inputs and outputs out of the arena under
  /// `io=caller`.
  void placeCallerIO(func::FuncOp func);
  /// Gives the inputs and outputs their arena alignment under `io=arena`.
  void alignArenaIO();
  /// Returns true if \p op computes a weight: it is constant-like, or it is
  /// side-effect free and computed only from weights.
  bool isWeightOp(Operation *op) const;
  /// Models \p op as an accumulation into one buffer if it is an accumulating
  /// add whose operands allow it (see the definition); returns false, without
  /// changing the graph, otherwise.
  bool addAccumulation(Operation *op);

  /// The graph under construction.
  DataflowGraph &graph;
  /// The data layout of the function, for byte sizes.
  DataLayout layout;
  /// Values that are weights (flash-resident constants).
  DenseSet<Value> weights;
  /// The last node with side effects, to keep their relative order.
  std::optional<NodeId> lastEffectNode;
  /// Buffers of a loop body's iter_args: an insert into one writes into it
  /// (the loop's result, counted outside the body).
  DenseSet<BufferId> carriedBuffers;
  /// The last node of each patch (grid, index) of kPatchAttrName so far.
  DenseMap<std::pair<int64_t, int64_t>, NodeId> lastPatchNode;
  /// Results of the accumulating adds modelled so far.
  DenseSet<Value> accumulated;
  /// Accumulators fused into their rescale, and explicit pads fused into
  /// their window, waiting for the rescale (lowering model).
  DenseSet<Operation *> fusedAccumulators;
  /// The buffer of each concat that an operand's producer allocated already
  /// (getInPlaceConcat; lowering model).
  DenseMap<Operation *, BufferId> concatBuffers;
  /// The function's states (kStateAttrName), and under the lowering's model
  /// the concats that compute their new values in place
  /// (getInPlaceStateUpdate) and the buffers of both, which live in the
  /// caller's state buffer: neither arena nor caller I/O bytes.
  SmallVector<StateBinding> states;
  DenseSet<Operation *> stateUpdates;
  DenseSet<BufferId> stateBuffers;
};
} // namespace memopt
} // namespace mlir

BufferId DataflowGraphBuilder::addBuffer(Value value,
                                         std::optional<NodeId> producer) {
  BufferId id = graph.buffers.size();
  Buffer buffer;
  buffer.value = value;
  buffer.bytes = toArenaBytes(*getStorageBytes(value.getType(), layout));
  buffer.producer = producer;
  graph.buffers.push_back(std::move(buffer));
  graph.bufferOfValue[value] = id;
  return id;
}

bool DataflowGraphBuilder::isWeightOp(Operation *op) const {
  if (op->getNumRegions() != 0)
    return false;
  if (op->hasTrait<OpTrait::ConstantLike>())
    return true;
  if (!isMemoryEffectFree(op))
    return false;
  // The lowering computes a rescale of weights at run time, into a buffer:
  // no folder turns it into a constant.
  if (isLowering() && isa<tosa::RescaleOp>(op))
    return false;
  return llvm::all_of(op->getOperands(),
                      [&](Value operand) { return weights.contains(operand); });
}

void DataflowGraphBuilder::pushNode(Node node) {
  NodeId id = graph.nodes.size();
  llvm::sort(node.inputs);
  node.inputs.erase(llvm::unique(node.inputs), node.inputs.end());
  llvm::sort(node.preds);
  node.preds.erase(llvm::unique(node.preds), node.preds.end());
  graph.nodeOfOp[node.op] = id;
  for (Operation *fused : node.fusedOps)
    graph.nodeOfOp[fused] = id;
  for (BufferId input : node.inputs)
    graph.buffers[input].users.push_back(id);
  for (NodeId pred : node.preds)
    graph.nodes[pred].succs.push_back(id);
  graph.nodes.push_back(std::move(node));
}

LogicalResult DataflowGraphBuilder::addNode(Operation *op, bool isView) {
  NodeId id = graph.nodes.size();
  Node node;
  node.op = op;
  node.isView = isView;
  // Operands of the node and of the accumulators fused into it: the fused
  // loop reads the accumulator's inputs at the rescale's step.
  // The root of a fused elementwise group reads the group's inputs.
  SmallVector<Value> operands;
  if (isLowering() && isFusedGroupRoot(op))
    operands = getFusedGroupInputs(op, &node.fusedOps);
  else
    operands.assign(op->operand_begin(), op->operand_end());
  // A pad merged with the pads before it pads their source. It still runs
  // after those of them that are built for other users: it reads them in
  // the TOSA the schedule reorders.
  if (isLowering() && isa<tosa::PadOp>(op)) {
    operands.front() = getMergedPadSource(op);
    for (Operation *inner = op->getOperand(0).getDefiningOp();
         inner && inner->getResult(0) != operands.front();
         inner = inner->getOperand(0).getDefiningOp())
      if (std::optional<NodeId> pred = graph.lookupNode(inner))
        node.preds.push_back(*pred);
  }
  for (Value operand : op->getOperands())
    if (Operation *def = operand.getDefiningOp())
      if (fusedAccumulators.contains(def)) {
        // An explicit pad read through the window runs inside the loop too.
        SmallVector<Operation *, 2> windowOps;
        for (Value accOperand : def->getOperands()) {
          // Follow pad (and slice) ops back to the tensor they pad.
          Operation *window = accOperand.getDefiningOp();
          while (window && fusedAccumulators.contains(window)) {
            windowOps.push_back(window);
            accOperand = isa<tosa::PadOp>(window) ? getMergedPadSource(window)
                                                  : window->getOperand(0);
            llvm::append_range(operands,
                               llvm::drop_begin(window->getOperands()));
            window = accOperand.getDefiningOp();
          }
          operands.push_back(accOperand);
        }
        node.fusedOps.append(windowOps.rbegin(), windowOps.rend());
        node.fusedOps.push_back(def);
        // One pixel of the i32 accumulator (its channels) and the padded
        // window it reads, both allocated once before the loop; none for an
        // accumulator of one element (a register).
        if (isRegisterAccumulator(def))
          continue;
        auto type = cast<RankedTensorType>(def->getResult(0).getType());
        int64_t pixelBytes =
            *getStorageBytes(RankedTensorType::get({type.getShape().back()},
                                                   type.getElementType()),
                             layout);
        node.workspaceBytes +=
            toArenaBytes(pixelBytes) + toArenaBytes(getFusedWindowBytes(def));
      }
  for (Value operand : operands) {
    if (std::optional<BufferId> buffer = graph.lookupBuffer(operand))
      node.inputs.push_back(*buffer);
    if (Operation *def = operand.getDefiningOp())
      if (std::optional<NodeId> pred = graph.lookupNode(def))
        node.preds.push_back(*pred);
  }
  if (!isMemoryEffectFree(op)) {
    if (lastEffectNode)
      node.preds.push_back(*lastEffectNode);
    lastEffectNode = id;
  }
  // Patches run one at a time: patch k after the last op of patch k - 1.
  if (Attribute attr = op->getAttr(kPatchAttrName)) {
    auto tag = dyn_cast<DenseI64ArrayAttr>(attr);
    if (!tag || tag.size() != 2 || tag[0] < 0 || tag[1] < 0)
      return op->emitError()
             << "'" << kPatchAttrName
             << "' must be array<i64: grid, patch> with non-negative entries";
    if (auto it = lastPatchNode.find({tag[0], tag[1] - 1});
        it != lastPatchNode.end())
      node.preds.push_back(it->second);
    lastPatchNode[{tag[0], tag[1]}] = id;
  }
  pushNode(std::move(node));

  if (isView) {
    // The result lives in the buffer of the viewed operand (an insert's
    // destination).
    auto insert = dyn_cast<tensor::InsertSliceOp>(op);
    std::optional<BufferId> source = graph.lookupBuffer(
        insert ? insert.getDest() : op->getOperand(0));
    graph.bufferOfValue[op->getResult(0)] = *source;
    return success();
  }
  // The lowering's in-place concat operands: the result is written into its
  // slice of the concat's buffer, allocated by the first of its writers.
  if (Operation *concat =
          isLowering() ? getInPlaceConcat(op, graph.costModel.io) : nullptr) {
    Value whole = concat->getResult(0);
    std::optional<BufferId> shared = graph.lookupBuffer(whole);
    if (shared) {
      graph.buffers[*shared].writers.push_back(id);
    } else {
      shared = addBuffer(whole, id);
      concatBuffers[concat] = *shared;
    }
    graph.bufferOfValue[op->getResult(0)] = *shared;
    graph.nodes[id].outputs.push_back(*shared);
    return success();
  }
  // A concat that copies some operands into its buffer, which a producer of
  // another operand allocated: one more writer.
  if (auto it = concatBuffers.find(op); it != concatBuffers.end()) {
    graph.buffers[it->second].writers.push_back(id);
    graph.bufferOfValue[op->getResult(0)] = it->second;
    graph.nodes[id].outputs.push_back(it->second);
    return success();
  }
  for (Value result : op->getResults())
    if (isa<TensorType>(result.getType()))
      graph.nodes[id].outputs.push_back(addBuffer(result, id));
  return success();
}

void DataflowGraphBuilder::applyLoweringRules(NodeId id) {
  Node &node = graph.nodes[id];
  Operation *op = node.op;
  if (node.isView || node.outputs.size() != 1)
    return;
  int64_t outputBytes = graph.buffers[node.outputs.front()].bytes;
  // An op computed into its slice of a concat overwrites no input
  // (getInPlaceConcat); only its workspace rules apply.
  bool intoSlice = getInPlaceConcat(op, graph.costModel.io) != nullptr;
  // The output takes over the buffer of `input` when it dies at the node.
  auto overwrite = [&](BufferId input) {
    node.inPlaceInput = input;
    node.inPlaceSaving = std::min(graph.buffers[input].bytes, outputBytes);
  };
  // A depthwise convolution computed in place, channel by channel: its
  // one-channel buffers are its whole workspace, and its output takes over
  // its dying input's buffer.
  Operation *depthwise = getInPlaceDepthwise(op);
  if (std::optional<BufferId> input =
          depthwise ? graph.lookupBuffer(depthwise->getOperand(0))
                    : std::nullopt) {
    node.workspaceBytes =
        getInPlaceDepthwiseWorkspace(depthwise, graph.costModel.alignment);
    overwrite(*input);
    return;
  }
  // A convolution computed pixel by pixel over its dying input: the output
  // starts alignOverwriteShift bytes from the input, and the two share the
  // rest of the input's bytes.
  if (std::optional<Overwrite> overwrite =
          getModeledOverwrite(op, graph.costModel)) {
    if (std::optional<BufferId> input = graph.lookupBuffer(overwrite->input)) {
      int64_t shift =
          alignOverwriteShift(overwrite->bound, graph.costModel.alignment);
      node.inPlaceInput = *input;
      node.inPlaceSaving = getOverwriteOverlap(graph.buffers[*input].bytes,
                                               outputBytes, shift);
    }
    return;
  }
  // The fused generic of an elementwise group writes over one of the
  // group's inputs that dies at it; a reduction writes a fresh buffer.
  if (isFusedGroupRoot(op)) {
    if (Value overwritten = intoSlice ? Value() : getOverwrittenValue(op))
      if (std::optional<BufferId> input = graph.lookupBuffer(overwritten))
        overwrite(*input);
    return;
  }
  if (!node.fusedOps.empty())
    return;
  // Elementwise ops write over an input that dies at them, and an insert
  // into a slice over its destination. A destination that is no buffer yet
  // (a `tensor.empty`) is allocated by the insert.
  if (std::optional<unsigned> operand =
          intoSlice ? std::nullopt : getOverwrittenOperand(op)) {
    if (std::optional<BufferId> input =
            graph.lookupBuffer(op->getOperand(*operand)))
      overwrite(*input);
    return;
  }
  // An op without operands (a `tosa.variable_read`) has no input to
  // overwrite or to size a workspace from.
  if (op->getNumOperands() == 0)
    return;
  std::optional<BufferId> input = graph.lookupBuffer(op->getOperand(0));
  if (!input)
    return;
  OpWorkspace workspace = getLoweringWorkspace(
      op, graph.buffers[*input].bytes, outputBytes, graph.costModel.alignment);
  node.workspaceBytes += workspace.workspaceBytes;
  if (workspace.savingIfInputDies) {
    node.inPlaceInput = *input;
    node.inPlaceSaving = workspace.savingIfInputDies;
  }
}

/// Inserts \p value into the sorted, unique vector \p values.
template <typename T>
static void insertSorted(SmallVectorImpl<T> &values, T value) {
  auto it = llvm::lower_bound(values, value);
  if (it == values.end() || *it != value)
    values.insert(it, value);
}

// An accumulating add `%sum = tosa.add %acc, %partial {memopt.accumulate}`
// (written by partition-concat for the partial convolutions of a split
// concat) needs no buffer of its own: the producer of %partial can accumulate
// straight into the buffer of %acc, as a linalg convolution accumulates into
// its init operand. When %acc (a node result, or the previous sum of the
// chain) and %partial (a fresh node result) are used only by this add and all
// three types are equal, the producer of %partial reads %acc and overwrites it
// in place (inPlaceInput), and the add becomes a view of %partial. The whole
// sum then occupies one buffer. Otherwise the add is an ordinary node.
bool DataflowGraphBuilder::addAccumulation(Operation *op) {
  // The lowering runs the add as an elementwise op (in place over %acc);
  // its model applies the elementwise rule instead.
  if (isLowering() || !isa<tosa::AddOp>(op) ||
      !op->hasAttr(kAccumulateAttrName))
    return false;
  Value acc = op->getOperand(0), partial = op->getOperand(1);
  Value sum = op->getResult(0);
  if (acc.getType() != sum.getType() || partial.getType() != sum.getType() ||
      !acc.hasOneUse() || !partial.hasOneUse() || acc == partial)
    return false;
  std::optional<BufferId> accBuffer = graph.lookupBuffer(acc);
  std::optional<BufferId> partialBuffer = graph.lookupBuffer(partial);
  Operation *accDefOp = acc.getDefiningOp();
  Operation *partialDefOp = partial.getDefiningOp();
  if (!accBuffer || !partialBuffer || !accDefOp || !partialDefOp)
    return false;
  std::optional<NodeId> accDef = graph.lookupNode(accDefOp);
  std::optional<NodeId> partialDef = graph.lookupNode(partialDefOp);
  const Buffer &accInfo = graph.buffers[*accBuffer];
  const Buffer &partialInfo = graph.buffers[*partialBuffer];
  // %acc: a plain node result nobody else reads, or the previous sum.
  bool accOk =
      accInfo.producer && ((accInfo.value == acc && accInfo.users.empty()) ||
                           accumulated.contains(acc));
  // %partial: the only output of a later node, read by nothing else yet.
  bool partialOk = partialInfo.value == partial && partialInfo.users.empty() &&
                   partialInfo.producer == partialDef;
  if (!accOk || !partialOk || !accDef || !partialDef || *accDef >= *partialDef)
    return false;
  Node &producer = graph.nodes[*partialDef];
  if (producer.outputs.size() != 1 || producer.inPlaceInput || producer.isView)
    return false;

  // The producer of %partial reads %acc and writes over it.
  insertSorted(producer.inputs, *accBuffer);
  insertSorted(producer.preds, *accDef);
  insertSorted(graph.nodes[*accDef].succs, *partialDef);
  insertSorted(graph.buffers[*accBuffer].users, *partialDef);
  producer.inPlaceInput = *accBuffer;
  producer.inPlaceSaving =
      std::min(graph.buffers[*accBuffer].bytes, partialInfo.bytes);

  // The add views the buffer of %partial; it still runs after both operands.
  NodeId id = graph.nodes.size();
  Node node;
  node.op = op;
  node.isView = true;
  node.inputs.push_back(*partialBuffer);
  node.preds.push_back(*accDef);
  insertSorted(node.preds, *partialDef);
  graph.nodes.push_back(std::move(node));
  graph.nodeOfOp[op] = id;
  graph.buffers[*partialBuffer].users.push_back(id);
  for (NodeId pred : graph.nodes[id].preds)
    graph.nodes[pred].succs.push_back(id);
  graph.bufferOfValue[sum] = *partialBuffer;
  accumulated.insert(sum);
  return true;
}

LogicalResult DataflowGraphBuilder::build(func::FuncOp func) {
  Region &body = func.getBody();
  if (!body.hasOneBlock())
    return func.emitOpError("has ")
           << body.getBlocks().size()
           << " blocks; mem-opt models functions whose body is a single "
              "block of tensor ops";

  for (BlockArgument arg : body.getArguments()) {
    std::string problem = checkActivationType(arg.getType());
    if (!problem.empty())
      return emitError(arg.getLoc())
             << "argument #" << arg.getArgNumber() << " of @"
             << func.getSymName() << ": " << problem;
    if (isa<TensorType>(arg.getType()))
      addBuffer(arg, std::nullopt);
  }
  FailureOr<SmallVector<StateBinding>> bindings = getStateBindings(func);
  if (failed(bindings))
    return failure();
  states = std::move(*bindings);
  // The lowering computes each state's new value over the old one, in the
  // caller's state buffer; the papers' model keeps them as inputs and
  // outputs.
  for (StateBinding state : states) {
    if (!isLowering())
      break;
    BlockArgument arg = body.getArgument(state.argument);
    Operation *update = getInPlaceStateUpdate(func, state);
    if (!update)
      return emitError(arg.getLoc())
             << "argument #" << state.argument << " of @" << func.getSymName()
             << " is a state whose new value, result #" << state.result
             << ", is not a shift that mem-opt computes in place: a "
                "tosa.concat of a tosa.slice of the state that drops its "
                "first entries along the concat's axis and of the new "
                "entries, the state and the slice read by nothing else";
    stateUpdates.insert(update);
    stateBuffers.insert(*graph.lookupBuffer(arg));
  }

  if (failed(addBlockOps(body.front())))
    return failure();
  if (!isLowering())
    return success();
  if (graph.costModel.io == IOPlacement::Caller)
    placeCallerIO(func);
  else
    alignArenaIO();
  // The states live in the caller's state buffer, outside the arena.
  for (BufferId id : stateBuffers)
    graph.buffers[id].bytes = 0;
  for (NodeId id = 0, e = graph.nodes.size(); id < e; ++id)
    applyLoweringRules(id);
  return success();
}

LogicalResult DataflowGraphBuilder::addBlockOps(Block &block) {
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      for (Value operand : op.getOperands())
        if (std::optional<BufferId> buffer = graph.lookupBuffer(operand))
          graph.buffers[*buffer].isGraphOutput = true;
      continue;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      if (failed(addLoop(loop)))
        return failure();
      continue;
    }
    // A `tensor.pad`'s region only yields its padding value.
    if (op.getNumRegions() != 0 && !isa<tensor::PadOp>(op))
      return op.emitOpError("has regions; mem-opt models single-block "
                            "functions of region-free tensor ops and "
                            "scf.for loops of them");
    // A slice at offsets and sizes a loop computes (a patch's rows inside
    // the image) is a view of a static buffer or weight.
    auto slice = dyn_cast<tensor::ExtractSliceOp>(op);
    bool dynamicView = slice && slice.getType().hasRank() &&
                       (graph.lookupBuffer(slice.getSource()) ||
                        weights.contains(slice.getSource()));
    for (Value result : op.getResults()) {
      std::string problem = checkActivationType(result.getType());
      if (!problem.empty() && !dynamicView)
        return op.emitOpError("result #")
               << cast<OpResult>(result).getResultNumber() << ": " << problem;
    }
    if (isWeightOp(&op)) {
      weights.insert(op.result_begin(), op.result_end());
      continue;
    }
    bool producesTensor = llvm::any_of(
        op.getResultTypes(), [](Type type) { return isa<TensorType>(type); });
    if (producesTensor && !isKnownDialect(&op))
      return op.emitOpError("is an unknown op producing tensors; mem-opt "
                            "cannot tell how much memory it needs");
    if (addAccumulation(&op))
      continue;
    if (isLowering() &&
        (isFusedAccumulator(&op) || isPadFusedIntoWindow(&op))) {
      fusedAccumulators.insert(&op);
      continue;
    }
    // Computed inside the node of its group's root; a pad merged into the
    // pads that read it is never built.
    if (isLowering() && (isFusedIntoConsumer(&op) || isPadMergedIntoUsers(&op)))
      continue;
    // The canonical model copies slices, as the papers count them. The
    // lowering copies a slice that is returned, maybe through reshapes
    // (isCopiedSlice).
    bool isCopiedSlice =
        isLowering() ? memopt::isCopiedSlice(&op) : isa<tosa::SliceOp>(op);
    bool isView = isViewOp(&op) && !isCopiedSlice &&
                  graph.lookupBuffer(op.getOperand(0)).has_value();
    // A concat whose every operand was produced into its slice copies
    // nothing: it is a view of its buffer.
    if (isLowering() && isa<tosa::ConcatOp>(op) &&
        llvm::all_of(op.getOperands(), [&](Value operand) {
          Operation *def = operand.getDefiningOp();
          return def && getInPlaceConcat(def, graph.costModel.io) == &op;
        }))
      isView = true;
    // An insert into a loop's carried value writes into the loop's result.
    if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
      std::optional<BufferId> dest = graph.lookupBuffer(insert.getDest());
      isView |= dest && carriedBuffers.contains(*dest);
    }
    if (failed(addNode(&op, isView)))
      return failure();
    if (stateUpdates.contains(&op))
      stateBuffers.insert(*graph.lookupBuffer(op.getResult(0)));
  }
  return success();
}

// A loop (patch-prefix's loop over patches) runs its body once per
// iteration over the same buffers: the lowering allocates the body's buffers
// inside the body, and the arena plan gives them the same offsets in every
// iteration (MemRefLiveness numbers the body's ops as steps of their own). So
// the loop is one node: it reads every activation its body reads (they stay
// live until the loop ends), allocates its results before the first
// iteration (their iter_args start from a `tensor.empty`; the body inserts
// into them in place), and its workspace is the peak of its body's own graph
// in block order, where the results and what the body reads from outside
// take no bytes.
LogicalResult DataflowGraphBuilder::addLoop(scf::ForOp loop) {
  DataflowGraph body;
  body.costModel = graph.costModel;
  DataflowGraphBuilder builder(body, layout);
  builder.weights.insert(loop.getInductionVar());
  for (auto [init, arg] :
       llvm::zip_equal(loop.getInitArgs(), loop.getRegionIterArgs())) {
    if (!isa<TensorType>(arg.getType()))
      continue;
    if (!init.getDefiningOp<tensor::EmptyOp>())
      return loop.emitOpError("carries a tensor that does not start as a "
                              "'tensor.empty'; mem-opt models loops that "
                              "compute their results in place");
    std::string problem = checkActivationType(arg.getType());
    if (!problem.empty())
      return loop.emitOpError("iter_arg #")
             << arg.getArgNumber() - 1 << ": " << problem;
    BufferId id = builder.addBuffer(arg, std::nullopt);
    body.buffers[id].bytes = 0;
    builder.carriedBuffers.insert(id);
  }
  // What the body reads from outside: weights stay weights, activations are
  // inputs of no bytes (they are live outside).
  SetVector<Value> above;
  getUsedValuesDefinedAbove(loop.getRegion(), above);
  SmallVector<BufferId> reads;
  for (Value value : above) {
    std::optional<BufferId> outer = graph.lookupBuffer(value);
    if (!outer) {
      builder.weights.insert(value);
      continue;
    }
    reads.push_back(*outer);
    body.buffers[builder.addBuffer(value, std::nullopt)].bytes = 0;
  }
  if (failed(builder.addBlockOps(*loop.getBody())))
    return failure();
  if (isLowering())
    for (NodeId id = 0, e = body.nodes.size(); id < e; ++id)
      builder.applyLoweringRules(id);

  NodeId id = graph.nodes.size();
  Node node;
  node.op = loop;
  node.workspaceBytes =
      BufferLiveness::evaluatePeak(body, body.getProgramOrder());
  node.inputs.assign(reads.begin(), reads.end());
  for (BufferId read : reads)
    if (std::optional<NodeId> producer = graph.buffers[read].producer)
      node.preds.push_back(*producer);
  pushNode(std::move(node));
  for (Value result : loop.getResults())
    if (isa<TensorType>(result.getType()))
      graph.nodes[id].outputs.push_back(addBuffer(result, id));
  return success();
}

/// Returns the type of the buffer the linalg lowering computes \p value of
/// \p op into: tosa-to-linalg computes a reduction without its reduced
/// dimension (the TOSA result is a reshape of it), and a 5-d depthwise
/// convolution with the multiplier dimension (null: no returned type is
/// that); otherwise \p value's own type.
static Type getLoweredType(Operation *op, Value value) {
  if (isa<tosa::ReduceSumOp, tosa::ReduceMaxOp, tosa::ReduceMinOp,
          tosa::ReduceProductOp, tosa::ReduceAllOp, tosa::ReduceAnyOp>(op)) {
    auto type = cast<RankedTensorType>(value.getType());
    auto axis = op->getAttrOfType<IntegerAttr>("axis");
    if (!axis || axis.getInt() < 0 || axis.getInt() >= type.getRank())
      return {};
    SmallVector<int64_t> shape(type.getShape());
    shape.erase(shape.begin() + axis.getInt());
    return RankedTensorType::get(shape, type.getElementType());
  }
  auto depthwise = dyn_cast<tosa::DepthwiseConv2DOp>(op);
  if (depthwise && !isFourDimDepthwise(depthwise) &&
      !getInPlaceDepthwise(depthwise))
    return {};
  return value.getType();
}

// Under `io=caller` the caller passes every input and output buffer; they are
// live for the whole call and not in the arena. An output computed into its
// buffer is computed in the caller's (a value returned twice is copied from
// the first caller buffer into the second); an output that is only returned
// as a view of an arena buffer of another shape is copied into the caller's
// buffer at the end, so its arena buffer stays.
void DataflowGraphBuilder::placeCallerIO(func::FuncOp func) {
  DenseSet<BufferId> movedOut;
  for (auto [index, result] : llvm::enumerate(
           func.getBody().front().getTerminator()->getOperands())) {
    // A state's new value is written over the state in its own buffer.
    if (llvm::any_of(states, [&, index = index](StateBinding state) {
          return state.result == index;
        }))
      continue;
    std::optional<BufferId> id = graph.lookupBuffer(result);
    std::optional<int64_t> bytes = getStorageBytes(result.getType(), layout);
    if (!bytes)
      continue;
    graph.pinnedBytes += *bytes;
    // A buffer returned again is copied from its caller buffer.
    if (!id || graph.buffers[*id].isGraphInput() || movedOut.contains(*id))
      continue;
    // The ops that overwrite their input on the way share one allocation,
    // that of the first of them. When that allocation has the output's type,
    // the reshapes in between fold away and it is the caller's buffer; when
    // it has another shape, the output is a reshape of it, which is copied
    // into the caller's buffer, and nothing moves. (Found by the pass
    // fuzzer, test/fuzz/pass_fuzz.py.)
    auto overwrittenBuffer = [&](BufferId buffer) -> std::optional<BufferId> {
      Operation *producer = graph.nodes[*graph.buffers[buffer].producer].op;
      // A concat operand's producer writes into the concat's buffer.
      if (getInPlaceConcat(producer, graph.costModel.io))
        return std::nullopt;
      Value overwritten = getOverwrittenValue(producer);
      std::optional<BufferId> input =
          overwritten ? graph.lookupBuffer(overwritten) : std::nullopt;
      if (input && (graph.buffers[*input].isGraphInput() ||
                    graph.buffers[*input].isGraphOutput))
        return std::nullopt;
      return input;
    };
    BufferId first = *id;
    while (std::optional<BufferId> input = overwrittenBuffer(first))
      first = *input;
    if (getLoweredType(graph.nodes[*graph.buffers[first].producer].op,
                       graph.buffers[first].value) != result.getType())
      continue;
    // The output is written into the caller's buffer, and so is every
    // elementwise op's input that it overwrites on the way. (A buffer
    // returned first as a reshape of another shape, which is copied, moves
    // when it is returned as itself.)
    movedOut.insert(*id);
    for (std::optional<BufferId> buffer = id; buffer;
         buffer = overwrittenBuffer(*buffer))
      graph.buffers[*buffer].bytes = 0;
  }
  for (auto [id, buffer] : llvm::enumerate(graph.buffers)) {
    if (!buffer.isGraphInput() || stateBuffers.contains(id))
      continue;
    graph.pinnedBytes += *getStorageBytes(buffer.value.getType(), layout);
    buffer.bytes = 0;
  }
  // A convolution whose output is now the caller's buffer (an output
  // computed over it on the way) writes there: it shares no arena bytes
  // with its input, and memplan-plan-arena pairs nothing.
  for (Node &node : graph.nodes)
    if (node.inPlaceInput && node.outputs.size() == 1 &&
        !graph.buffers[node.outputs.front()].bytes &&
        getModeledOverwrite(node.op, graph.costModel))
      node.inPlaceSaving = 0;
}

// Under `io=arena` an input or output buffer takes its element's alignment
// (getArenaAlignment), not the arena's: the bytes the caller's own array
// would take. So does every buffer that the ops computing an output overwrite
// on the way (an in-place op whose result is returned): the lowering computes
// them all in one allocation, the output's.
void DataflowGraphBuilder::alignArenaIO() {
  auto alignAsIO = [&](Buffer &buffer) {
    auto type = cast<ShapedType>(buffer.value.getType());
    int64_t elementAlignment =
        getElementStorageAlignment(type.getElementType(), layout).value_or(1);
    buffer.alignment = getArenaAlignment(
        elementAlignment, /*holdsGraphIO=*/true, graph.costModel.alignment);
    buffer.bytes =
        getArenaBytes(*getStorageBytes(type, layout), buffer.alignment);
  };
  for (BufferId id = 0, e = graph.buffers.size(); id < e; ++id) {
    if ((!graph.buffers[id].isGraphInput() &&
         !graph.buffers[id].isGraphOutput) ||
        stateBuffers.contains(id))
      continue;
    alignAsIO(graph.buffers[id]);
    for (BufferId current = id; !graph.buffers[current].isGraphInput();) {
      Value overwritten =
          getOverwrittenValue(graph.nodes[*graph.buffers[current].producer].op);
      std::optional<BufferId> input =
          overwritten ? graph.lookupBuffer(overwritten) : std::nullopt;
      if (!input || graph.buffers[*input].isGraphInput() ||
          graph.buffers[*input].isGraphOutput)
        break;
      alignAsIO(graph.buffers[*input]);
      current = *input;
    }
  }
}

//===----------------------------------------------------------------------===//
// DataflowGraph
//===----------------------------------------------------------------------===//

FailureOr<DataflowGraph> DataflowGraph::build(func::FuncOp func,
                                              const CostModelOptions &options) {
  DataflowGraph graph;
  graph.costModel = options;
  DataflowGraphBuilder builder(graph, func);
  if (failed(builder.build(func)))
    return failure();
  return graph;
}

std::optional<NodeId> DataflowGraph::lookupNode(Operation *op) const {
  auto it = nodeOfOp.find(op);
  if (it == nodeOfOp.end())
    return std::nullopt;
  return it->second;
}

std::optional<BufferId> DataflowGraph::lookupBuffer(Value value) const {
  auto it = bufferOfValue.find(value);
  if (it == bufferOfValue.end())
    return std::nullopt;
  return it->second;
}

SmallVector<NodeId> DataflowGraph::getProgramOrder() const {
  SmallVector<NodeId> order(nodes.size());
  for (NodeId id = 0, e = nodes.size(); id < e; ++id)
    order[id] = id;
  return order;
}

bool DataflowGraph::isValidOrder(ArrayRef<NodeId> order) const {
  if (order.size() != nodes.size())
    return false;
  constexpr unsigned unplaced = ~0u;
  SmallVector<unsigned> position(nodes.size(), unplaced);
  for (auto [step, node] : llvm::enumerate(order)) {
    if (node >= nodes.size() || position[node] != unplaced)
      return false;
    position[node] = step;
  }
  for (NodeId node = 0, e = nodes.size(); node < e; ++node)
    for (NodeId pred : nodes[node].preds)
      if (position[pred] >= position[node])
        return false;
  return true;
}

std::string DataflowGraph::getNodeName(NodeId node) const {
  Operation *op = nodes[node].op;
  if (auto nameLoc = dyn_cast<NameLoc>(op->getLoc()))
    return nameLoc.getName().str();
  return (op->getName().getStringRef() + "#" + Twine(node)).str();
}

std::string DataflowGraph::getBufferName(BufferId buffer) const {
  const Buffer &info = buffers[buffer];
  if (info.isGraphInput()) {
    auto arg = cast<BlockArgument>(info.value);
    if (auto nameLoc = dyn_cast<NameLoc>(arg.getLoc()))
      return nameLoc.getName().str();
    return ("%arg" + Twine(arg.getArgNumber())).str();
  }
  std::string name = getNodeName(*info.producer);
  if (nodes[*info.producer].outputs.size() > 1)
    name += "#" + std::to_string(cast<OpResult>(info.value).getResultNumber());
  return name;
}

void DataflowGraph::print(raw_ostream &os) const {
  for (auto [id, buffer] : llvm::enumerate(buffers)) {
    os << "buffer " << id << " '" << getBufferName(id) << "' " << buffer.bytes
       << " bytes";
    if (buffer.isGraphInput())
      os << ", input";
    if (buffer.isGraphOutput)
      os << ", output";
    os << ", users [";
    llvm::interleaveComma(buffer.users, os);
    os << "]\n";
  }
  for (auto [id, node] : llvm::enumerate(nodes)) {
    os << "node " << id << " '" << getNodeName(id) << "' "
       << node.op->getName();
    if (node.isView)
      os << " (view)";
    os << " reads [";
    llvm::interleaveComma(node.inputs, os);
    os << "] writes [";
    llvm::interleaveComma(node.outputs, os);
    os << "] after [";
    llvm::interleaveComma(node.preds, os);
    os << "]\n";
  }
}

void DataflowGraph::dump() const { print(llvm::errs()); }
