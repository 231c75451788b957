// RUN: my-compile %s %t.o %t.h | FileCheck %s
// RUN: FileCheck %s --check-prefix=HEADER < %t.h
// RUN: llvm-readelf -h -s %t.o | FileCheck %s --check-prefix=OBJECT

// mem-opt's compile driver called as a library. Two f32 adds of 16x16
// tensors (1024 B each): while each runs, its input and its result are live,
// so the arena holds 2048 B by hand; the function takes the file's name.
// CHECK: @my_compile: arena 2048 bytes
// HEADER: #define MY_COMPILE_ARENA_SIZE 2048
// HEADER: void my_compile(void *arena);
// OBJECT: Machine: ARM
// OBJECT: FUNC GLOBAL DEFAULT {{.*}} my_compile
func.func @f(%a: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = tosa.add %a, %a : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %1 = tosa.add %0, %0 : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %1 : tensor<16x16xf32>
}
