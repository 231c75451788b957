//===- SchedulerTest.cpp - Scheduler on graphs vs brute force -------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The exact engine must find the minimum peak over all topological orders,
// which here is computed by enumerating them and evaluating each with the
// brute-force model of RandomGraph.h. The graphs go through the adapter
// (ScheduleProblemBuilder) into the IR-free library. Bounds must stay sound
// when limits stop the search, and the pass must never raise the peak nor
// break the IR.
//
//===----------------------------------------------------------------------===//

#include "RandomGraph.h"
#include "TestUtils.h"

#include "MemOpt/Analysis/BufferLiveness.h"
#include "MemOpt/Analysis/ScheduleProblemBuilder.h"
#include "MemOpt/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

// rapidcheck/gtest.h needs gtest/gtest.h first.
#include "gtest/gtest.h"

#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::testgen;

namespace {

/// A parsed function and its dataflow graph.
struct Parsed {
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;
  std::optional<DataflowGraph> graph;

  /// Parses \p text; reports failure through \p ok.
  bool parse(StringRef text) {
    module = parseTestString(context, text);
    if (!module)
      return false;
    func = *module->getOps<func::FuncOp>().begin();
    FailureOr<DataflowGraph> built = DataflowGraph::build(func);
    if (failed(built))
      return false;
    graph = std::move(*built);
    return true;
  }
};

/// Returns the smallest brute-force peak over every topological order of the
/// steps of \p fn.
int64_t bruteForceOptimum(const GenFunction &fn) {
  int n = fn.steps.size();
  std::vector<int> order;
  std::vector<bool> done(n, false);
  int64_t best = std::numeric_limits<int64_t>::max();
  std::function<void()> recurse = [&] {
    if (static_cast<int>(order.size()) == n) {
      std::vector<int64_t> live = bruteForceLiveBytes(fn, order);
      best = std::min(best, bruteForcePeak(fn, live));
      return;
    }
    for (int s = 0; s < n; ++s) {
      if (done[s] ||
          !llvm::all_of(fn.steps[s].deps, [&](int dep) { return done[dep]; }))
        continue;
      done[s] = true;
      order.push_back(s);
      recurse();
      order.pop_back();
      done[s] = false;
    }
  };
  recurse();
  return best;
}

/// Brute-force peak of \p order.
int64_t bruteForcePeak(const GenFunction &fn, ArrayRef<NodeId> order) {
  std::vector<int64_t> live =
      bruteForceLiveBytes(fn, std::vector<int>(order.begin(), order.end()));
  return bruteForcePeak(fn, live);
}

} // namespace

//===----------------------------------------------------------------------===//
// Known answers
//===----------------------------------------------------------------------===//

TEST(MemorySchedulerTest, LiberisAlgorithms) {
  MLIRContext context;
  OwningOpRef<ModuleOp> module =
      parseTestFile(context, MEMOPT_SOURCE_DIR "/test/Inputs/liberis.mlir");
  ASSERT_TRUE(module);
  FailureOr<DataflowGraph> graph =
      DataflowGraph::build(*module->getOps<func::FuncOp>().begin());
  ASSERT_TRUE(succeeded(graph));
  auto names = [&](ArrayRef<NodeId> order) {
    std::string text;
    for (NodeId node : order)
      text += graph->getNodeName(node) + " ";
    return text;
  };

  // Published optimum: 4960 bytes, order 1,4,6,2,3,5,7.
  ScheduleResult exact = scheduleForMemory(*graph, ScheduleAlgorithm::Exact);
  EXPECT_EQ(exact.peakBytes, 4960);
  EXPECT_EQ(exact.lowerBound, 4960);
  EXPECT_TRUE(exact.optimal);
  EXPECT_EQ(exact.inputPeakBytes, 5216);
  EXPECT_EQ(names(exact.order), "op1 op4 op6 op2 op3 op5 op7 ");

  // File order: 5216, and nothing proves it optimal.
  ScheduleResult input = scheduleForMemory(*graph, ScheduleAlgorithm::Input);
  EXPECT_EQ(input.peakBytes, 5216);
  EXPECT_FALSE(input.optimal);
  EXPECT_EQ(names(input.order), "op1 op2 op3 op4 op5 op6 op7 ");

  // Breadth first runs op4 while t1 and t2 are live: 3136 + 1568 + 512.
  ScheduleResult kahn = scheduleForMemory(*graph, ScheduleAlgorithm::Kahn);
  EXPECT_EQ(names(kahn.order), "op1 op2 op4 op3 op6 op5 op7 ");
  EXPECT_EQ(kahn.peakBytes, 5216);

  // Depth first from op1 visits op2's chain first, so its reverse post-order
  // starts with op4's branch.
  ScheduleResult rpo =
      scheduleForMemory(*graph, ScheduleAlgorithm::ReversePostOrder);
  EXPECT_EQ(names(rpo.order), "op1 op4 op6 op2 op3 op5 op7 ");
  EXPECT_EQ(rpo.peakBytes, 4960);

  // Greedy: after op1, op4 (step 3648) beats op2 (4704); then op6 (3904)
  // beats op2 (5216).
  ScheduleResult greedy = scheduleForMemory(*graph, ScheduleAlgorithm::Greedy);
  EXPECT_EQ(names(greedy.order), "op1 op4 op6 op2 op3 op5 op7 ");
}

