//===- NasCells.cpp - NAS cells and their CIFAR and ImageNet stacks -------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The NASNet-A, AmoebaNet-A, PNASNet-5 and DARTS_V2 cells from their
// published genotypes (re-indexed to DARTS numbering), one cell alone or
// stacked in the DARTS CIFAR and ImageNet layouts. docs/Zoo.md gives the
// sources and the known deviations.
//
//===----------------------------------------------------------------------===//

#include "Families.h"
#include "TosaGraphBuilder.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <string>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::zoo;

namespace {
/// The operations of the NASNet/AmoebaNet/PNAS/DARTS search spaces.
enum class CellOpKind {
  Skip,       ///< identity (factorized reduce when strided)
  SepConv,    ///< separable conv applied twice
  DilConv,    ///< dilated (rate 2) separable conv
  MaxPool,    ///< 3x3 max pooling
  AvgPool,    ///< 3x3 average pooling
  Conv1x7x7x1 ///< AmoebaNet 1x7 then 7x1 conv with a 1x1 bottleneck
};

/// One operation of a cell node. \p input indexes the cell states: 0 is
/// h_{k-2}, 1 is h_{k-1} (both after preprocessing), i >= 2 is node i
/// (DARTS numbering).
struct CellOp {
  /// What the operation computes.
  CellOpKind kind;
  /// Kernel size (KxK; 7 for the 1x7/7x1 conv).
  int kernel;
  /// The state it reads.
  int input;
};

/// A cell as published: two operations per node (their sum is the node) and
/// the states concatenated into the cell output.
struct CellGenotype {
  /// Two operations per node, for nodes 2, 3, ... in order.
  ArrayRef<CellOp> ops;
  /// The states concatenated (on channels) into the cell output.
  ArrayRef<int> concat;
};

/// A family of cells: the normal and the reduction cell.
struct NasFamily {
  /// The cell that keeps the resolution.
  CellGenotype normal;
  /// The cell that halves it (stride 2 on the cell inputs).
  CellGenotype reduction;
};
} // namespace

/// Genotype shorthand: KxK separable conv reading state \p in.
static constexpr CellOp sep(int k, int in) {
  return {CellOpKind::SepConv, k, in};
}
/// Genotype shorthand: KxK dilated separable conv reading state \p in.
static constexpr CellOp dil(int k, int in) {
  return {CellOpKind::DilConv, k, in};
}
/// Genotype shorthand: 3x3 max pooling of state \p in.
static constexpr CellOp maxp(int in) { return {CellOpKind::MaxPool, 3, in}; }
/// Genotype shorthand: 3x3 average pooling of state \p in.
static constexpr CellOp avgp(int in) { return {CellOpKind::AvgPool, 3, in}; }
/// Genotype shorthand: identity of state \p in.
static constexpr CellOp skip(int in) { return {CellOpKind::Skip, 1, in}; }
/// Genotype shorthand: AmoebaNet 1x7/7x1 bottleneck on state \p in.
static constexpr CellOp conv1x7(int in) {
  return {CellOpKind::Conv1x7x7x1, 7, in};
}

// NASNet-A (Zoph et al. 2018), from NasNetANormalCell/NasNetAReductionCell
// of TF-slim nasnet_utils.py, re-indexed from slim (0 = h_{k-1}) to DARTS
// (0 = h_{k-2}). The concat is slim's "unused hidden states".
static const CellOp nasnetANormalOps[] = {
    sep(5, 1), sep(3, 0), // node 2
    sep(5, 0), sep(3, 0), // node 3
    avgp(1),   skip(0),   // node 4
    avgp(0),   avgp(0),   // node 5
    sep(3, 1), skip(1),   // node 6
};
static const int nasnetANormalConcat[] = {0, 2, 3, 4, 5, 6};
static const CellOp nasnetAReductionOps[] = {
    sep(5, 1), sep(7, 0), // node 2
    maxp(1),   sep(7, 0), // node 3
    avgp(1),   sep(5, 0), // node 4
    skip(3),   avgp(2),   // node 5
    sep(3, 2), maxp(1),   // node 6
};
static const int nasnetAReductionConcat[] = {3, 4, 5, 6};

// AmoebaNet-A (Real et al. 2019), from get_normal_cell/get_reduction_cell
// ('amoeba_net_a') of tensorflow/tpu models/official/amoeba_net/
// model_specs.py, re-indexed like NASNet-A.
static const CellOp amoebaANormalOps[] = {
    avgp(1),   maxp(1),   // node 2
    sep(3, 0), skip(0),   // node 3
    skip(1),   avgp(0),   // node 4
    sep(3, 1), sep(5, 2), // node 5
    avgp(5),   sep(3, 1), // node 6
};
static const int amoebaANormalConcat[] = {0, 3, 4, 6};
static const CellOp amoebaAReductionOps[] = {
    sep(3, 0), avgp(1),    // node 2
    maxp(1),   sep(7, 2),  // node 3
    maxp(0),   maxp(1),    // node 4
    sep(3, 4), conv1x7(1), // node 5
    avgp(0),   sep(7, 1),  // node 6
};
static const int amoebaAReductionConcat[] = {2, 3, 4, 5, 6};

