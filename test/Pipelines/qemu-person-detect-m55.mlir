// The real int8 TFLite Micro model person_detect (imported by mem-opt-import),
// compiled by mem-opt-compile for Cortex-M55 with the MVE kernels
// (arm-mve-int8-kernels), runs on QEMU's mps3-an547 in an arena of exactly
// <FN>_ARENA_SIZE bytes surrounded by a canary; its outputs must match
// mem-opt-run's host run of the same TOSA function bit for bit, and
// FN_PREDICTED_PEAK must be the arena plus the caller's I/O (run_model.py).
// The same with the inputs and outputs in the caller's buffers.
// REQUIRES: cortex-m-qemu, shared-models
// RUN: rm -rf %t && mkdir -p %t
// RUN: mem-opt-import %shared/models/tflite/person_detect.tflite -o %t/person_detect.mlir
// RUN: %run_firmware %t/person_detect.mlir --work %t/run --seed 3 \
// RUN:   --cpu cortex-m55 --timeout 120 | FileCheck %s
// RUN: %run_firmware %t/person_detect.mlir --work %t/run-caller --seed 3 \
// RUN:   --cpu cortex-m55 --timeout 120 --compile-arg=--io=caller | FileCheck %s
// RUN: llvm-objdump -d %t/run/cortex-m55/model.o | FileCheck %s --check-prefix=ASM
// CHECK-NOT: FAIL
// CHECK: OK cortex-m55 on mps3-an547: person_detect: predicted_peak=
// CHECK-NOT: FAIL
// ASM-DAG: vmlava.s8
// ASM-DAG: vmul.i32
