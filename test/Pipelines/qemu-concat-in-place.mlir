// Concat operands produced into their slice of the caller's output buffer
// (cortex-m-concat-in-place.mlir) give the same results on the device: both
// functions, compiled by mem-opt-compile with io=caller for Cortex-M4, run
// on QEMU's mps2-an386 in an arena of exactly the planned size between
// canaries, and their outputs must match mem-opt-run's host run of the same
// TOSA (run_model.py, which also checks _PREDICTED_PEAK == _ARENA_SIZE +
// the caller's bytes).
// REQUIRES: cortex-m-qemu
// RUN: rm -rf %t && mkdir -p %t
// RUN: sed -n '/^func.func @in_place/,/^}/p' %S/cortex-m-concat-in-place.mlir > %t/in_place.mlir
// RUN: sed -n '/^func.func @not_in_place/,/^}/p' %S/cortex-m-concat-in-place.mlir > %t/not_in_place.mlir
// RUN: %run_firmware %t/in_place.mlir --work %t/a --seed 3 \
// RUN:   --cpu cortex-m4 --compile-arg=--io=caller | FileCheck %s --check-prefix=IN
// RUN: %run_firmware %t/not_in_place.mlir --work %t/b --seed 3 \
// RUN:   --cpu cortex-m4 --compile-arg=--io=caller | FileCheck %s --check-prefix=COPY
// IN-NOT: FAIL
// IN: OK cortex-m4 on mps2-an386: in_place: predicted_peak=512
// IN-NOT: FAIL
// COPY-NOT: FAIL
// COPY: OK cortex-m4 on mps2-an386: not_in_place: predicted_peak=640
// COPY-NOT: FAIL
