// When a limit stops the search, the pass keeps the best order found (never
// worse than the input), reports the gap to the proven lower bound with a
// remark, and does not claim optimality.
// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-schedule="max-states=1 record-time=false" -o - 2>&1 | FileCheck %s
// CHECK: remark: memory-schedule: search of @main stopped at its limit; best order peaks at 4960 bytes, proven lower bound 4704 bytes (gap 256 bytes)
// CHECK: memopt.lower_bound = 4704 : i64, memopt.optimal = false, memopt.peak_bytes = 4960 : i64

// A budget between the lower bound and the best order found: the error says
// the search could not finish.
// RUN: not mem-opt %S/../Inputs/liberis.mlir --memory-schedule="max-states=1 budget=4800" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET
// BUDGET: liberis:op2: error: the best order found peaks at 4960 bytes, over the budget of 4800 bytes; the search could not finish (proven lower bound 4704 bytes), so an order that fits may exist; live at this op:

// A budget below the proven lower bound fails even though the search could
// not finish: no order can fit.
// RUN: not mem-opt %S/../Inputs/liberis.mlir --memory-schedule="max-states=1 budget=4000" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFIT
// NOFIT: liberis:op2: error: no order fits the budget of 4000 bytes: every order needs at least 4704 bytes (the best found peaks at 4960); live at this op:

// Bad options.
// RUN: not mem-opt %S/../Inputs/liberis.mlir --memory-schedule=algorithm=fastest -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALGO
// ALGO: error: memory-schedule: unknown algorithm 'fastest'; expected exact, input, kahn, rpo or greedy
// RUN: not mem-opt %S/../Inputs/liberis.mlir --memory-schedule=budget=-5 -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: error: memory-schedule: budget must be a byte count >= 0 (0: no budget), got -5
// RUN: mem-opt %S/../Inputs/liberis.mlir --memory-schedule=budget=0 -o /dev/null
