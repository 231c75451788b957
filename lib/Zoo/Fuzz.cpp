//===- Fuzz.cpp - Random valid TOSA functions for the pass fuzzer ---------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The `fuzz` model (not in --list): --nodes ops drawn from a seeded random
// stream, on one or two inputs of up to R x R x C, over f32, f16, i8, i16 and
// i1 tensors, built with the same TosaGraphBuilder as the other models.
// test/fuzz/pass_fuzz.py runs the passes on them.
//
//===----------------------------------------------------------------------===//

#include "Families.h"
#include "TosaGraphBuilder.h"
#include "ZooRandom.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <iterator>
#include <string>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::zoo;

namespace {
/// Random valid TOSA functions for the pass fuzzer (test/fuzz/pass_fuzz.py):
/// every tensor is 1 x H x W x C (rank 2 and 3 only inside reshape
/// round trips) of f32, f16, i8 (convolutions and adds rescaled through
/// i32), i16 or i1; ops are drawn at random with random kernels, strides,
/// dilations and paddings, and read either the newest value (chains) or any
/// earlier one (fan-outs). The values nobody reads are the results.
class FuzzModel {
public:
  /// Draws the function's ops from \p p.seed into \p g.
  FuzzModel(TosaGraphBuilder &g, const ZooParams &p)
      : g(g), p(p), random(p.seed), ctx(g.getContext()) {}

  /// Builds the inputs, p.nodes random ops and the results.
  void build() {
    // The element types this function starts from.
    static const ZooDType starts[] = {ZooDType::F32, ZooDType::F32,
                                      ZooDType::I8,  ZooDType::I8,
                                      ZooDType::F16, ZooDType::I16};
    unsigned numInputs = 1 + pick(2);
    for (unsigned i = 0; i < numInputs; ++i) {
      ZooDType dtype = starts[pick(std::size(starts))];
      if (i > 0 && pick(2))
        dtype = dtypeOf(pool.front());
      // f16 tensors mostly come from f32 arguments (mem-opt-run, the host
      // check, calls f32 but not f16 functions).
      bool viaF32 = dtype == ZooDType::F16 && pick(4);
      g.setDType(viaF32 ? ZooDType::F32 : dtype);
      Value arg = g.addInput(1 + pick(p.resolution), 1 + pick(p.resolution),
                             1 + pick(p.channels));
      arguments.push_back(arg);
      if (viaF32)
        arg = g.castTo(arg, Float16Type::get(ctx), "input" + Twine(i) + "_f16");
      pool.push_back(arg);
    }
    for (unsigned i = 0; i < p.nodes; ++i)
      addNode("n" + std::to_string(i));
    SmallVector<Value> results;
    for (Value value : pool)
      if (value.use_empty() && !llvm::is_contained(arguments, value))
        results.push_back(value);
    if (results.empty())
      results.push_back(pool.back());
    bool f16Results = !pick(4);
    for (auto [index, result] : llvm::enumerate(results))
      if (elementOf(result).isF16() && !f16Results)
        result = g.castTo(result, Float32Type::get(ctx),
                          "result" + Twine(index) + "_f32");
    g.finish(results);
  }

private:
  /// Ops of the fuzz model.
  enum Kind {
    Conv,
    ConvPadded,
    Depthwise,
    MaxPool,
    AvgPool,
    Add,
    Mul,
    Maximum,
    Clamp,
    Unary,
    Concat,
    Slice,
    Reshape,
    ReshapeRoundTrip,
    Transpose,
    Pad,
    Reduce,
    Upsample,
    Cast,
    Greater,
    LogicalAnd,
    Select,
    NumKinds
  };

  /// Returns a random integer in [0, \p bound).
  uint64_t pick(uint64_t bound) { return random.uniformInt(bound); }

  /// The element type of \p v.
  static Type elementOf(Value v) { return typeOf(v).getElementType(); }
  /// Dimension \p i of \p v.
  static int64_t dim(Value v, unsigned i) { return typeOf(v).getDimSize(i); }
  /// True when \p v holds floats.
  static bool isFloat(Value v) { return isa<FloatType>(elementOf(v)); }
  /// True when \p v holds i1.
  static bool isBool(Value v) { return elementOf(v).isInteger(1); }
  /// True when \p v holds i8.
  static bool isI8(Value v) { return elementOf(v).isInteger(8); }
  /// True when \p v holds i16.
  static bool isI16(Value v) { return elementOf(v).isInteger(16); }

  /// The builder's element mode for the non-boolean value \p v.
  static ZooDType dtypeOf(Value v) {
    Type t = elementOf(v);
    if (t.isF16())
      return ZooDType::F16;
    if (t.isInteger(8))
      return ZooDType::I8;
    if (t.isInteger(16))
      return ZooDType::I16;
    return ZooDType::F32;
  }

