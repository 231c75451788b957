// The memory model decides which int8 accumulators are fused with their
// rescale (isFusedAccumulator), once: mark-fused-elementwise marks them on
// the scheduled TOSA, and fuse-rescale-accumulators{require-marks} fuses
// exactly the marked chains.
//
// @fused: conv -> rescale, accepted by the model: its conv is marked.
// @conv_add: conv -> i32 tosa.add of a constant -> rescale: the conv's only
// user is no rescale, so the model does not fuse it; the conv is not marked.
// RUN: mem-opt %s --mark-fused-elementwise --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s --check-prefix=MARK
// MARK-LABEL: func.func @fused
// MARK: tosa.conv2d {{.*}} loc(fused<"memopt.fused_accumulator">["acc"])
// MARK: tosa.rescale {{.*}} loc("out")
// MARK-LABEL: func.func @conv_add
// MARK: tosa.conv2d {{.*}} loc("add_acc")
// MARK: tosa.add {{.*}} loc("add_sum")
// MARK: tosa.rescale {{.*}} loc("add_out")
// @padded: its explicit tosa.pad, read only through the window of the fused
// conv (isPadFusedIntoWindow), is part of the group and marked too.
// MARK-LABEL: func.func @padded
// MARK: tosa.pad {{.*}} loc(fused<"memopt.fused_accumulator">["pad"])
// MARK: tosa.conv2d {{.*}} loc(fused<"memopt.fused_accumulator">["pacc"])

// The model's peaks, by hand (io=arena, buffers rounded up to 16 bytes):
// @fused: one step, x 4x4x8 i8 = 128 + one pixel of acc 16 x i32 = 64 +
//   out 4x4x16 i8 = 256 -> 448.
// @conv_add: step 0 x 128 + acc 4x4x16 i32 = 1024 -> 1152; step 1 the add
//   overwrites acc -> 1024; step 2 sum 1024 + out 256 -> 1280.
// RUN: mem-opt %s --memory-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=MODEL
// MODEL: memory report for @fused: 1 step, peak 448 bytes
// MODEL: memory report for @conv_add: 3 steps, peak 1280 bytes
// MODEL: memory report for @padded: 1 step, peak 528 bytes

// The planned arena is the model's: @fused is one loop over the pixels with a
// one-pixel accumulator; @conv_add keeps its whole i32 accumulator and no
// loop (fusing it, as the pass alone does below, would plan less than the
// model counted).
// RUN: mem-opt %s --cortex-m-pipeline=stop-after=plan | FileCheck %s --check-prefix=PLAN
// PLAN-LABEL: func.func @fused
// PLAN-SAME: memplan.arena_size = 448
// PLAN: memplan.place {{.*}} to memref<1x1x1x16xi32>
// PLAN-NEXT: scf.for
// PLAN-NOT: memref<1x4x4x16xi32>
// PLAN-LABEL: func.func @conv_add
// PLAN-SAME: memplan.arena_size = 1280
// PLAN-NOT: scf.for
// PLAN: memplan.place {{.*}} to memref<1x4x4x16xi32>
// PLAN: linalg.conv_2d_nhwc_fhwc {{.*}} outs(%{{.*}} : memref<1x4x4x16xi32>)
// PLAN-NOT: scf.for
// PLAN: return
// @padded: x 128 + out 256 + one pixel of acc 64 + its 3x3x8 window 72 (80
// aligned) = 528, and no padded 6x6x8 copy of x.
// PLAN-LABEL: func.func @padded
// PLAN-SAME: memplan.arena_size = 528
// PLAN-NOT: memref<1x6x6x8xi8>
// PLAN: return