/// Returns the exact peak of the single function in \p text.
static int64_t exactPeak(StringRef text) {
  Parsed parsed;
  if (!parsed.parse(text))
    return -1;
  ScheduleResult exact =
      scheduleForMemory(*parsed.graph, ScheduleAlgorithm::Exact);
  EXPECT_TRUE(exact.optimal);
  EXPECT_EQ(BufferLiveness::evaluatePeak(*parsed.graph, exact.order),
            exact.peakBytes);
  return exact.peakBytes;
}

// Two idle nodes (they free nothing) feed one target: both must run right
// before it, together. The kept outputs v1, v2, v4, v5, v6, v8 (3 elements)
// and v11 end at 9 floats. Order v3 v9 v4 v5 v6 v8 v11 peaks at v8: the
// inputs v0 v1 v2, v4 v5 v6 and v8's 3 floats, 36 bytes; v11 then runs once
// v0 is dead (8 floats live + 1). Any order running v11 while v0 is live
// needs 40.
TEST(MemorySchedulerTest, IdleNodesPileBeforeTheirTarget) {
  EXPECT_EQ(exactPeak(R"mlir(
func.func @f(%v0: tensor<1xf32>, %v1: tensor<1xf32>, %v2: tensor<1xf32>) -> (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<3xf32>, tensor<1xf32>) {
  %v3 = tosa.abs %v1 : (tensor<1xf32>) -> tensor<1xf32>
  %v4 = tosa.abs %v0 : (tensor<1xf32>) -> tensor<1xf32>
  %v5 = tosa.reduce_sum %v0 {axis = 0 : i32} : (tensor<1xf32>) -> tensor<1xf32>
  %v6 = tosa.abs %v0 : (tensor<1xf32>) -> tensor<1xf32>
  %v8 = tosa.concat %v5, %v0, %v4 {axis = 0 : i32} : (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<3xf32>
  %v9 = tosa.abs %v0 : (tensor<1xf32>) -> tensor<1xf32>
  %v11 = tosa.abs %v1 : (tensor<1xf32>) -> tensor<1xf32>
  return %v1, %v2, %v4, %v5, %v6, %v8, %v11 : tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<3xf32>, tensor<1xf32>
}
)mlir"),
            36);
}

// Two idle readers of v0 kill it for each other: whichever runs second
// frees v0. Order v4 v3 v2 v7 v5 peaks at 20 bytes (v2's step: v0, v3, v2;
// v7's step: v3, v2, v7); running v2 and v7 before v3 holds v0, v2 and v7
// (24 bytes).
TEST(MemorySchedulerTest, IdleNodeRunsBeforeItsKiller) {
  EXPECT_EQ(exactPeak(R"mlir(
func.func @f(%v0: tensor<2xf32>) -> (tensor<1xf32>, tensor<1xf32>, tensor<2xf32>) {
  %v2 = tosa.abs %v0 : (tensor<2xf32>) -> tensor<2xf32>
  %v3 = tosa.reduce_sum %v0 {axis = 0 : i32} : (tensor<2xf32>) -> tensor<1xf32>
  %v4 = tosa.abs %v0 : (tensor<2xf32>) -> tensor<2xf32>
  %v5 = tosa.concat %v3 {axis = 0 : i32} : (tensor<1xf32>) -> tensor<1xf32>
  %v7 = tosa.abs %v2 : (tensor<2xf32>) -> tensor<2xf32>
  return %v3, %v5, %v7 : tensor<1xf32>, tensor<1xf32>, tensor<2xf32>
}
)mlir"),
            20);
}

//===----------------------------------------------------------------------===//
// Properties
//===----------------------------------------------------------------------===//

RC_GTEST_PROP(MemorySchedulerProperty, ExactMatchesBruteForce, ()) {
  GenFunction fn = *genFunction(/*maxOps=*/11);
  Parsed parsed;
  RC_ASSERT(parsed.parse(fn.text));
  RC_TAG(fn.steps.size());
  const DataflowGraph &graph = *parsed.graph;
  int64_t optimum = bruteForceOptimum(fn);

  ScheduleResult exact = scheduleForMemory(graph, ScheduleAlgorithm::Exact);
  RC_ASSERT(graph.isValidOrder(exact.order));
  RC_ASSERT(exact.peakBytes == optimum);
  RC_ASSERT(bruteForcePeak(fn, exact.order) == optimum);
  RC_ASSERT(exact.optimal);
  RC_ASSERT(exact.lowerBound == optimum);
  RC_ASSERT(exact.peakBytes <= exact.inputPeakBytes);

  // Every baseline reports the true peak of the valid order it returns.
  for (ScheduleAlgorithm algorithm :
       {ScheduleAlgorithm::Input, ScheduleAlgorithm::Kahn,
        ScheduleAlgorithm::ReversePostOrder, ScheduleAlgorithm::Greedy}) {
    ScheduleResult result = scheduleForMemory(graph, algorithm);
    RC_ASSERT(graph.isValidOrder(result.order));
    RC_ASSERT(result.peakBytes == bruteForcePeak(fn, result.order));
    RC_ASSERT(result.peakBytes >= optimum);
    RC_ASSERT(result.lowerBound <= optimum);
  }
}

// Few returned values: most buffers die inside the function, so many nodes
// free inputs or idle, which exercises the idle-node rule of the search.
RC_GTEST_PROP(MemorySchedulerProperty, ExactMatchesBruteForceFewOutputs, ()) {
  GenFunction fn = *genFunction(/*maxOps=*/11, /*returnOneIn=*/10);
  Parsed parsed;
  RC_ASSERT(parsed.parse(fn.text));
  int64_t optimum = bruteForceOptimum(fn);
  ScheduleResult exact =
      scheduleForMemory(*parsed.graph, ScheduleAlgorithm::Exact);
  RC_ASSERT(parsed.graph->isValidOrder(exact.order));
  RC_ASSERT(bruteForcePeak(fn, exact.order) == optimum);
  RC_ASSERT(exact.optimal);
}

RC_GTEST_PROP(MemorySchedulerProperty, BoundsStaySoundUnderLimits, ()) {
  GenFunction fn = *genFunction(/*maxOps=*/11);
  Parsed parsed;
  RC_ASSERT(parsed.parse(fn.text));
  int64_t optimum = bruteForceOptimum(fn);
  SchedulerLimits limits;
  limits.maxStates = *rc::gen::inRange<uint64_t>(1, 8);
  ScheduleResult result =
      scheduleForMemory(*parsed.graph, ScheduleAlgorithm::Exact, limits);
  RC_ASSERT(parsed.graph->isValidOrder(result.order));
  RC_ASSERT(result.lowerBound <= optimum);
  RC_ASSERT(optimum <= result.peakBytes);
  RC_ASSERT(result.peakBytes <= result.inputPeakBytes);
  RC_ASSERT(result.optimal ==
            (result.peakBytes == optimum && result.lowerBound == optimum));
}

RC_GTEST_PROP(MemorySchedulerProperty, StepModelMatchesLiveness, ()) {
  GenFunction fn = *genFunction();
  Parsed parsed;
  RC_ASSERT(parsed.parse(fn.text));
  ScheduleResult greedy =
      scheduleForMemory(*parsed.graph, ScheduleAlgorithm::Greedy);
  RC_ASSERT(evaluateSchedulePeak(*parsed.graph, greedy.order) ==
            BufferLiveness::evaluatePeak(*parsed.graph, greedy.order));
  // The search scores orders with bitsets, the replay with reader counts;
  // both call StepModel::step.
  RC_ASSERT(greedy.peakBytes ==
            BufferLiveness::evaluatePeak(*parsed.graph, greedy.order));
}

RC_GTEST_PROP(MemorySchedulePassProperty, NeverRaisesPeakAndVerifies, ()) {
  GenFunction fn = *genFunction(/*maxOps=*/11);
  Parsed parsed;
  RC_ASSERT(parsed.parse(fn.text));
  int64_t before = BufferLiveness(parsed.func).getProgramLiveness().peakBytes;
  int64_t optimum = bruteForceOptimum(fn);

  PassManager pm(&parsed.context);
  MemorySchedulePassOptions options;
  options.recordTime = false;
  // The brute force and BufferLiveness(op) use the canonical model.
  options.model = MemoryModelKind::Canonical;
  pm.addNestedPass<func::FuncOp>(createMemorySchedulePass(options));
  RC_ASSERT(succeeded(pm.run(*parsed.module)));
  RC_ASSERT(succeeded(verify(*parsed.module)));

  BufferLiveness after(parsed.func);
  RC_ASSERT(after.isValid());
  int64_t peak = after.getProgramLiveness().peakBytes;
  RC_ASSERT(peak <= before);
  RC_ASSERT(peak == optimum);
  auto recorded = parsed.func->getAttrOfType<IntegerAttr>("memopt.peak_bytes");
  RC_ASSERT(recorded && recorded.getInt() == peak);
  RC_ASSERT(!parsed.func->hasAttr("memopt.schedule_time_ms"));
}

/// Returns the smallest peak of any topological order of \p graph, by
/// enumeration, each order scored by the BufferLiveness replay.
static int64_t enumerateOptimum(const DataflowGraph &graph) {
  SmallVector<NodeId> order = graph.getProgramOrder();
  int64_t optimum = std::numeric_limits<int64_t>::max();
  do {
    if (graph.isValidOrder(order))
      optimum = std::min(optimum, BufferLiveness::evaluatePeak(graph, order));
  } while (std::next_permutation(order.begin(), order.end()));
  return optimum;
}

RC_GTEST_PROP(MemorySchedulerProperty, ExactHonorsWorkspaceAndInPlace, ()) {
  GenFunction fn = *genFunction(/*maxOps=*/9);
  Parsed parsed;
  RC_ASSERT(parsed.parse(fn.text));
  DataflowGraph graph = *parsed.graph;
  RC_PRE(graph.getNumNodes() <= 8u);
  // Random scratch space and in-place rules.
  for (NodeId node = 0; node < graph.getNumNodes(); ++node) {
    Node &info = graph.getNode(node);
    info.workspaceBytes = *rc::gen::inRange<int64_t>(0, 3) * 100;
    if (!info.inputs.empty() && *rc::gen::inRange(0, 2)) {
      info.inPlaceInput =
          info.inputs[*rc::gen::inRange<size_t>(0, info.inputs.size())];
      info.inPlaceSaving = *rc::gen::inRange<int64_t>(0, 3) * 50;
    }
  }
  int64_t optimum = enumerateOptimum(graph);

  ScheduleResult exact = scheduleForMemory(graph, ScheduleAlgorithm::Exact);
  RC_ASSERT(graph.isValidOrder(exact.order));
  RC_ASSERT(exact.peakBytes == optimum);
  RC_ASSERT(BufferLiveness::evaluatePeak(graph, exact.order) == optimum);
  RC_ASSERT(exact.optimal);
}

// The certificate is about the device's bytes: under the lowering's model
// (in-place elementwise ops, views, alignment, either I/O placement, concat
// operands produced into their slice of a returned concat) the exact search
// finds the minimum over all topological orders.
RC_GTEST_PROP(MemorySchedulerProperty, ExactIsOptimalUnderTheLoweringModel,
              ()) {
  GenFunction fn = *genFunction(/*maxOps=*/10);
  Parsed parsed;
  RC_ASSERT(parsed.parse(fn.text));
  CostModelOptions model;
  model.kind = MemoryModelKind::Lowering;
  model.io = *rc::gen::element(IOPlacement::Arena, IOPlacement::Caller);
  model.alignment = *rc::gen::element<int64_t>(1, 16, 64);
  FailureOr<DataflowGraph> graph = DataflowGraph::build(parsed.func, model);
  RC_ASSERT(succeeded(graph));
  RC_PRE(graph->getNumNodes() <= 8u);
  // Under io=caller, abs results read only by a returned concat are
  // produced into their slice: the concat's buffer has several writers.
  RC_CLASSIFY(llvm::any_of(graph->getBuffers(),
                           [](const Buffer &buffer) {
                             return !buffer.writers.empty();
                           }),
              "multi-writer concat");
  int64_t optimum = enumerateOptimum(*graph);
  ScheduleResult exact = scheduleForMemory(*graph, ScheduleAlgorithm::Exact);
  RC_ASSERT(graph->isValidOrder(exact.order));
  RC_ASSERT(exact.peakBytes == optimum);
  RC_ASSERT(exact.optimal);
}

// Concat operands produced into their slice (getInPlaceConcat) under the
// lowering's model with io=caller: random functions of abs ops over f32
// vectors whose returned concat reads some of them (a value read only by it
// is computed into its slice, so the concat's buffer has several writers;
// one read again, repeated, or a graph input is copied). The exact search
// must find the minimum over all topological orders.
RC_GTEST_PROP(MemorySchedulerProperty, ExactIsOptimalWithInPlaceConcats, ()) {
  std::vector<int> lengths;
  std::string args, body;
  int numInputs = *rc::gen::inRange(1, 3);
  auto type = [](int length) {
    return "tensor<" + std::to_string(length) + "xf32>";
  };
  for (int i = 0; i < numInputs; ++i) {
    lengths.push_back(*rc::gen::inRange(1, 65));
    args += (i ? ", %v" : "%v") + std::to_string(i) + ": " + type(lengths[i]);
  }
  int numOps = *rc::gen::inRange(1, 7);
  for (int op = 0; op < numOps; ++op) {
    int operand = *rc::gen::inRange(0, static_cast<int>(lengths.size()));
    std::string t = type(lengths[operand]);
    body += "  %v" + std::to_string(lengths.size()) + " = tosa.abs %v" +
            std::to_string(operand) + " : (" + t + ") -> " + t + "\n";
    lengths.push_back(lengths[operand]);
  }
  // The concat reads two to four values, mostly op results.
  int count = *rc::gen::inRange(2, 5);
  std::string names, types;
  int total = 0;
  for (int i = 0; i < count; ++i) {
    int value = *rc::gen::inRange(0, 4) == 0
                    ? *rc::gen::inRange(0, static_cast<int>(lengths.size()))
                    : *rc::gen::inRange(numInputs,
                                        static_cast<int>(lengths.size()));
    names += (i ? ", %v" : "%v") + std::to_string(value);
    types += (i ? ", " : "") + type(lengths[value]);
    total += lengths[value];
  }
  body += "  %cat = tosa.concat " + names + " {axis = 0 : i32} : (" + types +
          ") -> " + type(total) + "\n";
  // Sometimes an op result is returned as well.
  std::string results = "%cat", resultTypes = type(total);
  if (*rc::gen::inRange(0, 3) == 0) {
    int value = *rc::gen::inRange(0, static_cast<int>(lengths.size()));
    results += ", %v" + std::to_string(value);
    resultTypes += ", " + type(lengths[value]);
  }
  std::string text = "func.func @f(" + args + ") -> (" + resultTypes +
                     ") {\n" + body + "  return " + results + " : " +
                     resultTypes + "\n}\n";
  RC_LOG() << text;
  Parsed parsed;
  RC_ASSERT(parsed.parse(text));
  CostModelOptions model;
  model.kind = MemoryModelKind::Lowering;
  model.io = IOPlacement::Caller;
  model.alignment = *rc::gen::element<int64_t>(1, 16, 64);
  FailureOr<DataflowGraph> graph = DataflowGraph::build(parsed.func, model);
  RC_ASSERT(succeeded(graph));
  RC_PRE(graph->getNumNodes() <= 8u);
  RC_CLASSIFY(llvm::any_of(graph->getBuffers(),
                           [](const Buffer &buffer) {
                             return !buffer.writers.empty();
                           }),
              "multi-writer concat");
  int64_t optimum = enumerateOptimum(*graph);
  ScheduleResult exact = scheduleForMemory(*graph, ScheduleAlgorithm::Exact);
  RC_ASSERT(graph->isValidOrder(exact.order));
  RC_ASSERT(exact.peakBytes == optimum);
  RC_ASSERT(exact.optimal);
}
