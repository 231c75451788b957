// The state budget stops the exact search deterministically; the pass says
// so in its remark and records it. The budget of one state leaves the proof
// of Liberis & Lane's graph unfinished (4960 found, 4704 proven, as in
// memory-schedule-limits.mlir).
// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-schedule="max-states=1 time-limit-ms=0 record-time=false" -o - 2>&1 | FileCheck %s
// CHECK: remark: memory-schedule: search of @main stopped at its limit; {{.*}} (gap 256 bytes); stopped by the state budget (max-states)
// CHECK: memopt.peak_bytes = 4960 : i64, memopt.schedule_stopped_by = "states"

// Two runs with the same budget print the same IR.
// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-schedule="max-states=1 record-time=false" > %t.a.mlir 2>&1
// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-schedule="max-states=1 record-time=false" > %t.b.mlir 2>&1
// RUN: diff %t.a.mlir %t.b.mlir

// A finished search records no stop.
// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-schedule=record-time=false | FileCheck %s --check-prefix=DONE
// DONE-NOT: memopt.schedule_stopped_by
