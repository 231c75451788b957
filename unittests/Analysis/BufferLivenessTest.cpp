//===- BufferLivenessTest.cpp - Known-answer tests of BufferLiveness ------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Checks the analysis against the published numbers of the Liberis & Lane
// (2019) graph: 5216 bytes at op3 in file order, 4960 bytes at best, and the
// best order 1,4,6,2,3,5,7. The optimum is found here by enumerating every
// permutation, independently of any scheduler.
//
//===----------------------------------------------------------------------===//

#include "TestUtils.h"

#include "MemOpt/Analysis/BufferLiveness.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "gtest/gtest.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::memopt;

namespace {

/// Loads the Liberis & Lane model (a copy of ../shared/models/liberis.mlir)
/// and its analysis.
class LiberisTest : public ::testing::Test {
protected:
  void SetUp() override {
    module =
        parseTestFile(context, MEMOPT_SOURCE_DIR "/test/Inputs/liberis.mlir");
    ASSERT_TRUE(module);
    func = *module->getOps<func::FuncOp>().begin();
    liveness.emplace(func);
    ASSERT_TRUE(liveness->isValid());
  }

  /// Returns the node of the op named \p name (a NameLoc).
  NodeId node(StringRef name) {
    const DataflowGraph &graph = liveness->getGraph();
    for (NodeId id = 0; id < graph.getNumNodes(); ++id)
      if (graph.getNodeName(id) == name)
        return id;
    ADD_FAILURE() << "no node " << name.str();
    return 0;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;
  std::optional<BufferLiveness> liveness;
};

} // namespace

TEST_F(LiberisTest, GraphShape) {
  const DataflowGraph &graph = liveness->getGraph();
  // Seven ops; the 21 constants are weights.
  ASSERT_EQ(graph.getNumNodes(), 7u);
  // t0 (input) and t1..t7.
  ASSERT_EQ(graph.getNumBuffers(), 8u);
  const int64_t expected[] = {1568, 3136, 1568, 512, 512, 256, 256, 512};
  for (BufferId id = 0; id < 8; ++id)
    EXPECT_EQ(graph.getBuffer(id).bytes, expected[id]) << "t" << id;
  EXPECT_TRUE(graph.getBuffer(0).isGraphInput());
  EXPECT_TRUE(graph.getBuffer(7).isGraphOutput);
  // op7 (concat) waits for op5 and op6.
  EXPECT_EQ(graph.getNode(node("op7")).preds,
            (SmallVector<NodeId>{node("op5"), node("op6")}));
}

TEST_F(LiberisTest, FileOrderPeak) {
  const ScheduleLiveness &profile = liveness->getProgramLiveness();
  EXPECT_EQ(profile.peakBytes, 5216);
  EXPECT_EQ(profile.order[profile.peakStep], node("op3"));
  const int64_t perStep[] = {4704, 4704, 5216, 4160, 1280, 1024, 1024};
  EXPECT_EQ(ArrayRef<int64_t>(profile.liveBytes), ArrayRef<int64_t>(perStep));
}

TEST_F(LiberisTest, PublishedOptimalOrder) {
  SmallVector<NodeId> order = {node("op1"), node("op4"), node("op6"),
                               node("op2"), node("op3"), node("op5"),
                               node("op7")};
  const DataflowGraph &graph = liveness->getGraph();
  ASSERT_TRUE(graph.isValidOrder(order));
  ScheduleLiveness profile = BufferLiveness::evaluate(graph, order);
  EXPECT_EQ(profile.peakBytes, 4960);
  EXPECT_EQ(profile.order[profile.peakStep], node("op2"));
  EXPECT_EQ(BufferLiveness::evaluatePeak(graph, order), 4960);
}

TEST_F(LiberisTest, EnumerationFindsPublishedOptimum) {
  const DataflowGraph &graph = liveness->getGraph();
  SmallVector<NodeId> order = graph.getProgramOrder();
  int64_t best = std::numeric_limits<int64_t>::max();
  unsigned valid = 0;
  do {
    if (!graph.isValidOrder(order))
      continue;
    ++valid;
    best = std::min(best, BufferLiveness::evaluatePeak(graph, order));
  } while (std::next_permutation(order.begin(), order.end()));
  // op1 first, op7 last; {op2, op3, op5} and {op4, op6} are chains that
  // interleave freely: C(5, 2) = 10 orders.
  EXPECT_EQ(valid, 10u);
  EXPECT_EQ(best, 4960);
}

TEST_F(LiberisTest, ValidOrderChecks) {
  const DataflowGraph &graph = liveness->getGraph();
  SmallVector<NodeId> order = graph.getProgramOrder();
  EXPECT_TRUE(graph.isValidOrder(order));
  std::swap(order[0], order[1]); // op2 before op1
  EXPECT_FALSE(graph.isValidOrder(order));
  EXPECT_FALSE(graph.isValidOrder({0, 1, 2}));
  EXPECT_FALSE(graph.isValidOrder({0, 0, 1, 2, 3, 4, 5}));
  EXPECT_FALSE(graph.isValidOrder({0, 1, 2, 3, 4, 5, 9}));
}

TEST_F(LiberisTest, WorkspaceCountsAtItsStepOnly) {
  DataflowGraph graph = liveness->getGraph();
  graph.getNode(node("op3")).workspaceBytes = 100;
  ScheduleLiveness profile =
      BufferLiveness::evaluate(graph, graph.getProgramOrder());
  EXPECT_EQ(profile.liveBytes[2], 5316);
  EXPECT_EQ(profile.liveBytes[1], 4704);
  EXPECT_EQ(profile.liveBytes[3], 4160);
  EXPECT_EQ(profile.peakBytes, 5316);
}

TEST_F(LiberisTest, InPlaceSavesOnlyWhenTheInputDies) {
  DataflowGraph graph = liveness->getGraph();
  // op5 reads t3 (512 B), which dies there: its 256 B output fits in t3.
  graph.getNode(node("op5")).inPlaceInput = 3;
  graph.getNode(node("op5")).inPlaceSaving = 256;
  // op2 reads t1, which op4 still needs: no saving.
  graph.getNode(node("op2")).inPlaceInput = 1;
  graph.getNode(node("op2")).inPlaceSaving = 1568;
  ScheduleLiveness profile =
      BufferLiveness::evaluate(graph, graph.getProgramOrder());
  EXPECT_EQ(profile.liveBytes[4], 1280 - 256);
  EXPECT_EQ(profile.liveBytes[1], 4704);
  // The step model saves whenever the designated input dies, a graph input
  // too (the lowering frees an input once a padded copy has read it); the
  // cost model never lets an elementwise op overwrite a graph input.
  graph.getNode(node("op1")).inPlaceInput = 0;
  graph.getNode(node("op1")).inPlaceSaving = 1568;
  profile = BufferLiveness::evaluate(graph, graph.getProgramOrder());
  EXPECT_EQ(profile.liveBytes[0], 4704 - 1568);
}

TEST(TensorSizeTest, ElementWidthsRoundUpToBytes) {
  MLIRContext context;
  Builder b(&context);
  auto size = [&](ArrayRef<int64_t> shape, Type elementType) {
    return getTensorSizeInBytes(RankedTensorType::get(shape, elementType));
  };
  EXPECT_EQ(*size({2, 3}, b.getF32Type()), 24);
  EXPECT_EQ(*size({1, 14, 14, 2}, b.getF32Type()), 1568);
  EXPECT_EQ(*size({10}, b.getI1Type()), 10);
  EXPECT_EQ(*size({10}, b.getIntegerType(4)), 10);
  // An i24 is stored in four bytes, its LLVM allocation size.
  EXPECT_EQ(*size({10}, b.getIntegerType(24)), 40);
  EXPECT_EQ(*size({7}, b.getF16Type()), 14);
  EXPECT_EQ(*size({0, 5}, b.getI8Type()), 0);
  EXPECT_EQ(*size({3}, ComplexType::get(b.getF32Type())), 24);
  EXPECT_TRUE(failed(size({ShapedType::kDynamic}, b.getF32Type())));
  // Index elements take the default data layout's 64 bits.
  EXPECT_EQ(*size({4}, b.getIndexType()), 32);
  EXPECT_TRUE(failed(size({4}, VectorType::get({2}, b.getF32Type()))));
  EXPECT_TRUE(
      failed(size({int64_t(1) << 40, int64_t(1) << 40}, b.getF32Type())));
  EXPECT_TRUE(
      failed(getTensorSizeInBytes(UnrankedTensorType::get(b.getF32Type()))));
}
