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
// element's alignment (1 byte), and the output is written over it (the
// input dies there, docs/MemoryModel.md "Convolutions over their dying
// inputs"): stride 2, padding 4 above and 3 on the left, 8 output bytes per
// pixel against 1 input byte, so pixel (24, 18), the last but one, ends at
// 8 * 499 = 3992 while pixel (24, 19) reads from row 44, column 35 of the
// 40-pixel rows, byte 1795: the output starts 2197 bytes below the input,
// 2208 at 16 bytes. Output and input share min(1960, 4000 - 2208) = 1792
// bytes: 4000 + 1960 - 1792 + 80 + 32 = 4280 bytes (6072 apart).
// io=caller: the input is the caller's; a 4112-byte arena plus the caller's
// input (1960) and output (4): 6076.
// REQUIRES: cortex-m-qemu, shared-models
// RUN: rm -rf %t && mkdir -p %t
// RUN: mem-opt-import %shared/models/tflite/micro_speech_quantized.tflite -o %t/micro_speech.mlir
// RUN: %run_firmware %t/micro_speech.mlir --work %t/run --seed 5 \
// RUN:   --cpu cortex-m4 --cpu cortex-m7 --timeout 120 | FileCheck %s --check-prefix=ARENA
// RUN: %run_firmware %t/micro_speech.mlir --work %t/run-caller --seed 5 \
// RUN:   --cpu cortex-m4 --timeout 120 --compile-arg=--io=caller \
// RUN:   | FileCheck %s --check-prefix=CALLER
// ARENA-NOT: FAIL
// ARENA: OK cortex-m4 on mps2-an386: micro_speech: predicted_peak=4280
// ARENA-NOT: FAIL
// ARENA: OK cortex-m7 on mps2-an500: micro_speech: predicted_peak=4280
// ARENA-NOT: FAIL
// CALLER-NOT: FAIL
// CALLER: OK cortex-m4 on mps2-an386: micro_speech: predicted_peak=6076
// CALLER-NOT: FAIL
