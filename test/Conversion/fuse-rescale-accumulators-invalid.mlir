// RUN: not mem-opt %s --fuse-rescale-accumulators --split-input-file 2>&1 | FileCheck %s
// RUN: not mem-opt %s --fuse-rescale-accumulators=require-marks=true --split-input-file 2>&1 | FileCheck %s --check-prefixes=CHECK,MARKS

// A marked accumulator (mark-fused-elementwise: the memory model computes it
// one pixel at a time inside its rescale's loop and counts one pixel of it)
// that cannot be fused is an error at the op, in either mode, never a
// lowering that allocates the whole i32 tensor the model did not count.

// Its result is returned: there is no rescale to fuse it into.
// CHECK: {{.*}}:acc: error: 'linalg.conv_2d_nhwc_fhwc' op is computed inside the loop of its rescale by the memory model (isFusedAccumulator), but could not be fused with it
func.func @no_rescale(%x: tensor<1x4x4x8xi8>) -> tensor<1x4x4x16xi32> {
  %w = arith.constant dense<3> : tensor<16x1x1x8xi8>
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x4x4x16xi32>
  %init = linalg.fill ins(%zero : i32) outs(%e : tensor<1x4x4x16xi32>) -> tensor<1x4x4x16xi32>
  %acc = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x4x8xi8>, tensor<16x1x1x8xi8>) outs(%init : tensor<1x4x4x16xi32>) -> tensor<1x4x4x16xi32> loc(fused<"memopt.fused_accumulator">["acc"])
  return %acc : tensor<1x4x4x16xi32>
}

// -----

// Its rescale reads it through an unmarked i32 op: in the pipeline the model
// would not have marked this conv (its user is no rescale); require-marks
// refuses the chain, and without it the chain is fused (no error).
// CHECK-NOT: acc2: error
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// MARKS: {{.*}}:acc2: error: 'linalg.conv_2d_nhwc_fhwc' op is computed inside the loop of its rescale by the memory model
func.func @unmarked_between(%x: tensor<1x4x4x8xi8>) -> tensor<1x4x4x16xi8> {
  %w = arith.constant dense<3> : tensor<16x1x1x8xi8>
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x4x4x16xi32>
  %init = linalg.fill ins(%zero : i32) outs(%e : tensor<1x4x4x16xi32>) -> tensor<1x4x4x16xi32>
  %acc = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x4x8xi8>, tensor<16x1x1x8xi8>) outs(%init : tensor<1x4x4x16xi32>) -> tensor<1x4x4x16xi32> loc(fused<"memopt.fused_accumulator">["acc2"])
  %add = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : tensor<1x4x4x16xi32>) outs(%e : tensor<1x4x4x16xi32>) {
  ^bb0(%in: i32, %o: i32):
    %c1 = arith.constant 1 : i32
    %s = arith.addi %in, %c1 : i32
    linalg.yield %s : i32
  } -> tensor<1x4x4x16xi32>
  %e8 = tensor.empty() : tensor<1x4x4x16xi8>
  %out = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%add : tensor<1x4x4x16xi32>) outs(%e8 : tensor<1x4x4x16xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  } -> tensor<1x4x4x16xi8>
  return %out : tensor<1x4x4x16xi8>
}

// -----

// A marked padded input (the model reads it through one window per pixel)
// whose padding value is no constant (it depends on the row): the window cannot be built, and the
// padded copy the model did not count is an error at the pad.
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK: {{.*}}:pad: error: 'tensor.pad' op is read through one window per pixel by the memory model (a fused accumulator's padding), but its padded copy could not be replaced by windows
func.func @pad_not_constant(%x: tensor<1x4x4x8xi8>) -> tensor<1x4x4x16xi8> {
  %w = arith.constant dense<3> : tensor<16x3x3x8xi8>
  %zero = arith.constant 0 : i32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    %iv = arith.index_cast %j : index to i8
    tensor.yield %iv : i8
  } : tensor<1x4x4x8xi8> to tensor<1x6x6x8xi8> loc(fused<"memopt.fused_accumulator">["pad"])
  %e = tensor.empty() : tensor<1x4x4x16xi32>
  %init = linalg.fill ins(%zero : i32) outs(%e : tensor<1x4x4x16xi32>) -> tensor<1x4x4x16xi32>
  %acc = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x6x6x8xi8>, tensor<16x3x3x8xi8>) outs(%init : tensor<1x4x4x16xi32>) -> tensor<1x4x4x16xi32> loc(fused<"memopt.fused_accumulator">["acc3"])
  %e8 = tensor.empty() : tensor<1x4x4x16xi8>
  %out = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%acc : tensor<1x4x4x16xi32>) outs(%e8 : tensor<1x4x4x16xi8>) {
  ^bb0(%in: i32, %o: i8):
    %t = arith.trunci %in : i32 to i8
    linalg.yield %t : i8
  } -> tensor<1x4x4x16xi8>
  return %out : tensor<1x4x4x16xi8>
}
