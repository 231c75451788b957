//===- MemPlanPropertyTest.cpp - memplan verifier and planner vs brute force =//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Property tests of the memory plan, each against a brute force that does not
// use the code under test:
// - the verifier of `memplan.arena` accepts a random plan exactly when a
//   byte-by-step occupancy grid finds it aligned, inside the arena and free
//   of overlaps;
// - memplan-plan-arena on random bufferized programs never places two buffers
//   that the program uses at the same time on the same bytes, and records the
//   lower bound that a direct sweep over the program computes.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Conversion/Passes.h"
#include "MemOpt/Dialect/MemPlan/MemPlanDialect.h"
#include "MemOpt/Dialect/MemPlan/MemPlanOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MathExtras.h"

// rapidcheck/gtest.h needs gtest/gtest.h first.
#include "gtest/gtest.h"

#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace mlir;

namespace {

/// One buffer of a random plan: `size` bytes of elements of `elementBytes`
/// bytes each (i8, i16, f32 or f64).
struct RandomPlace {
  int64_t offset, size, first, last, elementBytes;
};

/// Returns true if the plan is safe, by filling a byte x step grid. An
/// offset must be a multiple of the element's size (the element's alignment
/// for these types), or of the arena alignment if that is smaller.
bool isSafeByBruteForce(const std::vector<RandomPlace> &places,
                        int64_t arenaSize, int64_t alignment) {
  int64_t steps = 0;
  for (const RandomPlace &p : places) {
    if (p.offset % std::min(p.elementBytes, alignment) ||
        p.offset + p.size > arenaSize)
      return false;
    steps = std::max(steps, p.last + 1);
  }
  std::vector<int> grid(static_cast<size_t>(arenaSize * steps), 0);
  for (const RandomPlace &p : places)
    for (int64_t byte = p.offset; byte < p.offset + p.size; ++byte)
      for (int64_t step = p.first; step <= p.last; ++step)
        if (++grid[static_cast<size_t>(byte * steps + step)] > 1)
          return false;
  return true;
}

/// A context that knows the dialects of the tests and tolerates "test.*" ops.
struct TestContext {
  MLIRContext context;
  TestContext() {
    context.loadDialect<func::FuncDialect, memref::MemRefDialect,
                        memplan::MemPlanDialect, scf::SCFDialect>();
    context.allowUnregisteredDialects();
  }
};

} // namespace

RC_GTEST_PROP(MemPlanVerifierProperty, AcceptsExactlySafePlans, ()) {
  const int64_t alignment = *rc::gen::element<int64_t>(1, 2, 4, 8);
  const int64_t arenaSize = *rc::gen::inRange<int64_t>(0, 65);
  const auto count = *rc::gen::inRange<int>(1, 6);
  std::vector<RandomPlace> places;
  for (int i = 0; i < count; ++i) {
    RandomPlace p;
    // Mostly aligned offsets, sometimes not.
    p.offset = *rc::gen::inRange<int64_t>(0, 9) *
               (*rc::gen::inRange(0, 5) ? alignment : 1);
    p.elementBytes = *rc::gen::element<int64_t>(1, 2, 4, 8);
    p.size =
        *rc::gen::inRange<int64_t>(0, 25 / p.elementBytes + 1) * p.elementBytes;
    p.first = *rc::gen::inRange<int64_t>(0, 6);
    p.last = p.first + *rc::gen::inRange<int64_t>(0, 4);
    places.push_back(p);
  }

  std::string ir = "func.func @f() {\n  %arena = memplan.arena align " +
                   std::to_string(alignment) + " : memref<" +
                   std::to_string(arenaSize) + "xi8>\n";
  for (const RandomPlace &p : places)
    ir += "  %" + std::to_string(&p - places.data()) + " = memplan.place " +
          "%arena[" + std::to_string(p.offset) + "] live [" +
          std::to_string(p.first) + ", " + std::to_string(p.last) +
          "] : memref<" + std::to_string(arenaSize) + "xi8> to memref<" +
          std::to_string(p.size / p.elementBytes) + "x" +
          (p.elementBytes == 1   ? "i8"
           : p.elementBytes == 2 ? "i16"
           : p.elementBytes == 4 ? "f32"
                                 : "f64") +
          ">\n";
  ir += "  return\n}\n";

  TestContext test;
  ScopedDiagnosticHandler silence(&test.context,
                                  [](Diagnostic &) { return success(); });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(ir, &test.context);
  RC_ASSERT(static_cast<bool>(module) ==
            isSafeByBruteForce(places, arenaSize, alignment));
}

