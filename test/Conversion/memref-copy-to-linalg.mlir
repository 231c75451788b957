// RUN: mem-opt %s --pass-pipeline="builtin.module(func.func(memref-copy-to-linalg))" | FileCheck %s

// CHECK-LABEL: func.func @copy
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%{{.*}} : memref<4xf32>) outs(%{{.*}} : memref<4xf32, strided<[2]>>)
func.func @copy(%a: memref<4xf32>, %b: memref<4xf32, strided<[2]>>) {
  memref.copy %a, %b : memref<4xf32> to memref<4xf32, strided<[2]>>
  return
}
