//===- BufferLivenessPropertyTest.cpp - BufferLiveness vs brute force -----===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Property tests: random TOSA DAGs (with weights, views, dead values, returned
// inputs) are printed as IR, parsed, analyzed, and compared step by step with
// a brute-force evaluation of the canonical model that works on the
// generator's own description of the graph, never on the DataflowGraph.
//
//===----------------------------------------------------------------------===//

#include "RandomGraph.h"
#include "TestUtils.h"

#include "MemOpt/Analysis/BufferLiveness.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

// rapidcheck/gtest.h needs gtest/gtest.h first.
#include "gtest/gtest.h"

#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::testgen;

namespace {

/// Parses \p fn and returns its analysis; fails the property on parse errors.
struct Analyzed {
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::optional<BufferLiveness> liveness;

  explicit Analyzed(const GenFunction &fn) {
    module = parseTestString(context, fn.text);
    RC_ASSERT(static_cast<bool>(module));
    liveness.emplace(*module->getOps<func::FuncOp>().begin());
    RC_ASSERT(liveness->isValid());
  }
};

} // namespace

RC_GTEST_PROP(BufferLivenessProperty, FileOrderMatchesBruteForce, ()) {
  GenFunction fn = *genFunction();
  RC_TAG(fn.steps.size());
  Analyzed analyzed(fn);
  const DataflowGraph &graph = analyzed.liveness->getGraph();
  RC_ASSERT(graph.getNumNodes() == fn.steps.size());
  for (NodeId id = 0; id < graph.getNumNodes(); ++id)
    RC_ASSERT(graph.getNode(id).op->getName().getStringRef().str() ==
              fn.steps[id].opName);

  std::vector<int> fileOrder(fn.steps.size());
  for (size_t i = 0; i < fileOrder.size(); ++i)
    fileOrder[i] = i;
  std::vector<int64_t> expected = bruteForceLiveBytes(fn, fileOrder);
  const ScheduleLiveness &profile = analyzed.liveness->getProgramLiveness();
  RC_ASSERT(std::vector<int64_t>(profile.liveBytes.begin(),
                                 profile.liveBytes.end()) == expected);
  int64_t peak = bruteForcePeak(fn, expected);
  RC_ASSERT(profile.peakBytes == peak);
  if (!expected.empty())
    RC_ASSERT(expected[profile.peakStep] == peak);
}

RC_GTEST_PROP(BufferLivenessProperty, RandomTopologicalOrdersMatchBruteForce,
              ()) {
  GenFunction fn = *genFunction();
  Analyzed analyzed(fn);
  const DataflowGraph &graph = analyzed.liveness->getGraph();

  // A random topological order of the generator's steps: repeatedly run a
  // random ready step.
  int numSteps = fn.steps.size();
  std::vector<int> order;
  std::vector<bool> done(numSteps, false);
  while (static_cast<int>(order.size()) < numSteps) {
    std::vector<int> ready;
    for (int s = 0; s < numSteps; ++s)
      if (!done[s] &&
          llvm::all_of(fn.steps[s].deps, [&](int dep) { return done[dep]; }))
        ready.push_back(s);
    RC_ASSERT(!ready.empty());
    int next = ready[*rc::gen::inRange(0, static_cast<int>(ready.size()))];
    done[next] = true;
    order.push_back(next);
  }
  SmallVector<NodeId> nodeOrder(order.begin(), order.end());
  RC_ASSERT(graph.isValidOrder(nodeOrder));

  std::vector<int64_t> expected = bruteForceLiveBytes(fn, order);
  ScheduleLiveness profile = BufferLiveness::evaluate(graph, nodeOrder);
  RC_ASSERT(std::vector<int64_t>(profile.liveBytes.begin(),
                                 profile.liveBytes.end()) == expected);
  RC_ASSERT(BufferLiveness::evaluatePeak(graph, nodeOrder) ==
            profile.peakBytes);
}

/// Independent brute force on IR for models whose only weights are
/// `tosa.const` and that have no views: every other op is a step, every tensor
/// result a buffer sized from its type here.
static std::vector<int64_t> bruteForceOnIR(func::FuncOp func) {
  struct Info {
    int64_t bytes;
    int start, end;
    bool output;
  };
  llvm::MapVector<Value, Info> buffers;
  auto sizeOf = [](Type type) {
    auto tensor = cast<RankedTensorType>(type);
    int64_t bytes = (tensor.getElementTypeBitWidth() + 7) / 8;
    for (int64_t dim : tensor.getShape())
      bytes *= dim;
    return bytes;
  };
  for (BlockArgument arg : func.getArguments())
    buffers[arg] = {sizeOf(arg.getType()), 0, 0, false};
  int step = 0;
  for (Operation &op : func.getBody().front()) {
    if (isa<tosa::ConstOp>(op))
      continue;
    if (isa<func::ReturnOp>(op)) {
      for (Value v : op.getOperands())
        buffers.find(v)->second.output = true;
      continue;
    }
    for (Value v : op.getOperands())
      if (buffers.count(v))
        buffers[v].end = std::max(buffers[v].end, step);
    for (Value v : op.getResults())
      buffers[v] = {sizeOf(v.getType()), step, step, false};
    ++step;
  }
  std::vector<int64_t> live(step, 0);
  for (auto &entry : buffers) {
    Info info = entry.second;
    int end = info.output ? step - 1 : info.end;
    for (int s = info.start; s <= end; ++s)
      live[s] += info.bytes;
  }
  return live;
}

TEST(BufferLivenessExample, NasCellMatchesBruteForceOnIR) {
  MLIRContext context;
  OwningOpRef<ModuleOp> module =
      parseTestFile(context, MEMOPT_SOURCE_DIR "/examples/nas_cell.mlir");
  ASSERT_TRUE(module);
  auto func = *module->getOps<func::FuncOp>().begin();
  BufferLiveness liveness(func);
  ASSERT_TRUE(liveness.isValid());
  std::vector<int64_t> expected = bruteForceOnIR(func);
  ASSERT_FALSE(expected.empty());
  const ScheduleLiveness &profile = liveness.getProgramLiveness();
  EXPECT_EQ(
      std::vector<int64_t>(profile.liveBytes.begin(), profile.liveBytes.end()),
      expected);
  EXPECT_EQ(profile.peakBytes,
            *std::max_element(expected.begin(), expected.end()));
}
