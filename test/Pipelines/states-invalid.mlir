// RUN: mem-opt %s --split-input-file --memory-report -verify-diagnostics -o /dev/null
// The states' attribute (memopt.state on an argument: the result that holds
// the state's new value) is checked, and in the lowering's model the update
// must be a shift that can be computed over the old state.

// expected-error @below {{argument #1 is a state whose new value is result #2, but @no_result has 2 results}}
func.func @no_result(%x: tensor<1x4xi8>, %s: tensor<1x8xi8> {memopt.state = 2 : i64}) -> (tensor<1x4xi8>, tensor<1x8xi8>) {
  return %x, %s : tensor<1x4xi8>, tensor<1x8xi8>
}

// -----

// expected-error @below {{argument #1 is a state of type 'tensor<1x8xi8>' but result #0, its new value, has type 'tensor<1x4xi8>'}}
func.func @other_type(%x: tensor<1x4xi8>, %s: tensor<1x8xi8> {memopt.state = 0 : i64}) -> (tensor<1x4xi8>, tensor<1x8xi8>) {
  return %x, %s : tensor<1x4xi8>, tensor<1x8xi8>
}

// -----

// expected-error @below {{arguments #0 and #1 are states with one new value, result #0}}
func.func @twice(%s: tensor<1x8xi8> {memopt.state = 0 : i64}, %t: tensor<1x8xi8> {memopt.state = 0 : i64}) -> tensor<1x8xi8> {
  return %s : tensor<1x8xi8>
}

// -----

// expected-error @below {{argument #0: memopt.state must be an integer, the number of the result that holds the state after the call}}
func.func @not_integer(%s: tensor<1x8xi8> {memopt.state = "next"}) -> tensor<1x8xi8> {
  return %s : tensor<1x8xi8>
}

// -----

// The new column first: not a shift of the old state towards the start.
// expected-error @below {{argument #1 of @new_first is a state whose new value, result #1, is not a shift that mem-opt computes in place}}
func.func @new_first(%x: tensor<1x4xi8>, %s: tensor<1x8xi8> {memopt.state = 1 : i64}) -> (tensor<1x4xi8>, tensor<1x8xi8>) {
  %s3 = tosa.const_shape {values = dense<[1, 4, 2]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x3 = tosa.const_shape {values = dense<[1, 4, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s2 = tosa.const_shape {values = dense<[1, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %start = tosa.const_shape {values = dense<[0, 0, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %size = tosa.const_shape {values = dense<[1, 4, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %old = tosa.reshape %s, %s3 : (tensor<1x8xi8>, !tosa.shape<3>) -> tensor<1x4x2xi8>
  %kept = tosa.slice %old, %start, %size : (tensor<1x4x2xi8>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<1x4x1xi8>
  %new = tosa.reshape %x, %x3 : (tensor<1x4xi8>, !tosa.shape<3>) -> tensor<1x4x1xi8>
  %next = tosa.concat %new, %kept {axis = 2 : i32} : (tensor<1x4x1xi8>, tensor<1x4x1xi8>) -> tensor<1x4x2xi8>
  %flat = tosa.reshape %next, %s2 : (tensor<1x4x2xi8>, !tosa.shape<2>) -> tensor<1x8xi8>
  return %x, %flat : tensor<1x4xi8>, tensor<1x8xi8>
}

// -----

// The old state is read after the update (by the reduce_max): computing the
// new state over it would change what the reduce_max reads.
// expected-error @below {{argument #1 of @old_read is a state whose new value, result #1, is not a shift that mem-opt computes in place}}
func.func @old_read(%x: tensor<1x4xi8>, %s: tensor<1x8xi8> {memopt.state = 1 : i64}) -> (tensor<1x4xi8>, tensor<1x8xi8>) {
  %s3 = tosa.const_shape {values = dense<[1, 4, 2]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x3 = tosa.const_shape {values = dense<[1, 4, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s2 = tosa.const_shape {values = dense<[1, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %y2 = tosa.const_shape {values = dense<[1, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %start = tosa.const_shape {values = dense<[0, 0, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %size = tosa.const_shape {values = dense<[1, 4, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %old = tosa.reshape %s, %s3 : (tensor<1x8xi8>, !tosa.shape<3>) -> tensor<1x4x2xi8>
  %kept = tosa.slice %old, %start, %size : (tensor<1x4x2xi8>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<1x4x1xi8>
  %new = tosa.reshape %x, %x3 : (tensor<1x4xi8>, !tosa.shape<3>) -> tensor<1x4x1xi8>
  %next = tosa.concat %kept, %new {axis = 2 : i32} : (tensor<1x4x1xi8>, tensor<1x4x1xi8>) -> tensor<1x4x2xi8>
  %flat = tosa.reshape %next, %s2 : (tensor<1x4x2xi8>, !tosa.shape<2>) -> tensor<1x8xi8>
  %max = tosa.reduce_max %old {axis = 2 : i32} : (tensor<1x4x2xi8>) -> tensor<1x4x1xi8>
  %y = tosa.reshape %max, %y2 : (tensor<1x4x1xi8>, !tosa.shape<2>) -> tensor<1x4xi8>
  return %y, %flat : tensor<1x4xi8>, tensor<1x8xi8>
}
