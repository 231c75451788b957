// RUN: mem-opt %s --split-input-file --memplan-lower | FileCheck %s
// RUN: mem-opt %s --split-input-file --allow-unregistered-dialect --memplan-lower | mem-opt --finalize-memref-to-llvm --convert-arith-to-llvm --convert-func-to-llvm="use-bare-ptr-memref-call-conv" --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

// The arena becomes the trailing argument; each place a memref.view at its
// offset; the attributes stay.
// CHECK-LABEL: func.func @f(
// CHECK-SAME: %[[IN:.*]]: memref<4xf32>, %[[ARENA:.*]]: memref<48xi8> {llvm.noalias})
// CHECK-SAME: memplan.arena_alignment = 16 : i64, memplan.arena_size = 48 : i64, memplan.lower_bound = 48 : i64
// CHECK-NOT: memplan.
// CHECK:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[A:.*]] = memref.view %[[ARENA]][%[[C0]]][] : memref<48xi8> to memref<4xf32>
// CHECK-NEXT: memref.copy %[[IN]], %[[A]]
// CHECK-NEXT: %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT: %[[B:.*]] = memref.view %[[ARENA]][%[[C16]]][] : memref<48xi8> to memref<2x4xf32>
// CHECK-NOT: memplan.
// With the bare-pointer convention, the arena is one more pointer.
// LLVM: llvm.func @f(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.noalias})
func.func @f(%in: memref<4xf32>) attributes {memplan.arena_alignment = 16 : i64, memplan.arena_size = 48 : i64, memplan.lower_bound = 48 : i64} {
  %arena = memplan.arena align 16 : memref<48xi8>
  %a = memplan.place %arena[0] live [0, 2] : memref<48xi8> to memref<4xf32>
  memref.copy %in, %a : memref<4xf32> to memref<4xf32>
  %b = memplan.place %arena[16] live [2, 3] : memref<48xi8> to memref<2x4xf32>
  %c = memref.expand_shape %a [[0, 1]] output_shape [1, 4] : memref<4xf32> into memref<1x4xf32>
  %d = memref.subview %b[0, 0] [1, 4] [1, 1] : memref<2x4xf32> to memref<1x4xf32, strided<[4, 1]>>
  memref.copy %c, %d : memref<1x4xf32> to memref<1x4xf32, strided<[4, 1]>>
  return
}

// -----

// A planned function without buffers gets an empty arena, so that every
// planned function has the same calling convention. Unplanned functions and
// declarations are left alone.
// CHECK-LABEL: func.func @empty(
// CHECK-SAME: %{{.*}}: memref<4xf32>, %{{.*}}: memref<0xi8> {llvm.noalias})
// CHECK-SAME: memplan.arena_alignment = 16 : i64, memplan.arena_size = 0 : i64
// CHECK-LABEL: func.func @unplanned(
// CHECK-SAME: %{{.*}}: memref<4xf32>) {
// CHECK: func.func private @decl(memref<4xf32>)
// LLVM-LABEL: llvm.func @empty(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.noalias})
func.func @empty(%in: memref<4xf32>) attributes {memplan.arena_alignment = 16 : i64, memplan.arena_size = 0 : i64, memplan.lower_bound = 0 : i64} {
  return
}
func.func @unplanned(%in: memref<4xf32>) {
  func.call @decl(%in) : (memref<4xf32>) -> ()
  return
}
func.func private @decl(memref<4xf32>)

// -----

// Hand-written plans without the attributes get them from the arena.
// CHECK-LABEL: func.func @bare(
// CHECK-SAME: %{{.*}}: memref<64xi8> {llvm.noalias})
// CHECK-SAME: memplan.arena_alignment = 32 : i64, memplan.arena_size = 64 : i64
// CHECK: memref.view %{{.*}}[%{{.*}}][] : memref<64xi8> to memref<8xf32>
func.func @bare() {
  %arena = memplan.arena align 32 : memref<64xi8>
  %a = memplan.place %arena[32] live [0, 0] : memref<64xi8> to memref<8xf32>
  return
}

// -----

// Calls between planned functions: the callees' arenas share one range at the
// end of the caller's arena, aligned to the largest alignment. @leaf needs 48
// bytes (align 16), @mid 32 (align 32) plus its call of @leaf: 48 bytes at
// offset alignTo(32, 32) = 32, so 80, rounded up to 96 (align 32). @top has
// 100 bytes (align 16) and calls @mid (96) and @leaf (48), one after the
// other: the tail starts at alignTo(100, 32) = 128 and holds max(96, 48) =
// 96 bytes, so 224 bytes, align 32.
// CHECK-LABEL: func.func @top(
// CHECK-SAME: %[[TARENA:.*]]: memref<224xi8> {llvm.noalias})
// CHECK-SAME: memplan.arena_alignment = 32 : i64, memplan.arena_size = 224 : i64
// CHECK:      %[[C128:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[SUB1:.*]] = memref.view %[[TARENA]][%[[C128]]][] : memref<224xi8> to memref<96xi8>
// CHECK-NEXT: call @mid(%[[SUB1]]) : (memref<96xi8>) -> ()
// CHECK:      %[[C128B:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[SUB2:.*]] = memref.view %[[TARENA]][%[[C128B]]][] : memref<224xi8> to memref<48xi8>
// CHECK-NEXT: call @leaf(%[[SUB2]]) : (memref<48xi8>) -> ()
// CHECK-LABEL: func.func @mid(
// CHECK-SAME: %[[MARENA:.*]]: memref<96xi8> {llvm.noalias})
// CHECK-SAME: memplan.arena_alignment = 32 : i64, memplan.arena_size = 96 : i64
// CHECK:      %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[SUB:.*]] = memref.view %[[MARENA]][%[[C32]]][] : memref<96xi8> to memref<48xi8>
// CHECK-NEXT: call @leaf(%[[SUB]]) : (memref<48xi8>) -> ()
// CHECK-LABEL: func.func @leaf(
// CHECK-SAME: %{{.*}}: memref<48xi8> {llvm.noalias})
// CHECK-SAME: memplan.arena_alignment = 16 : i64, memplan.arena_size = 48 : i64
func.func @top() {
  %arena = memplan.arena align 16 : memref<100xi8>
  %a = memplan.place %arena[0] live [0, 2] : memref<100xi8> to memref<25xf32>
  func.call @mid() : () -> ()
  func.call @leaf() : () -> ()
  return
}
func.func @mid() {
  %arena = memplan.arena align 32 : memref<32xi8>
  func.call @leaf() : () -> ()
  return
}
func.func @leaf() {
  %arena = memplan.arena align 16 : memref<48xi8>
  %a = memplan.place %arena[0] live [0, 0] : memref<48xi8> to memref<12xf32>
  return
}
