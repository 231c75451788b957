// RUN: mem-opt %s --split-input-file --cortex-m-pipeline="sram=6000" -verify-diagnostics -o /dev/null
// RUN: not mem-opt %s --cortex-m-pipeline="cpu=cortex-a53" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not mem-opt %s --cortex-m-pipeline="schedule=random" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCHED
// RUN: not mem-opt %s --cortex-m-pipeline="stop-after=codegen" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STOP
// RUN: not mem-opt %s --cortex-m-pipeline="alignment=12" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALIGN
// RUN: not mem-opt %s --cortex-m-pipeline="partition=sometimes" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PART
// RUN: not mem-opt-compile %s --sram=6000 -o %t.o 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: not mem-opt-compile %s --sram=6000 --io=caller -o %t.o 2>&1 | FileCheck %s --check-prefix=CALLER
// RUN: mem-opt-compile %s --sram=8192 -o %t.o
// RUN: not mem-opt-compile %s --sram=8191 -o %t.o

// CPU: unknown cpu 'cortex-a53' (expected cortex-m0plus, cortex-m3, cortex-m4, cortex-m7, cortex-m33 or cortex-m55)
// SCHED: unknown schedule 'random'
// STOP: unknown stop-after 'codegen'
// ALIGN: alignment must be a power of two
// PART: unknown partition 'sometimes'

// A model that cannot fit sram= fails at compile time, at the op where the
// peak occurs, naming the peak and the budget. Two f32 tensors of 1024
// elements, an input and an output, are live at the add: 8192 bytes.
// COMPILE: error: the optimal order peaks at 8192 bytes, over the budget of 6000 bytes
// With the input and output in the caller's buffers the same 8192 bytes are
// the device's SRAM: sram= counts them too.
// CALLER: error: the optimal order peaks at 8192 bytes, over the budget of 6000 bytes; live at this op: '%arg0' (0 bytes), 'tosa.abs#0' (0 bytes), and the caller's inputs and outputs (8192 bytes)
// The budget is the device's bytes, exactly: 8192 fits, 8191 does not.
func.func @too_big(%arg0: tensor<1024xf32>) -> tensor<1024xf32> {
  // expected-error @below {{the optimal order peaks at 8192 bytes, over the budget of 6000 bytes; live at this op: '%arg0' (4096 bytes), 'tosa.abs#0' (4096 bytes)}}
  %0 = tosa.abs %arg0 : (tensor<1024xf32>) -> tensor<1024xf32>
  return %0 : tensor<1024xf32>
}
