// Patch-based inference on the device. An f32 model with a padded stride-2
// convolution, a residual add around a padded depthwise convolution and a
// grid that does not divide the image (3x2 over 6x6), and the int8
// person_detect with patches=auto, compiled by mem-opt-compile for
// Cortex-M4 and Cortex-M7, run on QEMU in an arena of exactly the planned
// size between canaries. Their outputs must match mem-opt-run's host run of
// the unpatched TOSA function: within tolerance for f32, bit for bit for
// int8 (run_model.py). The zoo's int8 MobileNetV2 0.35 with a forced grid
// and its in-place depthwise convolutions runs the same way.
// REQUIRES: cortex-m-qemu, shared-models
// RUN: rm -rf %t && mkdir -p %t
// RUN: %run_firmware %s --work %t/f32 --seed 5 --cpu cortex-m4 --cpu cortex-m7 \
// RUN:   --compile-arg=--patches=3x2 | FileCheck %s --check-prefix=F32
// RUN: mem-opt-import %shared/models/tflite/person_detect.tflite -o %t/person_detect.mlir
// RUN: %run_firmware %t/person_detect.mlir --work %t/pd --seed 3 \
// RUN:   --cpu cortex-m4 --cpu cortex-m7 \
// RUN:   --timeout 120 --compile-arg=--patches=auto | FileCheck %s --check-prefix=PD
// The zoo's small int8 MobileNetV2 (96x96, width 0.35) with a 3x3 grid forced
// on, bit for bit against the host run of the unpatched model. It also runs
// the in-place depthwise form: every stride-1 depthwise conv after the cut
// is computed channel by channel over its dying input (INPLACE below).
// RUN: mem-opt-zoo --model=mobilenet-v2 --channels=11 --dtype=i8 -o %t/mbv2.mlir
// RUN: %run_firmware %t/mbv2.mlir --work %t/mbv2 --seed 4 \
// RUN:   --cpu cortex-m4 --cpu cortex-m7 --timeout 300 \
// RUN:   --compile-arg=--patches=3x3 | FileCheck %s --check-prefix=MBV2
// RUN: mem-opt %t/mbv2.mlir --cortex-m-pipeline="stop-after=linalg patches=3x3" \
// RUN:   | FileCheck %s --check-prefix=INPLACE
// MBV2-NOT: FAIL
// MBV2: OK cortex-m4 on mps2-an386: mbv2: predicted_peak=
// MBV2-NOT: FAIL
// MBV2: OK cortex-m7 on mps2-an500: mbv2: predicted_peak=
// MBV2-NOT: FAIL
// INPLACE: memopt.patches = {cols = 3 : i64
// INPLACE: scf.for %[[C:.*]] = %{{.*}} to %c96 step %{{.*}} iter_args(%[[X:.*]] = %{{.*}}) -> (tensor<1x12x12x96xi8>)
// INPLACE: tensor.extract_slice %[[X]][0, 0, 0, %[[C]]] [1, 12, 12, 1]
// INPLACE: linalg.depthwise_conv_2d_nhwc_hwc
// INPLACE: tensor.insert_slice %{{.*}} into %[[X]][0, 0, 0, %[[C]]] [1, 12, 12, 1]
// The same model with its blocks at the peak computed in bands as well
// (patches=auto+blocks, test/Pipelines/patch-blocks.test), on the M7: bit
// for bit against the host run of the unpatched model.
// RUN: %run_firmware %t/mbv2.mlir --work %t/mbv2-blocks --seed 4 \
// RUN:   --cpu cortex-m7 --timeout 600 \
// RUN:   --compile-arg=--patches=auto+blocks | FileCheck %s --check-prefix=BLOCKS
// BLOCKS-NOT: FAIL
// BLOCKS: OK cortex-m7 on mps2-an500: mbv2: predicted_peak=
// BLOCKS-NOT: FAIL
// Under the same options the pipeline really patches both.
// RUN: mem-opt %s --cortex-m-pipeline="stop-after=schedule patches=3x2" | FileCheck %s --check-prefix=PATCHED
// F32-NOT: FAIL
// F32: OK cortex-m4 on mps2-an386: {{.*}}predicted_peak=
// F32-NOT: FAIL
// F32: OK cortex-m7 on mps2-an500: {{.*}}predicted_peak=
// F32-NOT: FAIL
// PD-NOT: FAIL
// PD: OK cortex-m4 on mps2-an386: person_detect: predicted_peak=
// PD-NOT: FAIL
// PD: OK cortex-m7 on mps2-an500: person_detect: predicted_peak=
// PD-NOT: FAIL
// PATCHED: memopt.patches = {cols = 2 : i64
// PATCHED-SAME: rows = 3 : i64
func.func @patched(%x: tensor<1x12x12x3xf32>) -> tensor<1x6x6x1xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %w1 = "tosa.const"() <{values = dense<[[[[0.1, -0.2, 0.3], [0.2, 0.1, -0.1], [-0.3, 0.2, 0.1]], [[0.05, 0.1, -0.2], [0.3, -0.1, 0.2], [0.1, 0.1, 0.1]], [[-0.1, 0.2, 0.05], [0.1, -0.3, 0.2], [0.2, 0.1, -0.2]]], [[[0.2, 0.1, -0.1], [0.1, 0.2, 0.3], [-0.2, 0.1, 0.1]], [[0.1, -0.1, 0.2], [0.2, 0.2, -0.3], [0.1, 0.05, 0.1]], [[0.3, 0.1, -0.1], [-0.1, 0.2, 0.1], [0.1, -0.2, 0.2]]], [[[-0.1, 0.1, 0.2], [0.2, -0.2, 0.1], [0.1, 0.3, -0.1]], [[0.2, 0.1, 0.1], [-0.1, 0.1, 0.2], [0.3, -0.2, 0.1]], [[0.1, 0.2, -0.3], [0.2, 0.1, 0.1], [-0.1, 0.1, 0.2]]], [[[0.3, -0.1, 0.1], [0.1, 0.2, -0.2], [0.2, 0.1, 0.1]], [[-0.2, 0.3, 0.1], [0.1, -0.1, 0.2], [0.2, 0.2, -0.1]], [[0.1, 0.1, 0.2], [0.3, -0.2, 0.1], [-0.1, 0.2, 0.1]]]]> : tensor<4x3x3x3xf32>}> : () -> tensor<4x3x3x3xf32>
  %b1 = "tosa.const"() <{values = dense<[0.1, -0.1, 0.05, 0.2]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %w2 = "tosa.const"() <{values = dense<[[[[0.2], [0.1], [-0.3], [0.2]], [[0.1], [0.3], [0.2], [-0.1]], [[-0.2], [0.1], [0.1], [0.3]]], [[[0.3], [-0.2], [0.1], [0.1]], [[0.5], [0.4], [0.6], [0.3]], [[0.1], [0.2], [-0.1], [0.2]]], [[[0.1], [0.2], [0.2], [-0.2]], [[-0.1], [0.1], [0.3], [0.1]], [[0.2], [-0.1], [0.1], [0.2]]]]> : tensor<3x3x4x1xf32>}> : () -> tensor<3x3x4x1xf32>
  %b2 = "tosa.const"() <{values = dense<[0.0, 0.1, -0.05, 0.02]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %w3 = "tosa.const"() <{values = dense<[[[[0.5, -0.25, 0.75, 0.125]]]]> : tensor<1x1x1x4xf32>}> : () -> tensor<1x1x1x4xf32>
  %b3 = "tosa.const"() <{values = dense<[0.01]> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.conv2d %x, %w1, %b1, %zp, %zp {acc_type = f32, pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x12x12x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x4xf32>
  %r = tosa.clamp %a {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %d = tosa.depthwise_conv2d %r, %w2, %b2, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x4xf32>, tensor<3x3x4x1xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x4xf32>
  %s = tosa.add %d, %r : (tensor<1x6x6x4xf32>, tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %p = tosa.conv2d %s, %w3, %b3, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x4xf32>, tensor<1x1x1x4xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x1xf32>
  return %p : tensor<1x6x6x1xf32>
}