// The structural match alone (the pass without require-marks, as before the
// marks) fuses @conv_add's chain too, with its add; with require-marks it
// keeps the model's decision. @fused, fused already, is left as it is.
// RUN: mem-opt %s --cortex-m-pipeline=stop-after=linalg --mlir-print-debuginfo -o %t.linalg.mlir
// RUN: mem-opt %t.linalg.mlir --fuse-rescale-accumulators | FileCheck %s --check-prefix=ALONE
// RUN: mem-opt %t.linalg.mlir --fuse-rescale-accumulators=require-marks=true | FileCheck %s --check-prefix=MARKS
// ALONE-LABEL: func.func @conv_add
// ALONE-NOT: tensor<1x4x4x16xi32>
// ALONE: scf.for
// ALONE: linalg.conv_2d_nhwc_fhwc {{.*}} outs(%{{.*}} : tensor<1x1x1x16xi32>)
// MARKS-LABEL: func.func @conv_add
// MARKS-NOT: scf.for
// MARKS: linalg.conv_2d_nhwc_fhwc {{.*}} outs(%{{.*}} : tensor<1x4x4x16xi32>)
// MARKS-NOT: scf.for
// MARKS: return

func.func @fused(%x: tensor<1x4x4x8xi8>) -> tensor<1x4x4x16xi8> {
  %w = "tosa.const"() <{values = dense<3> : tensor<16x1x1x8xi8>}> : () -> tensor<16x1x1x8xi8>
  %b = "tosa.const"() <{values = dense<1> : tensor<16xi32>}> : () -> tensor<16xi32>
  %zp8 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<32> : tensor<1xi8>}> : () -> tensor<1xi8>
  %acc = tosa.conv2d %x, %w, %b, %zp8, %zp8 {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x8xi8>, tensor<16x1x1x8xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x16xi32> loc("acc")
  %out = tosa.rescale %acc, %m, %s, %zp32, %zp8 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x16xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x16xi8> loc("out")
  return %out : tensor<1x4x4x16xi8>
}

func.func @conv_add(%x: tensor<1x4x4x8xi8>) -> tensor<1x4x4x16xi8> {
  %w = "tosa.const"() <{values = dense<3> : tensor<16x1x1x8xi8>}> : () -> tensor<16x1x1x8xi8>
  %b = "tosa.const"() <{values = dense<1> : tensor<16xi32>}> : () -> tensor<16xi32>
  %c = "tosa.const"() <{values = dense<[[[[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]]]]> : tensor<1x1x1x16xi32>}> : () -> tensor<1x1x1x16xi32>
  %zp8 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<32> : tensor<1xi8>}> : () -> tensor<1xi8>
  %acc = tosa.conv2d %x, %w, %b, %zp8, %zp8 {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x8xi8>, tensor<16x1x1x8xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x16xi32> loc("add_acc")
  %sum = tosa.add %acc, %c : (tensor<1x4x4x16xi32>, tensor<1x1x1x16xi32>) -> tensor<1x4x4x16xi32> loc("add_sum")
  %out = tosa.rescale %sum, %m, %s, %zp32, %zp8 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x16xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x16xi8> loc("add_out")
  return %out : tensor<1x4x4x16xi8>
}

func.func @padded(%x: tensor<1x4x4x8xi8>) -> tensor<1x4x4x16xi8> {
  %w = "tosa.const"() <{values = dense<3> : tensor<16x3x3x8xi8>}> : () -> tensor<16x3x3x8xi8>
  %b = "tosa.const"() <{values = dense<1> : tensor<16xi32>}> : () -> tensor<16xi32>
  %zp8 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<32> : tensor<1xi8>}> : () -> tensor<1xi8>
  %padding = tosa.const_shape {values = dense<[0, 0, 1, 1, 1, 1, 0, 0]> : tensor<8xindex>} : () -> !tosa.shape<8>
  %pv = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %p = tosa.pad %x, %padding, %pv : (tensor<1x4x4x8xi8>, !tosa.shape<8>, tensor<1xi8>) -> tensor<1x6x6x8xi8> loc("pad")
  %acc = tosa.conv2d %p, %w, %b, %zp8, %zp8 {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x6x6x8xi8>, tensor<16x3x3x8xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x16xi32> loc("pacc")
  %out = tosa.rescale %acc, %m, %s, %zp32, %zp8 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x16xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x16xi8> loc("pout")
  return %out : tensor<1x4x4x16xi8>
}
