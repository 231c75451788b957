// Convolutions computed over their dying inputs (memopt::getOverwrite,
// docs/MemoryModel.md "Overwrite pairs"): each output pixel reads its whole
// window before it writes, so the output may start below its input by the
// bound of getOverwriteBound (aligned to 16) and share the rest of the
// input's bytes. memory-schedule marks a convolution at the peak with
// memopt.overwrite_shifted when that lowers the peak and the planner places
// it; an output of exactly its input's bytes needs no mark. The figures,
// by hand (i8; a 1x1 pixel accumulator of N channels takes 4N bytes, a
// padded 3x3 window of 16 channels 144):
//
// @expand, x 1x8x8x8 (512 B) -> 1x1 conv to E 1x8x8x16 (1024) -> 1x1 conv to
// 1x8x8x4 (256). E's pixel q ends at byte 16(q + 1) of E, the next pixel
// reads x from 8(q + 1): the bound is min -8(q + 1) over q < 63, -504,
// aligned -512. io=arena: x and E share x's 512 bytes; step 1 holds
// 1024 + 64 = 1088 (1600 apart), step 2 E 1024 + 256 + 16 = 1296, the peak.
// io=caller: x is the caller's and stays; the arena is E 1024 + 64 = 1088,
// the peak 1088 + 512 + 256 = 1856.
//
// @exact: a 1x1 conv E (16 channels) -> F (16 channels) between them: F
// takes exactly E's bytes (bound 0, memplan.overwrites = E's offset, no
// mark). io=caller: steps 1088, 1088 (2112 apart), 1040: arena 1088, peak
// 1856; io=arena: as @expand, 1296.
//
// @strided, x 1x9x9x8 (648) -> 1x1 conv to E 1x9x9x16 (1296) -> 3x3 conv,
// stride 2, pad 1, to G 1x5x5x32 (800) -> 1x1 conv to 1x5x5x4 (100). G's
// pixel (r, c) ends at 32(5r + c + 1); the next one's window starts at row
// 2r - 1 and column 2c + 1 of E (rows of 9 pixels of 16 bytes): for r = 1,
// c < 4, (9 + 2c + 1) * 16 - (160 + 32c + 32) = -32, the smallest. Shift
// -32: E and G share min(1296, 800 - 32) = 768 bytes. Step 2 holds E 1296 +
// G 800 - 768 + window 144 + accumulators 128 = 1600 (2368 apart). E over x
// (io=arena): 1x1, 81 pixels, bound -640, E 1296 + 64 at step 1.
// io=caller: arena 1600, peak 1600 + 648 + 100 = 2348; io=arena 1600.

// RUN: mem-opt %s --cortex-m-pipeline="stop-after=plan io=arena" | FileCheck %s --check-prefix=ARENA
// RUN: mem-opt %s --cortex-m-pipeline="stop-after=plan io=caller" | FileCheck %s --check-prefix=CALLER
// RUN: mem-opt %s --cortex-m-pipeline="stop-after=schedule io=arena" | FileCheck %s --check-prefix=MARK
// RUN: mem-opt %s --cortex-m-pipeline="stop-after=schedule io=caller" | FileCheck %s --check-prefix=MARK-CALLER

// ARENA-LABEL: func.func @expand
// ARENA-SAME: memopt.peak_bytes = 1296
// ARENA-SAME: memplan.arena_size = 1296
// x at 512, E 512 bytes below it.
// ARENA: memplan.place %{{.*}}[512] live {{.*}} to memref<1x8x8x8xi8>
// ARENA: memplan.place %{{.*}}[0] live {{.*}} {memplan.overwrites = 512 : i64} {{.*}} to memref<1x8x8x16xi8>
// CALLER-LABEL: func.func @expand
// CALLER-SAME: memopt.peak_bytes = 1856
// CALLER-SAME: memplan.arena_size = 1088
// CALLER-NOT: memplan.overwrites
// MARK-LABEL: func.func @expand
// MARK: tosa.rescale {{.*}}memopt.overwrite_shifted{{.*}} -> tensor<1x8x8x16xi8>
// MARK-NOT: memopt.overwrite_shifted
// MARK: return
// MARK-CALLER-NOT: memopt.overwrite_shifted
// MARK-CALLER-LABEL: func.func @strided
// MARK-CALLER: tosa.rescale {{.*}}memopt.overwrite_shifted{{.*}} -> tensor<1x5x5x32xi8>
// MARK-CALLER-NOT: memopt.overwrite_shifted

