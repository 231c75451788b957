// Inputs and outputs in the arena (io=arena) at offsets that are multiples
// of their element's alignment only, not of 16, run on QEMU's Cortex-M4
// (mps2-an386) and Cortex-M55 (mps3-an547, MVE) bit-exact against the host
// run, with the canary around the arena intact (run_model.py).
//
// By hand (bytes): inputs %a 5 x i8, %b 3 x i8 (alignment 1), %x 3 x f32
// (12, alignment 4); outputs the concat (8 x i8) and the sigmoid (3 x f32,
// computed in place over exp's buffer, which so takes the output's
// alignment). At the concat %a, %b, %x and the concat's result are live:
// 5 + 3 + 12 + 8 = 28; at exp %x, its result and the concat's: 12 + 12 + 8
// = 32, the peak; the planned arena is 32 bytes, and %b's slot sits at an odd
// offset (17).
// REQUIRES: cortex-m-qemu
// RUN: rm -rf %t && mkdir -p %t
// RUN: mem-opt %s --cortex-m-pipeline="stop-after=plan" | FileCheck %s --check-prefix=PLAN
// RUN: %run_firmware %s --work %t/run --seed 7 --cpu cortex-m4 --cpu cortex-m55 \
// RUN:   --timeout 60 | FileCheck %s
// PLAN: memopt.peak_bytes = 32 : i64
// PLAN-SAME: memplan.arena_size = 32 : i64
// PLAN-SAME: memplan.input_offsets = array<i64: {{[0-9]+}}, 17, {{[0-9]+}}>
// CHECK-NOT: FAIL
// CHECK: OK cortex-m4 on mps2-an386: qemu_io_alignment: predicted_peak=32
// CHECK-NOT: FAIL
// CHECK: OK cortex-m55 on mps3-an547: qemu_io_alignment: predicted_peak=32
// CHECK-NOT: FAIL
func.func @odd_slots(%a: tensor<5xi8>, %b: tensor<3xi8>, %x: tensor<3xf32>) -> (tensor<8xi8>, tensor<3xf32>) {
  %c = tosa.concat %a, %b {axis = 0 : i32} : (tensor<5xi8>, tensor<3xi8>) -> tensor<8xi8>
  %e = tosa.exp %x : (tensor<3xf32>) -> tensor<3xf32>
  %s = tosa.sigmoid %e : (tensor<3xf32>) -> tensor<3xf32>
  return %c, %s : tensor<8xi8>, tensor<3xf32>
}
