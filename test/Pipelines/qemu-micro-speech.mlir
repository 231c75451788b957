// The int8 TFLite Micro model micro_speech (imported by mem-opt-import) on
// QEMU's mps2-an386 (Cortex-M4) and mps2-an500 (Cortex-M7), in both io=
// modes: the arena is exactly <FN>_ARENA_SIZE bytes surrounded by a canary,
// the outputs must match mem-opt-run's host run bit for bit, and the
// device's SRAM is the predicted peak (run_model.py).
//
// By hand, the peak is at the first layer's depthwise convolution (fused
// with its rescale, one output pixel at a time): its 25x20x8 int8 output
// (4000 bytes), the padded 10x8 int8 window of one pixel (80) and the
// pixel's 8 int32 accumulators (32), all 16-byte multiples, while the
// 1960-byte int8 input is live. io=arena: the input's slot takes its
// element's alignment (1 byte), so 4000 + 80 + 32 + 1960 = 6072 bytes (6080
// with a 16-byte aligned slot: 1968). io=caller: a 4112-byte arena plus
// the caller's input (1960) and output (4): 6076. io=arena needs less.
// REQUIRES: cortex-m-qemu, shared-models
// RUN: rm -rf %t && mkdir -p %t
// RUN: mem-opt-import %shared/models/tflite/micro_speech_quantized.tflite -o %t/micro_speech.mlir
// RUN: %run_firmware %t/micro_speech.mlir --work %t/run --seed 5 \
// RUN:   --cpu cortex-m4 --cpu cortex-m7 --timeout 120 | FileCheck %s --check-prefix=ARENA
// RUN: %run_firmware %t/micro_speech.mlir --work %t/run-caller --seed 5 \
// RUN:   --cpu cortex-m4 --timeout 120 --compile-arg=--io=caller \
// RUN:   | FileCheck %s --check-prefix=CALLER
// ARENA-NOT: FAIL
// ARENA: OK cortex-m4 on mps2-an386: micro_speech: predicted_peak=6072
// ARENA-NOT: FAIL
// ARENA: OK cortex-m7 on mps2-an500: micro_speech: predicted_peak=6072
// ARENA-NOT: FAIL
// CALLER-NOT: FAIL
// CALLER: OK cortex-m4 on mps2-an386: micro_speech: predicted_peak=6076
// CALLER-NOT: FAIL
