// Fully connected int8 layers (a 1x1 conv2d of a 1x1x1xK vector, as
// mem-opt-import gives TFLite's FULLY_CONNECTED, and a one-row matmul) keep
// no int32 accumulator tensor: fuse-rescale-accumulators computes each a
// block of output channels at a time (2, 4 and 1 here: the largest of 4, 2,
// 1 that divides the channels), with the block's accumulator in a stack slot
// (`memopt.register_accumulator`), outside the arena. Execution on QEMU
// against the host: qemu-int8-fc.mlir.
//
// The arena by hand (Inputs/int8_fc.mlir; buffers other than the inputs and
// outputs are rounded to the 16-byte alignment): x 1x48 i8 = 48 bytes
// (input), h1 1x1x1x30 i8 = 30 -> 32, h2 1x1x1x64 i8 = 64, y 1x7 i8 = 7
// (output). Each fused layer keeps only its input and its output live:
//   fc1: x 48 + h1 32 = 80;  fc2: h1 32 + h2 64 = 96;  mm: h2 64 + y 7 = 71.
// The peak, and the arena (x is dead at fc2, so y can take its bytes), is
// 96 bytes. With whole accumulators (before) fc2 needed its 64 x i32 = 256
// bytes next to h2: 320 bytes.
// RUN: mem-opt-compile %S/Inputs/int8_fc.mlir --report --quiet -o %t.o | FileCheck %s
// CHECK: int8_fc: predicted_peak=96 schedule_peak=96 schedule_lower_bound=96 arena=96 liveness_lower_bound=96 caller_io=0
//
// io=caller: x and y are the caller's (55 bytes); the arena holds h1 and h2:
// fc2: 32 + 64 = 96.
// RUN: mem-opt-compile %S/Inputs/int8_fc.mlir --io=caller --report --quiet -o %t.caller.o | FileCheck %s --check-prefix=CALLER
// CALLER: int8_fc: predicted_peak=151 {{.*}} arena=96 liveness_lower_bound=96 caller_io=55
//
// The planned IR: no i32 buffer in the arena, one 16-, 8- and 4-byte slot
// (one per block type, shared by the layers of that type), each fused loop
// a block of output channels.
// RUN: mem-opt %S/Inputs/int8_fc.mlir --cortex-m-pipeline=stop-after=plan | FileCheck %s --check-prefix=PLAN
// PLAN-LABEL: func.func @int8_fc
// PLAN-NOT: memplan.place {{.*}}xi32>
// PLAN: memref.alloca() {memopt.register_accumulator} : memref<1x1x1x2xi32>
// PLAN: scf.for
// PLAN: linalg.conv_2d_nhwc_fhwc_q {{.*}} outs(%{{.*}} : memref<1x1x1x2xi32>)
// PLAN: memref.alloca() {memopt.register_accumulator} : memref<1x1x1x4xi32>
// PLAN: scf.for
// PLAN: linalg.conv_2d_nhwc_fhwc_q {{.*}} outs(%{{.*}} : memref<1x1x1x4xi32>)
// PLAN: memref.alloca() {memopt.register_accumulator} : memref<1x1x1xi32>
// PLAN: scf.for
// PLAN: linalg.quantized_batch_matmul {{.*}} outs(%{{.*}} : memref<1x1x1xi32>)
// PLAN-NOT: memplan.place {{.*}}xi32>
// PLAN: return
