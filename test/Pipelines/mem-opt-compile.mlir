// mem-opt-compile writes a Cortex-M object and a C header. The object's only
// undefined symbols are compiler runtime helpers: no malloc, free or
// memrefCopy (every buffer lives in the caller's arena). --name=stem keeps
// the C name `stem` (by default it would be the file's name,
// mem-opt-compile-names.mlir tests that).
// RUN: mem-opt-compile %s --name=stem --cpu=cortex-m4 -o %t.o --header %t.h
// RUN: llvm-nm -u %t.o | FileCheck %s --check-prefix=NM
// RUN: FileCheck %s --check-prefix=HDR < %t.h
// RUN: mem-opt-compile %s --name=stem --cpu=cortex-m4 -o %t.o --header %t-caller.h --io=caller
// RUN: FileCheck %s --check-prefix=CALLER < %t-caller.h
// RUN: llvm-readelf -h -A %t.o | FileCheck %s --check-prefix=ELF
// RUN: mem-opt-compile %s --cpu=cortex-m55 -o %t55.o
// RUN: llvm-readelf -A %t55.o | FileCheck %s --check-prefix=M55
// RUN: not mem-opt-compile %s 2>&1 | FileCheck %s --check-prefix=NOTHING
// RUN: not mem-opt-compile %s --cpu=cortex-m0 -o %t.o 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not mem-opt-compile %s -Ofast -o %t.o 2>&1 | FileCheck %s --check-prefix=OPT

// NM-NOT: malloc
// NM-NOT: free
// NM-NOT: memrefCopy

// Bytes by hand: in0 1024 (8x8x4 f32), in1 256 (unused: live at the first
// step only), the conv's padded window 144 (3x3x4 f32 per output pixel, no
// padded copy of in0), conv output 1024, clamp 1024 (not in place: the
// concat also reads the conv's output), concat 2048. Steps: conv 1024 + 256
// + 144 + 1024 = 2448, clamp 2048, concat 1024 + 1024 + 2048 = 4096. With
// the inputs and outputs in the arena, the arena is the peak, 4096.
// HDR: #ifndef {{.*}}_H
// HDR: #define STEM_ARENA_SIZE 4096
// HDR: #define STEM_ARENA_ALIGN 16
// HDR: #define STEM_PREDICTED_PEAK 4096
// HDR: #define STEM_IN0_BYTES 1024 /* 1x8x8x4 float */
// HDR: #define STEM_IN1_BYTES 256 /* 1x8x8x4 int8_t */
// HDR: #define STEM_OUT0_BYTES 2048 /* 1x8x8x8 float */
// HDR: #define STEM_IN0_OFFSET {{[0-9]+}}
// HDR: #define STEM_IN1_OFFSET {{[0-9]+}}
// HDR: #define STEM_OUT0_OFFSET {{[0-9]+}}
// HDR: void stem(void *arena);

// io=caller: the caller's 1024 + 256 + 2048 = 3328 bytes are live throughout
// and the concat is computed in the caller's out0; the clamp, read only by
// the returned concat, writes into its slice of out0 (getInPlaceConcat), so
// the arena holds the conv step (its 144-byte padded window + the conv's
// 1024, which the concat copies; the clamp step holds 1024), and the
// predicted peak is 1168 + 3328 = 4496 (5376 with the clamp's own buffer).
// CALLER: #define STEM_ARENA_SIZE 1168
// CALLER: #define STEM_PREDICTED_PEAK 4496
// CALLER-NOT: _OFFSET
// CALLER: void stem(const float *in0, const int8_t *in1, float *out0, void *arena);

// ELF: Class: ELF32
// ELF: Machine: ARM
// ELF: TagName: CPU_name
// ELF-NEXT: Value: cortex-m4
// ELF: TagName: ABI_VFP_args
// ELF-NEXT: Description: AAPCS VFP

// M55: TagName: CPU_name
// M55-NEXT: Value: cortex-m55

// NOTHING: error: nothing to do
// CPU: unknown cpu 'cortex-m0'
// OPT: error: unknown optimization level '-Ofast' (expected 0, 1, 2, 3, s or z)

func.func @stem(%x: tensor<1x8x8x4xf32>, %unused: tensor<1x8x8x4xi8>) -> tensor<1x8x8x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %w = "tosa.const"() <{values = dense<0.5> : tensor<4x3x3x4xf32>}> : () -> tensor<4x3x3x4xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<4x3x3x4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x4xf32>
  %1 = tosa.clamp %0 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %2 = tosa.concat %0, %1 {axis = 3 : i32} : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x8xf32>
  return %2 : tensor<1x8x8x8xf32>
}