// PNASNet-5 (Liu et al. 2018), from PNasNetNormalCell of TF-slim
// pnasnet.py, re-indexed like NASNet-A. PNASNet uses the same cell with
// stride 2 as its reduction cell.
static const CellOp pnasOps[] = {
    sep(5, 0), maxp(0),   // node 2
    sep(7, 1), maxp(1),   // node 3
    sep(5, 1), sep(3, 1), // node 4
    sep(3, 4), maxp(1),   // node 5
    sep(3, 0), skip(1),   // node 6
};
static const int pnasConcat[] = {2, 3, 4, 5, 6};

// DARTS (second order), genotype DARTS_V2 of quark0/darts cnn/genotypes.py
// (Liu et al. 2019).
static const CellOp dartsV2NormalOps[] = {
    sep(3, 0), sep(3, 1), // node 2
    sep(3, 0), sep(3, 1), // node 3
    sep(3, 1), skip(0),   // node 4
    skip(0),   dil(3, 2), // node 5
};
static const int dartsV2NormalConcat[] = {2, 3, 4, 5};
static const CellOp dartsV2ReductionOps[] = {
    maxp(0), maxp(1), // node 2
    skip(2), maxp(1), // node 3
    maxp(0), skip(2), // node 4
    skip(2), maxp(1), // node 5
};
static const int dartsV2ReductionConcat[] = {2, 3, 4, 5};

static const NasFamily nasnetA = {
    {nasnetANormalOps, nasnetANormalConcat},
    {nasnetAReductionOps, nasnetAReductionConcat}};
static const NasFamily amoebaA = {
    {amoebaANormalOps, amoebaANormalConcat},
    {amoebaAReductionOps, amoebaAReductionConcat}};
static const NasFamily pnas = {{pnasOps, pnasConcat}, {pnasOps, pnasConcat}};
static const NasFamily dartsV2 = {
    {dartsV2NormalOps, dartsV2NormalConcat},
    {dartsV2ReductionOps, dartsV2ReductionConcat}};

/// Returns the short name of a cell op used in op names (e.g. "sep3x3").
static std::string cellOpName(const CellOp &op) {
  std::string k = std::to_string(op.kernel);
  switch (op.kind) {
  case CellOpKind::Skip:
    return "skip";
  case CellOpKind::SepConv:
    return "sep" + k + "x" + k;
  case CellOpKind::DilConv:
    return "dil" + k + "x" + k;
  case CellOpKind::MaxPool:
    return "maxpool" + k + "x" + k;
  case CellOpKind::AvgPool:
    return "avgpool" + k + "x" + k;
  case CellOpKind::Conv1x7x7x1:
    return "conv1x7_7x1";
  }
  llvm_unreachable("unknown cell op");
}

/// Applies \p op with \p stride to \p x (C channels), naming its ops \p name.
static Value applyCellOp(TosaGraphBuilder &g, const CellOp &op, Value x,
                         int64_t stride, const Twine &name) {
  int64_t c = dimOf(x, 3);
  switch (op.kind) {
  case CellOpKind::Skip:
    return stride == 1 ? x : g.factorizedReduce(x, c, name);
  case CellOpKind::SepConv:
    return g.sepConv(x, op.kernel, stride, name);
  case CellOpKind::DilConv:
    return g.dilConv(x, op.kernel, stride, /*dilation=*/2, name);
  case CellOpKind::MaxPool:
    return g.maxPool(x, op.kernel, stride, name);
  case CellOpKind::AvgPool:
    return g.avgPool(x, op.kernel, stride, name);
  case CellOpKind::Conv1x7x7x1: {
    // AmoebaNet: ReLU, 1x1 to C/4, ReLU, 1x7, ReLU, 7x1, ReLU, 1x1 to C.
    int64_t reduced = std::max<int64_t>(c / 4, 1);
    Value y = g.relu(x, name + "_relu1");
    y = g.conv(y, reduced, 1, 1, name + "_pre1x1");
    y = g.relu(y, name + "_relu2");
    y = g.conv(y, reduced, 1, 7, 1, stride, 1, name + "_conv1x7");
    y = g.relu(y, name + "_relu3");
    y = g.conv(y, reduced, 7, 1, stride, 1, 1, name + "_conv7x1");
    y = g.relu(y, name + "_relu4");
    return g.conv(y, c, 1, 1, name + "_post1x1");
  }
  }
  llvm_unreachable("unknown cell op");
}

