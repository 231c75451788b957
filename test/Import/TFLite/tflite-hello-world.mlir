// The float and int8 hello_world models (TFLite Micro's sine regression MLP:
// three FULLY_CONNECTED ops, 1 -> 16 -> 16 -> 1, RELU on the first two),
// committed in Inputs/ so that a lone clone tests the basic path.
//
// RUN: mem-opt-import %S/Inputs/hello_world_float.tflite -o %t.float.mlir
// RUN: FileCheck %s --check-prefix=FLOAT < %t.float.mlir
// RUN: mlir-opt %t.float.mlir -o /dev/null
// RUN: %syspython %S/tflite_tensors.py %S/Inputs/hello_world_float.tflite --check %t.float.mlir | FileCheck %s --check-prefix=SIZES-FLOAT
// RUN: mem-opt %t.float.mlir --memory-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: mem-opt %t.float.mlir --memory-schedule -o /dev/null
//
// RUN: mem-opt-import %S/Inputs/hello_world_int8.tflite -o %t.int8.mlir
// RUN: FileCheck %s --check-prefix=INT8 < %t.int8.mlir
// RUN: mlir-opt %t.int8.mlir -o /dev/null
// RUN: %syspython %S/tflite_tensors.py %S/Inputs/hello_world_int8.tflite --check %t.int8.mlir | FileCheck %s --check-prefix=SIZES-INT8
// RUN: mem-opt %t.int8.mlir --memory-schedule -o /dev/null

// One function; the input and output keep the file's [1, 1] shapes; the
// argument carries the input tensor's name.
// FLOAT: func.func @main(%arg0: tensor<1x1xf32> loc("serving_default_dense_input:0")) -> tensor<1x1xf32>
// Fully connected weights [OC, IC] run as 1x1 convolutions [OC, 1, 1, IC].
// FLOAT: tosa.conv2d {{.*}}acc_type = f32{{.*}} -> tensor<1x1x1x16xf32>
// FLOAT: tosa.clamp {{.*}}max_val = 3.40282347E+38 : f32, min_val = 0.000000e+00 : f32
// FLOAT: tosa.conv2d {{.*}}(tensor<1x1x1x16xf32>, tensor<16x1x1x16xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x16xf32>
// FLOAT: tosa.conv2d {{.*}} -> tensor<1x1x1x1xf32>
// FLOAT-NOT: tosa.clamp
// FLOAT: return {{.*}} : tensor<1x1xf32>
// Locations name the file's tensors.
// FLOAT-DAG: loc("sequential/dense/MatMul;sequential/dense/Relu;sequential/dense/BiasAdd")
// FLOAT-DAG: loc("StatefulPartitionedCall:0")

// The checker decodes the file on its own (tflite_tensors.py) and compares
// every activation's shape and bytes, and every weight's bytes.
// SIZES-FLOAT: checked 4 activation tensors (136 bytes), 6 constants, 0 mismatches
// SIZES-INT8: checked 4 activation tensors (34 bytes), 6 constants, 0 mismatches

// Peak of the float model: a 1x16 f32 accumulator (64 bytes) and its clamp
// (64 bytes) are live together.
// REPORT: peak: 128 bytes

// int8: i32 accumulators and a rescale to the output scale and zero point.
// RELU would clamp at the output zero point, -128 in this file: the whole
// int8 range, so the importer emits no clamp at all.
// The input's and output's quantization stays on the signature (the file's
// float32 scales 0.024480115622282028 and 0.008290956728160381, zero points
// -128 and 5, as tflite_tensors.py decodes them).
// INT8: func.func @main(%arg0: tensor<1x1xi8> {memopt.quant_scale = 0.0244801156 : f32, memopt.quant_zero_point = -128 : i64} {{.*}}) -> (tensor<1x1xi8> {memopt.quant_scale = 0.00829095673 : f32, memopt.quant_zero_point = 5 : i64})
// INT8: tosa.conv2d {{.*}}acc_type = i32{{.*}} -> tensor<1x1x1x16xi32>
// INT8: tosa.rescale {{.*}}per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true{{.*}} -> tensor<1x1x1x16xi8>
// INT8-NOT: tosa.clamp
