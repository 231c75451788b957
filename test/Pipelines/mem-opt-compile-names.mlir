// The C symbol is never `main` (it would clash with the firmware's own):
// a function called @main takes the model's file name, --name sets it, and
// --symbol-prefix prefixes it.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/9-tiny.model.mlir
// RUN: mem-opt-compile %t/9-tiny.model.mlir -o %t/a.o --header %t/a.h
// RUN: FileCheck %s --check-prefix=STEM < %t/a.h
// RUN: llvm-nm %t/a.o | FileCheck %s --check-prefix=NM
// RUN: mem-opt-compile %s -o %t/b.o --header %t/b.h --name=tiny
// RUN: FileCheck %s --check-prefix=NAME < %t/b.h
// RUN: mem-opt-compile %s -o %t/c.o --header %t/c.h --symbol-prefix=p_
// RUN: FileCheck %s --check-prefix=PREFIX < %t/c.h
// RUN: not mem-opt-compile %s -o %t/d.o --name=2bad 2>&1 | FileCheck %s --check-prefix=BAD

// STEM: void _9_tiny_model(void *arena);
// NM: T _9_tiny_model
// NM-NOT: T main
// NAME: void tiny(void *arena);
// PREFIX: void p_main(void *arena);
// BAD: function name '2bad' is not a C identifier

func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tosa.abs %x : (tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}
