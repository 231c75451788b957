// The Liberis & Lane (2019, Fig. 1) graph: in file order it peaks at
// 5216 bytes at op3 (see ../shared/docs/BACKGROUND.md). Per-step bytes by hand:
// op1: t0 1568 + t1 3136 = 4704; op2: t1 + t2 1568 = 4704;
// op3: t1 + t2 + t3 512 = 5216; op4: t1 + t3 + t4 512 = 4160;
// op5: t3 + t4 + t5 256 = 1280; op6: t4 + t5 + t6 256 = 1024;
// op7: t5 + t6 + t7 512 = 1024.
// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-report=model=canonical -o /dev/null 2>&1 | FileCheck %s --check-prefix=TEXT
// TEXT:      memory report for @main: 7 steps, peak 5216 bytes at step 2 (op3)
// TEXT-NEXT: step  op           location    live bytes
// TEXT-NEXT:    0  tosa.conv2d  op1               4704
// TEXT-NEXT:    1  tosa.conv2d  op2               4704
// TEXT-NEXT:    2  tosa.conv2d  op3               5216  <- peak
// TEXT-NEXT:    3  tosa.conv2d  op4               4160
// TEXT-NEXT:    4  tosa.conv2d  op5               1280
// TEXT-NEXT:    5  tosa.conv2d  op6               1024
// TEXT-NEXT:    6  tosa.concat  op7               1024
// TEXT-NEXT: peak: 5216 bytes; live: op1 (3136) op2 (1568) op3 (512)

// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-report="model=canonical format=json output=%t.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// The report says its layout version and mem-opt's version (from CMake's
// project(VERSION), substituted by lit).
// RUN: FileCheck %s --check-prefix=JSONVERSION --strict-whitespace -DVERSION=%memopt_version < %t.json
// JSONVERSION:      {{^}}{
// JSONVERSION-NEXT: {{^}}  "format_version": 1,
// JSONVERSION-NEXT: {{^}}  "functions": [
// JSONVERSION:      {{^}}  ],
// JSONVERSION-NEXT: {{^}}  "mem_opt_version": "[[VERSION]]"
// JSONVERSION-NEXT: {{^}}}
// JSON:      "functions": [
// JSON:        "live_at_peak": [
// JSON-NEXT:     {
// JSON-NEXT:       "bytes": 3136,
// JSON-NEXT:       "tensor": "op1"
// JSON:          "name": "main",
// JSON-NEXT:     "patches": null,
// JSON-NEXT:     "peak_bytes": 5216,
// JSON-NEXT:     "peak_op": "op3",
// JSON-NEXT:     "peak_step": 2,
// JSON-NEXT:     "schedule": null,
// JSON-NEXT:     "steps": [
// JSON-NEXT:       {
// JSON-NEXT:         "live_bytes": 4704,
// JSON-NEXT:         "loc": "op1",
// JSON-NEXT:         "op": "tosa.conv2d",
// JSON-NEXT:         "step": 0
// JSON:              "live_bytes": 4704,
// JSON-NEXT:         "loc": "op2",
// JSON:              "live_bytes": 5216,
// JSON-NEXT:         "loc": "op3",
// JSON:              "live_bytes": 4160,
// JSON-NEXT:         "loc": "op4",
// JSON:              "live_bytes": 1280,
// JSON-NEXT:         "loc": "op5",
// JSON:              "live_bytes": 1024,
// JSON-NEXT:         "loc": "op6",
// JSON:              "live_bytes": 1024,
// JSON-NEXT:         "loc": "op7",
// JSON-NEXT:         "op": "tosa.concat",
// JSON-NEXT:         "step": 6

// The report leaves the IR unchanged, covers every function with a body in
// order, skips declarations, and labels ops without a NameLoc by
// file:line:col.
// RUN: mem-opt %s --memory-report=model=canonical 2>&1 >/dev/null | FileCheck %s --check-prefix=MULTI
// RUN: mem-opt %s --memory-report=model=canonical | FileCheck %s --check-prefix=IR
// MULTI:      memory report for @first: 1 step, peak 128 bytes at step 0 (unnamed)
// MULTI:      memory report for @second: 2 steps, peak 96 bytes at step 1 ({{.*}}memory-report.mlir:[[L1:[0-9]+]]:8)
// MULTI-NEXT: step  op         location
// MULTI-NEXT:    0  tosa.cast  {{.*}}memory-report.mlir:{{[0-9]+}}:8 {{ *}}48
// MULTI-NEXT:    1  tosa.cast  {{.*}}memory-report.mlir:[[L1]]:8 {{ *}}96  <- peak
// MULTI-NEXT: peak: 96 bytes; live: tosa.cast#0 (32) tosa.cast#1 (64)
// MULTI-NOT:  @external
// IR-LABEL: func.func @first
// IR: tosa.abs
// IR-LABEL: func.func @second
// IR-COUNT-2: tosa.cast
func.func @first(%arg0: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tosa.abs %arg0 : (tensor<16xf32>) -> tensor<16xf32> loc("unnamed")
  return %0 : tensor<16xf32>
}

func.func private @external(tensor<4xf32>) -> tensor<4xf32>

// 16xi8 = 16 B, 16xi16 = 32 B, 16xi24 = 64 B (an i24 is stored in 4 bytes,
// its LLVM allocation size, as in the memplan verifier and the arena).
// step 0: arg0 16 + 32 = 48; step 1: 32 + 64 = 96 (arg0 died at step 0).
func.func @second(%arg0: tensor<16xi8>) -> tensor<16xi24> {
  %0 = tosa.cast %arg0 : (tensor<16xi8>) -> tensor<16xi16>
  %1 = tosa.cast %0 : (tensor<16xi16>) -> tensor<16xi24>
  return %1 : tensor<16xi24>
}
