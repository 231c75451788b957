// --optimize=speed takes -O2's code of a layer function only where its
// estimate is lower (SpeedChoice.cpp); where no function can win, the tool
// says so in one remark, which --quiet drops, and the object is the
// default's byte for byte. This model has no loop to win on: a reshape,
// which is a copy of 8 bytes. The tiny CNN's loop nests win: no remark, and
// its object differs from the default's. qemu-optimize-speed.test runs both
// levels on QEMU and checks that speed is never slower.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: mem-opt-compile %s -o %t/speed.o --optimize=speed 2> %t/speed.err
// RUN: FileCheck %s --check-prefix=REMARK < %t/speed.err
// RUN: mem-opt-compile %s -o %t/default.o --quiet
// RUN: cmp %t/speed.o %t/default.o
// RUN: mem-opt-compile %s -o %t/quiet.o --optimize=speed --quiet 2> %t/quiet.err
// RUN: count 0 < %t/quiet.err
// RUN: cmp %t/quiet.o %t/default.o
// RUN: mem-opt-compile %s -o %t/m55.o --cpu=cortex-m55 --optimize=speed 2>&1 | FileCheck %s --check-prefix=REMARK
//
// REMARK: --optimize=speed: -O2's code for 0 of 1 functions, the default's for the others
// REMARK: remark: --optimize=speed: no faster configuration than the default for {{.*}}mem-opt-compile-optimize-speed.mlir (its code is the default's)
//
// RUN: mem-opt-compile %S/Inputs/tiny_cnn.mlir -o %t/cnn-speed.o --optimize=speed 2>&1 | FileCheck %s --check-prefix=CNN
// RUN: mem-opt-compile %S/Inputs/tiny_cnn.mlir -o %t/cnn-default.o --quiet
// RUN: not cmp -s %t/cnn-speed.o %t/cnn-default.o
// CNN: --optimize=speed: -O2's code for {{[1-9][0-9]*}} of {{[0-9]+}} functions
// CNN-NOT: remark

func.func @copy(%arg0: tensor<1x8xi8>) -> tensor<8xi8> {
  %s = tosa.const_shape {values = dense<[8]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %0 = tosa.reshape %arg0, %s : (tensor<1x8xi8>, !tosa.shape<1>) -> tensor<8xi8>
  return %0 : tensor<8xi8>
}
