// mem-opt-compile --cpu=cortex-m4 (and cortex-m7) compiles the int8 inner
// loops with the DSP extension: the reduction loop of a 1x1 convolution (32
// input channels, four at a time) loads one input word, widens it
// with SXTB16 and SXTB16 ROR #8 and accumulates with SMLAD, then branches
// back; its input zero point -128 is folded into the bias
// (arm-dsp-fold-zero-points), so the loop has no SADD16. The 3x3
// depthwise convolution (8 channels, padded: its zero point stays) subtracts
// the zero point with SADD16 (#0x800080 is the halfword pair (128, 128)) and
// accumulates each channel with SMLABB/SMLATT.
// Targets without the kernels: --dsp-kernels=false, and cortex-m33/cortex-m55
// (the pass runs for cortex-m4 and cortex-m7 only) have no SMLAD or SXTB16.
// mem-opt-compile has no target without the DSP extension (cortex-m0/m3).
// Unrolling: cortex-m-pipeline asks LLVM to unroll the pointwise reduction
// loop (8 steps of 4 input channels) by 4 (kernel-unroll): the annotation
// reaches the loop's back edge in the LLVM dialect and becomes
// llvm.loop.unroll.count in LLVM IR. At mem-opt-compile's default (-Os,
// --optimize=balanced) LLVM honours it: the pointwise function has 4 x 8 =
// 32 SMLADs, still in a loop (2 iterations); --optimize=memory (-Oz) asks
// for no unrolling and keeps the loop of 8 SMLADs.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mem-opt %s --cortex-m-pipeline=cpu=cortex-m4 -o %t/m4.llvm.mlir
// RUN: FileCheck %s --check-prefix=ANNOTATED < %t/m4.llvm.mlir
// RUN: %llvm_tools_dir/mlir-translate --mlir-to-llvmir %t/m4.llvm.mlir | FileCheck %s --check-prefix=METADATA
// RUN: mem-opt %s --cortex-m-pipeline="cpu=cortex-m4 kernel-unroll=0" | FileCheck %s --check-prefix=NOT-ANNOTATED
// RUN: mem-opt-compile %s --cpu=cortex-m4 --optimize=memory -o %t/m4z.o --quiet
// RUN: llvm-objdump -d --no-show-raw-insn %t/m4z.o | FileCheck %s --check-prefix=ROLLED
// RUN: mem-opt-compile %s --cpu=cortex-m4 -o %t/m4.o --quiet
// RUN: llvm-objdump -d --no-show-raw-insn %t/m4.o | FileCheck %s --check-prefix=UNROLLED
// RUN: llvm-objdump -d --no-show-raw-insn %t/m4.o | FileCheck %s --check-prefix=DSP
// RUN: mem-opt-compile %s --cpu=cortex-m7 -o %t/m7.o --quiet
// RUN: llvm-objdump -d --no-show-raw-insn %t/m7.o | FileCheck %s --check-prefix=DSP
// RUN: mem-opt-compile %s --cpu=cortex-m4 --dsp-kernels=false -o %t/off.o --quiet
// RUN: llvm-objdump -d --no-show-raw-insn %t/off.o | FileCheck %s --check-prefix=NODSP
// RUN: mem-opt-compile %s --cpu=cortex-m33 -o %t/m33.o --quiet
// RUN: llvm-objdump -d --no-show-raw-insn %t/m33.o | FileCheck %s --check-prefix=NODSP
// RUN: mem-opt-compile %s --cpu=cortex-m55 -o %t/m55.o --quiet
// RUN: llvm-objdump -d --no-show-raw-insn %t/m55.o | FileCheck %s --check-prefix=NODSP

// The pointwise loop: a word of input, two widenings, SMLADs of the output
// channel block, and the backward branch of the loop; no SADD16.
// DSP-LABEL: <cortex_m_dsp_kernels.extracted>:
// DSP-NOT: sadd16
// DSP: sxtb16 [[E:[a-z0-9]+]], [[X:[a-z0-9]+]]{{$}}
// DSP-NOT: sadd16
// DSP: sxtb16 {{[a-z0-9]+}}, [[X]], ror #8
// DSP-NOT: sadd16
// DSP: smlad
// DSP: smlad
// DSP: smlad
// DSP: smlad
// DSP-NOT: sadd16
// DSP: b{{[a-z]+}} 0x{{[0-9a-f]+}} <{{.*}}> @ imm = #-
// The depthwise taps: the zero point pair, SADD16, SMLABB and SMLATT per
// channel pair.
// DSP-LABEL: <cortex_m_dsp_kernels.extracted.1>:
// (The register allocator may copy the zero point pair between registers.)
// DSP: mov.w {{r[0-9]+|lr}}, #0x800080
// DSP-DAG: sadd16 {{[a-z0-9]+}}, {{[a-z0-9]+}}, {{[a-z0-9]+}}
// DSP-DAG: smlabb
// DSP-DAG: smlatt
// NODSP-NOT: {{smlad|sxtb16|sadd16|smlatt}}

