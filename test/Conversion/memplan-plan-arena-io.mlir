// RUN: mem-opt %s --split-input-file --allow-unregistered-dialect --memplan-plan-arena | FileCheck %s
// RUN: mem-opt %s --split-input-file --allow-unregistered-dialect --memplan-plan-arena=algorithm=no-reuse | FileCheck %s --check-prefix=NOREUSE

// Under memplan.io_in_arena the input and output buffers take their
// element's alignment (1 for i8), every other buffer the arena's (16).
// By hand: the input (5 x i8 = 5 bytes, alignment 1) is live up to the
// first "use", the f32 temporary (3 x 4 = 12 bytes, 16 aligned: 16) from
// its allocation to the second, the output (3 x i8 = 3 bytes, alignment 1)
// from its allocation to the end. The first use holds 5 + 16 = 21 bytes,
// the second 16 + 3 = 19: the bound is 21 (32 with 16-byte slots for the
// input and output, as @inner_slots below shows). `best`: the temporary at
// 0, the input at 16 and, once the input is dead, the output at 16: 21.
// CHECK-LABEL: func.func @io_slots
// CHECK-SAME: memplan.arena_size = 21
// CHECK-SAME: memplan.input_offsets = array<i64: 16>
// CHECK-SAME: memplan.lower_bound = 21
// CHECK-SAME: memplan.output_offsets = array<i64: 16>
// CHECK: memplan.arena align 16 : memref<21xi8>
// No reuse in allocation order: the input at 0 (5 bytes), the temporary at
// the next multiple of 16, 16 (16 bytes), the output at 32 (3 bytes): 35.
// NOREUSE-LABEL: func.func @io_slots
// NOREUSE-SAME: memplan.arena_size = 35
// NOREUSE-SAME: memplan.input_offsets = array<i64: 0>
// NOREUSE-SAME: memplan.output_offsets = array<i64: 32>
func.func @io_slots() -> memref<3xi8> attributes {memplan.io_in_arena} {
  %in = memref.alloc() {memplan.input = 0 : i64} : memref<5xi8>
  %t = memref.alloc() : memref<3xf32>
  "use"(%in, %t) : (memref<5xi8>, memref<3xf32>) -> ()
  %out = memref.alloc() : memref<3xi8>
  "use"(%t, %out) : (memref<3xf32>, memref<3xi8>) -> ()
  return %out : memref<3xi8>
}

// -----

// Without memplan.io_in_arena the same buffers are all inner ones: 16-byte
// slots, 16 + 16 at step 1 and 16 + 16 at step 2: 32.
// CHECK-LABEL: func.func @inner_slots
// CHECK-SAME: memplan.arena_size = 32
// CHECK-SAME: memplan.lower_bound = 32
func.func @inner_slots(%out: memref<3xi8>) {
  %in = memref.alloc() : memref<5xi8>
  %t = memref.alloc() : memref<3xf32>
  "use"(%in, %t) : (memref<5xi8>, memref<3xf32>) -> ()
  %o = memref.alloc() : memref<3xi8>
  "use"(%t, %o) : (memref<3xf32>, memref<3xi8>) -> ()
  "use"(%o, %out) : (memref<3xi8>, memref<3xi8>) -> ()
  memref.dealloc %in : memref<5xi8>
  memref.dealloc %t : memref<3xf32>
  memref.dealloc %o : memref<3xi8>
  return
}