RC_GTEST_PROP(MemPlanPlanArenaProperty, PlansRandomProgramsSafely, ()) {
  const int64_t alignment = *rc::gen::element<int64_t>(1, 4, 16);
  const std::string algorithm =
      *rc::gen::element<std::string>("best", "greedy-by-size", "no-reuse");
  const auto numBuffers = *rc::gen::inRange<int>(1, 9);

  // A random program: each buffer is allocated, then followed by zero to
  // three ops, each of which uses a random non-empty set of the buffers
  // allocated so far, directly or through a memref.cast made right after
  // the allocation, at the top level or inside an scf.execute_region. The
  // generator records the steps itself.
  std::vector<int64_t> sizes;
  std::vector<int64_t> allocStep(numBuffers), lastStep(numBuffers);
  std::vector<bool> hasView;
  std::string body;
  int64_t step = 0;
  for (int allocated = 0; allocated < numBuffers; ++allocated) {
    int64_t size = *rc::gen::inRange<int64_t>(1, 40);
    sizes.push_back(size);
    body += "  %b" + std::to_string(allocated) + " = memref.alloc() : memref<" +
            std::to_string(size) + "xi8>\n";
    allocStep[allocated] = lastStep[allocated] = step++;
    // Half of the buffers get a view right away, used in their place later.
    hasView.push_back(*rc::gen::inRange(0, 2));
    if (hasView.back()) {
      body += "  %v" + std::to_string(allocated) + " = memref.cast %b" +
              std::to_string(allocated) + " : memref<" + std::to_string(size) +
              "xi8> to memref<?xi8>\n";
      lastStep[allocated] = step++;
    }
    const auto numOps = *rc::gen::inRange(0, 4);
    for (int op = 0; op < numOps; ++op) {
      std::vector<int> used;
      for (int b = 0; b <= allocated; ++b)
        if (b == allocated - op || !*rc::gen::inRange(0, 3))
          used.push_back(b);
      if (used.empty())
        used.push_back(allocated);
      // Buffers with a view are used through it half of the time, and some
      // ops sit in a nested region, which counts at the top-level op.
      std::string operands, types;
      for (auto [i, b] : llvm::enumerate(used)) {
        std::string name = "%b" + std::to_string(b);
        std::string type = "memref<" + std::to_string(sizes[b]) + "xi8>";
        if (hasView[b] && *rc::gen::inRange(0, 2)) {
          name = "%v" + std::to_string(b);
          type = "memref<?xi8>";
        }
        operands += (i ? ", " : "") + name;
        types += (i ? ", " : "") + type;
        lastStep[b] = step;
      }
      std::string use =
          "\"test.op\"(" + operands + ") : (" + types + ") -> ()\n";
      if (*rc::gen::inRange(0, 4))
        body += "  " + use;
      else
        body += "  scf.execute_region {\n    " + use + "    scf.yield\n  }\n";
      ++step;
    }
  }
  std::string ir = "func.func @f() {\n" + body + "  return\n}\n";

  TestContext test;
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(ir, &test.context);
  RC_ASSERT(static_cast<bool>(module));
  PassManager pm(&test.context);
  memopt::MemPlanPlanArenaPassOptions options;
  options.alignment = alignment;
  options.algorithm = algorithm;
  pm.addNestedPass<func::FuncOp>(memopt::createMemPlanPlanArenaPass(options));
  RC_ASSERT(succeeded(pm.run(*module)));
  RC_ASSERT(succeeded(verify(*module)));

  auto func = cast<func::FuncOp>(module->getBody()->front());
  std::vector<int64_t> offsets;
  func.walk([&](memplan::PlaceOp place) {
    offsets.push_back(static_cast<int64_t>(place.getOffset()));
  });
  RC_ASSERT(offsets.size() == sizes.size());
  int64_t arenaSize =
      func->getAttrOfType<IntegerAttr>(memplan::kArenaSizeAttrName).getInt();

  // Buffers used at the same time never share a byte, all fit, all aligned.
  for (int a = 0; a < numBuffers; ++a) {
    RC_ASSERT(offsets[a] % alignment == 0);
    RC_ASSERT(offsets[a] + sizes[a] <= arenaSize);
    for (int b = a + 1; b < numBuffers; ++b) {
      bool together =
          allocStep[a] <= lastStep[b] && allocStep[b] <= lastStep[a];
      bool shareBytes = offsets[a] < offsets[b] + sizes[b] &&
                        offsets[b] < offsets[a] + sizes[a];
      RC_ASSERT(!(together && shareBytes));
    }
  }
  // The recorded lower bound is the peak of aligned live bytes per step.
  int64_t peak = 0;
  for (int64_t s = 0; s < step; ++s) {
    int64_t live = 0;
    for (int b = 0; b < numBuffers; ++b)
      if (allocStep[b] <= s && s <= lastStep[b])
        live += static_cast<int64_t>(llvm::alignTo(sizes[b], alignment));
    peak = std::max(peak, live);
  }
  RC_ASSERT(
      func->getAttrOfType<IntegerAttr>(memplan::kLowerBoundAttrName).getInt() ==
      peak);
  RC_ASSERT(arenaSize >= peak);
}
