// The real int8 TFLite Micro model person_detect (imported by mem-opt-import),
// compiled by mem-opt-compile for Cortex-M4 and Cortex-M7, runs on QEMU's
// mps2-an386 and mps2-an500 in an arena of exactly <FN>_ARENA_SIZE bytes
// surrounded by a canary; its outputs must match mem-opt-run's host run of
// the same TOSA function bit for bit, and the object must not reference
// malloc, free or memrefCopy (run_model.py). TFLite Micro runs this model in
// a 136 KiB arena; the planned arena must be smaller.
// REQUIRES: cortex-m-qemu, shared-models
// RUN: rm -rf %t && mkdir -p %t
// RUN: mem-opt-import %shared/models/tflite/person_detect.tflite -o %t/person_detect.mlir
// RUN: %run_firmware %t/person_detect.mlir --work %t/run --seed 3 \
// RUN:   --cpu cortex-m4 --cpu cortex-m7 \
// RUN:   --timeout 120 | FileCheck %s
// RUN: mem-opt %t/person_detect.mlir --cortex-m-pipeline=stop-after=plan \
// RUN:   | FileCheck %s --check-prefix=ARENA
// The same with the inputs and outputs in the caller's buffers (io=caller).
// RUN: %run_firmware %t/person_detect.mlir --work %t/run-caller --seed 3 \
// RUN:   --cpu cortex-m4 --cpu cortex-m7 \
// RUN:   --timeout 120 --compile-arg=--io=caller | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: OK cortex-m4 on mps2-an386: person_detect: predicted_peak=
// CHECK-NOT: FAIL
// CHECK: OK cortex-m7 on mps2-an500: person_detect: predicted_peak=
// CHECK-NOT: FAIL
// 136 KiB = 139264 bytes; any arena of at most five digits is below it.
// ARENA: memplan.arena_size = {{[1-9][0-9]?[0-9]?[0-9]?[0-9]?}} : i64
