// Malformed, truncated and unsupported ONNX files: a clear error that names
// the file (and the node and op type when one is involved), and no output.

// RUN: not mem-opt-import %S/Inputs/unsupported-op.onnx 2>&1 | FileCheck %s --check-prefix=OP
// The error names the model and the node: <model>:<node>.
// OP: unsupported-op:norm: error: node 'norm' (LRN): unsupported operator

// RUN: not mem-opt-import %S/Inputs/dynamic-dim.onnx 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: dynamic-dim.onnx:0:0: error: graph input 'x': dimension 0 is dynamic ('batch'); only static shapes are supported

// RUN: not mem-opt-import %S/Inputs/undefined-input.onnx 2>&1 | FileCheck %s --check-prefix=UNDEFINED
// UNDEFINED: error: node 'relu' (Relu): input 'ghost' is not defined

// RUN: not mem-opt-import %S/Inputs/grouped-conv.onnx 2>&1 | FileCheck %s --check-prefix=GROUPED
// GROUPED: error: node 'grouped' (Conv): grouped convolution with 2 groups is not supported

// A weight whose raw data is shorter than its dimensions say.
// RUN: not mem-opt-import %S/Inputs/bad-raw-data.onnx 2>&1 | FileCheck %s --check-prefix=RAW
// RAW: bad-raw-data.onnx:0:0: error: tensor 'w': raw data holds 28 bytes, expected 32

// Truncated inside the weight initializer: protobuf rejects the file.
// RUN: head -c 100 %S/Inputs/conv-bn.onnx > %t.truncated.onnx
// RUN: not mem-opt-import %t.truncated.onnx 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// TRUNCATED: truncated.onnx:0:0: error: not a valid ONNX model (malformed or truncated protobuf)

// A flipped bit in the first tag byte (0x08 -> 0x09): no longer recognized.
// RUN: printf '\011' > %t.flipped.onnx
// RUN: tail -c +2 %S/Inputs/conv-bn.onnx >> %t.flipped.onnx
// RUN: not mem-opt-import %t.flipped.onnx 2>&1 | FileCheck %s --check-prefix=FLIPPED
// FLIPPED: not an ONNX or TFLite model

// A flipped bit in a length byte: malformed protobuf.
// RUN: head -c 3 %S/Inputs/conv-bn.onnx > %t.badlen.onnx
// RUN: printf '\377' >> %t.badlen.onnx
// RUN: tail -c +5 %S/Inputs/conv-bn.onnx >> %t.badlen.onnx
// RUN: not mem-opt-import %t.badlen.onnx 2>&1 | FileCheck %s --check-prefix=BADLEN
// BADLEN: error: not a valid ONNX model (malformed or truncated protobuf)
