//===- MarkFusedElementwise.cpp - mark-fused-elementwise pass -------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// `mark-fused-elementwise` marks, on the scheduled TOSA, the location of
// every op the memory model computes inside its consumer
// (isFusedIntoConsumer), of the fused accumulators (isFusedAccumulator) and
// of the ops written into a concat's slice. The decision is taken once, by
// the cost model's predicates, on the IR the scheduler saw; the marks
// survive the conversion to linalg, where `fuse-elementwise-groups` and
// `fuse-rescale-accumulators` read them back. It marks the loops too
// (kPlannedLoopLocName), whose bodies the model counts one iteration at a
// time.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Conversion/Passes.h"

#include "MemOpt/Conversion/LocationMarks.h"
#include "MemOpt/CostModel/CostModel.h"
#include "MemOpt/Utils/Attributes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_MARKFUSEDELEMENTWISEPASS
#include "MemOpt/Conversion/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

namespace {
struct MarkFusedElementwisePass
    : memopt::impl::MarkFusedElementwisePassBase<MarkFusedElementwisePass> {
  using MarkFusedElementwisePassBase::MarkFusedElementwisePassBase;
  void runOnOperation() override {
    // The ops of the function and of the loops' bodies, which the model
    // counts with the same rules.
    SmallVector<Block *> blocks;
    for (Block &block : getOperation().getBody())
      blocks.push_back(&block);
    getOperation().walk([&](scf::ForOp loop) {
      addLocationMark(loop, kPlannedLoopLocName);
      blocks.push_back(loop.getBody());
    });
    for (Block *block : blocks)
      for (Operation &op : *block) {
        // The predicates do not read locations, and no op satisfies two of
        // them (an accumulator or a pad is no elementwise op). A pad (or a
        // slice of it) read through the window of a fused accumulator is
        // part of its group.
        if (isFusedIntoConsumer(&op))
          addLocationMark(&op, kFusedIntoConsumerLocName);
        else if (isFusedAccumulator(&op) || isPadFusedIntoWindow(&op))
          addLocationMark(&op, kFusedAccumulatorLocName);
        else if (getInPlaceConcat(&op, io))
          addLocationMark(&op, kIntoConcatSliceLocName);
        else if (std::optional<Overwrite> overwrite = getOverwrite(&op, io))
          addOverwriteMark(&op, overwrite->bound);
      }
  }
};
} // namespace
