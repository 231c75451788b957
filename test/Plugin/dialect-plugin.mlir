// Debian's mlir-opt-22 loads the memplan dialect from MemOptPlugin.so: it
// parses, verifies and prints memory plans, and rejects unsafe ones.
// RUN: mlir-opt %s --load-dialect-plugin=%mem_opt_plugin | FileCheck %s
// RUN: mlir-opt %s --load-dialect-plugin=%mem_opt_plugin --load-pass-plugin=%mem_opt_plugin --pass-pipeline="builtin.module(memplan-lower)" | FileCheck %s --check-prefix=LOWER
// RUN: sed -e 's/\[1024\]/[512]/' %s | not mlir-opt --load-dialect-plugin=%mem_opt_plugin 2>&1 | FileCheck %s --check-prefix=OVERLAP
// RUN: not mlir-opt %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN

// CHECK: %[[ARENA:.*]] = memplan.arena align 16 : memref<2048xi8>
// CHECK: memplan.place %[[ARENA]][1024] live [1, 2] : memref<2048xi8> to memref<256xf32>
// LOWER: func.func @plan(%{{.*}}: memref<2048xi8> {llvm.noalias})
// LOWER: memref.view
// OVERLAP: error: 'memplan.place' op buffer at offset 512 (1024 bytes, live [1, 2]) overlaps buffer at offset 0 (1024 bytes, live [0, 1])
// NOPLUGIN: Dialect `memplan' not found for custom op 'memplan.arena'
func.func @plan() {
  %arena = memplan.arena align 16 : memref<2048xi8>
  %a = memplan.place %arena[0] live [0, 1] : memref<2048xi8> to memref<256xf32>
  %b = memplan.place %arena[1024] live [1, 2] : memref<2048xi8> to memref<256xf32>
  return
}
