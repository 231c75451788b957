// The imported int8 TFLite Micro models go through mem-opt's Cortex-M
// pipeline (scheduled, bufferized, arena-planned LLVM dialect) and, for
// person_detect, on to a Cortex-M4 object file.
//
// REQUIRES: shared-models
// RUN: rm -rf %t && mkdir -p %t
// RUN: for m in hello_world_int8 micro_speech_quantized keyword_scrambled_8bit person_detect; do \
// RUN:   mem-opt-import %shared/models/tflite/$m.tflite -o %t/$m.mlir && \
// RUN:   mem-opt %t/$m.mlir --cortex-m-pipeline -o %t/$m.llvm.mlir && \
// RUN:   grep -o 'memplan.arena_size = [0-9]*' %t/$m.llvm.mlir | sed "s/^/$m /" || echo "FAILED $m"; \
// RUN: done > %t/log
// RUN: FileCheck %s < %t/log
// RUN: %llvm_tools_dir/mlir-translate --mlir-to-llvmir %t/person_detect.llvm.mlir | %llvm_tools_dir/llc -O2 -mtriple=thumbv7em-none-eabi -mcpu=cortex-m4 -float-abi=hard -filetype=obj -o %t/person_detect.o
// RUN: test -s %t/person_detect.o
//
// CHECK-NOT: FAILED
// CHECK: hello_world_int8 memplan.arena_size =
// CHECK: micro_speech_quantized memplan.arena_size =
// CHECK: keyword_scrambled_8bit memplan.arena_size =
// CHECK: person_detect memplan.arena_size =
// CHECK-NOT: FAILED