// ANNOTATED: #[[UNROLL:.*]] = #llvm.loop_unroll<count = 4 : i32>
// ANNOTATED: #[[ANNOTATION:.*]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
// ANNOTATED: llvm.br ^{{.*}} {loop_annotation = #[[ANNOTATION]]}
// ANNOTATED-NOT: loop_annotation =
// METADATA: br label %{{.*}}, !llvm.loop ![[LOOP:[0-9]+]]
// METADATA: ![[LOOP]] = distinct !{![[LOOP]], ![[COUNT:[0-9]+]]}
// METADATA: ![[COUNT]] = !{!"llvm.loop.unroll.count", i32 4}
// NOT-ANNOTATED-NOT: loop_annotation
// UNROLLED-LABEL: <cortex_m_dsp_kernels.extracted>:
// UNROLLED-COUNT-32: smlad
// UNROLLED-NOT: smlad
// UNROLLED: b{{[a-z.]*}} 0x{{[0-9a-f]+}} <{{.*}}> @ imm = #-
// UNROLLED-LABEL: <cortex_m_dsp_kernels.extracted.1>:
// ROLLED-LABEL: <cortex_m_dsp_kernels.extracted>:
// ROLLED-COUNT-8: smlad
// ROLLED-NOT: smlad
// ROLLED: b{{[a-z.]*}} 0x{{[0-9a-f]+}} <{{.*}}> @ imm = #-
// ROLLED-LABEL: <cortex_m_dsp_kernels.extracted.1>:

func.func @dsp(%x: tensor<1x4x4x32xi8>) -> (tensor<1x4x4x8xi8>, tensor<1x4x4x8xi8>) {
  %izp = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
  %w = "tosa.const"() <{values = dense<[[[[-60, -96, 2, -68, 125, 102, 113, 66, -21, -80, 121, -114, 71, 93, -127, 100, 8, -11, -76, 34, -113, -117, -115, -124, 67, -18, 88, -114, -15, 96, 125, -9]]], [[[48, -10, -16, 107, 20, -117, 85, -77, -33, 23, -67, 42, 88, -31, 27, 17, 127, 73, -111, 117, -4, 78, 84, -40, 59, 63, -84, 96, -73, -45, 73, 61]]], [[[122, -113, 112, -106, 29, 73, -41, -42, -12, -122, -26, -10, 79, 48, 52, 107, 9, -126, 68, -62, -23, 90, -100, 118, 58, -26, 83, 120, 54, 84, 49, -128]]], [[[41, 106, -114, -11, -38, -36, -82, 2, -112, -92, -86, -120, 103, -121, 15, -1, 9, -72, -34, 48, 20, -93, -43, -47, 2, -42, 11, 22, 104, 36, 126, 114]]], [[[-70, -116, 31, 69, 47, 87, -32, 4, -73, 1, -21, 93, -118, -13, -119, 75, -54, -110, -46, 100, 90, -16, 102, -14, -113, 74, 36, 90, -98, 24, -64, -20]]], [[[-104, 28, -92, -89, 30, 24, -47, 85, 1, -62, -124, -109, -17, 107, -41, -109, 65, -26, 49, -78, -23, 93, -29, 124, -75, 71, 23, 127, -120, 38, 77, 16]]], [[[-119, -48, -26, 39, -59, 45, 91, -19, 8, -79, 66, 48, 120, -8, -95, -108, -85, -60, -42, -43, -19, 9, 42, 2, 60, 45, 46, -70, 21, -8, 122, -59]]], [[[-75, 36, -108, 80, -91, 66, -53, -64, 46, -70, 65, -89, -14, -87, 8, 58, 23, -70, 106, 13, -73, -105, 23, -122, -121, -82, 83, -70, -108, -32, -6, 87]]]]> : tensor<8x1x1x32xi8>}> : () -> tensor<8x1x1x32xi8>
  %b = "tosa.const"() <{values = dense<100> : tensor<8xi32>}> : () -> tensor<8xi32>
  %acc = tosa.conv2d %x, %w, %b, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x32xi8>, tensor<8x1x1x32xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x8xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<8xi32>}> : () -> tensor<8xi32>
  %s = "tosa.const"() <{values = dense<37> : tensor<8xi8>}> : () -> tensor<8xi8>
  %y = tosa.rescale %acc, %m, %s, %zp32, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi32>, tensor<8xi32>, tensor<8xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x8xi8>
  %dw = "tosa.const"() <{values = dense<[[[[-100], [-82], [-85], [56], [-42], [29], [0], [-20]], [[-110], [-47], [92], [73], [62], [99], [9], [-110]], [[-114], [58], [110], [35], [66], [88], [-44], [-38]]], [[[-8], [-10], [-116], [-38], [38], [-40], [-59], [56]], [[-35], [100], [84], [58], [53], [57], [100], [-46]], [[76], [108], [-1], [122], [14], [127], [53], [104]]], [[[108], [51], [105], [121], [-15], [38], [-43], [9]], [[117], [30], [27], [80], [31], [-22], [122], [59]], [[-90], [46], [-124], [-31], [-74], [-98], [-103], [11]]]]> : tensor<3x3x8x1xi8>}> : () -> tensor<3x3x8x1xi8>
  %dacc = tosa.depthwise_conv2d %y, %dw, %b, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x4x4x8xi8>, tensor<3x3x8x1xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x8xi32>
  %z = tosa.rescale %dacc, %m, %s, %zp32, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x4x4x8xi32>, tensor<8xi32>, tensor<8xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x8xi8>
  return %y, %z : tensor<1x4x4x8xi8>, tensor<1x4x4x8xi8>
}