// ARENA-LABEL: func.func @exact
// ARENA-SAME: memopt.peak_bytes = 1296
// ARENA-SAME: memplan.arena_size = 1296
// CALLER-LABEL: func.func @exact
// CALLER-SAME: memopt.peak_bytes = 1856
// CALLER-SAME: memplan.arena_size = 1088
// CALLER: memplan.place %{{.*}}{{\[}}[[E:[0-9]+]]{{\]}} live [{{.*}}] : memref<1088xi8> to memref<1x8x8x16xi8>
// CALLER: memplan.place %{{.*}}{{\[}}[[E]]{{\]}} live [{{.*}}] {memplan.overwrites = [[E]] : i64} : memref<1088xi8> to memref<1x8x8x16xi8>
// MARK-LABEL: func.func @exact
// MARK: tosa.rescale {{.*}}memopt.overwrite_shifted{{.*}} -> tensor<1x8x8x16xi8>
// MARK-NOT: memopt.overwrite_shifted
// MARK: return

// ARENA-LABEL: func.func @strided
// ARENA-SAME: memopt.peak_bytes = 1600
// ARENA-SAME: memplan.arena_size = 1600
// CALLER-LABEL: func.func @strided
// CALLER-SAME: memopt.peak_bytes = 2348
// CALLER-SAME: memplan.arena_size = 1600
// G 32 bytes below E.
// CALLER: memplan.place %{{.*}}[32] live [{{.*}}] : memref<1600xi8> to memref<1x9x9x16xi8>
// CALLER: memplan.place %{{.*}}[0] live [{{.*}}] {memplan.overwrites = 32 : i64} : memref<1600xi8> to memref<1x5x5x32xi8>
// MARK-LABEL: func.func @strided
// MARK: tosa.rescale {{.*}}memopt.overwrite_shifted{{.*}} -> tensor<1x9x9x16xi8>
// MARK: tosa.rescale {{.*}}memopt.overwrite_shifted{{.*}} -> tensor<1x5x5x32xi8>
// MARK-NOT: memopt.overwrite_shifted

func.func @expand(%x: tensor<1x8x8x8xi8>) -> tensor<1x8x8x4xi8> {
  %izp = "tosa.const"() <{values = dense<-5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<38> : tensor<1xi8>}> : () -> tensor<1xi8>
  %e_w = "tosa.const"() <{values = dense<7> : tensor<16x1x1x8xi8>}> : () -> tensor<16x1x1x8xi8>
  %e_b = "tosa.const"() <{values = dense<21> : tensor<16xi32>}> : () -> tensor<16xi32>
  %e_acc = tosa.conv2d %x, %e_w, %e_b, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x8xi8>, tensor<16x1x1x8xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x16xi32>
  %e = tosa.rescale %e_acc, %m, %s, %zp32, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x8x8x16xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x16xi8>
  %p_w = "tosa.const"() <{values = dense<2> : tensor<4x1x1x16xi8>}> : () -> tensor<4x1x1x16xi8>
  %p_b = "tosa.const"() <{values = dense<6> : tensor<4xi32>}> : () -> tensor<4xi32>
  %p_acc = tosa.conv2d %e, %p_w, %p_b, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xi8>, tensor<4x1x1x16xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi32>
  %p = tosa.rescale %p_acc, %m, %s, %zp32, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x8x8x4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  return %p : tensor<1x8x8x4xi8>
}

