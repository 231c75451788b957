// Malformed, truncated and unsupported TFLite files give one clear error
// (naming the operator index and type where there is one) and no crash.
// Damaged copies of the committed hello_world model are made by
// tflite_tensors.py --mutate, which patches fields it locates itself.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: cp %S/Inputs/hello_world_float.tflite %t/m.tflite
//
// Truncated: the flatbuffer Verifier rejects it before anything is read.
// RUN: %syspython %S/tflite_tensors.py --mutate %t/m.tflite truncate 1000 %t/trunc.tflite
// RUN: not mem-opt-import %t/trunc.tflite 2>&1 | FileCheck %s --check-prefix=TRUNC
// TRUNC: trunc.tflite:0:0: error: tflite: malformed or truncated file (flatbuffer verification failed)
//
// Too short to carry an identifier at all.
// RUN: %syspython %S/tflite_tensors.py --mutate %t/m.tflite truncate 7 %t/short.tflite
// RUN: not mem-opt-import %t/short.tflite 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: error: {{.*}}short.tflite: not an ONNX or TFLite model
//
// A flipped bit in the root table offset.
// RUN: %syspython %S/tflite_tensors.py --mutate %t/m.tflite flip 1 4 %t/flip.tflite
// RUN: not mem-opt-import %t/flip.tflite 2>&1 | FileCheck %s --check-prefix=TRUNC-FLIP
// TRUNC-FLIP: error: tflite: malformed or truncated file (flatbuffer verification failed)
//
// An operator mem-opt does not convert (every code becomes TANH, 28).
// RUN: %syspython %S/tflite_tensors.py --mutate %t/m.tflite opcode 28 %t/tanh.tflite
// RUN: not mem-opt-import %t/tanh.tflite 2>&1 | FileCheck %s --check-prefix=UNKNOWN-OP
// UNKNOWN-OP: error: tflite op 0 (TANH) -> 'sequential/dense/MatMul;sequential/dense/Relu;sequential/dense/BiasAdd': unsupported operator
//
// A known operator whose inputs do not fit it (MUL, 18, with 3 inputs).
// RUN: %syspython %S/tflite_tensors.py --mutate %t/m.tflite opcode 18 %t/mul.tflite
// RUN: not mem-opt-import %t/mul.tflite 2>&1 | FileCheck %s --check-prefix=ARITY
// ARITY: error: tflite op 0 (MUL) -> '{{.*}}': expected 2 inputs, got 3
//
// A custom operator (CUSTOM, 32).
// RUN: %syspython %S/tflite_tensors.py --mutate %t/m.tflite opcode 32 %t/custom.tflite
// RUN: not mem-opt-import %t/custom.tflite 2>&1 | FileCheck %s --check-prefix=CUSTOM
// CUSTOM: error: tflite op 0 (CUSTOM) -> '{{.*}}': unsupported operator
//
// A dynamic dimension in an op's output (tensor 7 is op 0's output), and in
// the graph input (tensor 0).
// RUN: %syspython %S/tflite_tensors.py --mutate %t/m.tflite dynamic 7 %t/dyn.tflite
// RUN: not mem-opt-import %t/dyn.tflite 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: error: tflite op 0 (FULLY_CONNECTED) -> '{{.*}}': tensor 7 '{{.*}}' has a dynamic shape
// RUN: %syspython %S/tflite_tensors.py --mutate %t/m.tflite dynamic 0 %t/dynin.tflite
// RUN: not mem-opt-import %t/dynin.tflite 2>&1 | FileCheck %s --check-prefix=DYNIN
// DYNIN: error: tflite graph inputs: tensor 0 'serving_default_dense_input:0' has a dynamic shape
//
// A tensor index out of range, and an operator reading a tensor nobody wrote.
// RUN: %syspython %S/tflite_tensors.py --mutate %t/m.tflite badinput 999 %t/index.tflite
// RUN: not mem-opt-import %t/index.tflite 2>&1 | FileCheck %s --check-prefix=INDEX
// INDEX: error: tflite op 0 (FULLY_CONNECTED) -> '{{.*}}': tensor index 999 out of range (10 tensors)
// RUN: %syspython %S/tflite_tensors.py --mutate %t/m.tflite badinput 9 %t/undef.tflite
// RUN: not mem-opt-import %t/undef.tflite 2>&1 | FileCheck %s --check-prefix=UNDEF
// UNDEF: error: tflite op 0 (FULLY_CONNECTED) -> '{{.*}}': tensor 9 'StatefulPartitionedCall:0' is used before it is defined and has no data
//
// Hybrid (dynamic-range) quantization: float activations and biases, int8
// weights; the int8 model with every tensor but the weights made FLOAT32 (0).
// The error says what to do; mem-opt-compile gives the same line.
// RUN: %syspython %S/tflite_tensors.py --mutate %S/Inputs/hello_world_int8.tflite type 0 0 1 3 5 7 8 9 %t/hybrid.tflite
// RUN: not mem-opt-import %t/hybrid.tflite > %t/hybrid.out 2>&1
// RUN: FileCheck %s --check-prefix=HYBRID < %t/hybrid.out
// RUN: count 1 < %t/hybrid.out
// RUN: not mem-opt-compile %t/hybrid.tflite -o %t/hybrid.o > %t/hybrid-compile.out 2>&1
// RUN: FileCheck %s --check-prefix=HYBRID < %t/hybrid-compile.out
// RUN: count 1 < %t/hybrid-compile.out
// HYBRID: hybrid.tflite:0:0: error: tflite op 0 (FULLY_CONNECTED) -> 'sequential/dense/MatMul;sequential/dense/Relu;sequential/dense/BiasAdd': hybrid quantization (float activations, int8 weights) is not supported: quantize the activations too, with full-integer post-training quantization (int8 inputs and outputs)
//
// An empty file.
// RUN: touch %t/empty.tflite
// RUN: not mem-opt-import %t/empty.tflite 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: error: {{.*}}empty.tflite: the file is empty
//
// A sweep: every 197th truncation length and a bit flip every 179 bytes of
// both committed models; each run must end with success or an error
// message, never a crash (the fuzzer in test/fuzz goes much further).
// RUN: %syspython %S/tflite_sweep.py mem-opt-import %S/Inputs/hello_world_float.tflite %S/Inputs/hello_world_int8.tflite | FileCheck %s --check-prefix=SWEEP
// SWEEP: no crash in {{[0-9]+}} runs
