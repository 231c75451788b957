// RUN: mem-opt %s --split-input-file --allow-unregistered-dialect --memplan-plan-arena | FileCheck %s --check-prefix=BEST
// RUN: mem-opt %s --split-input-file --allow-unregistered-dialect --memplan-plan-arena=algorithm=greedy-by-size | FileCheck %s --check-prefix=GREEDY
// RUN: mem-opt %s --split-input-file --allow-unregistered-dialect --memplan-plan-arena=algorithm=no-reuse | FileCheck %s --check-prefix=NOREUSE
// RUN: mem-opt %s --split-input-file --allow-unregistered-dialect --memplan-plan-arena="algorithm=greedy-by-size alignment=64" | FileCheck %s --check-prefix=ALIGN64

// Known answers by hand. "test.op" stands for any op reading and writing its
// operands. Steps number the top-level ops from 0.
//
// Chain a -> b -> c -> d of 100, 300, 50 and 200 bytes. The deallocs are
// steps too (4, 7, 10, 12), so the live ranges are a [0, 3], b [2, 6],
// c [5, 9], d [8, 11]. Only neighbours overlap.
// - alignment 16: aligned sizes 112, 304, 64, 208; the lower bound is the
//   largest neighbour pair, a + b = 112 + 304 = 416 (b + c = 368,
//   c + d = 272). Greedy-by-size (largest first, lowest aligned offset that
//   is free): b -> 0, d -> 0 (not live with b), a -> 304 (above b),
//   c -> 304 (above b [0, 300) and d [0, 200)); the end is 404, rounded up to
//   416 = the lower bound. No reuse stacks a, b, c, d: 0, 112, 416, 480;
//   688 bytes.
// - alignment 64: aligned sizes 128, 320, 64, 256; lower bound
//   max(128 + 320, 320 + 64, 64 + 256) = 448. Greedy: b -> 0, d -> 0,
//   a -> 320, c -> 320; end 420, rounded up to 448.
// The deallocs are removed; the planned buffers keep their uses.

// BEST-LABEL: func.func @chain
// BEST-SAME: memplan.arena_alignment = 16 : i64, memplan.arena_size = 416 : i64, memplan.lower_bound = 416 : i64
// BEST: memplan.arena align 16 : memref<416xi8>
// BEST-NOT: memref.alloc
// BEST-NOT: memref.dealloc

// GREEDY-LABEL: func.func @chain
// GREEDY-SAME: memplan.arena_alignment = 16 : i64, memplan.arena_size = 416 : i64, memplan.lower_bound = 416 : i64
// GREEDY:      %[[ARENA:.*]] = memplan.arena align 16 : memref<416xi8>
// GREEDY:      %[[A:.*]] = memplan.place %[[ARENA]][304] live [0, 3] : memref<416xi8> to memref<100xi8>
// GREEDY-NEXT: "test.op"(%{{.*}}, %[[A]])
// GREEDY-NEXT: %[[B:.*]] = memplan.place %[[ARENA]][0] live [2, 6] : memref<416xi8> to memref<75xf32>
// GREEDY-NEXT: "test.op"(%[[A]], %[[B]])
// GREEDY-NEXT: %[[C:.*]] = memplan.place %[[ARENA]][304] live [5, 9] : memref<416xi8> to memref<50xi8>
// GREEDY-NEXT: "test.op"(%[[B]], %[[C]])
// GREEDY-NEXT: %[[D:.*]] = memplan.place %[[ARENA]][0] live [8, 11] : memref<416xi8> to memref<50xf32>
// GREEDY-NEXT: "test.op"(%[[C]], %[[D]])
// GREEDY-NEXT: "test.op"(%[[D]], %{{.*}})
// GREEDY-NEXT: return

// NOREUSE-LABEL: func.func @chain
// NOREUSE-SAME: memplan.arena_alignment = 16 : i64, memplan.arena_size = 688 : i64, memplan.lower_bound = 416 : i64
// NOREUSE: memplan.place %{{.*}}[0] live [0, 3]
// NOREUSE: memplan.place %{{.*}}[112] live [2, 6]
// NOREUSE: memplan.place %{{.*}}[416] live [5, 9]
// NOREUSE: memplan.place %{{.*}}[480] live [8, 11]

