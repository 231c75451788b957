
// Host harness of the unplanned model: builds the input, runs @model, prints
// the output.
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
  call @model(%in, %out) : (memref<1x8x8x4xf32>, memref<1x8x8x8xf32>) -> ()
  %u = memref.cast %out : memref<1x8x8x8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>)
