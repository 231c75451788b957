// The bundled RandWire cell (f32, 32x32x16 activations, 137 ops), compiled by
// mem-opt-compile for Cortex-M4 and Cortex-M7, runs on QEMU's mps2-an386 and
// mps2-an500 in an arena of exactly <FN>_ARENA_SIZE bytes surrounded by a
// canary; its outputs must match mem-opt-run's host run of the same TOSA
// function (within rtol 1e-4, atol 1e-5), and the object must not reference
// malloc, free or memrefCopy (run_model.py).
// REQUIRES: cortex-m-qemu
// RUN: %run_firmware %memopt_src/examples/randwire_cell.mlir --work %t --seed 5 \
// RUN:   --cpu cortex-m4 --cpu cortex-m7 | FileCheck %s
// The same with the inputs and outputs in the caller's buffers (io=caller).
// RUN: %run_firmware %memopt_src/examples/randwire_cell.mlir --work %t.caller --seed 5 \
// RUN:   --cpu cortex-m4 --cpu cortex-m7 --compile-arg=--io=caller | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: OK cortex-m4 on mps2-an386: randwire_cell: predicted_peak=
// CHECK-NOT: FAIL
// CHECK: OK cortex-m7 on mps2-an500: randwire_cell: predicted_peak=
// CHECK-NOT: FAIL