func.func @exact(%x: tensor<1x8x8x8xi8>) -> tensor<1x8x8x4xi8> {
  %izp = "tosa.const"() <{values = dense<-5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<38> : tensor<1xi8>}> : () -> tensor<1xi8>
  %e_w = "tosa.const"() <{values = dense<7> : tensor<16x1x1x8xi8>}> : () -> tensor<16x1x1x8xi8>
  %e_b = "tosa.const"() <{values = dense<21> : tensor<16xi32>}> : () -> tensor<16xi32>
  %e_acc = tosa.conv2d %x, %e_w, %e_b, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x8xi8>, tensor<16x1x1x8xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x16xi32>
  %e = tosa.rescale %e_acc, %m, %s, %zp32, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x8x8x16xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x16xi8>
  %f_w = "tosa.const"() <{values = dense<-3> : tensor<16x1x1x16xi8>}> : () -> tensor<16x1x1x16xi8>
  %f_b = "tosa.const"() <{values = dense<-9> : tensor<16xi32>}> : () -> tensor<16xi32>
  %f_acc = tosa.conv2d %e, %f_w, %f_b, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xi8>, tensor<16x1x1x16xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x16xi32>
  %f = tosa.rescale %f_acc, %m, %s, %zp32, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x8x8x16xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x16xi8>
  %p_w = "tosa.const"() <{values = dense<2> : tensor<4x1x1x16xi8>}> : () -> tensor<4x1x1x16xi8>
  %p_b = "tosa.const"() <{values = dense<6> : tensor<4xi32>}> : () -> tensor<4xi32>
  %p_acc = tosa.conv2d %f, %p_w, %p_b, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xi8>, tensor<4x1x1x16xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi32>
  %p = tosa.rescale %p_acc, %m, %s, %zp32, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x8x8x4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  return %p : tensor<1x8x8x4xi8>
}

func.func @strided(%x: tensor<1x9x9x8xi8>) -> tensor<1x5x5x4xi8> {
  %izp = "tosa.const"() <{values = dense<-5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<38> : tensor<1xi8>}> : () -> tensor<1xi8>
  %e_w = "tosa.const"() <{values = dense<7> : tensor<16x1x1x8xi8>}> : () -> tensor<16x1x1x8xi8>
  %e_b = "tosa.const"() <{values = dense<21> : tensor<16xi32>}> : () -> tensor<16xi32>
  %e_acc = tosa.conv2d %x, %e_w, %e_b, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x9x9x8xi8>, tensor<16x1x1x8xi8>, tensor<16xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x9x9x16xi32>
  %e = tosa.rescale %e_acc, %m, %s, %zp32, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x9x9x16xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x9x9x16xi8>
  %g_w = "tosa.const"() <{values = dense<-1> : tensor<32x3x3x16xi8>}> : () -> tensor<32x3x3x16xi8>
  %g_b = "tosa.const"() <{values = dense<-3> : tensor<32xi32>}> : () -> tensor<32xi32>
  %g_acc = tosa.conv2d %e, %g_w, %g_b, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x9x9x16xi8>, tensor<32x3x3x16xi8>, tensor<32xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x5x5x32xi32>
  %g = tosa.rescale %g_acc, %m, %s, %zp32, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x5x5x32xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x5x5x32xi8>
  %p_w = "tosa.const"() <{values = dense<2> : tensor<4x1x1x32xi8>}> : () -> tensor<4x1x1x32xi8>
  %p_b = "tosa.const"() <{values = dense<6> : tensor<4xi32>}> : () -> tensor<4xi32>
  %p_acc = tosa.conv2d %g, %p_w, %p_b, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x5x5x32xi8>, tensor<4x1x1x32xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x5x5x4xi32>
  %p = tosa.rescale %p_acc, %m, %s, %zp32, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x5x5x4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x5x5x4xi8>
  return %p : tensor<1x5x5x4xi8>
}

