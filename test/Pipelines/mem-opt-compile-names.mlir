// The C symbol is never `main` (it would clash with the firmware's own).
// A model with one public function takes the model's file name (whatever
// the function is called), --name sets it, and --symbol-prefix prefixes it;
// from stdin the function keeps its name, and `main` becomes `model`.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/9-tiny.model.mlir
// RUN: mem-opt-compile %t/9-tiny.model.mlir -o %t/a.o --header %t/a.h
// RUN: FileCheck %s --check-prefix=STEM < %t/a.h
// RUN: llvm-nm %t/a.o | FileCheck %s --check-prefix=NM
// RUN: mem-opt-compile %s -o %t/b.o --header %t/b.h --name=tiny
// RUN: FileCheck %s --check-prefix=NAME < %t/b.h
// RUN: mem-opt-compile %s -o %t/c.o --header %t/c.h --symbol-prefix=p_
// RUN: FileCheck %s --check-prefix=PREFIX < %t/c.h
// RUN: mem-opt-compile - -o %t/d.o --header %t/d.h < %s
// RUN: FileCheck %s --check-prefix=STDIN < %t/d.h
// RUN: cp %s %t/main.mlir && mem-opt-compile %t/main.mlir -o %t/e.o --header %t/e.h
// RUN: FileCheck %s --check-prefix=MAIN < %t/e.h
// RUN: cp %S/Inputs/two-functions.mlir %t/two.mlir && mem-opt-compile %t/two.mlir -o %t/f.o --header %t/f.h
// RUN: FileCheck %s --check-prefix=TWO < %t/f.h
// RUN: not mem-opt-compile %t/two.mlir -o %t/g.o --name=x 2>&1 | FileCheck %s --check-prefix=TWONAME
// RUN: not mem-opt-compile %s -o %t/h.o --name=2bad 2>&1 | FileCheck %s --check-prefix=BAD

// STEM: void _9_tiny_model(void *arena);
// NM: T _9_tiny_model
// NM-NOT: T main
// NAME: void tiny(void *arena);
// The file's name, prefixed (before: p_main, the function's name).
// PREFIX: void p_mem_opt_compile_names(void *arena);
// STDIN: void model(void *arena);
// MAIN: void model_main(void *arena);
// TWO: void first(void *arena);
// TWO: void second(void *arena);
// TWONAME: --name needs exactly one public function, the model has 2
// BAD: function name '2bad' is not a C identifier

func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tosa.abs %x : (tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}
