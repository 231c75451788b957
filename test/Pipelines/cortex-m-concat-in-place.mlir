// Concat operands produced into their slice (the cost model's
// getInPlaceConcat): under io=caller, an op whose only reader is a returned
// concat writes its result straight into its slice of the concat's buffer,
// which is the caller's; the model counts no buffer for it, and the lowering
// allocates none (prepare-bufferization redirects its init into a subview).
// An operand that is a graph input or that another op reads is copied at
// the concat, as before; under io=arena every operand is copied (an arena
// concat's buffer would be allocated at its first producer, raising the
// steps in between).
// RUN: mem-opt %s --memory-report="io=caller" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: mem-opt %s --memory-report="io=arena" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ARENA
// RUN: mem-opt %s --cortex-m-pipeline="stop-after=plan io=caller" | FileCheck %s --check-prefix=PLAN
// RUN: mem-opt %s --cortex-m-pipeline="stop-after=plan io=arena" | FileCheck %s --check-prefix=PLANA
// RUN: mem-opt %s --cortex-m-pipeline="stop-after=bufferize io=caller" | FileCheck %s --check-prefix=BUF
// RUN: mem-opt %s --cortex-m-pipeline="stop-after=schedule io=caller" --mark-fused-elementwise="io=caller" --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s --check-prefix=MARK

// @in_place, f32, 16-byte alignment. x (1x4x4x2, 128 B) and c (1x4x4x4,
// 256 B) are the caller's: 384 B in every step. a = abs(x) and b =
// sigmoid(t) are read only by the returned concat: each is computed into its
// slice of c, 0 arena bytes. t = exp(x) (128 B) dies at the sigmoid, which
// writes into c[..., 2:4] instead of over t (as it would without the
// concat). Every order: 384 + 128 = 512 bytes at the exp and the sigmoid,
// an arena of 128. (With copies at the concat, a and t/b are both live
// there: 384 + 256 = 640.)
// REPORT: memory report for @in_place: 4 steps, peak 512 bytes
// PLAN-LABEL: func.func @in_place
// PLAN-SAME: memopt.peak_bytes = 512 : i64
// PLAN-SAME: memplan.arena_size = 128 : i64
// PLAN-SAME: memplan.lower_bound = 128 : i64
// BUF-LABEL: func.func @in_place
// BUF-SAME: (%[[X:.*]]: memref<1x4x4x2xf32>, %[[C:.*]]: memref<1x4x4x4xf32>)
// BUF: %[[A:.*]] = memref.subview %[[C]][0, 0, 0, 0] [1, 4, 4, 2]
// BUF-NEXT: linalg.generic {{.*}} ins(%[[X]] : {{.*}}) outs(%[[A]] :
// BUF-NEXT: ^bb
// BUF-NEXT: math.absf
// BUF: %[[T:.*]] = memref.alloc() {{.*}} : memref<1x4x4x2xf32>
// BUF: math.exp
// BUF: %[[B:.*]] = memref.subview %[[C]][0, 0, 0, 2] [1, 4, 4, 2]
// BUF-NEXT: linalg.generic {{.*}} ins(%[[T]] : {{.*}}) outs(%[[B]] :
// BUF-NOT: memref.alloc
// BUF-NOT: linalg.copy
// BUF: return
// MARK-LABEL: func.func @in_place
// MARK: tosa.abs {{.*}} loc(fused<"memopt.into_concat_slice">
// MARK: tosa.exp
// MARK: tosa.sigmoid {{.*}} loc(fused<"memopt.into_concat_slice">
// MARK-NOT: memopt.into_concat_slice
// MARK: return
func.func @in_place(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x4xf32> {
  %a = tosa.abs %x : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %t = tosa.exp %x : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %b = tosa.sigmoid %t : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %c = tosa.concat %a, %b {axis = 3 : i32} : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x4xf32>
  return %c : tensor<1x4x4x4xf32>
}

// @not_in_place: the concat reads the graph input x (nothing produces it)
// and a = abs(x), which exp also reads after the concat: both are copied.
// Caller: x 128 + c 256 + d 128 = 512 B; a (128 B) is in the arena until
// the exp: 640 bytes, an arena of 128.
// REPORT: memory report for @not_in_place: 3 steps, peak 640 bytes
// PLAN-LABEL: func.func @not_in_place
// PLAN-SAME: memopt.peak_bytes = 640 : i64
// PLAN-SAME: memplan.arena_size = 128 : i64
// BUF-LABEL: func.func @not_in_place
// BUF-SAME: (%[[X:.*]]: memref<1x4x4x2xf32>, %[[C:.*]]: memref<1x4x4x4xf32>, %{{.*}}: memref<1x4x4x2xf32>)
// BUF: %[[A:.*]] = memref.alloc() {{.*}} : memref<1x4x4x2xf32>
// BUF: math.absf
// BUF: linalg.copy ins(%[[X]] :
// BUF: linalg.copy ins(%[[A]] :
// BUF: math.exp
// MARK-LABEL: func.func @not_in_place
// MARK-NOT: memopt.into_concat_slice
// MARK: return
func.func @not_in_place(%x: tensor<1x4x4x2xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x2xf32>) {
  %a = tosa.abs %x : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %c = tosa.concat %x, %a {axis = 3 : i32} : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x4xf32>
  %d = tosa.exp %a : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %c, %d : tensor<1x4x4x4xf32>, tensor<1x4x4x2xf32>
}

// io=arena: nothing in place. @in_place: the concat's step holds a, b (in
// t's buffer) and c: 128 + 128 + 256 = 512 bytes in every order.
// @not_in_place: x, a and c live at the concat: 512; the exp after it holds
// a, c and d: 512.
// ARENA: memory report for @in_place: 4 steps, peak 512 bytes
// ARENA: memory report for @not_in_place: 3 steps, peak 512 bytes
// PLANA-LABEL: func.func @in_place
// PLANA-SAME: memopt.peak_bytes = 512 : i64
// PLANA-SAME: memplan.arena_size = 512 : i64
// PLANA-LABEL: func.func @not_in_place
// PLANA-SAME: memopt.peak_bytes = 512 : i64
// PLANA-SAME: memplan.arena_size = 512 : i64

// @depthwise_copied: a depthwise convolution's lowering accumulates into a
// buffer of its own and then adds the bias (or reshapes a 5-d result), so
// it is never computed into the slice (found by the pass fuzzer, seed 205:
// the slice could not be reached). Caller: x 256 + c 512 = 768 B; the
// depthwise's output (256 B, copied at the concat) and its padded window
// (3x3x4 f32 = 144 B) are in the arena at its step: 768 + 400 = 1168; abs
// (read only by the concat) writes into c[..., 4:8].
// PLAN-LABEL: func.func @depthwise_copied
// PLAN-SAME: memopt.peak_bytes = 1168 : i64
// PLAN-SAME: memplan.arena_size = 400 : i64
// MARK-LABEL: func.func @depthwise_copied
// MARK: tosa.depthwise_conv2d
// MARK-NOT: memopt.into_concat_slice
// MARK: tosa.abs {{.*}} loc(fused<"memopt.into_concat_slice">
func.func @depthwise_copied(%x: tensor<1x4x4x4xf32>) -> tensor<1x4x4x8xf32> {
  %w = "tosa.const"() <{values = dense<0.5> : tensor<3x3x4x1xf32>}> : () -> tensor<3x3x4x1xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.depthwise_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<3x3x4x1xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x4xf32>
  %1 = tosa.abs %x : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %2 = tosa.concat %0, %1 {axis = 3 : i32} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x8xf32>
  return %2 : tensor<1x4x4x8xf32>
}
