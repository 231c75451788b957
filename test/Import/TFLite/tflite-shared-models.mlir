// Every real TFLite Micro model in ../shared/models/tflite imports, verifies
// under mlir-opt, and matches the file's own tensors: tflite_tensors.py
// decodes each file independently and compares every activation's shape and
// byte size and every weight's bytes with the imported module. Each module
// then gets a memory report and a memory schedule.
//
// REQUIRES: shared-models
// RUN: rm -rf %t && mkdir -p %t
// RUN: for m in hello_world_float hello_world_int8 keyword_scrambled_8bit micro_speech_quantized person_detect mobilenet_v2_quantized_1x3x224x224; do \
// RUN:   mem-opt-import %shared/models/tflite/$m.tflite -o %t/$m.mlir && \
// RUN:   mlir-opt %t/$m.mlir -o /dev/null && \
// RUN:   %syspython %S/tflite_tensors.py %shared/models/tflite/$m.tflite --check %t/$m.mlir && \
// RUN:   mem-opt %t/$m.mlir --memory-report -o /dev/null 2>&1 | grep 'peak:' | sed "s/;.*//; s/^/$m /" && \
// RUN:   mem-opt %t/$m.mlir --memory-schedule -o /dev/null || echo "FAILED $m"; \
// RUN: done > %t/log
// RUN: FileCheck %s < %t/log
//
// CHECK-NOT: FAILED
// CHECK-NOT: error
// CHECK: checked 4 activation tensors (136 bytes), 6 constants, 0 mismatches
// CHECK-NEXT: hello_world_float peak:
// CHECK: checked 4 activation tensors (34 bytes), 6 constants, 0 mismatches
// CHECK-NEXT: hello_world_int8 peak:
// The keyword model's 7 SVDF states (i8 [1, 512] or [1, 1024]) are counted
// as activations: they become function arguments.
// CHECK: checked 23 activation tensors ({{[0-9]+}} bytes), 31 constants, 0 mismatches
// CHECK-NEXT: keyword_scrambled_8bit peak:
// CHECK: checked 5 activation tensors ({{[0-9]+}} bytes), 4 constants, 0 mismatches
// CHECK-NEXT: micro_speech_quantized peak:
// CHECK: checked 32 activation tensors ({{[0-9]+}} bytes), 56 constants, 0 mismatches
// CHECK-NEXT: person_detect peak:
// CHECK: checked 85 activation tensors ({{[0-9]+}} bytes), 106 constants, 0 mismatches
// CHECK-NEXT: mobilenet_v2_quantized_1x3x224x224 peak:
// CHECK-NOT: FAILED
