// Liberis & Lane (2019, Fig. 1): the file order peaks at 5216 bytes; the
// published optimum is 4960 bytes with op1, op4, op6, op2, op3, op5, op7.
// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-schedule=model=canonical --memory-report=model=canonical -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXACT
// EXACT:      memory report for @main: 7 steps, peak 4960 bytes at step 3 (op2)
// EXACT:         0  tosa.conv2d  op1
// EXACT-NEXT:    1  tosa.conv2d  op4
// EXACT-NEXT:    2  tosa.conv2d  op6
// EXACT-NEXT:    3  tosa.conv2d  op2               4960  <- peak
// EXACT-NEXT:    4  tosa.conv2d  op3
// EXACT-NEXT:    5  tosa.conv2d  op5
// EXACT-NEXT:    6  tosa.concat  op7
// EXACT:      schedule: lower bound 4960 bytes, proven optimal

// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-schedule="model=canonical record-time=false" | FileCheck %s --check-prefix=ATTRS
// ATTRS: func.func @main({{.*}}) -> tensor<1x4x4x8xf32> attributes {memopt.lower_bound = 4960 : i64, memopt.optimal = true, memopt.peak_bytes = 4960 : i64} {
// ATTRS-NOT: memopt.schedule_time_ms

// The time is recorded by default, and memory-report's JSON carries the
// certificate.
// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-schedule=model=canonical --memory-report="model=canonical format=json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON
// JSON:      "schedule": {
// JSON-NEXT:   "lower_bound": 4960,
// JSON-NEXT:   "optimal": true,
// JSON-NEXT:   "peak_bytes": 4960,
// JSON-NEXT:   "time_ms": {{[0-9]+}}

// Output is deterministic.
// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-schedule="model=canonical record-time=false" > %t.a.mlir
// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-schedule="model=canonical record-time=false" > %t.b.mlir
// RUN: diff %t.a.mlir %t.b.mlir

// Baselines. Kahn (breadth first) runs op4 while t1 and t2 are live:
// 3136 + 1568 + 512 = 5216. The file order is kept as is.
// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-schedule="model=canonical algorithm=kahn" --memory-report=model=canonical -o /dev/null 2>&1 | FileCheck %s --check-prefix=KAHN
// KAHN:      peak 5216 bytes at step 2 (op4)
// KAHN:         0  tosa.conv2d  op1
// KAHN-NEXT:    1  tosa.conv2d  op2
// KAHN-NEXT:    2  tosa.conv2d  op4
// KAHN-NEXT:    3  tosa.conv2d  op3
// KAHN-NEXT:    4  tosa.conv2d  op6
// KAHN-NEXT:    5  tosa.conv2d  op5
// KAHN:      schedule: lower bound 4704 bytes, not proven optimal
// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-schedule="model=canonical algorithm=input" --memory-report=model=canonical -o /dev/null 2>&1 | FileCheck %s --check-prefix=INPUT
// INPUT: peak 5216 bytes at step 2 (op3)
// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-schedule="model=canonical algorithm=rpo" --memory-report=model=canonical -o /dev/null 2>&1 | FileCheck %s --check-prefix=RPO
// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-schedule="model=canonical algorithm=greedy" --memory-report=model=canonical -o /dev/null 2>&1 | FileCheck %s --check-prefix=RPO
// RPO: peak 4960 bytes at step 3 (op2)

// A budget at the optimum passes.
// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-schedule="model=canonical budget=4960" -o /dev/null

// Statistics as a remark (Debian's LLVM compiles -mlir-pass-statistics out).
// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-schedule="model=canonical print-statistics" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// STATS: remark: memory-schedule statistics of @main: peak before 5216 bytes, after 4960 bytes, lower bound 4960 bytes, proven optimal, {{[0-9]+}} states explored, {{[0-9]+}} ms

// Constants move with their first user; side-effecting ops keep their
// relative order; the result verifies (mem-opt verifies after each pass).
// This is the Liberis graph on f32 vectors (t0 = 392 elements = 1568 bytes,
// t1 = 3136, t2 = 1568, t3 = t4 = 512, t5 = t6 = 256, t7 = 512) with an
// effect on t5 and then one on t6: op6 still moves before op2, but the effect
// on t6 stays after the one on t5, and the peak is the published 4960.
// RUN: mem-opt %s --allow-unregistered-dialect --memory-schedule="model=canonical record-time=false" | FileCheck %s
// CHECK-LABEL: func.func @effects
// CHECK-SAME:  memopt.optimal = true, memopt.peak_bytes = 4960
// CHECK:       %[[OP1:.*]] = tosa.concat %arg0, %arg0
// CHECK:       %[[OP4:.*]] = tosa.slice %[[OP1]]
// CHECK:       %[[OP6:.*]] = tosa.slice %[[OP4]]
// CHECK:       %[[OP2:.*]] = tosa.slice %[[OP1]]
// CHECK:       %[[OP3:.*]] = tosa.slice %[[OP2]]
// CHECK:       %[[OP5:.*]] = tosa.slice %[[OP3]]
// CHECK-NEXT:  "foo.effect"(%[[OP5]])
// CHECK-NEXT:  "foo.effect"(%[[OP6]])
// CHECK-NEXT:  tosa.concat %[[OP5]], %[[OP6]]
func.func @effects(%arg0: tensor<392xf32>) -> tensor<128xf32> {
  %op1 = tosa.concat %arg0, %arg0 {axis = 0 : i32} : (tensor<392xf32>, tensor<392xf32>) -> tensor<784xf32>
  %zero = tosa.const_shape {values = dense<0> : tensor<1xindex>} : () -> !tosa.shape<1>
  %n392 = tosa.const_shape {values = dense<392> : tensor<1xindex>} : () -> !tosa.shape<1>
  %op2 = tosa.slice %op1, %zero, %n392 : (tensor<784xf32>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<392xf32>
  %n128 = tosa.const_shape {values = dense<128> : tensor<1xindex>} : () -> !tosa.shape<1>
  %op3 = tosa.slice %op2, %zero, %n128 : (tensor<392xf32>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<128xf32>
  %op4 = tosa.slice %op1, %zero, %n128 : (tensor<784xf32>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<128xf32>
  %n64 = tosa.const_shape {values = dense<64> : tensor<1xindex>} : () -> !tosa.shape<1>
  %op5 = tosa.slice %op3, %zero, %n64 : (tensor<128xf32>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<64xf32>
  "foo.effect"(%op5) : (tensor<64xf32>) -> ()
  %op6 = tosa.slice %op4, %zero, %n64 : (tensor<128xf32>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<64xf32>
  "foo.effect"(%op6) : (tensor<64xf32>) -> ()
  %op7 = tosa.concat %op5, %op6 {axis = 0 : i32} : (tensor<64xf32>, tensor<64xf32>) -> tensor<128xf32>
  return %op7 : tensor<128xf32>
}
