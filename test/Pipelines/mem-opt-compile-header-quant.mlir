// The header's scale and zero point come from the function's argument and
// result attributes (memopt.quant_scale, memopt.quant_zero_point: what the
// TFLite importer sets, MemOpt/Import/Import.h); hand-written TOSA may carry
// them too. Scales print with nine significant digits and an `f`, the
// shortest form that reads back as the same float in C ("1.0f", not "1f").
// A zero point without a scale, a scale that is not an f32, and a scale that
// is not a positive finite number are errors.
// RUN: mem-opt-compile %s --name=q --quiet -o %t.o --header %t.h
// RUN: FileCheck %s < %t.h
// RUN: sed 's/0.5 : f32/0.5 : f64/' %s > %t-f64.mlir
// RUN: not mem-opt-compile %t-f64.mlir --quiet -o %t.o 2>&1 | FileCheck %s --check-prefix=F64
// RUN: sed 's/0.5 : f32/-0.5 : f32/' %s > %t-negative.mlir
// RUN: not mem-opt-compile %t-negative.mlir --quiet -o %t.o 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: sed 's/memopt.quant_scale = 0.5 : f32, //' %s > %t-zero-only.mlir
// RUN: not mem-opt-compile %t-zero-only.mlir --quiet -o %t.o 2>&1 | FileCheck %s --check-prefix=ZERO-ONLY

// CHECK: #define Q_IN0_BYTES 16 /* 1x4x4x1 int8_t */
// CHECK-NEXT: #define Q_IN0_TYPE int8_t
// CHECK-NEXT: #define Q_IN0_ELEMENTS 16
// CHECK-NEXT: #define Q_IN0_RANK 4
// CHECK-NEXT: #define Q_IN0_SHAPE {1, 4, 4, 1}
// CHECK-NEXT: #define Q_IN0_SCALE 0.5f
// CHECK-NEXT: #define Q_IN0_ZERO_POINT (-3)
// The second input has a scale and no zero point: 0.
// CHECK-NEXT: #define Q_IN1_BYTES 16 /* 1x4x4x1 int8_t */
// CHECK: #define Q_IN1_SCALE 1.0f
// CHECK-NEXT: #define Q_IN1_ZERO_POINT 0
// The float32 nearest 0.1 needs nine digits to read back.
// CHECK-NEXT: #define Q_OUT0_BYTES 16 /* 1x4x4x1 int8_t */
// CHECK: #define Q_OUT0_SCALE 0.100000001f
// CHECK-NEXT: #define Q_OUT0_ZERO_POINT 7
// CHECK-NEXT: #define Q_OUT1_BYTES 16
// CHECK-NOT: Q_OUT1_SCALE
// CHECK: void q(void *arena);

// F64: error: input #0: memopt.quant_scale must be an f32 float attribute (with memopt.quant_zero_point an integer)
// NEGATIVE: error: input #0: the scale -0.5 is not a positive finite number
// ZERO-ONLY: error: input #0: memopt.quant_scale must be an f32 float attribute

func.func @main(%a: tensor<1x4x4x1xi8> {memopt.quant_scale = 0.5 : f32, memopt.quant_zero_point = -3 : i64},
                %b: tensor<1x4x4x1xi8> {memopt.quant_scale = 1.0 : f32})
    -> (tensor<1x4x4x1xi8> {memopt.quant_scale = 0.1 : f32, memopt.quant_zero_point = 7 : i64},
        tensor<1x4x4x1xi8>) {
  %0 = tosa.clamp %a {max_val = 127 : i8, min_val = 0 : i8} : (tensor<1x4x4x1xi8>) -> tensor<1x4x4x1xi8>
  %1 = tosa.clamp %b {max_val = 10 : i8, min_val = -10 : i8} : (tensor<1x4x4x1xi8>) -> tensor<1x4x4x1xi8>
  return %0, %1 : tensor<1x4x4x1xi8>, tensor<1x4x4x1xi8>
}
