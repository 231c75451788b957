// RUN: not mem-opt %s --split-input-file --pass-pipeline='builtin.module(memory-report{model=lowering})' -o /dev/null 2>&1 | FileCheck %s
// RUN: mem-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(memory-report{model=lowering})' -o /dev/null

// An scf.for (a loop over patches) is one step: it reads the activations its
// body reads, allocates its carried result, and needs its body's peak as
// workspace. By hand, for two patches of 4 rows of a 3x3 f32 convolution of
// a 1x8x4x2 input: the input (256 bytes) and the result (1x8x4x4, 512) are
// live; the body's peak is at its convolution, which reads the padded tile
// (1x6x6x2 = 288) and writes the patch (1x4x4x4 = 256): 544. The rows of
// the input the patch reads are a view of dynamic size, no buffer.
// CHECK: memory report for @two_patches: 1 step, peak 1312 bytes
// CHECK: live: %arg0 (256) scf.for#0 (512) scf.for#0 workspace (544)
func.func @two_patches(%x: tensor<1x8x4x2xf32>) -> tensor<1x8x4x4xf32> {
  %w = "tosa.const"() {values = dense<0.5> : tensor<4x3x3x2xf32>} : () -> tensor<4x3x3x2xf32>
  %b = "tosa.const"() {values = dense<0.25> : tensor<4xf32>} : () -> tensor<4xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %cm1 = arith.constant -1 : index
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<1x8x4x4xf32>
  %r = scf.for %k = %c0 to %c2 step %c1 iter_args(%acc = %init) -> tensor<1x8x4x4xf32> {
    %o0 = arith.muli %k, %c4 : index
    %h0 = arith.addi %o0, %cm1 : index
    %lo = arith.maxsi %h0, %c0 : index
    %h1 = arith.addi %h0, %c6 : index
    %hi = arith.minsi %h1, %c8 : index
    %n = arith.subi %hi, %lo : index
    %s = tensor.extract_slice %x[0, %lo, 0, 0] [1, %n, 4, 2] [1, 1, 1, 1] : tensor<1x8x4x2xf32> to tensor<1x?x4x2xf32>
    %before = arith.subi %lo, %h0 : index
    %after = arith.subi %h1, %hi : index
    %p = tensor.pad %s low[0, %before, 1, 0] high[0, %after, 1, 0] {
    ^bb0(%i: index, %j: index, %l: index, %m: index):
      tensor.yield %zero : f32
    } : tensor<1x?x4x2xf32> to tensor<1x6x6x2xf32>
    %c = tosa.conv2d %p, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x6x6x2xf32>, tensor<4x3x3x2xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x4xf32>
    %ins = tensor.insert_slice %c into %acc[0, %o0, 0, 0] [1, 4, 4, 4] [1, 1, 1, 1] : tensor<1x4x4x4xf32> into tensor<1x8x4x4xf32>
    scf.yield %ins : tensor<1x8x4x4xf32>
  }
  return %r : tensor<1x8x4x4xf32>
}

// -----

// A carried value that starts as an activation would be updated in place,
// or copied: not modelled.
func.func @carried_activation(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{carries a tensor that does not start as a 'tensor.empty'; mem-opt models loops that compute their results in place}}
  %r = scf.for %k = %c0 to %c1 step %c1 iter_args(%acc = %x) -> tensor<4xf32> {
    %y = tosa.abs %acc : (tensor<4xf32>) -> tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// The body is modelled as a function body: an op with regions in it is an
// error at that op.
func.func @region_in_body(%x: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = tensor.empty() : tensor<4xf32>
  %r = scf.for %k = %c0 to %c1 step %c1 iter_args(%acc = %init) -> tensor<4xf32> {
    // expected-error @below {{'scf.if' op has regions; mem-opt models single-block functions of region-free tensor ops and scf.for loops of them}}
    %y = scf.if %c -> tensor<4xf32> {
      scf.yield %x : tensor<4xf32>
    } else {
      scf.yield %x : tensor<4xf32>
    }
    scf.yield %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
