// The CPUs without DSP or FPU and the float ABIs on QEMU (run_model.py: the
// arena is exactly <FN>_ARENA_SIZE bytes surrounded by a canary, and the
// outputs must match mem-opt-run's host run of the same TOSA function, int8
// bit for bit, f32 within 1e-5 + 1e-4 |b|):
// - cortex-m0plus (Armv6-M, soft float by default) on the microbit, whose
//   Cortex-M0 has the same instruction set; cortex-m3 (Armv7-M, no DSP, soft
//   float) on mps2-an385; cortex-m33 (hard float, scalar kernels) on
//   mps2-an505: the int8 model of the DSP kernels' test and a small f32 CNN;
// - --float-abi=soft and softfp objects on the M4, M33 and M55 boards, linked
//   into firmware built with gcc's -mfloat-abi=soft (no -mfpu: the plain
//   link that failed with "uses VFP register arguments" before) and softfp.
// REQUIRES: cortex-m-qemu
// RUN: %run_firmware %S/Inputs/int8_dsp.mlir --work %t.int8 --seed 5 \
// RUN:   --cpu cortex-m0plus --cpu cortex-m3 --cpu cortex-m33 | FileCheck %s --check-prefix=INT8
// RUN: %run_firmware %S/Inputs/tiny_cnn.mlir --work %t.f32 --seed 4 \
// RUN:   --cpu cortex-m0plus --cpu cortex-m3 --cpu cortex-m33 | FileCheck %s --check-prefix=F32
// RUN: %run_firmware %S/Inputs/tiny_cnn.mlir --work %t.soft --seed 4 \
// RUN:   --cpu cortex-m4 --cpu cortex-m55 --compile-arg=--float-abi=soft \
// RUN:   | FileCheck %s --check-prefix=SOFT
// RUN: %run_firmware %S/Inputs/int8_dsp.mlir --work %t.soft8 --seed 5 \
// RUN:   --cpu cortex-m4 --compile-arg=--float-abi=soft | FileCheck %s --check-prefix=SOFT8
// RUN: %run_firmware %S/Inputs/tiny_cnn.mlir --work %t.softfp --seed 4 \
// RUN:   --cpu cortex-m4 --cpu cortex-m33 --compile-arg=--float-abi=softfp \
// RUN:   | FileCheck %s --check-prefix=SOFTFP
// The soft-float objects have no FP instructions and no VFP argument tag;
// the softfp object has FP instructions.
// RUN: llvm-objdump -d %t.soft/cortex-m4/model.o | FileCheck %s --check-prefix=NOVFP
// RUN: llvm-objdump -d %t.f32/cortex-m3/model.o | FileCheck %s --check-prefix=NOVFP
// RUN: llvm-objdump -d %t.softfp/cortex-m4/model.o | FileCheck %s --check-prefix=VFP
// RUN: llvm-readelf -A %t.soft/cortex-m4/model.o | FileCheck %s --check-prefix=ATTR
// RUN: llvm-readelf -A %t.int8/cortex-m0plus/model.o | FileCheck %s --check-prefix=V6M
// INT8-NOT: FAIL
// INT8: OK cortex-m0plus on microbit: int8_dsp:
// INT8-NOT: FAIL
// INT8: OK cortex-m3 on mps2-an385: int8_dsp:
// INT8-NOT: FAIL
// INT8: OK cortex-m33 on mps2-an505: int8_dsp:
// INT8-NOT: FAIL
// F32-NOT: FAIL
// F32: OK cortex-m0plus on microbit: tiny_cnn:
// F32-NOT: FAIL
// F32: OK cortex-m3 on mps2-an385: tiny_cnn:
// F32-NOT: FAIL
// F32: OK cortex-m33 on mps2-an505: tiny_cnn:
// F32-NOT: FAIL
// SOFT-NOT: FAIL
// SOFT: OK cortex-m4 on mps2-an386: tiny_cnn:
// SOFT-NOT: FAIL
// SOFT: OK cortex-m55 on mps3-an547: tiny_cnn:
// SOFT-NOT: FAIL
// SOFT8-NOT: FAIL
// SOFT8: OK cortex-m4 on mps2-an386: int8_dsp:
// SOFT8-NOT: FAIL
// SOFTFP-NOT: FAIL
// SOFTFP: OK cortex-m4 on mps2-an386: tiny_cnn:
// SOFTFP-NOT: FAIL
// SOFTFP: OK cortex-m33 on mps2-an505: tiny_cnn:
// SOFTFP-NOT: FAIL
// NOVFP-NOT: {{[[:space:]]}}v{{[a-z]+}}{{(\.[a-z0-9]+)*[[:space:]]+}}{{[sdq][0-9]}}
// VFP: {{[[:space:]]}}v{{(add|mul|ldr|mov)}}{{(\.[a-z0-9]+)*[[:space:]]+}}s{{[0-9]}}
// ATTR-NOT: ABI_VFP_args
// ATTR-NOT: FP_arch
// V6M: CPU_name
// V6M-NEXT: Value: cortex-m0plus
// V6M: CPU_arch
// V6M-NEXT: Description: ARM v6S-M
