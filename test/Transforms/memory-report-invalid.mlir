// RUN: mem-opt %s --split-input-file --allow-unregistered-dialect --memory-report -verify-diagnostics -o /dev/null

// Not a TOSA/tensor function: memref arguments.
// expected-error @below {{argument #0 of @memref_arg: type 'memref<4xf32>' is not a tensor; mem-opt models TOSA/tensor functions}}
func.func @memref_arg(%arg0: memref<4xf32>) {
  return
}

// -----

// expected-error @below {{argument #0 of @dynamic_arg: dynamic shape 'tensor<?x4xf32>' is not supported; the memory model needs static shapes}}
func.func @dynamic_arg(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %arg0 : tensor<?x4xf32>
}

// -----

// expected-error @below {{argument #0 of @unranked_arg: unranked tensor 'tensor<*xf32>' is not supported; the memory model needs static shapes}}
func.func @unranked_arg(%arg0: tensor<*xf32>) -> tensor<*xf32> {
  return %arg0 : tensor<*xf32>
}

// -----

func.func @dynamic_result(%arg0: tensor<4xf32>) -> tensor<?xf32> {
  // expected-error @below {{'tensor.cast' op result #0: dynamic shape 'tensor<?xf32>' is not supported; the memory model needs static shapes}}
  %0 = tensor.cast %arg0 : tensor<4xf32> to tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// expected-error @below {{'func.func' op has 2 blocks; mem-opt models functions whose body is a single block of tensor ops}}
func.func @two_blocks(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  cf.br ^bb1
^bb1:
  return %arg0 : tensor<4xf32>
}

// -----

func.func @region_op(%arg0: tensor<4xf32>, %cond: i1) -> tensor<4xf32> {
  // expected-error @below {{'scf.if' op has regions; mem-opt models single-block functions of region-free tensor ops}}
  %0 = scf.if %cond -> tensor<4xf32> {
    scf.yield %arg0 : tensor<4xf32>
  } else {
    scf.yield %arg0 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @unknown_op(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'foo.bar' op is an unknown op producing tensors; mem-opt cannot tell how much memory it needs}}
  %0 = "foo.bar"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @no_byte_size(%arg0: tensor<4xf32>) -> tensor<4xvector<2xf32>> {
  // expected-error @below {{'foo.vector_tensor' op result #0: cannot compute the byte size of 'tensor<4xvector<2xf32>>'}}
  %0 = "foo.vector_tensor"(%arg0) : (tensor<4xf32>) -> tensor<4xvector<2xf32>>
  return %0 : tensor<4xvector<2xf32>>
}

// -----

// Only the offending function fails; the diagnostic is emitted once.
func.func @fine(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.clamp %arg0 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @unknown_sink_op(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'foo.bar' op is an unknown op producing tensors; mem-opt cannot tell how much memory it needs}}
  %0 = "foo.bar"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