  /// An operand: the newest value (a chain) or any value (a fan-out),
  /// among those that satisfy \p accept; null when there is none.
  Value operand(llvm::function_ref<bool(Value)> accept) {
    if (pick(5) < 3 && accept(pool.back()))
      return pool.back();
    SmallVector<Value> candidates;
    for (Value v : pool)
      if (accept(v))
        candidates.push_back(v);
    if (candidates.empty())
      return {};
    return candidates[pick(candidates.size())];
  }

  /// A value other than \p x of the same type, or \p x itself.
  Value partner(Value x) {
    Value other =
        operand([&](Value v) { return v != x && v.getType() == x.getType(); });
    return other ? other : x;
  }

  /// Adds one random op named \p name to the pool (or nothing when the
  /// drawn op has no operand or would make a tensor too large).
  void addNode(const std::string &name) {
    Kind kind = Kind(pick(NumKinds));
    auto any = [](Value) { return true; };
    auto notBool = [](Value v) { return !isBool(v); };
    auto floatOrI8 = [](Value v) { return isFloat(v) || isI8(v); };
    Value x;
    switch (kind) {
    case Conv:
    case ConvPadded:
    case Depthwise:
      x = operand(floatOrI8);
      break;
    case MaxPool:
    case AvgPool:
    case Add:
    case Clamp:
    case Upsample:
      x = operand(notBool);
      break;
    case Mul:
    case Maximum:
    case Unary:
    case Reduce:
    case Greater:
      x = operand(isFloat);
      break;
    case LogicalAnd:
    case Select:
      x = operand(isBool);
      break;
    case Cast:
      x = operand(notBool);
      break;
    default:
      x = operand(any);
      break;
    }
    if (!x)
      return;
    if (!isBool(x))
      g.setDType(dtypeOf(x));
    Value y = build(kind, x, name);
    if (!y || typeOf(y).getNumElements() > maxElements)
      return;
    pool.push_back(y);
  }