// ALIGN64-LABEL: func.func @chain
// ALIGN64-SAME: memplan.arena_alignment = 64 : i64, memplan.arena_size = 448 : i64, memplan.lower_bound = 448 : i64
// ALIGN64: memplan.place %{{.*}}[320] live [0, 3]
// ALIGN64: memplan.place %{{.*}}[0] live [2, 6]
// ALIGN64: memplan.place %{{.*}}[320] live [5, 9]
// ALIGN64: memplan.place %{{.*}}[0] live [8, 11]
func.func @chain(%in: memref<100xi8>, %out: memref<50xf32>) {
  %a = memref.alloc() : memref<100xi8>
  "test.op"(%in, %a) : (memref<100xi8>, memref<100xi8>) -> ()
  %b = memref.alloc() : memref<75xf32>
  "test.op"(%a, %b) : (memref<100xi8>, memref<75xf32>) -> ()
  memref.dealloc %a : memref<100xi8>
  %c = memref.alloc() : memref<50xi8>
  "test.op"(%b, %c) : (memref<75xf32>, memref<50xi8>) -> ()
  memref.dealloc %b : memref<75xf32>
  %d = memref.alloc() : memref<50xf32>
  "test.op"(%c, %d) : (memref<50xi8>, memref<50xf32>) -> ()
  memref.dealloc %c : memref<50xi8>
  "test.op"(%d, %out) : (memref<50xf32>, memref<50xf32>) -> ()
  memref.dealloc %d : memref<50xf32>
  return
}

// -----

// Diamond a -> {b, c} -> d of 256, 512, 128 and 384 bytes (multiples of 16
// and 64). Live ranges: a [0, 5], b [2, 7], c [4, 7], d [6, 8]. Live bytes
// per step: 256, 256, 768, 768, 896, 896, 1024, 1024, 384: the lower bound
// is 1024 (b + c + d). It is reachable: b [0, 512), c [512, 640),
// d [640, 1024), and a [640, 896) (a and d are never live together).
// Greedy-by-size: b -> 0, d -> 512, a -> 512 (not live with d), c -> 896
// (above b, a and d): 1024 as well. No reuse: 256 + 512 + 128 + 384 = 1280.

// BEST-LABEL: func.func @diamond
// BEST-SAME: memplan.arena_size = 1024 : i64, memplan.lower_bound = 1024 : i64

// GREEDY-LABEL: func.func @diamond
// GREEDY-SAME: memplan.arena_size = 1024 : i64, memplan.lower_bound = 1024 : i64
// GREEDY: memplan.place %{{.*}}[512] live [0, 5] : memref<1024xi8> to memref<64xf32>
// GREEDY: memplan.place %{{.*}}[0] live [2, 7] : memref<1024xi8> to memref<512xi8>
// GREEDY: memplan.place %{{.*}}[896] live [4, 7] : memref<1024xi8> to memref<2x16xf32>
// GREEDY: memplan.place %{{.*}}[512] live [6, 8] : memref<1024xi8> to memref<96xi32>

// NOREUSE-LABEL: func.func @diamond
// NOREUSE-SAME: memplan.arena_size = 1280 : i64, memplan.lower_bound = 1024 : i64

// ALIGN64-LABEL: func.func @diamond
// ALIGN64-SAME: memplan.arena_alignment = 64 : i64, memplan.arena_size = 1024 : i64, memplan.lower_bound = 1024 : i64
func.func @diamond(%in: memref<64xf32>, %out: memref<96xi32>) {
  %a = memref.alloc() : memref<64xf32>
  "test.op"(%in, %a) : (memref<64xf32>, memref<64xf32>) -> ()
  %b = memref.alloc() : memref<512xi8>
  "test.op"(%a, %b) : (memref<64xf32>, memref<512xi8>) -> ()
  %c = memref.alloca() : memref<2x16xf32>
  "test.op"(%a, %c) : (memref<64xf32>, memref<2x16xf32>) -> ()
  %d = memref.alloc() : memref<96xi32>
  "test.op"(%b, %c, %d) : (memref<512xi8>, memref<2x16xf32>, memref<96xi32>) -> ()
  "test.op"(%d, %out) : (memref<96xi32>, memref<96xi32>) -> ()
  return
}

// -----

// A function without buffers is planned with an empty arena; declarations
// are left alone.
// BEST-LABEL: func.func @nothing
// BEST-SAME: memplan.arena_alignment = 16 : i64, memplan.arena_size = 0 : i64, memplan.lower_bound = 0 : i64
// BEST-NOT: memplan.arena
// BEST: func.func private @decl(memref<4xf32>){{$}}
func.func @nothing(%in: memref<4xf32>) {
  return
}
func.func private @decl(memref<4xf32>)
