// RUN: mem-opt %s --split-input-file --test-print-buffer-liveness -o /dev/null | FileCheck %s

// Ops tagged memopt.patch = [grid, k] (patch-prefix writes the tag) run after
// the last op of patch k - 1 of the same grid in block order: patches run one
// at a time, as one loop over them would. Untagged ops (here the final add,
// standing for the inserts into the cut value) only follow their operands.
// By hand: a0 and b0 are patch 0, a1 and b1 patch 1 of grid 0; c0 is patch 1
// of grid 1, whose patch 0 never appears, so it gets no edge; d is untagged.
// CHECK-LABEL: liveness of @patches
// CHECK:      node 0 'a0' tosa.negate reads [0] writes [1] after []
// CHECK-NEXT: node 1 'b0' tosa.negate reads [1] writes [2] after [0]
// CHECK-NEXT: node 2 'a1' tosa.negate reads [0] writes [3] after [1]
// CHECK-NEXT: node 3 'b1' tosa.negate reads [3] writes [4] after [1, 2]
// CHECK-NEXT: node 4 'c0' tosa.negate reads [0] writes [5] after []
// CHECK-NEXT: node 5 'd' tosa.add reads [2, 4] writes [6] after [1, 3]
func.func @patches(%x: tensor<16xi8>) -> (tensor<16xi8>, tensor<16xi8>) {
  %z = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %a0 = tosa.negate %x, %z, %z {memopt.patch = array<i64: 0, 0>} : (tensor<16xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<16xi8> loc("a0")
  %b0 = tosa.negate %a0, %z, %z {memopt.patch = array<i64: 0, 0>} : (tensor<16xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<16xi8> loc("b0")
  %a1 = tosa.negate %x, %z, %z {memopt.patch = array<i64: 0, 1>} : (tensor<16xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<16xi8> loc("a1")
  %b1 = tosa.negate %a1, %z, %z {memopt.patch = array<i64: 0, 1>} : (tensor<16xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<16xi8> loc("b1")
  %c0 = tosa.negate %x, %z, %z {memopt.patch = array<i64: 1, 1>} : (tensor<16xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<16xi8> loc("c0")
  %d = tosa.add %b0, %b1 : (tensor<16xi8>, tensor<16xi8>) -> tensor<16xi8> loc("d")
  return %d, %c0 : tensor<16xi8>, tensor<16xi8>
}
