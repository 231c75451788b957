// The bundled NAS cell (f32), compiled by mem-opt-compile for Cortex-M4 and
// Cortex-M7, runs on QEMU's mps2-an386 and mps2-an500 with seeded random
// inputs; its outputs must match the host run of the same TOSA function
// lowered by upstream MLIR alone (run_model.py), and the canary around the
// arena must be intact.
// REQUIRES: cortex-m-qemu
// RUN: %run_firmware %memopt_src/examples/nas_cell.mlir --work %t --seed 7 \
// RUN:   --cpu cortex-m4 --cpu cortex-m7 | FileCheck %s
// CHECK: OK cortex-m4 on mps2-an386: nas_cell: predicted_peak=
// CHECK: OK cortex-m7 on mps2-an500: nas_cell: predicted_peak=
