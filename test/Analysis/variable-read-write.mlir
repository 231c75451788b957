// RUN: mem-opt %s --memory-report -o /dev/null 2>&1 | FileCheck %s
// RUN: not mem-opt %s --cortex-m-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPE

// A `tosa.variable_read` has no operands; the dataflow graph builder read
// operand #0 of every op for its lowering workspace and crashed on it
// (upstream level_check.mlir, test_variable_read_write_tensor_size_invalid,
// found by benchmarks/robustness-sweep.py). Expected values by hand: the
// read's 4xf32 result is 16 B (alignment 16) and lives from the read (step
// 0) to the write (step 1); the variable itself is module state, not an
// activation buffer.

module {
  tosa.variable @stored_var : tensor<4xf32>
  func.func @read_write() -> () {
    %0 = tosa.variable_read @stored_var : tensor<4xf32>
    tosa.variable_write @stored_var, %0 : tensor<4xf32>
    return
  }
}

// CHECK: memory report for @read_write: 2 steps, peak 16 bytes at step 0
// CHECK: 0  tosa.variable_read {{.*}} 16  <- peak
// CHECK: 1  tosa.variable_write {{.*}} 16

// The pipeline has no lowering for it and says so at the op.
// PIPE: variable-read-write.mlir:15:10: error: failed to legalize operation 'tosa.variable_read'
