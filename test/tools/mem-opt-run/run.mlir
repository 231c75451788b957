// mem-opt-run lowers TOSA functions to the host and runs them. The expected
// values are computed by hand in the comments.

// tosa.add of two constants: [1, -2] + [3, 4] = [4, 2].
// RUN: mem-opt-run %s --entry=add_consts --print | FileCheck %s --check-prefix=ADD
// ADD: @add_consts result #0: tensor<2xi32>
// ADD-NEXT: 4 2
func.func @add_consts() -> tensor<2xi32> {
  %0 = "tosa.const"() <{values = dense<[1, -2]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %1 = "tosa.const"() <{values = dense<[3, 4]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %2 = tosa.add %0, %1 : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %2 : tensor<2xi32>
}

// A 1x1 conv with weights [2, -1] and bias 0.5 on four pixels read from a
// file (f32 little-endian): (1, 2) (3, 4) (0, -1) (0.5, 0.5)
//   -> 2*1 - 2 + 0.5 = 0.5, 6 - 4 + 0.5 = 2.5, 0 + 1 + 0.5 = 1.5,
//      1 - 0.5 + 0.5 = 1.
// RUN: printf '\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40\x00\x00\x80\x40\x00\x00\x00\x00\x00\x00\x80\xbf\x00\x00\x00\x3f\x00\x00\x00\x3f' > %t.conv.bin
// RUN: mem-opt-run %s --entry=conv1x1 --inputs=%t.conv.bin --print | FileCheck %s --check-prefix=CONV
// CONV: @conv1x1 result #0: tensor<1x2x2x1xf32>
// CONV-NEXT: 0.5
// CONV-NEXT: 2.5
// CONV-NEXT: 1.5
// CONV-NEXT: 1{{$}}
func.func @conv1x1(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x1xf32> {
  %w = "tosa.const"() <{values = dense<[[[[2.0, -1.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<0.5> : tensor<1xf32>}> : () -> tensor<1xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<1x1x1x2xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x1xf32>
  return %0 : tensor<1x2x2x1xf32>
}

// int8 1x1 conv, input zero point 5, weights [3, -2], bias 100, on the i8
// pixels (7, 1) and (-5, -128):
//   3*(7-5) - 2*(1-5) + 100 = 114;  3*(-10) - 2*(-133) + 100 = 336.
// The results are also written as raw little-endian i32.
// RUN: printf '\x07\x01\xfb\x80' > %t.q.bin
// RUN: mem-opt-run %s --entry=qconv --inputs=%t.q.bin --outputs=%t.q.out --print | FileCheck %s --check-prefix=QCONV
// RUN: od -A n -t d4 %t.q.out | FileCheck %s --check-prefix=QRAW
// QCONV: @qconv result #0: tensor<1x1x2x1xi32>
// QCONV-NEXT: 114
// QCONV-NEXT: 336
// QRAW: 114 336
func.func @qconv(%x: tensor<1x1x2x2xi8>) -> tensor<1x1x2x1xi32> {
  %w = "tosa.const"() <{values = dense<[[[[3, -2]]]]> : tensor<1x1x1x2xi8>}> : () -> tensor<1x1x1x2xi8>
  %b = "tosa.const"() <{values = dense<100> : tensor<1xi32>}> : () -> tensor<1xi32>
  %izp = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.conv2d %x, %w, %b, %izp, %wzp {acc_type = i32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x1x2x2xi8>, tensor<1x1x1x2xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x1x2x1xi32>
  return %0 : tensor<1x1x2x1xi32>
}

// Seeded inputs are deterministic, and --inputs reproduces a seeded run:
// the identity returns its argument, whose file is then byte-identical.
// RUN: mem-opt-run %s --entry=identity --seed=7 --write-inputs=%t.s7a --outputs=%t.o7
// RUN: mem-opt-run %s --entry=identity --seed=7 --write-inputs=%t.s7b
// RUN: mem-opt-run %s --entry=identity --seed=8 --write-inputs=%t.s8
// RUN: cmp %t.s7a %t.s7b
// RUN: cmp %t.s7a %t.o7
// RUN: not cmp -s %t.s7a %t.s8
// RUN: mem-opt-run %s --entry=identity --inputs=%t.s7a --outputs=%t.o7b
// RUN: cmp %t.o7 %t.o7b
// Seeded floats lie in [-1, 1) and seeded i8 cover negative and positive
// values.
// RUN: mem-opt-run %s --entry=identity --seed=3 --print | FileCheck %s --check-prefix=RANGE
// RANGE: @identity result #0: tensor<64xf32>
// RANGE-NOT: {{[0-9]e|[2-9]\.|1\.[0-9]*[1-9]}}
// RANGE: @identity result #1: tensor<64xi8>
// RANGE: -{{[0-9]+}}
func.func @identity(%x: tensor<64xf32>, %y: tensor<64xi8>) -> (tensor<64xf32>, tensor<64xi8>) {
  return %x, %y : tensor<64xf32>, tensor<64xi8>
}

// An int8 average pooling: tosa-to-linalg divides with math.ctlz, which the
// host flow expands in software (convert-math-to-funcs). (Before, every
// integer average pooling failed to lower: the pass fuzzer,
// test/fuzz/pass_fuzz.py, could not run them on the host.) The pixels 2, 4,
// 6, 8 average to 20 / 4 = 5.
// RUN: printf '\x02\x04\x06\x08' > %t.avg.bin
// RUN: mem-opt-run %s --entry=avg_i8 --inputs=%t.avg.bin --print | FileCheck %s --check-prefix=AVG
// AVG: @avg_i8 result #0: tensor<1x1x1x1xi8>
// AVG-NEXT: {{^ *}}5{{$}}
func.func @avg_i8(%x: tensor<1x2x2x1xi8>) -> tensor<1x1x1x1xi8> {
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.avg_pool2d %x, %zp, %zp {acc_type = i32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x2x1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x1x1x1xi8>
  return %0 : tensor<1x1x1x1xi8>
}

// A value returned twice: each result gets its own buffer (before, the host
// flow's buffer-results-to-out-params crashed; found by the pass fuzzer,
// test/fuzz/pass_fuzz.py, on a function whose duplicate ops CSE merged).
// [1, -2] + [3, 4] = [4, 2], twice.
// RUN: mem-opt-run %s --entry=twice --print | FileCheck %s --check-prefix=TWICE
// TWICE: @twice result #0: tensor<2xi32>
// TWICE-NEXT: 4 2
// TWICE: @twice result #1: tensor<2xi32>
// TWICE-NEXT: 4 2
func.func @twice() -> (tensor<2xi32>, tensor<2xi32>) {
  %0 = "tosa.const"() <{values = dense<[1, -2]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %1 = "tosa.const"() <{values = dense<[3, 4]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %2 = tosa.add %0, %1 : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %2, %2 : tensor<2xi32>, tensor<2xi32>
}
