// The DSP rows of the in-place depthwise convolution (DspDepthwiseRows.cpp:
// a sliding window in registers, SMLAD over row pairs, the input zero point
// in the taps outside the channel) against the host: kernels 3x3, 5x5,
// 1x3, 3x1, 2x2 and 4x4 with asymmetric padding, a 5x5 kernel on a 2x3 map,
// dilation 2 (left to the per-pixel kernel), input zero points -128, 127
// and -7, weight zero points 0 and 3, SINGLE_ROUND and DOUBLE_ROUND
// rescales, channel copies of 63, 20 and 6 pixels (Inputs/int8_dw_rows.mlir),
// compiled by mem-opt-compile for Cortex-M4 and Cortex-M7 and run on QEMU in
// an arena of exactly <FN>_ARENA_SIZE bytes surrounded by a canary; the
// outputs must match mem-opt-run's host run of the same TOSA function
// (upstream MLIR's lowering, no DSP) bit for bit (run_model.py).
// REQUIRES: cortex-m-qemu
// RUN: %run_firmware %S/Inputs/int8_dw_rows.mlir --work %t --seed 3 \
// RUN:   --cpu cortex-m4 --cpu cortex-m7 | FileCheck %s
// RUN: %run_firmware %S/Inputs/int8_dw_rows.mlir --work %t.b --seed 4 \
// RUN:   --cpu cortex-m4 | FileCheck %s --check-prefix=M4
// Cortex-M55 takes the rows its MVE channel vectors and bands leave (fewer
// than 4 interior columns and fewer than 4 rows, e.g. person_detect's 3x3
// maps, which qemu-person-detect-m55.mlir runs on QEMU against the host);
// int8_fused's in-place depthwise on a 5x5 map (3 interior columns, 5 rows)
// now takes the MVE bands (predicated gathers at the border), not the rows;
// qemu-int8-mve.mlir runs it on QEMU against the host. (int8_dw_rows itself does not finish on mps3-an547 within
// run_model.py's timeout, at main 5702949 as well.)
// RUN: mem-opt %S/Inputs/int8_fused.mlir --cortex-m-pipeline=cpu=cortex-m55 \
// RUN:   --mlir-print-ir-after=arm-mve-int8-kernels -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=M55
// The rows are used: SMLAD (row pairs) appears only in them for these
// layers, with the input zero point in both halves of a pair for the taps
// outside the channel: (-128, -128) is 0xFF80FF80 = -8323200, (127, 127)
// is 0x007F007F = 8323199 (computed by hand).
// RUN: mem-opt %S/Inputs/int8_dw_rows.mlir --cortex-m-pipeline=cpu=cortex-m4 \
// RUN:   --mlir-print-ir-after=arm-dsp-int8-kernels -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=IR
// CHECK-NOT: FAIL
// CHECK: OK cortex-m4 on mps2-an386: int8_dw_rows: predicted_peak=
// CHECK-NOT: FAIL
// CHECK: OK cortex-m7 on mps2-an500: int8_dw_rows: predicted_peak=
// CHECK-NOT: FAIL
// M4-NOT: FAIL
// M4: OK cortex-m4 on mps2-an386: int8_dw_rows: predicted_peak=
// M55-NOT: llvm.arm.smlad
// M55: llvm.arm.mve.vldr.gather.offset.predicated
// M55-NOT: llvm.arm.smlad
// IR-DAG: arith.constant -8323200 : i32
// IR-DAG: arith.constant 8323199 : i32
// IR-DAG: llvm.arm.smlad