/// Builds one cell on the raw inputs \p h0 = h_{k-2} and \p h1 = h_{k-1}:
/// preprocessing (ReLU + 1x1 conv to \p c channels on each input, or a
/// factorized reduce on h_{k-2} when \p reducePrev says it is twice as
/// large), the nodes, and the output concat. In a reduction cell the ops
/// reading the cell inputs have stride 2. Op names start with \p prefix.
static Value buildCell(TosaGraphBuilder &g, const CellGenotype &genotype,
                       Value h0, Value h1, int64_t c, bool reduction,
                       bool reducePrev, const std::string &prefix) {
  Value s0 = reducePrev ? g.factorizedReduce(h0, c, prefix + "pre0_fr")
                        : g.reluConv(h0, c, 1, 1, prefix + "pre0");
  Value s1 = g.reluConv(h1, c, 1, 1, prefix + "pre1");
  SmallVector<Value> states = {s0, s1};
  for (size_t i = 0; i + 1 < genotype.ops.size(); i += 2) {
    std::string node = prefix + "n" + std::to_string(states.size());
    Value operands[2];
    for (int side = 0; side < 2; ++side) {
      const CellOp &op = genotype.ops[i + side];
      int64_t stride = reduction && op.input < 2 ? 2 : 1;
      operands[side] =
          applyCellOp(g, op, states[op.input], stride,
                      node + (side == 0 ? "_l_" : "_r_") + cellOpName(op));
    }
    states.push_back(g.add(operands[0], operands[1], node + "_add"));
  }
  SmallVector<Value> outputs;
  for (int index : genotype.concat)
    outputs.push_back(states[index]);
  return g.concat(outputs, prefix + "concat");
}

/// Returns the genotypes of \p kind.
static const NasFamily &familyOf(NasFamilyKind kind) {
  switch (kind) {
  case NasFamilyKind::NasNetA:
    return nasnetA;
  case NasFamilyKind::AmoebaNetA:
    return amoebaA;
  case NasFamilyKind::Pnas:
    return pnas;
  case NasFamilyKind::DartsV2:
    return dartsV2;
  }
  llvm_unreachable("unknown NAS family");
}

/// Stacks \p cells cells of \p family on the inputs \p prevPrev and \p prev
/// (the reduction cells, at a third and two thirds of the stack, double the
/// channels, starting from \p channels), then the head: a global average
/// pool and a 1x1 convolution to \p classes outputs. \p reducePrev says
/// whether \p prev has half the resolution of \p prevPrev.
static void stackCells(TosaGraphBuilder &g, const NasFamily &family,
                       unsigned cells, int64_t channels, Value prevPrev,
                       Value prev, bool reducePrev, int64_t classes) {
  for (unsigned i = 0; i < cells; ++i) {
    bool reduction = i == cells / 3 || i == 2 * cells / 3;
    if (reduction)
      channels *= 2;
    Value out = buildCell(g, reduction ? family.reduction : family.normal,
                          prevPrev, prev, channels, reduction, reducePrev,
                          "c" + std::to_string(i) + "_");
    reducePrev = reduction;
    prevPrev = prev;
    prev = out;
  }
  Value pooled = g.globalAvgPool(prev, "gap");
  g.finish(g.conv(pooled, classes, 1, 1, "classifier"));
}

//===----------------------------------------------------------------------===//
// Models
//===----------------------------------------------------------------------===//

void mlir::memopt::zoo::buildNasCell(TosaGraphBuilder &g, const ZooParams &p,
                                     NasFamilyKind family, bool reduction) {
  const NasFamily &cells = familyOf(family);
  const CellGenotype &genotype = reduction ? cells.reduction : cells.normal;
  Value h0 = g.addInput(p.resolution, p.resolution, p.channels);
  Value h1 = g.addInput(p.resolution, p.resolution, p.channels);
  g.finish(buildCell(g, genotype, h0, h1, p.channels, reduction,
                     /*reducePrev=*/false, ""));
}

void mlir::memopt::zoo::buildNasCifarNetwork(TosaGraphBuilder &g,
                                             const ZooParams &p,
                                             NasFamilyKind kind) {
  const NasFamily &family = familyOf(kind);
  Value image = g.addInput(p.resolution, p.resolution, 3);
  Value stem = g.conv(image, p.channels, 3, 1, "stem_conv");
  stackCells(g, family, p.cells, p.channels, stem, stem,
             /*reducePrev=*/false, numClasses);
}

void mlir::memopt::zoo::buildNasImageNetNetwork(TosaGraphBuilder &g,
                                                const ZooParams &p,
                                                NasFamilyKind kind) {
  const NasFamily &family = familyOf(kind);
  Value image = g.addInput(p.resolution, p.resolution, 3);
  int64_t c = p.channels;
  Value stem0 = g.conv(image, std::max<int64_t>(c / 2, 1), 3, 2, "stem0_conv1");
  stem0 = g.relu(stem0, "stem0_relu");
  stem0 = g.conv(stem0, c, 3, 2, "stem0_conv2");
  Value stem1 = g.reluConv(stem0, c, 3, 2, "stem1");
  stackCells(g, family, p.cells, c, stem0, stem1, /*reducePrev=*/true,
             /*classes=*/1000);
}
