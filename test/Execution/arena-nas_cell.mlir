// The bundled examples/nas_cell.mlir computes the same numbers with its
// activations in the planned arena as with malloc'd buffers (see
// arena-host.mlir for the method; substitutions: lit.local.cfg).
//
// RUN: cat %memopt_src/examples/nas_cell.mlir | %bufferize -o %t.buf.mlir
// RUN: %python %S/Inputs/add-main.py %t.buf.mlir --function=nas_cell --inputs=2 | %lower_host | %run_host > %t.ref.out
// RUN: mem-opt %t.buf.mlir --memplan-plan-arena --memplan-lower -o %t.plan.mlir
// RUN: FileCheck %s --check-prefix=PLAN < %t.plan.mlir
// RUN: %lower_host %t.plan.mlir | FileCheck %s --check-prefix=NOMALLOC
// RUN: %python %S/Inputs/add-main.py %t.plan.mlir --function=nas_cell --inputs=2 | %lower_host | %run_host > %t.plan.out
// RUN: grep -v -e "base@" -e "^[0-9][0-9]*$" %t.ref.out > %t.ref.data
// RUN: grep -v -e "base@" -e "^[0-9][0-9]*$" %t.plan.out > %t.plan.data
// RUN: diff %t.ref.data %t.plan.data
// RUN: FileCheck %s --check-prefix=DATA < %t.ref.data
// RUN: FileCheck %s --check-prefix=GUARD < %t.plan.out

// PLAN:      func.func @nas_cell(
// PLAN-SAME: memref<[[N:[0-9]+]]xi8> {llvm.noalias})
// PLAN-SAME: memplan.arena_size = [[N]] : i64
// PLAN-NOT:  memref.alloc
// PLAN-NOT:  memref.dealloc
// PLAN-NOT:  memplan.place
// PLAN:      return

// NOMALLOC:     llvm.func @nas_cell(
// NOMALLOC-NOT: llvm.call @malloc
// NOMALLOC-NOT: llvm.call @free
// NOMALLOC:     llvm.return

// 1x16x16x32xf32: 256 rows of the last dimension.

// DATA-COUNT-256: {{^ *\[+(-?[0-9.e+-]+(, +)?)+\]+,? *$}}
// GUARD: {{^}}0{{$}}
