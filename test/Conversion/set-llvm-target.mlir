// RUN: mem-opt %s --set-llvm-target="triple=thumbv7em-none-eabihf data-layout=e-m:e-p:32:32" | FileCheck %s
// RUN: mem-opt %s --set-llvm-target | FileCheck %s --check-prefix=NONE

// CHECK: module attributes {llvm.data_layout = "e-m:e-p:32:32", llvm.target_triple = "thumbv7em-none-eabihf"}
// NONE-NOT: llvm.target_triple
module {
}
