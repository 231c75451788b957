//===- Families.h - The model families of the zoo ---------------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Zoo. Declares the builder of every model family, one
// source file a family; the model table in Zoo.cpp names them. A builder
// adds the inputs of its function, its ops and the results to a
// TosaGraphBuilder, reading sizes, seed and counts from ZooParams.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_ZOO_FAMILIES_H
#define MEMOPT_LIB_ZOO_FAMILIES_H

#include "MemOpt/Zoo/Zoo.h"

#include <algorithm>
#include <cstdint>

namespace mlir {
namespace memopt {
namespace zoo {

class TosaGraphBuilder;

/// Number of classes of the classifier heads (the ImageNet stacks have 1000).
constexpr int64_t numClasses = 10;

/// Scales a width published for C = 16 to the requested channel count.
inline int64_t scaled(int64_t width, const ZooParams &p) {
  return std::max<int64_t>(width * p.channels / 16, 1);
}

//===----------------------------------------------------------------------===//
// NAS cells and their stacks (NasCells.cpp)
//===----------------------------------------------------------------------===//

/// The NAS families whose published genotypes the zoo has.
enum class NasFamilyKind { NasNetA, AmoebaNetA, Pnas, DartsV2 };

/// A single cell of \p family (its reduction cell if \p reduction) with two
/// 1 x R x R x C inputs (h_{k-2}, h_{k-1}).
void buildNasCell(TosaGraphBuilder &g, const ZooParams &p, NasFamilyKind family,
                  bool reduction);

/// A CIFAR-style network of \p family cells: 3x3 stem conv to C channels,
/// p.cells cells with reduction cells (channels doubled) at 1/3 and 2/3 of
/// the depth, global average pooling and a 1x1 conv classifier.
void buildNasCifarNetwork(TosaGraphBuilder &g, const ZooParams &p,
                          NasFamilyKind family);

/// An ImageNet-style network of \p family cells (DARTS NetworkImageNet
/// layout): stem0 = 3x3 stride-2 conv to C/2, ReLU, 3x3 stride-2 conv to C
/// (R/4); stem1 = ReLU, 3x3 stride-2 conv to C (R/8); p.cells cells with
/// reductions at 1/3 and 2/3 of the depth, the first cell reading stem0
/// through a factorized reduce; global average pooling and a 1x1 conv
/// classifier to 1000 classes.
void buildNasImageNetNetwork(TosaGraphBuilder &g, const ZooParams &p,
                             NasFamilyKind family);

//===----------------------------------------------------------------------===//
// RandWire (RandWire.cpp)
//===----------------------------------------------------------------------===//

/// One RandWire cell (a single stage at stride 1) on the 1 x R x R x C input.
void buildRandWire(TosaGraphBuilder &g, const ZooParams &p);

/// A RandWire network: 3x3 stem conv to C channels on the 1 x R x R x 3
/// image, p.cells random stages (each its own WS graph from one seeded
/// stream), global average pooling and a 1x1 classifier. Stage i > 0 halves
/// the resolution (stride 2 where a node reads the stage input) and doubles
/// the channels while the resolution is at least 8, as the paper's
/// conv3..conv5 stages do; deeper stages keep both.
void buildRandWireNet(TosaGraphBuilder &g, const ZooParams &p);

//===----------------------------------------------------------------------===//
// Classic blocks (ClassicBlocks.cpp)
//===----------------------------------------------------------------------===//

/// An irregular SwiftNet-like cell (an approximation, see docs/Zoo.md):
/// four branches of different widths and kernels off the input and off an
/// expanded copy of it, joined by concats and adds, with the expanded tensor
/// and a narrow branch kept alive until the end (long skip connections).
void buildSwiftNetCell(TosaGraphBuilder &g, const ZooParams &p);

/// Inception-A blocks (Inception-v3 Mixed_5b/5c/5d, torchvision InceptionA),
/// every conv followed by ReLU. At C = 16 the widths are the published ones
/// (input 192 channels, pool features 32 then 64).
void buildInceptionA(TosaGraphBuilder &g, const ZooParams &p);

/// A DenseNet dense block (DenseNet-121 block 1 at C = 16: 64 input
/// channels, growth 32, bottleneck 128): each layer concatenates all
/// previous feature maps, then ReLU, 1x1 conv, ReLU, 3x3 conv.
void buildDenseBlock(TosaGraphBuilder &g, const ZooParams &p);

/// ResNet basic blocks (ResNet-18 layer1/layer2 pattern): two blocks per
/// stage, channels doubling with a stride-2 first block and a 1x1
/// projection shortcut.
void buildResNetBlocks(TosaGraphBuilder &g, const ZooParams &p);

/// HRNet-W18-small-like stage: a transition to two branches (R at C and R/2
/// at 2C), then p.cells modules of two basic blocks per branch followed by
/// the fuse layer (upsampled 1x1 conv low->high, strided 3x3 conv
/// high->low). Returns both branches.
void buildHrNet(TosaGraphBuilder &g, const ZooParams &p);

//===----------------------------------------------------------------------===//
// Classic networks (ClassicNetworks.cpp)
//===----------------------------------------------------------------------===//

/// SqueezeNet 1.1: 3x3 stride-2 stem, max pools, p.cells fire modules
/// (squeeze 1x1, expand 1x1 and 3x3, concat), 1x1 classifier and global
/// average pooling. Widths are the published ones at C = 16.
void buildSqueezeNet(TosaGraphBuilder &g, const ZooParams &p);

/// MobileNetV2 with width multiplier C / 32 (0.5 at C = 16): stem, the
/// 17 inverted-residual blocks, 1x1 conv to 1280, pooling and classifier.
void buildMobileNetV2(TosaGraphBuilder &g, const ZooParams &p);

/// An MCUNet-style network (Lin et al., "MCUNet: Tiny Deep Learning on IoT
/// Devices", NeurIPS 2020): a chain of MobileNetV2 inverted-residual blocks
/// from TinyNAS's search space, whose blocks mix kernel sizes 3, 5 and 7 and
/// expansion ratios 3, 4 and 6, on a small input. The block list is this
/// zoo's own pick in that space (not a published searched model); widths
/// scale with C / 16 (16 stem channels by default).
void buildMcuNet(TosaGraphBuilder &g, const ZooParams &p);

//===----------------------------------------------------------------------===//
// Fuzz model (Fuzz.cpp)
//===----------------------------------------------------------------------===//

/// The `fuzz` model: a random valid TOSA function for the pass fuzzer, of
/// p.nodes ops drawn from p.seed (see Fuzz.cpp).
void buildFuzz(TosaGraphBuilder &g, const ZooParams &p);

} // namespace zoo
} // namespace memopt
} // namespace mlir

#endif // MEMOPT_LIB_ZOO_FAMILIES_H
