// The imported int8 models compute what TFLite computes: each runs on the
// host (mem-opt-run) on a seeded random input, and so does
// tflite_reference.py, a numpy reference of TFLite Micro's integer kernels
// that reads the file through the independent decoder. At the default
// (TFLite's arithmetic: DOUBLE_ROUND rescales, TFLite's average pooling,
// MEAN and ADD, TFLite's fixed-point int8 softmax) the outputs and the SVDF
// states equal the reference's on every model (TOLERANCE=0), the softmax
// included. --tflite-rounding=single (TOSA's rounding) stays within two on
// micro_speech and keyword_scrambled, and is further off on the deeper
// networks (ResNet-8 and MobileNetV2 in docs/Importers.md).
//
// REQUIRES: shared-models
// RUN: rm -rf %t && mkdir -p %t
// RUN: for m in micro_speech_quantized keyword_scrambled_8bit person_detect mobilenet_v2_quantized_1x3x224x224 mlperf-tiny/pretrainedResnet_quant mlperf-tiny/ad01_int8 mlperf-tiny/kws_ref_model; do \
// RUN:   n=$(basename $m); \
// RUN:   mem-opt-import %shared/models/tflite/$m.tflite -o %t/$n.mlir && \
// RUN:   TOLERANCE=0 %syspython %S/tflite_compare.py %shared/models/tflite/$m.tflite %t/$n.mlir mem-opt-run | sed "s/^/$n default: /"; \
// RUN: done > %t/log
// RUN: mem-opt-import --tflite-double-round %shared/models/tflite/person_detect.tflite -o %t/alias.mlir
// RUN: cmp %t/alias.mlir %t/person_detect.mlir
// RUN: for m in micro_speech_quantized keyword_scrambled_8bit; do \
// RUN:   mem-opt-import --tflite-rounding=single %shared/models/tflite/$m.tflite -o %t/$m.single.mlir && \
// RUN:   TOLERANCE=2 %syspython %S/tflite_compare.py %shared/models/tflite/$m.tflite %t/$m.single.mlir mem-opt-run | sed "s/^/$m single: /"; \
// RUN: done >> %t/log
// RUN: FileCheck %s < %t/log
// RUN: not mem-opt-import --tflite-rounding=half %shared/models/tflite/person_detect.tflite 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not mem-opt-import --tflite-double-round --tflite-rounding=single %shared/models/tflite/person_detect.tflite 2>&1 | FileCheck %s --check-prefix=CONTRA
//
// CHECK: micro_speech_quantized default: double rounding: max difference 0{{$}}
// CHECK-NEXT: micro_speech_quantized default: PASS
// CHECK: keyword_scrambled_8bit default: double rounding: max difference 0{{$}}
// CHECK-NEXT: keyword_scrambled_8bit default: PASS
// CHECK: person_detect default: double rounding: max difference 0{{$}}
// CHECK-NEXT: person_detect default: PASS
// CHECK: mobilenet_v2_quantized_1x3x224x224 default: double rounding: max difference 0{{$}}
// CHECK-NEXT: mobilenet_v2_quantized_1x3x224x224 default: PASS
// CHECK: pretrainedResnet_quant default: double rounding: max difference 0{{$}}
// CHECK-NEXT: pretrainedResnet_quant default: PASS
// CHECK: ad01_int8 default: double rounding: max difference 0{{$}}
// CHECK-NEXT: ad01_int8 default: PASS
// CHECK: kws_ref_model default: double rounding: max difference 0{{$}}
// CHECK-NEXT: kws_ref_model default: PASS
// CHECK: micro_speech_quantized single: PASS
// CHECK: keyword_scrambled_8bit single: PASS
// CHECK-NOT: FAIL
//
// BAD: --tflite-rounding must be 'double' or 'single', not 'half'
// CONTRA: --tflite-double-round contradicts --tflite-rounding=single
