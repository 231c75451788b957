// The imported hello_world models compute sin(x): run on the host by
// mem-opt-run, both the float and the int8 model stay within
// 0.05 of sin(x) on TFLite Micro's test inputs 0.77, 1.57, 2.3 and 3.14, the
// tolerance of TFLite Micro's own hello_world test. The int8 input and output
// are (de)quantized with parameters read from the file by the independent
// decoder.
//
// RUN: mem-opt-import %S/Inputs/hello_world_float.tflite -o %t.float.mlir
// RUN: %syspython %S/tflite_hello_numerics.py %S/Inputs/hello_world_float.tflite %t.float.mlir mem-opt-run | FileCheck %s
// RUN: mem-opt-import %S/Inputs/hello_world_int8.tflite -o %t.int8.mlir
// RUN: %syspython %S/tflite_hello_numerics.py %S/Inputs/hello_world_int8.tflite %t.int8.mlir mem-opt-run | FileCheck %s
//
// CHECK-COUNT-4: x={{.*}} err=0.0
// CHECK: PASS: all within 0.05 of sin(x)
