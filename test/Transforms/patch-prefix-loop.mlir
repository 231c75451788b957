// RUN: mem-opt %s --pass-pipeline='builtin.module(func.func(patch-prefix{patches=2x1 loop=true}))' | FileCheck %s
// RUN: mem-opt %s --pass-pipeline='builtin.module(func.func(patch-prefix{patches=2x1 loop=true}))' -o %t.2x1.mlir
// RUN: mem-opt-run --compare %s %t.2x1.mlir | FileCheck %s --check-prefix=EXACT
// RUN: mem-opt %s --pass-pipeline='builtin.module(func.func(patch-prefix{patches=2x2 loop=true}))' -o %t.2x2.mlir
// RUN: mem-opt-run --compare %s %t.2x2.mlir | FileCheck %s --check-prefix=EXACT
// RUN: mem-opt %s --pass-pipeline='builtin.module(func.func(patch-prefix{patches=3x1 loop=true}))' | FileCheck %s --check-prefix=UNEVEN

// patch-prefix{loop=true}: the patches as one scf.for over uniform patches.
// An int8 conv (input zero point -7), depthwise conv (input zero point 5),
// both 3x3 with padding 1, and a 2x2 max pool, cut after the pool (1x4x4x4)
// into 2x1 patches of 2 rows. Every value is computed over its unclamped
// region: patch 0's pool rows [0, 2) read depthwise rows [0, 4), which read
// conv rows [-1, 5) and columns [-1, 9), which read input rows [-2, 6) and
// columns [-2, 10). The windowed ops run without padding over tiles whose
// rows and columns outside the image hold their input zero point: the
// input's in-image part padded with -7 to 1x8x12x2 (tensor.pad); the conv's
// rescaled 6x10 tile gets 5 written in place over its rows (at most 1
// outside: the tile's rows [-1, 5) and [1, 7) of 4) and columns ([-1, 9):
// 1 on each side), by inserts of views of constant strips whose sizes the
// loop computes.
// MACs by hand: unpatched, conv 8x8x4 outputs x 18 = 4608 and depthwise
// 8x8x4 x 9 = 2304: 6912; per patch conv 6x10x4 x 18 = 4320 and depthwise
// 4x8x4 x 9 = 1152, twice: 10944.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: macs_after = 10944 : i64, macs_before = 6912 : i64
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2 step %c1 iter_args
// CHECK: tensor.pad
// CHECK: tensor.yield %c-7_i8
// CHECK: } : tensor<1x?x?x2xi8> to tensor<1x8x12x2xi8>
// CHECK: tosa.conv2d {{.*}}pad = array<i64: 0, 0, 0, 0>{{.*}} -> tensor<1x6x10x4xi32>
// CHECK: "tosa.const"() <{values = dense<5> : tensor<1x1x10x4xi8>}>
// CHECK-COUNT-2: tensor.insert_slice {{.*}} : tensor<1x?x10x4xi8> into tensor<1x6x10x4xi8>
// CHECK: "tosa.const"() <{values = dense<5> : tensor<1x6x1x4xi8>}>
// CHECK-COUNT-2: tensor.insert_slice {{.*}} : tensor<1x6x?x4xi8> into tensor<1x6x10x4xi8>
// CHECK: tosa.depthwise_conv2d {{.*}}pad = array<i64: 0, 0, 0, 0>{{.*}} -> tensor<1x4x8x4xi32>
// CHECK: tosa.max_pool2d {{.*}} -> tensor<1x2x4x4xi8>
// CHECK: tensor.insert_slice {{.*}} [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x4x4xi8> into tensor<1x4x4x4xi8>
// CHECK-NOT: memopt.patch =

// The loop computes the function bit for bit (2x1 above, and 2x2, whose
// cut is the conv's rescale).
// EXACT: @chain result #0 (tensor<1x4x4x4xi8>): 10 seeds, bit-exact

// A grid that does not divide the cut keeps one copy per patch.
// UNEVEN-NOT: scf.for
// UNEVEN: memopt.patch = array<i64: 0, 2>
// UNEVEN-NOT: scf.for
func.func @chain(%x: tensor<1x8x8x2xi8>) -> tensor<1x4x4x4xi8> {
  %w1 = "tosa.const"() <{values = dense<[[[[19,-4],[2,13],[-19,9]],[[-5,-17],[-10,-13],[3,10]],[[-5,4],[14,-14],[16,-5]]],[[[-20,-7],[6,-3],[-9,4]],[[-10,-16],[-12,19],[19,8]],[[-12,-12],[-20,-20],[-7,-7]]],[[[-10,-10],[-2,0],[-8,14]],[[20,-7],[-9,-8],[4,-1]],[[-19,3],[6,-10],[-11,-4]]],[[[-16,1],[-1,18],[17,-20]],[[18,1],[-16,-1],[2,-1]],[[10,0],[-9,10],[10,-9]]]]> : tensor<4x3x3x2xi8>}> : () -> tensor<4x3x3x2xi8>
  %b1 = "tosa.const"() <{values = dense<[-242,-38,-277,66]> : tensor<4xi32>}> : () -> tensor<4xi32>
  %m1 = "tosa.const"() <{values = dense<[970978382,556270778,986583234,930058498]> : tensor<4xi32>}> : () -> tensor<4xi32>
  %w2 = "tosa.const"() <{values = dense<[[[[4],[17],[-20],[8]],[[-18],[-9],[19],[-8]],[[-13],[-5],[9],[2]]],[[[12],[2],[13],[-4]],[[9],[-14],[17],[3]],[[-2],[-18],[7],[-15]]],[[[-7],[1],[12],[19]],[[3],[-11],[1],[-3]],[[14],[-15],[-1],[0]]]]> : tensor<3x3x4x1xi8>}> : () -> tensor<3x3x4x1xi8>
  %b2 = "tosa.const"() <{values = dense<[13,-119,-220,-148]> : tensor<4xi32>}> : () -> tensor<4xi32>
  %m2 = "tosa.const"() <{values = dense<[868983103,1056340520,710311848,589003407]> : tensor<4xi32>}> : () -> tensor<4xi32>
  %s = "tosa.const"() <{values = dense<36> : tensor<4xi8>}> : () -> tensor<4xi8>
  %xzp = "tosa.const"() <{values = dense<-7> : tensor<1xi8>}> : () -> tensor<1xi8>
  %hzp = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %a_acc = tosa.conv2d %x, %w1, %b1, %xzp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x2xi8>, tensor<4x3x3x2xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi32>
  %a = tosa.rescale %a_acc, %m1, %s, %zp32, %hzp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x8x8x4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  %b_acc = tosa.depthwise_conv2d %a, %w2, %b2, %hzp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xi8>, tensor<3x3x4x1xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi32>
  %b = tosa.rescale %b_acc, %m2, %s, %zp32, %hzp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x8x8x4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  %c = tosa.max_pool2d %b {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x8x8x4xi8>) -> tensor<1x4x4x4xi8>
  return %c : tensor<1x4x4x4xi8>
}
