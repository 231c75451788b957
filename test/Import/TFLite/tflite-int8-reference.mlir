// The imported int8 models compute what TFLite computes: each runs on the
// host (mem-opt-run) on a seeded random input, and so does
// tflite_reference.py, a numpy reference of TFLite's integer kernels that
// reads the file through the independent decoder. With --tflite-double-round
// (DOUBLE_ROUND rescales, TFLite's rounding) the outputs, and the SVDF
// states, agree with TFLite's arithmetic to within one unit (the reference's
// float softmax); the default SINGLE_ROUND import stays within two.
//
// REQUIRES: shared-models
// RUN: rm -rf %t && mkdir -p %t
// RUN: for m in micro_speech_quantized keyword_scrambled_8bit person_detect mobilenet_v2_quantized_1x3x224x224; do \
// RUN:   mem-opt-import --tflite-double-round %shared/models/tflite/$m.tflite -o %t/$m.dr.mlir && \
// RUN:   %syspython %S/tflite_compare.py %shared/models/tflite/$m.tflite %t/$m.dr.mlir mem-opt-run | sed "s/^/$m double: /"; \
// RUN: done > %t/log
// RUN: for m in micro_speech_quantized keyword_scrambled_8bit; do \
// RUN:   mem-opt-import %shared/models/tflite/$m.tflite -o %t/$m.mlir && \
// RUN:   TOLERANCE=2 %syspython %S/tflite_compare.py %shared/models/tflite/$m.tflite %t/$m.mlir mem-opt-run | sed "s/^/$m single: /"; \
// RUN: done >> %t/log
// RUN: FileCheck %s < %t/log
//
// CHECK: micro_speech_quantized double: double rounding: max difference {{[01]$}}
// CHECK-NEXT: micro_speech_quantized double: PASS
// CHECK: keyword_scrambled_8bit double: double rounding: max difference {{[01]$}}
// CHECK-NEXT: keyword_scrambled_8bit double: PASS
// CHECK: person_detect double: double rounding: max difference {{[01]$}}
// CHECK-NEXT: person_detect double: PASS
// CHECK: mobilenet_v2_quantized_1x3x224x224 double: double rounding: max difference {{[01]$}}
// CHECK-NEXT: mobilenet_v2_quantized_1x3x224x224 double: PASS
// CHECK: micro_speech_quantized single: PASS
// CHECK: keyword_scrambled_8bit single: PASS
// CHECK-NOT: FAIL
