//===- ClassicBlocks.cpp - SwiftNet, Inception, DenseNet, ResNet, HRNet
//----===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Blocks of classic architectures, stacked --cells times where that applies:
// a SwiftNet-like cell, Inception-v3 Inception-A blocks, a DenseNet-121
// dense block, ResNet-18 basic blocks and an HRNet-W18-small-like stage.
// Widths are the published ones at C = 16 (HRNet: 18) and scale with C.
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

void mlir::memopt::zoo::buildSwiftNetCell(TosaGraphBuilder &g,
                                          const ZooParams &p) {
  int64_t c = p.channels, half = std::max<int64_t>(c / 2, 1);
  Value input = g.addInput(p.resolution, p.resolution, c);
  Value expanded =
      g.relu(g.conv(input, 2 * c, 1, 1, "expand_pw"), "expand_relu");
  // Branch 1: separable 3x3 on the expanded tensor.
  Value branch1 = g.depthwise(expanded, 3, 1, 1, "b1_dw3x3");
  branch1 = g.relu(g.conv(branch1, c, 1, 1, "b1_pw"), "b1_relu");
  // Branch 2: narrow full 3x3 conv on the input, reused by the output.
  Value narrow = g.relu(g.conv(input, half, 3, 1, "b2_conv3x3"), "b2_relu");
  // Branch 3: separable 5x5 on the input.
  Value branch3 = g.depthwise(input, 5, 1, 1, "b3_dw5x5");
  branch3 = g.conv(branch3, c, 1, 1, "b3_pw");
  // First merge: concat(branch1, narrow) -> 1x1 conv, plus branch 3.
  Value mixed = g.concat({branch1, narrow}, "mix1_concat");
  mixed = g.relu(g.conv(mixed, c, 1, 1, "mix1_pw"), "mix1_relu");
  mixed = g.add(mixed, branch3, "mix1_add");
  // Branch 4: max pool of the expanded tensor, projected to C/2.
  Value branch4 = g.maxPool(expanded, 3, 1, "b4_maxpool3x3");
  branch4 = g.conv(branch4, half, 1, 1, "b4_pw");
  // Second merge: separable 3x3 of the first merge, concat with branch 4
  // and the narrow branch, 1x1 conv, residual add of the expanded tensor.
  Value refined = g.depthwise(mixed, 3, 1, 1, "mix2_dw3x3");
  refined = g.relu(g.conv(refined, c, 1, 1, "mix2_pw"), "mix2_relu");
  Value out = g.concat({refined, branch4, narrow}, "out_concat");
  out = g.conv(out, 2 * c, 1, 1, "out_pw");
  g.finish(g.relu(g.add(out, expanded, "out_add"), "out_relu"));
}

void mlir::memopt::zoo::buildInceptionA(TosaGraphBuilder &g,
                                        const ZooParams &p) {
  Value x = g.addInput(p.resolution, p.resolution, scaled(192, p));
  for (unsigned block = 0; block < p.cells; ++block) {
    std::string name = "b" + std::to_string(block) + "_";
    auto convRelu = [&](Value in, int64_t width, int64_t k,
                        const std::string &suffix) {
      return g.relu(g.conv(in, scaled(width, p), k, 1, name + suffix),
                    name + suffix + "_relu");
    };
    Value b1 = convRelu(x, 64, 1, "1x1");
    Value b5 = convRelu(x, 48, 1, "5x5_reduce");
    b5 = convRelu(b5, 64, 5, "5x5");
    Value b3 = convRelu(x, 64, 1, "3x3dbl_reduce");
    b3 = convRelu(b3, 96, 3, "3x3dbl_1");
    b3 = convRelu(b3, 96, 3, "3x3dbl_2");
    Value pool = g.avgPool(x, 3, 1, name + "pool_avg3x3");
    pool = convRelu(pool, block == 0 ? 32 : 64, 1, "pool_proj");
    x = g.concat({b1, b5, b3, pool}, name + "concat");
  }
  g.finish(x);
}

void mlir::memopt::zoo::buildDenseBlock(TosaGraphBuilder &g,
                                        const ZooParams &p) {
  int64_t growth = 2 * p.channels;
  SmallVector<Value> features = {
      g.addInput(p.resolution, p.resolution, 4 * p.channels)};
  for (unsigned i = 0; i < p.cells; ++i) {
    std::string name = "l" + std::to_string(i + 1);
    Value x = g.concat(features, name + "_concat");
    x = g.relu(x, name + "_relu1");
    x = g.conv(x, 4 * growth, 1, 1, name + "_conv1x1");
    x = g.relu(x, name + "_relu2");
    features.push_back(g.conv(x, growth, 3, 1, name + "_conv3x3"));
  }
  g.finish(g.concat(features, "out_concat"));
}

void mlir::memopt::zoo::buildResNetBlocks(TosaGraphBuilder &g,
                                          const ZooParams &p) {
  Value x = g.addInput(p.resolution, p.resolution, p.channels);
  for (unsigned i = 0; i < p.cells; ++i) {
    std::string name = "b" + std::to_string(i);
    unsigned stage = i / 2;
    int64_t c = p.channels << stage;
    int64_t stride = (stage > 0 && i % 2 == 0) ? 2 : 1;
    Value y = g.relu(g.conv(x, c, 3, stride, name + "_conv1"), name + "_relu1");
    y = g.conv(y, c, 3, 1, name + "_conv2");
    Value shortcut = x;
    if (stride != 1 || dimOf(x, 3) != c)
      shortcut = g.conv(x, c, 1, stride, name + "_proj");
    x = g.relu(g.add(y, shortcut, name + "_add"), name + "_relu2");
  }
  g.finish(x);
}

void mlir::memopt::zoo::buildHrNet(TosaGraphBuilder &g, const ZooParams &p) {
  int64_t c = p.channels;
  Value x = g.addInput(p.resolution, p.resolution, c);
  Value high = g.relu(g.conv(x, c, 3, 1, "t_high_conv"), "t_high_relu");
  Value low = g.relu(g.conv(x, 2 * c, 3, 2, "t_low_conv"), "t_low_relu");
  auto basicBlock = [&](Value in, const std::string &name) {
    int64_t width = dimOf(in, 3);
    Value y = g.relu(g.conv(in, width, 3, 1, name + "_conv1"), name + "_relu1");
    y = g.conv(y, width, 3, 1, name + "_conv2");
    return g.relu(g.add(y, in, name + "_add"), name + "_relu2");
  };
  for (unsigned m = 0; m < p.cells; ++m) {
    std::string name = "m" + std::to_string(m);
    for (int b = 0; b < 2; ++b) {
      high = basicBlock(high, name + "_high_b" + std::to_string(b));
      low = basicBlock(low, name + "_low_b" + std::to_string(b));
    }
    Value up = g.conv(low, c, 1, 1, name + "_fuse_low2high_conv");
    up = g.upsample2x(up, name + "_fuse_low2high_up");
    Value down = g.conv(high, 2 * c, 3, 2, name + "_fuse_high2low_conv");
    Value newHigh = g.relu(g.add(high, up, name + "_fuse_high_add"),
                           name + "_fuse_high_relu");
    low = g.relu(g.add(low, down, name + "_fuse_low_add"),
                 name + "_fuse_low_relu");
    high = newHigh;
  }
  g.finish({high, low});
}
