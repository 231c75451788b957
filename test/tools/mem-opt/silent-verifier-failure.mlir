// MLIR 22's verifier of tosa.pad returns failure without a diagnostic when
// the padding is not a constant shape (here a tosa.concat_shape of constant
// shapes), so mem-opt and mem-opt-compile used to exit with 1 and print
// nothing (found by the upstream TOSA corpus sweep, docs/Robustness.md).
// They now name the op at its location.
//
// RUN: not mem-opt %s --memory-report -o /dev/null 2>&1 | FileCheck %s
// RUN: not mem-opt %s --cortex-m-pipeline -o /dev/null 2>&1 | FileCheck %s
// RUN: not mem-opt-compile --quiet %s -o %t.o 2>&1 | FileCheck %s
//
// One error, at the pad (line 22, column 8), and nothing else:
// CHECK: silent-verifier-failure.mlir:22:8: error: 'tosa.pad' op failed to verify without a diagnostic
// CHECK-NOT: error:

func.func @pad_by_concat_shape(%x: tensor<1x4x4x5xf32>) -> tensor<1x4x4x5xf32> {
  %zero = tosa.const_shape {values = dense<0> : tensor<1xindex>} : () -> !tosa.shape<1>
  %padding = tosa.concat_shape %zero, %zero, %zero, %zero, %zero, %zero, %zero, %zero
      : (!tosa.shape<1>, !tosa.shape<1>, !tosa.shape<1>, !tosa.shape<1>,
         !tosa.shape<1>, !tosa.shape<1>, !tosa.shape<1>, !tosa.shape<1>)
      -> !tosa.shape<8>
  %value = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.pad %x, %padding, %value : (tensor<1x4x4x5xf32>, !tosa.shape<8>, tensor<1xf32>) -> tensor<1x4x4x5xf32>
  return %0 : tensor<1x4x4x5xf32>
}
