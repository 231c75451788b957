// A state (memopt.state = 1 on %s: result #1 holds its new value) lives in
// the caller's state buffer, outside the arena, and its update is computed
// over it: here 4 filters x memory 2 of int8, shifted by one step along the
// last axis and the new column (the input x) written at the end, as an
// SVDF updates its state.
// RUN: mem-opt %s --memory-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: mem-opt %s --memory-report="model=canonical" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CANON
// RUN: mem-opt %s --cortex-m-pipeline="stop-after=plan" | FileCheck %s --check-prefix=PLAN
// RUN: mem-opt %s --cortex-m-pipeline="stop-after=plan io=caller" | FileCheck %s --check-prefix=CALLER
//
// By hand, lowering model, io=arena: x (4 bytes, an input at its element's
// alignment) is copied into the new state's last column at the concat; the
// old state, the slice (a view) and the new state count 0 bytes; the
// reduce_max writes y (4 bytes, an output). Each step holds 4 bytes: peak 4.
// With the states as arena inputs and outputs (before states were kept
// apart) the concat's step held x, the old and the new state: 4 + 8 + 8 =
// 20. The canonical model keeps them so, and copies the slice (4 bytes):
// 4 + 8 + 4 = 16 at the slice and at the concat.
// REPORT: memory report for @shift: 7 steps, peak 4 bytes
// CANON: memory report for @shift: 7 steps, peak 16 bytes
//
// The plan: the function's arguments are the state buffer (8 bytes, at
// offset 0) and nothing else but the arena; the new state is a view of the
// state buffer, no allocation; the arena holds x and y only.
// PLAN-LABEL: func.func @shift(%arg0: memref<8xi8> {llvm.noalias, memopt.state_buffer})
// PLAN-SAME: memopt.peak_bytes = 4 : i64
// PLAN-SAME: memopt.state_alignment = 1 : i64
// PLAN-SAME: memopt.state_offsets = array<i64: 0>
// PLAN-SAME: memopt.state_size = 8 : i64
// PLAN-SAME: memplan.arena_size = 4 : i64
// PLAN-NOT: memref<1x4x2xi8> = memref.alloc
// PLAN: memref.view %arg0
// PLAN-NOT: memplan.place {{.*}} -> memref<1x4x2xi8>
// PLAN: return
//
// io=caller: x and y are the caller's; the state buffer follows the inputs
// (C: fn(in0, state, out0, arena)). The reduce_max is computed without its
// reduced axis, as 1x4: y's own shape, so into y's caller buffer. Predicted
// = the caller's 4 + 4 bytes, planned = an empty arena. (The model kept the
// reduction in the arena before, predicting 8 + 16 = 24.)
// CALLER-LABEL: func.func @shift(%arg0: memref<1x4xi8>, %arg1: memref<8xi8> {llvm.noalias, memopt.state_buffer}, %arg2: memref<1x4xi8>)
// CALLER-SAME: memopt.peak_bytes = 8 : i64
// CALLER-SAME: memplan.arena_size = 0 : i64
// CALLER: linalg.reduce ins(%{{.*}} : memref<1x4x2xi8>) outs(%arg2 : memref<1x4xi8>)

func.func @shift(%x: tensor<1x4xi8>, %s: tensor<1x8xi8> {memopt.state = 1 : i64}) -> (tensor<1x4xi8>, tensor<1x8xi8>) {
  %s3 = tosa.const_shape {values = dense<[1, 4, 2]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x3 = tosa.const_shape {values = dense<[1, 4, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s2 = tosa.const_shape {values = dense<[1, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %y2 = tosa.const_shape {values = dense<[1, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %start = tosa.const_shape {values = dense<[0, 0, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %size = tosa.const_shape {values = dense<[1, 4, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %old = tosa.reshape %s, %s3 : (tensor<1x8xi8>, !tosa.shape<3>) -> tensor<1x4x2xi8>
  %kept = tosa.slice %old, %start, %size : (tensor<1x4x2xi8>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<1x4x1xi8>
  %new = tosa.reshape %x, %x3 : (tensor<1x4xi8>, !tosa.shape<3>) -> tensor<1x4x1xi8>
  %next = tosa.concat %kept, %new {axis = 2 : i32} : (tensor<1x4x1xi8>, tensor<1x4x1xi8>) -> tensor<1x4x2xi8>
  %flat = tosa.reshape %next, %s2 : (tensor<1x4x2xi8>, !tosa.shape<2>) -> tensor<1x8xi8>
  %max = tosa.reduce_max %next {axis = 2 : i32} : (tensor<1x4x2xi8>) -> tensor<1x4x1xi8>
  %y = tosa.reshape %max, %y2 : (tensor<1x4x1xi8>, !tosa.shape<2>) -> tensor<1x4xi8>
  return %y, %flat : tensor<1x4xi8>, tensor<1x8xi8>
}
