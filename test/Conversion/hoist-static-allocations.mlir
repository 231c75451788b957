// RUN: mem-opt %s --pass-pipeline='builtin.module(func.func(hoist-static-allocations))' | FileCheck %s

// An allocation in a loop goes before the outermost loop around it; in the
// body of a planned loop (a loop over patches, marked by
// mark-fused-elementwise), before the outermost loop inside that body, so
// the body's buffers stay per iteration. An allocation with a dynamic size
// stays where it is.
// CHECK-LABEL: func.func @hoist
// CHECK: %[[TOP:.*]] = memref.alloc() : memref<4xi32>
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.for
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[TOP]]
// CHECK: scf.for
// CHECK-NEXT: %[[BODY:.*]] = memref.alloca() : memref<8xi32>
// CHECK-NEXT: scf.for
// CHECK-NEXT: memref.alloc(%{{.*}}) : memref<?xi32>
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[BODY]]
func.func @hoist(%n: index, %v: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %a = memref.alloc() : memref<4xi32>
      linalg.fill ins(%v : i32) outs(%a : memref<4xi32>)
    }
  }
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %d = memref.alloc(%j) : memref<?xi32>
      %b = memref.alloca() : memref<8xi32>
      linalg.fill ins(%v : i32) outs(%b : memref<8xi32>)
    }
  } loc(fused<"memopt.planned_loop">["patches"])
  return
}
