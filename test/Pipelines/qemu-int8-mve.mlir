// The MVE kernels of arm-mve-int8-kernels (VMLAVA.S8, VADDVA.S8, VMUL.I32 of
// sign-extended bytes, masked tails) against the host, on QEMU's mps3-an547
// (Cortex-M55): Inputs/int8_dsp.mlir (channel counts that are not multiples
// of 16, 8 or 4, padding, stride 2, dilation 2, input zero points -7, -128
// and 127, a weight zero point of 5, an in-place depthwise and an HWCF
// depthwise of multiplier 6), Inputs/int8_fused.mlir and Inputs/int8_cell.mlir,
// compiled by mem-opt-compile for Cortex-M55 and run in an arena of exactly
// <FN>_ARENA_SIZE bytes surrounded by a canary; the outputs must match
// mem-opt-run's host run of the same TOSA function (upstream MLIR's
// lowering, no kernels) bit for bit, and FN_PREDICTED_PEAK must be the arena
// plus the caller's I/O (run_model.py). The same with the inputs and outputs
// in the caller's buffers, and with the kernels off.
// REQUIRES: cortex-m-qemu
// RUN: %run_firmware %S/Inputs/int8_dsp.mlir --work %t --seed 5 \
// RUN:   --cpu cortex-m55 | FileCheck %s --check-prefix=DSP
// RUN: %run_firmware %S/Inputs/int8_dsp.mlir --work %t.caller --seed 7 \
// RUN:   --cpu cortex-m55 --compile-arg=--io=caller | FileCheck %s --check-prefix=DSP
// RUN: %run_firmware %S/Inputs/int8_dsp.mlir --work %t.off --seed 6 \
// RUN:   --cpu cortex-m55 --compile-arg=--mve-kernels=false \
// RUN:   | FileCheck %s --check-prefix=DSP
// RUN: %run_firmware %S/Inputs/int8_fused.mlir --work %t.fused --seed 8 \
// RUN:   --cpu cortex-m55 | FileCheck %s --check-prefix=FUSED
// RUN: %run_firmware %S/Inputs/int8_cell.mlir --work %t.cell --seed 9 \
// RUN:   --cpu cortex-m55 --compile-arg=--io=caller | FileCheck %s --check-prefix=CELL
// The object really has the kernels: the convolutions' VMLAVA.S8 (their
// input zero points, padded windows included, are folded into the bias),
// the input sums VADDV[A].S8 of the weight zero point 5, and the depthwise
// VMUL.I32.
// RUN: llvm-objdump -d %t/cortex-m55/model.o | FileCheck %s --check-prefix=ASM
// DSP-NOT: FAIL
// DSP: OK cortex-m55 on mps3-an547: int8_dsp: predicted_peak=
// DSP-NOT: FAIL
// FUSED-NOT: FAIL
// FUSED: OK cortex-m55 on mps3-an547: int8_fused: predicted_peak=
// FUSED-NOT: FAIL
// CELL-NOT: FAIL
// CELL: OK cortex-m55 on mps3-an547: int8_cell: predicted_peak=
// CELL-NOT: FAIL
// ASM-DAG: vmlava.s8
// ASM-DAG: vaddv{{a?}}.s8
// ASM-DAG: vldrb.s32
// ASM-DAG: vmul.i32
