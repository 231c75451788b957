// RUN: mem-opt %s --order-constant-globals | FileCheck %s

// Bufferization visited @second before @first: the globals sit in its order
// and @first's 8xi32 constant got the suffix _0. By first use in module
// order, @first's 8xi32 constant is the plain `__constant_8xi32`, @second's
// is `_0`, and @second's other 8xi32 constant (used after it) `_1`; the
// 4xi8 constant used by both keeps its name. The unused constant comes after
// the used ones, and @weights (not a bufferization name) stays where it is.

// CHECK:      memref.global "private" constant @__constant_8xi32 : memref<8xi32> = dense<1>
// CHECK-NEXT: memref.global "private" constant @__constant_4xi8 : memref<4xi8> = dense<3>
// CHECK-NEXT: memref.global "private" constant @__constant_8xi32_0 : memref<8xi32> = dense<2>
// CHECK-NEXT: memref.global "private" constant @__constant_8xi32_1 : memref<8xi32> = dense<4>
// CHECK-NEXT: memref.global "private" constant @__constant_2xi8 : memref<2xi8> = dense<5>
// CHECK-NEXT: memref.global "private" constant @weights
// CHECK:      func.func @first
// CHECK-NEXT:   memref.get_global @__constant_8xi32 :
// CHECK-NEXT:   memref.get_global @__constant_4xi8 :
// CHECK:      func.func @second
// CHECK-NEXT:   memref.get_global @__constant_8xi32_0 :
// CHECK-NEXT:   memref.get_global @__constant_8xi32_1 :
// CHECK-NEXT:   memref.get_global @__constant_4xi8 :
memref.global "private" constant @__constant_2xi8 : memref<2xi8> = dense<5>
memref.global "private" constant @__constant_8xi32_1 : memref<8xi32> = dense<1>
memref.global "private" constant @__constant_4xi8 : memref<4xi8> = dense<3>
memref.global "private" constant @__constant_8xi32_0 : memref<8xi32> = dense<4>
memref.global "private" constant @__constant_8xi32 : memref<8xi32> = dense<2>
memref.global "private" constant @weights : memref<2xi8> = dense<7>
func.func @first() -> (memref<8xi32>, memref<4xi8>) {
  %0 = memref.get_global @__constant_8xi32_1 : memref<8xi32>
  %1 = memref.get_global @__constant_4xi8 : memref<4xi8>
  return %0, %1 : memref<8xi32>, memref<4xi8>
}
func.func @second() -> (memref<8xi32>, memref<8xi32>, memref<4xi8>, memref<2xi8>) {
  %0 = memref.get_global @__constant_8xi32 : memref<8xi32>
  %1 = memref.get_global @__constant_8xi32_0 : memref<8xi32>
  %2 = memref.get_global @__constant_4xi8 : memref<4xi8>
  %3 = memref.get_global @weights : memref<2xi8>
  return %0, %1, %2, %3 : memref<8xi32>, memref<8xi32>, memref<4xi8>, memref<2xi8>
}