  /// Builds an op of \p kind reading \p x (and, for ops with more
  /// operands, values drawn from the pool); null when there is none.
  Value build(Kind kind, Value x, const std::string &name) {
    int64_t h = dim(x, 1), w = dim(x, 2), c = dim(x, 3);
    switch (kind) {
    case Conv: {
      static const int64_t kernels[] = {1, 1, 2, 3, 3, 5};
      int64_t kh = kernels[pick(6)], kw = pick(3) ? kh : kernels[pick(6)];
      int64_t stride = 1 + pick(3), dilation = pick(4) ? 1 : 2;
      return g.conv(x, 1 + pick(2 * p.channels), kh, kw, stride,
                    pick(3) ? stride : 1 + pick(2), dilation, name + "_conv");
    }
    case ConvPadded: {
      int64_t kh = 1 + pick(4), kw = 1 + pick(4);
      SmallVector<int64_t, 4> pads = {int64_t(pick(kh)), int64_t(pick(kh)),
                                      int64_t(pick(kw)), int64_t(pick(kw))};
      return g.convPadded(x, 1 + pick(2 * p.channels), kh, kw, 1 + pick(2),
                          1 + pick(2), 1 + pick(2), 1 + pick(2), pads,
                          name + "_convp");
    }
    case Depthwise:
      return g.depthwise(x, 1 + pick(3), 1 + pick(2), 1 + pick(2),
                         name + "_dw");
    case MaxPool:
      return g.maxPool(x, 2 + pick(2), 1 + pick(2), name + "_maxpool");
    case AvgPool:
      if (pick(4) == 0)
        return g.globalAvgPool(x, name + "_gap");
      return g.avgPool(x, 2 + pick(2), 1 + pick(2), name + "_avgpool");
    case Add:
      return g.add(x, partner(x), name + "_add");
    case Mul:
      return g.mul(x, partner(x), name + "_mul");
    case Maximum:
      return g.maximum(x, partner(x), name + "_max");
    case Clamp:
      return pick(2) ? g.relu(x, name + "_relu") : g.relu6(x, name + "_relu6");
    case Unary:
      switch (pick(3)) {
      case 0:
        return g.unary<tosa::SigmoidOp>(x, name + "_sigmoid");
      case 1:
        return g.unary<tosa::TanhOp>(x, name + "_tanh");
      default:
        return g.unary<tosa::AbsOp>(x, name + "_abs");
      }
    case Concat: {
      unsigned axis = 1 + pick(3);
      SmallVector<Value> values = {x};
      unsigned count = 1 + pick(3);
      for (unsigned i = 0; i < count; ++i) {
        Value other = operand([&](Value v) {
          if (elementOf(v) != elementOf(x))
            return false;
          for (unsigned d = 0; d < 4; ++d)
            if (d != axis && dim(v, d) != dim(x, d))
              return false;
          return true;
        });
        values.push_back(other ? other : x);
      }
      return g.concatOn(values, axis, name + "_concat");
    }
    case Slice: {
      int64_t sh = 1 + pick(h), sw = 1 + pick(w), sc = 1 + pick(c);
      return g.slice(x,
                     {0, int64_t(pick(h - sh + 1)), int64_t(pick(w - sw + 1)),
                      int64_t(pick(c - sc + 1))},
                     {1, sh, sw, sc}, name + "_slice");
    }
    case Reshape: {
      int64_t total = h * w * c;
      SmallVector<int64_t> divisors;
      for (int64_t d = 1; d <= std::min<int64_t>(total, 4 * p.channels); ++d)
        if (total % d == 0)
          divisors.push_back(d);
      int64_t nc = divisors[pick(divisors.size())];
      int64_t rest = total / nc;
      SmallVector<int64_t> hs;
      for (int64_t d = 1; d <= rest; ++d)
        if (rest % d == 0)
          hs.push_back(d);
      int64_t nh = hs[pick(hs.size())];
      return g.reshape(x, {1, nh, rest / nh, nc}, name + "_reshape");
    }
    case ReshapeRoundTrip: {
      // Through rank 2 or 3 and back, with an op in between when one fits.
      Value flat = pick(2) ? g.reshape(x, {h * w, c}, name + "_flat")
                           : g.reshape(x, {1, h * w, c}, name + "_flat");
      if (!isBool(flat))
        flat = g.relu(flat, name + "_flat_relu");
      return g.reshape(flat, {1, h, w, c}, name + "_unflat");
    }
    case Transpose: {
      static const int32_t perms[][4] = {
          {0, 2, 1, 3}, {0, 3, 1, 2}, {0, 1, 3, 2}, {0, 2, 3, 1}, {0, 3, 2, 1}};
      return g.transpose(x, perms[pick(5)], name + "_transpose");
    }
    case Pad: {
      // On the rank-3 view H x W x C: LLVM 22's tosa-validate rejects the
      // !tosa.shape<8> padding of a rank-4 tosa.pad (its MAX_RANK level
      // check counts the shape's length), which would fail every pipeline
      // run of a function that has one.
      SmallVector<int64_t, 6> padding;
      for (unsigned d = 0; d < 3; ++d) {
        padding.push_back(pick(3));
        padding.push_back(pick(3));
      }
      Value padded = g.pad(g.reshape(x, {h, w, c}, name + "_rank3"), padding,
                           name + "_pad");
      return g.reshape(padded,
                       {1, h + padding[0] + padding[1],
                        w + padding[2] + padding[3],
                        c + padding[4] + padding[5]},
                       name + "_rank4");
    }
    case Reduce:
      return g.reduceSum(x, 1 + pick(3), name + "_reduce");
    case Upsample:
      return g.upsample2x(x, name + "_upsample");
    case Cast: {
      Type f32 = Float32Type::get(ctx), f16 = Float16Type::get(ctx);
      Type i8 = IntegerType::get(ctx, 8), i16 = IntegerType::get(ctx, 16);
      if (isFloat(x))
        return g.castTo(x, elementOf(x).isF16() ? f32 : f16, name + "_cast");
      if (pick(2))
        return g.castTo(x, pick(2) ? f32 : f16, name + "_cast");
      // Integer to integer through tosa.rescale (unchanged, saturating).
      return g.rescale(x, isI8(x) ? i16 : i8, /*shift=*/30, name + "_rescale");
    }
    case Greater:
      return g.greater(x, partner(x), name + "_greater");
    case LogicalAnd:
      return g.logicalAnd(x, partner(x), name + "_and");
    case Select: {
      Value a = operand([&](Value v) {
        return !isBool(v) && typeOf(v).getShape() == typeOf(x).getShape();
      });
      if (!a)
        return {};
      g.setDType(dtypeOf(a));
      return g.select(x, a, partner(a), name + "_select");
    }
    case NumKinds:
      break;
    }
    return {};
  }

  /// Largest tensor the generator keeps (elements), so that host execution
  /// stays fast.
  static constexpr int64_t maxElements = 4096;

  /// The builder of the function.
  TosaGraphBuilder &g;
  /// Sizes, seed and op count.
  const ZooParams &p;
  /// The seeded random source of every choice.
  ZooRandom random;
  /// The context of the function.
  MLIRContext *ctx;
  /// Every value built so far, arguments first.
  SmallVector<Value> pool;
  /// The function's arguments.
  SmallVector<Value> arguments;
};
} // namespace

void mlir::memopt::zoo::buildFuzz(TosaGraphBuilder &g, const ZooParams &p) {
  FuzzModel(g, p).build();
}
