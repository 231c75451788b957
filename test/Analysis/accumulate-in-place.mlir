// RUN: mem-opt %s --split-input-file --test-print-buffer-liveness -o /dev/null | FileCheck %s

// An accumulating add (`tosa.add %acc, %partial {memopt.accumulate}`, written
// by partition-concat) needs no buffer of its own: the producer of %partial
// accumulates into the buffer of %acc in place, and the add is a view of
// %partial. Expected values by hand; 16xi8 = 16 B, 16xf32 = 64 B.
//   x0 [0, 0], x1 [0, 1], x2 [0, 3] (inputs, 16 B each), p0 [0, 1],
//   p1 [1, 3], p2 [3, 4] (64 B each).
//   step 0 (p0): x0 + x1 + x2 + p0                 = 112
//   step 1 (p1): x1 + x2 + p0 + p1 - 64 (p0 reused) =  96
//   step 2 (s1, view): x2 + p1                      =  80
//   step 3 (p2): x2 + p1 + p2 - 64 (p1 reused)      =  80
//   step 4 (s2, view): p2                           =  64
// CHECK-LABEL: liveness of @chain
// CHECK-NEXT: buffer 0 '%arg0' 16 bytes, input, users [0]
// CHECK-NEXT: buffer 1 '%arg1' 16 bytes, input, users [1]
// CHECK-NEXT: buffer 2 '%arg2' 16 bytes, input, users [3]
// CHECK-NEXT: buffer 3 'p0' 64 bytes, users [1]
// CHECK-NEXT: buffer 4 'p1' 64 bytes, users [2, 3]
// CHECK-NEXT: buffer 5 'p2' 64 bytes, output, users [4]
// CHECK-NEXT: node 0 'p0' tosa.cast reads [0] writes [3] after []
// CHECK-NEXT: node 1 'p1' tosa.cast reads [1, 3] writes [4] after [0]
// CHECK-NEXT: node 2 's1' tosa.add (view) reads [4] writes [] after [0, 1]
// CHECK-NEXT: node 3 'p2' tosa.cast reads [2, 4] writes [5] after [2]
// CHECK-NEXT: node 4 's2' tosa.add (view) reads [5] writes [] after [2, 3]
// CHECK:      step 0 'p0' 112 bytes
// CHECK-NEXT: step 1 'p1' 96 bytes
// CHECK-NEXT: step 2 's1' 80 bytes
// CHECK-NEXT: step 3 'p2' 80 bytes
// CHECK-NEXT: step 4 's2' 64 bytes
// CHECK-NEXT: peak 112 bytes at step 0
func.func @chain(%x0: tensor<16xi8>, %x1: tensor<16xi8>, %x2: tensor<16xi8>) -> tensor<16xf32> {
  %p0 = tosa.cast %x0 : (tensor<16xi8>) -> tensor<16xf32> loc("p0")
  %p1 = tosa.cast %x1 : (tensor<16xi8>) -> tensor<16xf32> loc("p1")
  %s1 = tosa.add %p0, %p1 {memopt.accumulate} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32> loc("s1")
  %p2 = tosa.cast %x2 : (tensor<16xi8>) -> tensor<16xf32> loc("p2")
  %s2 = tosa.add %s1, %p2 {memopt.accumulate} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32> loc("s2")
  return %s2 : tensor<16xf32>
}

// -----

// The same chain without the attribute: ordinary adds, each with a buffer.
//   p0 [0, 2], p1 [1, 2], s1 [2, 4], p2 [3, 4], s2 [4, 4].
//   step 0: 48 + 64 = 112; step 1: 32 + 128 = 160; step 2: 16 + 192 = 208;
//   step 3: 16 + 128 = 144; step 4: 192.
// CHECK-LABEL: liveness of @plain
// CHECK:      node 2 's1' tosa.add reads [3, 4] writes [5] after [0, 1]
// CHECK:      step 0 'p0' 112 bytes
// CHECK-NEXT: step 1 'p1' 160 bytes
// CHECK-NEXT: step 2 's1' 208 bytes
// CHECK-NEXT: step 3 'p2' 144 bytes
// CHECK-NEXT: step 4 's2' 192 bytes
// CHECK-NEXT: peak 208 bytes at step 2
func.func @plain(%x0: tensor<16xi8>, %x1: tensor<16xi8>, %x2: tensor<16xi8>) -> tensor<16xf32> {
  %p0 = tosa.cast %x0 : (tensor<16xi8>) -> tensor<16xf32> loc("p0")
  %p1 = tosa.cast %x1 : (tensor<16xi8>) -> tensor<16xf32> loc("p1")
  %s1 = tosa.add %p0, %p1 : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32> loc("s1")
  %p2 = tosa.cast %x2 : (tensor<16xi8>) -> tensor<16xf32> loc("p2")
  %s2 = tosa.add %s1, %p2 : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32> loc("s2")
  return %s2 : tensor<16xf32>
}

// -----

// The rule needs both operands to be read by the add alone: here the
// accumulator is also returned, and a partial that is a function argument
// has no producer to accumulate. Both adds stay ordinary nodes.
// CHECK-LABEL: liveness of @not_alone
// CHECK:      node 2 's1' tosa.add reads [3, 4] writes [5] after [0, 1]
// CHECK-NEXT: node 3 's2' tosa.add reads [2, 5] writes [6] after [2]
func.func @not_alone(%x0: tensor<16xi8>, %x1: tensor<16xi8>, %y: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %p0 = tosa.cast %x0 : (tensor<16xi8>) -> tensor<16xf32> loc("p0")
  %p1 = tosa.cast %x1 : (tensor<16xi8>) -> tensor<16xf32> loc("p1")
  %s1 = tosa.add %p0, %p1 {memopt.accumulate} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32> loc("s1")
  %s2 = tosa.add %s1, %y {memopt.accumulate} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32> loc("s2")
  return %s2, %p0 : tensor<16xf32>, tensor<16xf32>
}
