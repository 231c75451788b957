//===- RandomGraph.h - Random TOSA DAGs for property tests ------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// A rapidcheck generator of random functions of abs, concat, reduce_sum,
// reshape and tensor.cast ops over f32 vectors, with constants mixed in, and
// a brute-force evaluation of the canonical memory model on the generator's
// own description of the graph (never on mem-opt's DataflowGraph).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_UNITTESTS_RANDOMGRAPH_H
#define MEMOPT_UNITTESTS_RANDOMGRAPH_H

#include "rapidcheck.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <string>
#include <vector>

namespace mlir {
namespace memopt {
namespace testgen {

/// One SSA value of a generated function.
struct GenValue {
  /// Number of f32 elements.
  int64_t length = 0;
  /// True for constants and values computed only from constants.
  bool isWeight = false;
  /// Index of the value whose storage this value uses (itself unless it is a
  /// view). Meaningless for weights.
  int root = 0;
  /// The step of the op that defines it; -1 for function arguments.
  int step = -1;
};

/// One activation op (a step in file order).
struct GenStep {
  /// Operand value indices.
  std::vector<int> operands;
  /// Steps this one depends on (defining steps of its operands).
  std::vector<int> deps;
  /// The op name expected in the DataflowGraph.
  std::string opName;
};

/// A generated function: its text and the model the brute force reads.
struct GenFunction {
  std::string text;
  std::vector<GenValue> values;
  std::vector<GenStep> steps;
  std::vector<int> outputs;
};

/// Returns the type of \p value.
inline std::string typeOf(const GenValue &value) {
  return "tensor<" + std::to_string(value.length) + "xf32>";
}

/// Generates a random function of abs, concat, reduce_sum, reshape and
/// tensor.cast ops over f32 vectors, with constants mixed in. Each value is
/// returned with probability 1 / \p returnOneIn (the last one if none is).
inline rc::Gen<GenFunction> genFunction(int maxOps = 13, int returnOneIn = 3) {
  return rc::gen::exec([maxOps, returnOneIn] {
    GenFunction fn;
    std::string body;
    llvm::raw_string_ostream os(body);
    int numInputs = *rc::gen::inRange(1, 4);
    std::string args;
    for (int i = 0; i < numInputs; ++i) {
      GenValue value;
      value.length = *rc::gen::inRange(1, 65);
      value.root = i;
      fn.values.push_back(value);
      args += (i ? ", " : "") + std::string("%v") + std::to_string(i) + ": " +
              typeOf(value);
    }
    int numOps = *rc::gen::inRange(1, maxOps + 1);
    for (int opIndex = 0; opIndex < numOps; ++opIndex) {
      int kind = *rc::gen::inRange(0, 6);
      int id = fn.values.size();
      GenValue result;
      std::vector<int> operands;
      std::string name = "%v" + std::to_string(id);
      auto pick = [&] {
        return *rc::gen::inRange(0, static_cast<int>(fn.values.size()));
      };
      std::string opName;
      switch (kind) {
      case 0: { // Constant: a weight.
        result.length = *rc::gen::inRange(1, 65);
        result.isWeight = true;
        os << "  " << name
           << " = \"tosa.const\"() <{values = dense<1.0> : " << typeOf(result)
           << "}> : () -> " << typeOf(result) << "\n";
        break;
      }
      case 1: { // Elementwise.
        operands = {pick()};
        result.length = fn.values[operands[0]].length;
        opName = "tosa.abs";
        os << "  " << name << " = tosa.abs %v" << operands[0] << " : ("
           << typeOf(result) << ") -> " << typeOf(result) << "\n";
        break;
      }
      case 2: { // Concat of one to three values (repeats allowed).
        int count = *rc::gen::inRange(1, 4);
        std::string names, types;
        for (int i = 0; i < count; ++i) {
          operands.push_back(pick());
          result.length += fn.values[operands.back()].length;
          names += (i ? ", %v" : "%v") + std::to_string(operands.back());
          types += (i ? ", " : "") + typeOf(fn.values[operands.back()]);
        }
        opName = "tosa.concat";
        os << "  " << name << " = tosa.concat " << names
           << " {axis = 0 : i32} : (" << types << ") -> " << typeOf(result)
           << "\n";
        break;
      }
      case 3: { // Reduction to one element.
        operands = {pick()};
        result.length = 1;
        opName = "tosa.reduce_sum";
        os << "  " << name << " = tosa.reduce_sum %v" << operands[0]
           << " {axis = 0 : i32} : (" << typeOf(fn.values[operands[0]])
           << ") -> " << typeOf(result) << "\n";
        break;
      }
      case 4: { // tosa.reshape: a view.
        operands = {pick()};
        result.length = fn.values[operands[0]].length;
        opName = "tosa.reshape";
        os << "  %s" << id << " = tosa.const_shape {values = dense<["
           << result.length << "]> : tensor<1xindex>} : () -> !tosa.shape<1>\n"
           << "  " << name << " = tosa.reshape %v" << operands[0] << ", %s"
           << id << " : (" << typeOf(result) << ", !tosa.shape<1>) -> "
           << typeOf(result) << "\n";
        break;
      }
      default: { // tensor.cast: a view.
        operands = {pick()};
        result.length = fn.values[operands[0]].length;
        opName = "tensor.cast";
        os << "  " << name << " = tensor.cast %v" << operands[0] << " : "
           << typeOf(result) << " to " << typeOf(result) << "\n";
        break;
      }
      }
      bool isView = kind == 4 || kind == 5;
      if (kind != 0) {
        result.isWeight = llvm::all_of(
            operands, [&](int operand) { return fn.values[operand].isWeight; });
      }
      result.root = id;
      if (!result.isWeight) {
        if (isView)
          result.root = fn.values[operands[0]].root;
        result.step = fn.steps.size();
        GenStep step;
        step.operands = operands;
        step.opName = opName;
        for (int operand : operands)
          if (fn.values[operand].step >= 0)
            step.deps.push_back(fn.values[operand].step);
        fn.steps.push_back(step);
      }
      fn.values.push_back(result);
    }
    // Return a non-empty random subset of values.
    std::string results, resultTypes;
    for (int id = 0, e = fn.values.size(); id < e; ++id) {
      bool last = id == e - 1 && fn.outputs.empty();
      if (!last && *rc::gen::inRange(0, returnOneIn) != 0)
        continue;
      fn.outputs.push_back(id);
      results += (results.empty() ? "%v" : ", %v") + std::to_string(id);
      resultTypes += (resultTypes.empty() ? "" : ", ") + typeOf(fn.values[id]);
    }
    fn.text = "func.func @f(" + args + ") -> (" + resultTypes + ") {\n" + body +
              "  return " + results + " : " + resultTypes + "\n}\n";
    return fn;
  });
}

/// Returns the peak of the live bytes \p live of \p fn: their largest entry,
/// or, for a function without ops, the bytes of its inputs (they are in
/// memory although no op runs).
inline int64_t bruteForcePeak(const GenFunction &fn,
                              const std::vector<int64_t> &live) {
  if (!live.empty())
    return *std::max_element(live.begin(), live.end());
  int64_t bytes = 0;
  for (const GenValue &value : fn.values)
    if (value.step < 0 && !value.isWeight)
      bytes += 4 * value.length;
  return bytes;
}

/// Brute force of the canonical model: for each step of \p order (step
/// indices of \p fn), adds up every buffer whose producer has run and whose
/// last reader (or the end, for outputs) has not. An input nobody reads or
/// returns is live at the entry only, with the other inputs: the first step
/// holds at least the bytes of all inputs.
inline std::vector<int64_t> bruteForceLiveBytes(const GenFunction &fn,
                                                const std::vector<int> &order) {
  int numSteps = order.size();
  std::vector<int> position(numSteps);
  for (int i = 0; i < numSteps; ++i)
    position[order[i]] = i;
  std::vector<int64_t> live(numSteps, 0);
  int64_t entry = 0;
  for (int buffer = 0, e = fn.values.size(); buffer < e; ++buffer) {
    const GenValue &value = fn.values[buffer];
    if (value.isWeight || value.root != buffer)
      continue;
    int start = value.step < 0 ? 0 : position[value.step];
    int end = start;
    bool used = false;
    for (int s = 0; s < numSteps; ++s)
      for (int operand : fn.steps[s].operands)
        if (!fn.values[operand].isWeight && fn.values[operand].root == buffer) {
          end = std::max(end, position[s]);
          used = true;
        }
    for (int output : fn.outputs)
      if (!fn.values[output].isWeight && fn.values[output].root == buffer) {
        end = numSteps - 1;
        used = true;
      }
    if (value.step < 0)
      entry += 4 * value.length;
    if (value.step < 0 && !used)
      continue;
    for (int s = start; s <= end && s < numSteps; ++s)
      live[s] += 4 * value.length;
  }
  if (numSteps > 0)
    live[0] = std::max(live[0], entry);
  return live;
}

} // namespace testgen
} // namespace memopt
} // namespace mlir

#endif // MEMOPT_UNITTESTS_RANDOMGRAPH_H
