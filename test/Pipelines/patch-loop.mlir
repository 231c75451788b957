// An scf.for over patches (Inputs/int8_patch_loop.mlir, written by
// gen_int8_patch_loop.py: a 3x3 int8 convolution of a 1x12x6x3 input, 3
// patches of 4 rows, each a dynamically padded 6x8 tile) through
// cortex-m-pipeline: the memory model takes the loop as one step whose
// workspace is its body's peak, and the arena plan gives the body's buffers
// the same bytes in every iteration. By hand: the input is 216 bytes, the
// carried result 288; the body holds the tile (1x6x8x3 = 144), the patch's
// output (1x4x6x4 = 96) and the fused convolution's one-pixel accumulator
// (4 x i32 = 16) at its convolution: 256. io=caller: peak 216 + 288 + 256 =
// 760, arena 256; io=arena: all in the arena, 760.
// RUN: mem-opt %S/Inputs/int8_patch_loop.mlir --cortex-m-pipeline="stop-after=plan io=caller" | FileCheck %s --check-prefix=CALLER
// CALLER: memopt.optimal = true, memopt.peak_bytes = 760 : i64
// CALLER-SAME: memplan.arena_size = 256 : i64
// CALLER: scf.for
// CALLER-COUNT-3: memplan.place
// CALLER: }
// RUN: mem-opt %S/Inputs/int8_patch_loop.mlir --cortex-m-pipeline="stop-after=plan" | FileCheck %s --check-prefix=ARENA
// ARENA: memopt.peak_bytes = 760 : i64
// ARENA-SAME: memplan.arena_size = 760 : i64

// The loop computes the convolution of Inputs/int8_patch_loop_plain.mlir bit
// for bit on the host.
// RUN: mem-opt-run --compare %S/Inputs/int8_patch_loop_plain.mlir %S/Inputs/int8_patch_loop.mlir | FileCheck %s --check-prefix=HOST
// HOST: @patch_loop result #0 (tensor<1x12x6x4xi8>): 10 seeds, bit-exact

// mem-opt-compile's report: the loop is one layer; its multiply-accumulates
// are its body's times its 3 trips, 3 x (4x6x4 outputs x 3x3x3) = 7776, the
// plain convolution's (12x6x4 x 27); its weights are the constants its body
// reads: 108 + 16 (bias) + 16 + 4 (multipliers, shifts) + 7 (zero points) =
// 151 bytes.
// RUN: mem-opt-compile %S/Inputs/int8_patch_loop.mlir -o %t.o --report --quiet | FileCheck %s --check-prefix=REPORT
// REPORT: MACs 7776
// REPORT: 0 0 760 151 7776 {{[0-9]+}} scf.for
