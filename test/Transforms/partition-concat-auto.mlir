// RUN: mem-opt %s --split-input-file --partition-concat | FileCheck %s
// RUN: mem-opt %s --split-input-file --memory-schedule=record-time=false | FileCheck %s --check-prefix=SCHED
// RUN: mem-opt %s --split-input-file --partition-concat --memory-schedule=record-time=false | FileCheck %s --check-prefix=BOTH
// The pass runs through Debian's mlir-opt-22 with the plugin too.
// RUN: mlir-opt %s --split-input-file --load-pass-plugin=%mem_opt_plugin --pass-pipeline="builtin.module(func.func(partition-concat))" | FileCheck %s

// mode=auto rewrites a site only if the optimal peak goes down. Peaks by
// hand, canonical model (docs/MemoryModel.md), f32:
// x 1x8x8x8 = 2048 B; a, b 1x8x8x16 = 4096 B; cat 8192 B; y 1x8x8x8 = 2048 B.
//   Without the rewrite every order runs a, b, cat, y:
//     a: x + a = 6144; b: x + a + b = 10240; cat: a + b + cat = 16384;
//     y: cat + y = 10240.                                 Optimum 16384.
//   With it (p0, p1 2048 B, accumulated in one buffer): a, p0, b, p1, sum:
//     a: 6144; p0: x + a + p0 = 8192; b: x + p0 + b = 8192;
//     p1: p0 + b + p1 - p0 (in place) = 6144; sum (view): 2048.
//   Running b before p0 costs x + a + b = 10240, so the optimum is 8192.
// CHECK-LABEL: func.func @profitable
// CHECK-NOT: tosa.concat
// CHECK: tosa.add {{.*}} {memopt.accumulate}
// SCHED-LABEL: func.func @profitable
// SCHED-SAME: memopt.lower_bound = 16384 : i64, memopt.optimal = true, memopt.peak_bytes = 16384 : i64
// BOTH-LABEL: func.func @profitable
// BOTH-SAME: memopt.lower_bound = 8192 : i64, memopt.optimal = true, memopt.peak_bytes = 8192 : i64
func.func @profitable(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %wa = "tosa.const"() <{values = dense<0.5> : tensor<16x1x1x8xf32>}> : () -> tensor<16x1x1x8xf32>
  %ba = "tosa.const"() <{values = dense<0.0> : tensor<16xf32>}> : () -> tensor<16xf32>
  %a = tosa.conv2d %x, %wa, %ba, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<16x1x1x8xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x16xf32>
  %b = tosa.conv2d %x, %wa, %ba, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<16x1x1x8xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x16xf32>
  %cat = tosa.concat %a, %b {axis = 3 : i32} : (tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>) -> tensor<1x8x8x32xf32>
  %w = "tosa.const"() <{values = dense<0.25> : tensor<8x1x1x32xf32>}> : () -> tensor<8x1x1x32xf32>
  %bias = "tosa.const"() <{values = dense<1.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %y = tosa.conv2d %cat, %w, %bias, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x32xf32>, tensor<8x1x1x32xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// -----

// Branches that are function arguments live from the start anyway, and the
// conv output dominates: a, b 1024 B, cat 2048 B, y 16384 B.
//   Without: cat: a + b + cat = 4096; y: cat + y = 18432.
//   With: p0: a + b + p0 = 18432. No gain: auto leaves the site alone.
// CHECK-LABEL: func.func @unprofitable
// CHECK: tosa.concat
// CHECK: tosa.conv2d
// CHECK-NOT: memopt.accumulate
// CHECK: return
// BOTH-LABEL: func.func @unprofitable
// BOTH-SAME: memopt.peak_bytes = 18432 : i64
func.func @unprofitable(%a: tensor<1x8x8x4xf32>, %b: tensor<1x8x8x4xf32>) -> tensor<1x8x8x64xf32> {
  %cat = tosa.concat %a, %b {axis = 3 : i32} : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x8xf32>
  %w = "tosa.const"() <{values = dense<0.25> : tensor<64x1x1x8xf32>}> : () -> tensor<64x1x1x8xf32>
  %bias = "tosa.const"() <{values = dense<1.0> : tensor<64xf32>}> : () -> tensor<64xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.conv2d %cat, %w, %bias, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<64x1x1x8xf32>, tensor<64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x64xf32>
  return %y : tensor<1x8x8x64xf32>
}
