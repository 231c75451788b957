// RUN: mem-opt %s --split-input-file --verify-diagnostics --test-print-buffer-liveness -o /dev/null

// A patch tag that is not array<i64: grid, patch> with non-negative entries
// is an error at the op, not a silently dropped order.
func.func @one_entry(%x: tensor<16xi8>) -> tensor<16xi8> {
  %z = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  // expected-error @+1 {{'memopt.patch' must be array<i64: grid, patch> with non-negative entries}}
  %a = tosa.negate %x, %z, %z {memopt.patch = array<i64: 0>} : (tensor<16xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<16xi8>
  return %a : tensor<16xi8>
}

// -----

func.func @negative(%x: tensor<16xi8>) -> tensor<16xi8> {
  %z = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  // expected-error @+1 {{'memopt.patch' must be array<i64: grid, patch> with non-negative entries}}
  %a = tosa.negate %x, %z, %z {memopt.patch = array<i64: 0, -1>} : (tensor<16xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<16xi8>
  return %a : tensor<16xi8>
}

// -----

func.func @not_an_array(%x: tensor<16xi8>) -> tensor<16xi8> {
  %z = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  // expected-error @+1 {{'memopt.patch' must be array<i64: grid, patch> with non-negative entries}}
  %a = tosa.negate %x, %z, %z {memopt.patch = 3 : i64} : (tensor<16xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<16xi8>
  return %a : tensor<16xi8>
}
