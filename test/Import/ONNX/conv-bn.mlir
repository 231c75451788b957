// RUN: mem-opt-import %S/Inputs/conv-bn.onnx | FileCheck %s
// RUN: mem-opt-import %S/Inputs/conv-bn.onnx | mlir-opt -o /dev/null

// Conv (weight 0..7 as [O=1, I=2, KH=2, KW=2], bias 1) followed by a
// BatchNormalization with gamma 4, beta 1, mean 0.5, var 3, epsilon 1:
// scale = 4 / sqrt(3 + 1) = 2 and shift = (1 - 0.5) * 2 + 1 = 2, both exact.
// The folded weight is 2 * w re-laid out to OHWI: element (h, w, i) is
// 2 * (4 i + 2 h + w), i.e. [[[0, 8], [2, 10]], [[4, 12], [6, 14]]].
// The Gemm weight (k, m) = 0.25 * (4 m + k) is stored as [1, K, M].
// The argument keeps the ONNX (NCHW) shape; one transpose at entry.

// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[ARG:.*]]: tensor<1x2x3x3xf32> loc("x")) -> tensor<1x3xf32>
// CHECK: %[[NHWC:.*]] = tosa.transpose %[[ARG]] {perms = array<i32: 0, 2, 3, 1>} : (tensor<1x2x3x3xf32>) -> tensor<1x3x3x2xf32>
// CHECK-DAG: %[[B:.*]] = "tosa.const"() <{values = dense<2.000000e+00> : tensor<1xf32>}>
// CHECK-DAG: %[[W:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}0.000000e+00, 8.000000e+00], [2.000000e+00, 1.000000e+01]], {{\[\[}}4.000000e+00, 1.200000e+01], [6.000000e+00, 1.400000e+01]]]]> : tensor<1x2x2x2xf32>}>
// CHECK: %[[CONV:.*]] = tosa.conv2d %[[NHWC]], %[[W]], %[[B]], {{.*}} {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} {{.*}} -> tensor<1x2x2x1xf32> loc(#[[FUSED:loc[0-9]*]])
// CHECK-NOT: tosa.mul
// CHECK: %[[RELU:.*]] = tosa.clamp %[[CONV]] {max_val = 3.40282347E+38 : f32, min_val = 0.000000e+00 : f32} {{.*}} loc(#[[RELULOC:loc[0-9]*]])
// CHECK: %[[FLAT:.*]] = tosa.reshape %[[RELU]], {{.*}} -> tensor<1x1x4xf32>
// CHECK: %[[FC:.*]] = "tosa.const"() <{values = dense<{{\[\[\[}}0.000000e+00, 1.000000e+00, 2.000000e+00], [2.500000e-01, 1.250000e+00, 2.250000e+00], [5.000000e-01, 1.500000e+00, 2.500000e+00], [7.500000e-01, 1.750000e+00, 2.750000e+00]]]> : tensor<1x4x3xf32>}>
// CHECK: tosa.matmul %[[FLAT]], %[[FC]], {{.*}} -> tensor<1x1x3xf32>
// CHECK: %[[BIAS:.*]] = "tosa.const"() <{values = dense<{{\[\[}}5.000000e-01, -5.000000e-01, 1.000000e+00]]> : tensor<1x3xf32>}>
// CHECK: %[[OUT:.*]] = tosa.add %{{.*}}, %[[BIAS]]
// CHECK: return %[[OUT]] : tensor<1x3xf32>
// CHECK-NOT: tosa.transpose
// CHECK-DAG: #[[CONVLOC:loc[0-9]*]] = loc("conv")
// CHECK-DAG: #[[BNLOC:loc[0-9]*]] = loc("bn")
// Each op carries its node's layer (MemOpt/Support/Layers.h): index, kind
// and name; the folded BatchNormalization's ops are the Conv's layer.
// CHECK-DAG: #[[RELUNAME:loc[0-9]*]] = loc("relu")
// CHECK-DAG: #[[CONVLAYER:loc[0-9]*]] = loc(fused<{layer = 0 : i64, op = "Conv"}>[#[[CONVLOC]]])
// CHECK-DAG: #[[RELULAYER:loc[0-9]*]] = loc(fused<{layer = 2 : i64, op = "Relu"}>[#[[RELUNAME]]])
// CHECK-DAG: #[[RELULOC]] = loc("relu"(#[[RELULAYER]]))
// CHECK-DAG: #[[FUSED]] = loc(fused[#[[CONVLOC]], #[[BNLOC]], #[[CONVLAYER]]])
