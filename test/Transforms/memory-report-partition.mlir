// memory-report=partition=true: per function, the file-order peak, the best
// scheduled peak, and the best peak after partition-concat plus scheduling.
// The models and their peaks, computed by hand, are in
// partition-concat-auto.mlir.
// RUN: mem-opt %S/partition-concat-auto.mlir --split-input-file --memory-report=partition=true -o /dev/null 2>&1 | FileCheck %s
// RUN: mem-opt %S/partition-concat-auto.mlir --split-input-file --memory-report="partition=true format=json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=JSON
// The IR is not changed.
// RUN: mem-opt %S/partition-concat-auto.mlir --split-input-file --memory-report=partition=true 2>/dev/null | FileCheck %s --check-prefix=IR

// CHECK-LABEL: memory report for @profitable
// CHECK: partition: file order 16384 bytes, scheduled 16384 bytes, partition-concat + scheduled 8192 bytes (1 site rewritten, proven optimal)
// CHECK-LABEL: memory report for @unprofitable
// CHECK: partition: file order 18432 bytes, scheduled 18432 bytes, partition-concat + scheduled 18432 bytes (0 sites rewritten, proven optimal)

// JSON: "name": "profitable"
// JSON: "partition": {
// JSON-NEXT: "input_peak": 16384,
// JSON-NEXT: "optimal": true,
// JSON-NEXT: "partitioned_peak": 8192,
// JSON-NEXT: "scheduled_peak": 16384,
// JSON-NEXT: "sites": 1

// IR-LABEL: func.func @profitable
// IR: tosa.concat
// IR-NOT: memopt.accumulate
// IR: return
