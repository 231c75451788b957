// --float-abi and the CPUs without an FPU, checked in the objects' build
// attributes and instructions (no QEMU needed; qemu-float-abi.mlir runs
// them). The hard-float default keeps the VFP argument tag; softfp drops it
// but keeps FP instructions; soft has neither. cortex-m0plus and cortex-m3
// are soft by default, and hard is an error there.
// RUN: mem-opt-compile %s --cpu=cortex-m4 -o %t.hard.o
// RUN: llvm-readelf -A %t.hard.o | FileCheck %s --check-prefix=HARD
// RUN: mem-opt-compile %s --cpu=cortex-m4 --float-abi=softfp -o %t.softfp.o
// RUN: llvm-readelf -A %t.softfp.o | FileCheck %s --check-prefix=SOFTFP
// RUN: llvm-objdump -d %t.softfp.o | FileCheck %s --check-prefix=VFP
// RUN: mem-opt-compile %s --cpu=cortex-m4 --float-abi=soft -o %t.soft.o
// RUN: llvm-readelf -A %t.soft.o | FileCheck %s --check-prefix=SOFT
// RUN: llvm-objdump -d %t.soft.o | FileCheck %s --check-prefix=NOVFP
// RUN: llvm-nm -u %t.soft.o | FileCheck %s --check-prefix=HELPERS
// RUN: mem-opt-compile %s --cpu=cortex-m3 -o %t.m3.o
// RUN: llvm-readelf -A %t.m3.o | FileCheck %s --check-prefixes=SOFT,M3
// RUN: llvm-objdump -d %t.m3.o | FileCheck %s --check-prefix=NOVFP
// RUN: mem-opt-compile %s --cpu=cortex-m0plus --float-abi=softfp -o %t.m0.o
// RUN: llvm-readelf -A %t.m0.o | FileCheck %s --check-prefixes=SOFT,M0
// RUN: not mem-opt-compile %s --cpu=cortex-m3 --float-abi=hard -o %t.x.o 2>&1 | FileCheck %s --check-prefix=NOFPU
// RUN: not mem-opt-compile %s --float-abi=hardfp -o %t.x.o 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not mem-opt %s --cortex-m-pipeline="cpu=cortex-m0plus float-abi=hard" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: mem-opt %s --cortex-m-pipeline="cpu=cortex-m4 float-abi=soft" | FileCheck %s --check-prefix=TRIPLE
// RUN: mem-opt-compile --help | FileCheck %s --check-prefix=HELP

// HARD: FP_arch
// HARD: ABI_VFP_args
// HARD-NEXT: Description: AAPCS VFP
// SOFTFP: FP_arch
// SOFTFP-NOT: ABI_VFP_args
// VFP: {{[[:space:]]}}v{{(add|mul|ldr|mov|max|min)}}{{(\.[a-z0-9]+)*[[:space:]]+}}s{{[0-9]}}
// SOFT-NOT: FP_arch
// SOFT-NOT: ABI_VFP_args
// M3: CPU_name
// M3-NEXT: Value: cortex-m3
// M0: CPU_name
// M0-NEXT: Value: cortex-m0plus
// NOVFP-NOT: {{[[:space:]]}}v{{[a-z]+}}{{(\.[a-z0-9]+)*[[:space:]]+}}{{[sdq][0-9]}}
// The run-time ABI's helper names, which every EABI libgcc has (Armv6-M's
// has no __addsf3), and no fminimumf/fmaximumf, which newlib lacks.
// HELPERS-NOT: fminimumf
// HELPERS-NOT: fmaximumf
// HELPERS: __aeabi_fadd
// HELPERS-NOT: fminimumf
// HELPERS-NOT: fmaximumf
// NOFPU: error: cortex-m3 has no FPU, so no hard-float ABI (use soft)
// UNKNOWN: error: unknown --float-abi 'hardfp' (expected hard, softfp or soft)
// PIPE: cortex-m-pipeline: cortex-m0plus has no FPU, so no hard-float ABI (use soft)
// TRIPLE: llvm.target_triple = "thumbv7em-unknown-none-eabi"
// HELP: --float-abi=<hard|softfp|soft>
// HELP-SAME: Float ABI of the object

func.func @net(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %w = "tosa.const"() <{values = dense<0.5> : tensor<4x3x3x4xf32>}> : () -> tensor<4x3x3x4xf32>
  %b = "tosa.const"() <{values = dense<0.25> : tensor<4xf32>}> : () -> tensor<4xf32>
  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<4x3x3x4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x4xf32>
  %1 = tosa.clamp %0 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  return %1 : tensor<1x8x8x4xf32>
}
