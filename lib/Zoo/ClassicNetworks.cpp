//===- ClassicNetworks.cpp - SqueezeNet, MobileNetV2 and MCUNet -----------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Whole classic networks, stem to classifier: SqueezeNet 1.1, MobileNetV2
// with width multiplier C / 32 and an MCUNet-style chain of inverted
// residuals. Widths scale with C and are rounded as torchvision does.
//
//===----------------------------------------------------------------------===//

#include "Families.h"
#include "TosaGraphBuilder.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cassert>
#include <iterator>
#include <string>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::zoo;

/// Rounds \p value to a multiple of 8 as torchvision's _make_divisible.
static int64_t makeDivisible(double value) {
  int64_t rounded = std::max<int64_t>(8, int64_t(value + 4) / 8 * 8);
  if (rounded < 0.9 * value)
    rounded += 8;
  return rounded;
}

void mlir::memopt::zoo::buildSqueezeNet(TosaGraphBuilder &g,
                                        const ZooParams &p) {
  // (squeeze, expand) of fire2..fire9; max pools follow fire3 and fire5.
  static const int64_t fires[][2] = {{16, 64},  {16, 64},  {32, 128},
                                     {32, 128}, {48, 192}, {48, 192},
                                     {64, 256}, {64, 256}};
  Value x = g.addInput(p.resolution, p.resolution, 3);
  x = g.relu(g.conv(x, scaled(64, p), 3, 2, "conv1"), "conv1_relu");
  x = g.maxPool(x, 3, 2, "pool1");
  unsigned count = p.cells;
  assert(count <= std::size(fires) && "checked against maxCells");
  for (unsigned i = 0; i < count; ++i) {
    std::string name = "fire" + std::to_string(i + 2);
    int64_t squeeze = scaled(fires[i][0], p), expand = scaled(fires[i][1], p);
    Value s = g.relu(g.conv(x, squeeze, 1, 1, name + "_squeeze"),
                     name + "_squeeze_relu");
    Value e1 = g.relu(g.conv(s, expand, 1, 1, name + "_expand1x1"),
                      name + "_expand1x1_relu");
    Value e3 = g.relu(g.conv(s, expand, 3, 1, name + "_expand3x3"),
                      name + "_expand3x3_relu");
    x = g.concat({e1, e3}, name + "_concat");
    if ((i == 1 || i == 3) && i + 1 < count)
      x = g.maxPool(x, 3, 2, "pool" + std::to_string(i == 1 ? 3 : 5));
  }
  x = g.relu(g.conv(x, numClasses, 1, 1, "conv10"), "conv10_relu");
  g.finish(g.globalAvgPool(x, "gap"));
}

void mlir::memopt::zoo::buildMobileNetV2(TosaGraphBuilder &g,
                                         const ZooParams &p) {
  // Expansion t, output channels c, repeats n, first stride s.
  static const int64_t settings[][4] = {
      {1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
      {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  double width = double(p.channels) / 32.0;
  Value x = g.addInput(p.resolution, p.resolution, 3);
  x = g.relu6(g.conv(x, makeDivisible(32 * width), 3, 2, "stem_conv"),
              "stem_relu6");
  unsigned block = 0;
  for (const auto &setting : settings) {
    int64_t outC = makeDivisible(setting[1] * width);
    for (int64_t r = 0; r < setting[2]; ++r, ++block) {
      std::string name = "b" + std::to_string(block);
      int64_t stride = r == 0 ? setting[3] : 1;
      int64_t inC = dimOf(x, 3);
      Value y = x;
      if (setting[0] != 1)
        y = g.relu6(g.conv(y, inC * setting[0], 1, 1, name + "_expand"),
                    name + "_expand_relu6");
      y = g.relu6(g.depthwise(y, 3, stride, 1, name + "_dw"),
                  name + "_dw_relu6");
      y = g.conv(y, outC, 1, 1, name + "_project");
      x = stride == 1 && inC == outC ? g.add(x, y, name + "_add") : y;
    }
  }
  int64_t last = makeDivisible(1280 * std::max(1.0, width));
  x = g.relu6(g.conv(x, last, 1, 1, "head_conv"), "head_relu6");
  x = g.globalAvgPool(x, "gap");
  g.finish(g.conv(x, numClasses, 1, 1, "classifier"));
}

void mlir::memopt::zoo::buildMcuNet(TosaGraphBuilder &g, const ZooParams &p) {
  // Expansion, kernel, output channels at C = 16, stride.
  static const int64_t blocks[][4] = {
      {1, 3, 8, 1},  {6, 7, 16, 2}, {3, 3, 16, 1}, {6, 7, 24, 2},
      {4, 5, 24, 1}, {3, 3, 24, 1}, {6, 5, 40, 2}, {4, 5, 40, 1},
      {3, 7, 40, 1}, {6, 5, 48, 1}, {4, 3, 48, 1}, {6, 7, 96, 2},
      {4, 5, 96, 1}, {3, 3, 96, 1}, {6, 3, 160, 1}};
  double width = double(p.channels) / 16.0;
  Value x = g.addInput(p.resolution, p.resolution, 3);
  x = g.relu6(g.conv(x, makeDivisible(16 * width), 3, 2, "stem_conv"),
              "stem_relu6");
  for (auto [index, block] : llvm::enumerate(blocks)) {
    std::string name = "b" + std::to_string(index);
    int64_t inC = dimOf(x, 3), outC = makeDivisible(block[2] * width);
    Value y = x;
    if (block[0] != 1)
      y = g.relu6(g.conv(y, inC * block[0], 1, 1, name + "_expand"),
                  name + "_expand_relu6");
    y = g.relu6(g.depthwise(y, block[1], block[3], 1, name + "_dw"),
                name + "_dw_relu6");
    y = g.conv(y, outC, 1, 1, name + "_project");
    x = block[3] == 1 && inC == outC ? g.add(x, y, name + "_add") : y;
  }
  x = g.globalAvgPool(x, "gap");
  g.finish(g.conv(x, numClasses, 1, 1, "classifier"));
}
