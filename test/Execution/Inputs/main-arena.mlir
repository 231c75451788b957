
// Host harness of the planned model: the arena is bytes [64, 64 + N) of a
// buffer of N + 128 bytes filled with 0x5A; after the run, the 64 guard bytes
// on each side must still hold 0x5A (printed: the number of changed guard
// bytes).
func.func @main() {
  // x[0, h, w, c] = ((32 h + 4 w + c) mod 13) * 0.25 - 1.5
  %in = memref.alloc() : memref<1x8x8x4xf32>
  linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%in : memref<1x8x8x4xf32>) {
  ^bb0(%o: f32):
    %h = linalg.index 1 : index
    %w = linalg.index 2 : index
    %c = linalg.index 3 : index
    %c32 = arith.constant 32 : index
    %c4 = arith.constant 4 : index
    %c13 = arith.constant 13 : index
    %h32 = arith.muli %h, %c32 : index
    %w4 = arith.muli %w, %c4 : index
    %hw = arith.addi %h32, %w4 : index
    %lin = arith.addi %hw, %c : index
    %m = arith.remui %lin, %c13 : index
    %mi = arith.index_cast %m : index to i32
    %mf = arith.sitofp %mi : i32 to f32
    %q = arith.constant 0.25 : f32
    %off = arith.constant 1.5 : f32
    %s = arith.mulf %mf, %q : f32
    %v = arith.subf %s, %off : f32
    linalg.yield %v : f32
  }
  %out = memref.alloc() : memref<1x8x8x8xf32>
  %guarded = memref.alloc() {alignment = 16 : i64} : memref<@ARENA_GUARDED@xi8>
  %canary = arith.constant 90 : i8
  linalg.fill ins(%canary : i8) outs(%guarded : memref<@ARENA_GUARDED@xi8>)
  %c64 = arith.constant 64 : index
  %arena = memref.view %guarded[%c64][] : memref<@ARENA_GUARDED@xi8> to memref<@ARENA_SIZE@xi8>
  call @model(%in, %out, %arena) : (memref<1x8x8x4xf32>, memref<1x8x8x8xf32>, memref<@ARENA_SIZE@xi8>) -> ()
  %u = memref.cast %out : memref<1x8x8x8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cend = arith.constant @ARENA_GUARDED@ : index
  %ctail = arith.constant -64 : index
  %tail = arith.addi %cend, %ctail : index
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %head = scf.for %i = %c0 to %c64 step %c1 iter_args(%n = %zero) -> (i64) {
    %b = memref.load %guarded[%i] : memref<@ARENA_GUARDED@xi8>
    %bad = arith.cmpi ne, %b, %canary : i8
    %inc = arith.select %bad, %one, %zero : i64
    %n2 = arith.addi %n, %inc : i64
    scf.yield %n2 : i64
  }
  %all = scf.for %i = %tail to %cend step %c1 iter_args(%n = %head) -> (i64) {
    %b = memref.load %guarded[%i] : memref<@ARENA_GUARDED@xi8>
    %bad = arith.cmpi ne, %b, %canary : i8
    %inc = arith.select %bad, %one, %zero : i64
    %n2 = arith.addi %n, %inc : i64
    scf.yield %n2 : i64
  }
  call @printGuardBytesChanged(%all) : (i64) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>)

// Prints the number of changed guard bytes on a line of its own.
func.func private @printI64(i64)
func.func private @printNewline()
func.func @printGuardBytesChanged(%n: i64) {
  call @printI64(%n) : (i64) -> ()
  call @printNewline() : () -> ()
  return
}
