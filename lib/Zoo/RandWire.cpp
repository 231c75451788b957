//===- RandWire.cpp - RandWire cells and networks on seeded WS graphs -----===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// RandWire (Xie et al. 2019): stages wired by a Watts-Strogatz WS(N, 4, 0.75)
// graph drawn from a seeded, platform-independent random stream; one stage
// alone (`randwire-ws`) or a network of stages (`randwire-ws-net`).
//
//===----------------------------------------------------------------------===//

#include "Families.h"
#include "TosaGraphBuilder.h"
#include "ZooRandom.h"

#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::zoo;

/// Undirected Watts-Strogatz small-world graph WS(n, k, p) as networkx
/// builds it: a ring lattice where each node links to its k/2 neighbours on
/// each side, then, for each lattice edge (u, u + j), with probability p the
/// edge is replaced by (u, w) for a uniformly chosen w that is neither u nor
/// already a neighbour of u. Returns the adjacency matrix.
static std::vector<std::vector<bool>>
wattsStrogatz(unsigned n, unsigned k, double p, ZooRandom &random) {
  std::vector<std::vector<bool>> adjacent(n, std::vector<bool>(n, false));
  std::vector<unsigned> degree(n, 0);
  auto link = [&](unsigned a, unsigned b, bool present) {
    adjacent[a][b] = adjacent[b][a] = present;
    if (present) {
      ++degree[a];
      ++degree[b];
    } else {
      --degree[a];
      --degree[b];
    }
  };
  for (unsigned j = 1; j <= k / 2; ++j)
    for (unsigned u = 0; u < n; ++u)
      link(u, (u + j) % n, true);
  for (unsigned j = 1; j <= k / 2; ++j) {
    for (unsigned u = 0; u < n; ++u) {
      unsigned v = (u + j) % n;
      if (random.uniform() >= p || degree[u] >= n - 1)
        continue;
      unsigned w;
      do {
        w = static_cast<unsigned>(random.uniformInt(n));
      } while (w == u || adjacent[u][w]);
      link(u, v, false);
      link(u, w, true);
    }
  }
  return adjacent;
}

/// One RandWire stage on a WS(p.nodes, 4, 0.75) graph drawn from \p random:
/// edges point from the lower to the higher node index; a node sums its
/// inputs (or reads \p input if it has none, with \p stride), then applies
/// ReLU and a 3x3 separable conv to \p channels; the stage output is the
/// sum of the nodes without outputs. Op names start with \p prefix.
static Value buildRandWireStage(TosaGraphBuilder &g, const ZooParams &p,
                                Value input, int64_t channels, int64_t stride,
                                ZooRandom &random, const std::string &prefix) {
  constexpr unsigned k = 4;
  constexpr double rewire = 0.75;
  unsigned n = p.nodes;
  std::vector<std::vector<bool>> adjacent = wattsStrogatz(n, k, rewire, random);
  std::vector<Value> nodes(n);
  SmallVector<Value> sinks;
  for (unsigned i = 0; i < n; ++i) {
    std::string name = prefix + "n" + std::to_string(i);
    SmallVector<Value> inputs;
    for (unsigned j = 0; j < i; ++j)
      if (adjacent[i][j])
        inputs.push_back(nodes[j]);
    int64_t nodeStride = inputs.empty() ? stride : 1;
    if (inputs.empty())
      inputs.push_back(input);
    Value x = g.sum(inputs, name + "_agg");
    x = g.relu(x, name + "_relu");
    x = g.depthwise(x, 3, nodeStride, 1, name + "_dw");
    nodes[i] = g.conv(x, channels, 1, 1, name + "_pw");
    bool hasOutput = false;
    for (unsigned j = i + 1; j < n; ++j)
      hasOutput |= adjacent[i][j];
    if (!hasOutput)
      sinks.push_back(nodes[i]);
  }
  return g.sum(sinks, prefix + "out_add");
}

//===----------------------------------------------------------------------===//
// Models
//===----------------------------------------------------------------------===//

void mlir::memopt::zoo::buildRandWire(TosaGraphBuilder &g, const ZooParams &p) {
  ZooRandom random(p.seed);
  Value input = g.addInput(p.resolution, p.resolution, p.channels);
  g.finish(
      buildRandWireStage(g, p, input, p.channels, 1, random, /*prefix=*/""));
}

void mlir::memopt::zoo::buildRandWireNet(TosaGraphBuilder &g,
                                         const ZooParams &p) {
  ZooRandom random(p.seed);
  Value image = g.addInput(p.resolution, p.resolution, 3);
  Value x = g.conv(image, p.channels, 3, 1, "stem_conv");
  int64_t c = p.channels, resolution = p.resolution;
  for (unsigned i = 0; i < p.cells; ++i) {
    int64_t stride = 1;
    if (i > 0 && resolution >= 8) {
      stride = 2;
      c *= 2;
      resolution = (resolution + 1) / 2;
    }
    x = buildRandWireStage(g, p, x, c, stride, random,
                           "s" + std::to_string(i) + "_");
  }
  Value pooled = g.globalAvgPool(x, "gap");
  g.finish(g.conv(pooled, numClasses, 1, 1, "classifier"));
}
