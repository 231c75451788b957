//===- PatchRegions.h - Shared machinery of patch-prefix ---------*- C++
//-*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// What patch-prefix (PatchPrefix.cpp) and its block bands (PatchBlocks.cpp)
// share: the activation ops from a start value (the function's arguments,
// or one value inside the function), the cuts after which one value alone
// is live, and the rewrite of the ops up to a cut into a grid of patches.
// Private to lib/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TRANSFORMS_PATCHREGIONS_H
#define MEMOPT_TRANSFORMS_PATCHREGIONS_H

#include "MemOpt/CostModel/CostModel.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir {
namespace memopt {

/// A half-open box [h0, h1) x [w0, w1) of the height and width of an NHWC
/// tensor.
struct Box {
  int64_t h0 = 0, h1 = 0, w0 = 0, w1 = 0;

  int64_t getHeight() const { return h1 - h0; }
  int64_t getWidth() const { return w1 - w0; }
  int64_t getArea() const { return getHeight() * getWidth(); }
  bool operator==(const Box &other) const {
    return h0 == other.h0 && h1 == other.h1 && w0 == other.w0 && w1 == other.w1;
  }
  /// Returns the smallest region holding this one and \p other.
  Box unite(const Box &other) const {
    return {std::min(h0, other.h0), std::max(h1, other.h1),
            std::min(w0, other.w0), std::max(w1, other.w1)};
  }
};

/// One way to patch a function: its cut, the grid, and what it costs.
struct PatchPlan {
  /// Index of the cut op in the list of activation ops.
  unsigned cut = 0;
  int64_t rows = 1, cols = 1;
  /// Multiply-accumulates of the whole function, unpatched and patched.
  int64_t macsBefore = 0, macsAfter = 0;
};

/// The activation ops of a function in block order, from its arguments or
/// from one start value, and the cuts after which one value alone is live.
class PrefixAnalysis {
public:
  /// Analyses \p func from its arguments or, if \p start is given, from
  /// \p start alone: then the ops read only \p start, their own results and
  /// values computed from constants (weights), or the cuts stop there.
  explicit PrefixAnalysis(func::FuncOp func, Value start = {});

  /// Ops that read an activation (a function argument or \p start, or the
  /// result of another activation op), in block order.
  SmallVector<Operation *> ops;
  /// Indices into `ops` of the valid cuts: every op up to the cut is
  /// patchable, the cut's single NHWC result is the only value of the ops
  /// read after it, and the ops up to it hold a convolution or pooling.
  SmallVector<unsigned> cuts;
  /// Multiply-accumulates of every op of the function.
  int64_t totalMacs = 0;

  bool isActivation(Value value) const { return activations.contains(value); }

private:
  DenseSet<Value> activations;
};

/// Returns \p type if it is a static NHWC tensor, else null.
RankedTensorType getImageType(Type type);

/// Returns the region each value of \p analysis (up to and including op
/// \p cut) must hold to compute the patch \p out of the cut value. Values
/// the patch does not need have no entry. Unless \p clamp, a windowed op's
/// operand region holds its padding too (it may reach outside the image).
DenseMap<Value, Box> getNeededRegions(const PrefixAnalysis &analysis,
                                      unsigned cut, const Box &out,
                                      bool clamp = true);

/// Returns the multiply-accumulates of the ops up to op \p cut when they run
/// as the \p rows x \p cols grid (1 x 1: unpatched).
int64_t getPrefixMacs(const PrefixAnalysis &analysis, unsigned cut,
                      int64_t rows, int64_t cols, bool clamp = true);

/// Rewrites the ops of \p analysis up to \p plan's cut into \p plan's grid
/// of patches, appending the ops of the patches to \p clones if given.
/// Fails (and leaves the function to be discarded) if a patch would read no
/// input row.
LogicalResult applyPatchPlan(const PrefixAnalysis &analysis,
                             const PatchPlan &plan,
                             SmallVectorImpl<Operation *> *clones = nullptr);

/// Rewrites the ops of \p analysis up to \p plan's cut into one `scf.for`
/// over \p plan's patches, in grid order, whose body computes one patch:
/// every value over its unclamped region (the same size for every patch),
/// windowed ops without padding over operands whose rows and columns
/// outside the image hold the padding value (a `tensor.pad` of the graph
/// input's part inside; a body value's tile written over in place with
/// views of constant strips, in sizes the loop computes). Returns failure, leaving the IR
/// unchanged, if the prefix does not allow it: a grid that does not divide
/// the cut, ops other than convolutions, depthwise convolutions, max pools,
/// unpadded average pools, elementwise ops and channel concats, broadcast
/// operands, or regions whose size or step differs between patches.
LogicalResult applyPatchLoop(const PrefixAnalysis &analysis,
                             const PatchPlan &plan);

/// Returns the peak of \p func under \p options in block order, or failure
/// (with errors emitted) if it cannot be modelled.
FailureOr<int64_t> getBlockOrderPeak(func::FuncOp func,
                                     const CostModelOptions &options);

/// Runs the blocks at the peak of \p func in bands: while the peak in block
/// order (under \p options) comes from ops between a value and a later cut
/// (an inverted residual block: expansion, depthwise, projection and its
/// residual add), rewrites those ops into the grid (rows x 1 or rows x rows,
/// at most \p maxGrid) that lowers the peak most while the function's
/// multiply-accumulates stay within \p maxMacOverhead percent over
/// \p baseMacs. Appends one line per rewrite to \p applied. Fails after a
/// diagnostic if the function cannot be modelled.
LogicalResult patchBlocks(func::FuncOp func, const CostModelOptions &options,
                          int64_t baseMacs, double maxMacOverhead,
                          unsigned maxGrid,
                          SmallVectorImpl<std::string> &applied);

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_TRANSFORMS_PATCHREGIONS_H
