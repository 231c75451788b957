// RUN: mem-opt %s --split-input-file --test-print-memref-liveness --verify-diagnostics -o /dev/null

func.func @dynamic(%n: index) {
  // expected-error @below {{cannot plan 'memref.alloc' with dynamic shape 'memref<?xf32>'}}
  %a = memref.alloc(%n) : memref<?xf32>
  return
}

// -----

func.func @nested(%c: i1) {
  scf.if %c {
    // expected-error @below {{cannot plan 'memref.alloca' inside a region of 'scf.if': allocations must be at the top level of the function}}
    %a = memref.alloca() : memref<4xf32>
  }
  return
}

// -----

func.func @returned() -> memref<4xf32> {
  // expected-error @below {{cannot plan a buffer the function returns; run buffer-results-to-out-params first}}
  %a = memref.alloc() : memref<4xf32>
  %v = memref.cast %a : memref<4xf32> to memref<?xf32>
  %w = memref.cast %v : memref<?xf32> to memref<4xf32>
  // expected-note @below {{returned here}}
  return %w : memref<4xf32>
}

// -----

// expected-error @below {{memref liveness expects a function with one block, this one has 2}}
func.func @blocks() {
  cf.br ^bb1
^bb1:
  return
}

// -----

func.func @layout() {
  // expected-error @below {{cannot plan 'memref.alloc' with non-identity layout 'memref<4xf32, strided<[2]>>'}}
  %a = memref.alloc() : memref<4xf32, strided<[2]>>
  return
}

// -----

func.func @memory_space() {
  // expected-error @below {{cannot plan 'memref.alloc' in memory space 1 : i64}}
  %a = memref.alloc() : memref<4xf32, 1>
  return
}

// -----

func.func @element() {
  // expected-error @below {{cannot plan 'memref.alloc': element type 'vector<4xf32>' has no fixed byte size}}
  %a = memref.alloc() : memref<4xvector<4xf32>>
  return
}

// -----

func.func @realloc() {
  %a = memref.alloc() : memref<4xf32>
  // expected-error @below {{'memref.realloc' frees a planned buffer; only 'memref.dealloc' can be removed by the plan}}
  %b = memref.realloc %a : memref<4xf32> to memref<8xf32>
  return
}

// -----

// A loop whose body allocates buffers gets them at the same bytes in every
// iteration: one that yields a memref (here its own allocation) cannot be
// planned.
func.func @loop_returns_memref(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = memref.alloc() : memref<4xf32>
  // expected-error @below {{cannot plan a loop whose body allocates buffers and that returns a memref}}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%m = %init) -> memref<4xf32> {
    %a = memref.alloc() : memref<4xf32>
    scf.yield %a : memref<4xf32>
  }
  return
}
