// drop-tosa-target-env removes the module's tosa.target_env, and nothing
// else; a module without it is left as is.
// RUN: mem-opt %s --split-input-file --drop-tosa-target-env | FileCheck %s

// CHECK-LABEL: module attributes {memopt.kept = 1 : i64}
// CHECK-NOT: tosa.target_env
// CHECK: func.func @lowered
module attributes {tosa.target_env = #tosa.target_env<specification_version = "1.0", level = "8k", profiles = [pro_int, pro_fp], extensions = [doubleround]>, memopt.kept = 1 : i64} {
  func.func @lowered(%x: i32) -> i32 {
    return %x : i32
  }
}

// -----

// CHECK-LABEL: module {
// CHECK: func.func @untouched
module {
  func.func @untouched(%x: i32) -> i32 {
    return %x : i32
  }
}
