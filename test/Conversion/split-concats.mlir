// RUN: mem-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(split-concats{max-operands=3}))" | FileCheck %s
// RUN: mem-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(split-concats))" | FileCheck %s --check-prefix=LEVEL
// RUN: not mem-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(split-concats{max-operands=1}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONE

// Seven operands, at most three per concat: runs (a,b,c) (d,e,f) (g) give
// three values, which one concat holds. The run sizes along axis 1 are
// 1+2+3 = 6 and 1+1+1 = 3; g (2) stays itself; 6+3+2 = 11.
// CHECK-LABEL: func.func @seven
// CHECK: %[[R0:.*]] = tosa.concat %arg0, %arg1, %arg2 {axis = 1 : i32} : ({{.*}}) -> tensor<2x6xf32>
// CHECK: %[[R1:.*]] = tosa.concat %arg3, %arg4, %arg5 {axis = 1 : i32} : ({{.*}}) -> tensor<2x3xf32>
// CHECK: %[[R:.*]] = tosa.concat %[[R0]], %[[R1]], %arg6 {axis = 1 : i32} : ({{.*}}) -> tensor<2x11xf32>
// CHECK: return %[[R]]
// At level 8K (64 operands per concat) nothing changes.
// LEVEL-LABEL: func.func @seven
// LEVEL: tosa.concat %arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6
// LEVEL-NEXT: return
func.func @seven(%a: tensor<2x1xf32>, %b: tensor<2x2xf32>, %c: tensor<2x3xf32>, %d: tensor<2x1xf32>, %e: tensor<2x1xf32>, %f: tensor<2x1xf32>, %g: tensor<2x2xf32>) -> tensor<2x11xf32> {
  %0 = tosa.concat %a, %b, %c, %d, %e, %f, %g {axis = 1 : i32} : (tensor<2x1xf32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x2xf32>) -> tensor<2x11xf32>
  return %0 : tensor<2x11xf32>
}

// -----

// Ten operands, at most three: runs of 3, 3, 3 and 1 give three concats of
// three elements and the last operand; of these four values the first run
// gives a concat of 9 elements and the last stays; the top concat joins the
// two (9 + 1 = 10): a tree of depth three.
// CHECK-LABEL: func.func @ten
// CHECK-COUNT-3: tosa.concat %arg0, %arg0, %arg0 {axis = 0 : i32} : ({{.*}}) -> tensor<3xi8>
// CHECK: %[[A:.*]] = tosa.concat %{{.*}}, %{{.*}}, %{{.*}} {axis = 0 : i32} : ({{.*}}) -> tensor<9xi8>
// CHECK: %[[R:.*]] = tosa.concat %[[A]], %{{.*}} {axis = 0 : i32} : (tensor<9xi8>, tensor<1xi8>) -> tensor<10xi8>
// CHECK-NOT: tosa.concat
// CHECK: return %[[R]]
func.func @ten(%x: tensor<1xi8>) -> tensor<10xi8> {
  %0 = tosa.concat %x, %x, %x, %x, %x, %x, %x, %x, %x, %x {axis = 0 : i32} : (tensor<1xi8>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<10xi8>
  return %0 : tensor<10xi8>
}

// ONE: error: max-operands 1 cannot hold a concat of two operands
