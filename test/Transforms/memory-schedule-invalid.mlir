// RUN: mem-opt %s --split-input-file --memory-schedule="model=canonical budget=4000" -verify-diagnostics -o /dev/null

// The Liberis graph on f32 vectors (see memory-schedule.mlir): its optimum is
// 4960 bytes, reached at op2 with t1, t6 and t2 live.
func.func @over_budget(%arg0: tensor<392xf32>) -> tensor<128xf32> {
  %op1 = tosa.concat %arg0, %arg0 {axis = 0 : i32} : (tensor<392xf32>, tensor<392xf32>) -> tensor<784xf32>
  %zero = tosa.const_shape {values = dense<0> : tensor<1xindex>} : () -> !tosa.shape<1>
  %n392 = tosa.const_shape {values = dense<392> : tensor<1xindex>} : () -> !tosa.shape<1>
  // expected-error @below {{the optimal order peaks at 4960 bytes, over the budget of 4000 bytes; live at this op: 'tosa.concat#0' (3136 bytes), 'tosa.slice#1' (1568 bytes), 'tosa.slice#5' (256 bytes)}}
  %op2 = tosa.slice %op1, %zero, %n392 : (tensor<784xf32>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<392xf32>
  %n128 = tosa.const_shape {values = dense<128> : tensor<1xindex>} : () -> !tosa.shape<1>
  %op3 = tosa.slice %op2, %zero, %n128 : (tensor<392xf32>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<128xf32>
  %op4 = tosa.slice %op1, %zero, %n128 : (tensor<784xf32>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<128xf32>
  %n64 = tosa.const_shape {values = dense<64> : tensor<1xindex>} : () -> !tosa.shape<1>
  %op5 = tosa.slice %op3, %zero, %n64 : (tensor<128xf32>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<64xf32>
  %op6 = tosa.slice %op4, %zero, %n64 : (tensor<128xf32>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<64xf32>
  %op7 = tosa.concat %op5, %op6 {axis = 0 : i32} : (tensor<64xf32>, tensor<64xf32>) -> tensor<128xf32>
  return %op7 : tensor<128xf32>
}

// -----

// Bad input is reported by the graph builder, as for memory-report.
// expected-error @below {{argument #0 of @dynamic: dynamic shape 'tensor<?xf32>' is not supported; the memory model needs static shapes}}
func.func @dynamic(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  return %arg0 : tensor<?xf32>
}

// -----

// A single input-sized op cannot fit: 2 x 4096 bytes.
func.func @tiny_budget(%arg0: tensor<1024xf32>) -> tensor<1024xf32> {
  // expected-error @below {{the optimal order peaks at 8192 bytes, over the budget of 4000 bytes; live at this op: '%arg0' (4096 bytes), 'tosa.abs#0' (4096 bytes)}}
  %0 = tosa.abs %arg0 : (tensor<1024xf32>) -> tensor<1024xf32>
  return %0 : tensor<1024xf32>
}
