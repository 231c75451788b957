//===- MemPlanOps.td - memplan operations ------------------*- tablegen -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The operations of the `memplan` dialect: the arena of a function and the
// buffers placed in it.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_MEMPLAN_MEMPLANOPS_TD
#define MEMOPT_DIALECT_MEMPLAN_MEMPLANOPS_TD

include "MemOpt/Dialect/MemPlan/MemPlanDialect.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ViewLikeInterface.td"

def MemPlan_ArenaOp : MemPlan_Op<"arena"> {
  let summary = "Declares the static arena of a function";
  let description = [{
    Declares one arena: a block of N bytes, typed `memref<Nxi8>`, whose start
    is aligned to `align` bytes (a power of two). Buffers are carved out of it
    with `memplan.place`; every user of the arena must be a `memplan.place`,
    in the same block or nested in it (in the body of a loop over patches,
    whose buffers take the same bytes in every iteration).

    The verifier proves the plan of all its `memplan.place` users safe:
    - every offset is a multiple of the alignment its element type needs
      (its storage alignment, e.g. 1 for i8, 4 for f32; at most the arena's
      alignment): the planner puts inputs and outputs in the arena at that
      alignment, and every other buffer at the arena's;
    - every buffer lies inside the N bytes;
    - two buffers whose live ranges share a step do not share a byte, unless
      the later one has `memplan.overwrites = <offset>` naming the earlier
      one's offset, starts while it is live and outlives it: an output the
      lowering writes over its dying input as it reads it;
    - two buffers whose live ranges share no step but that share a byte are
      used one after the other: in the innermost block holding both places,
      every op using the one live first (directly, through an alias or in a
      nested region) comes before every op using the other.

    A violation is reported at the offending `memplan.place`, with a note at
    the other buffer for an overlap.

    Example:

    ```mlir
    %arena = memplan.arena align 16 : memref<2048xi8>
    %a = memplan.place %arena[0] live [0, 1] : memref<2048xi8> to memref<256xf32>
    %b = memplan.place %arena[1024] live [1, 2] : memref<2048xi8> to memref<256xf32>
    %c = memplan.place %arena[0] live [2, 2] : memref<2048xi8> to memref<256xf32>
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntPositive]>:$alignment);
  let results = (outs Res<MemRefRankOf<[I8], [1]>, "the arena",
                          [MemAlloc]>:$arena);
  let assemblyFormat = "`align` $alignment attr-dict `:` type($arena)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Returns the size of the arena in bytes.
    int64_t getSize() {
      return ::llvm::cast<::mlir::MemRefType>(getArena().getType())
          .getDimSize(0);
    }
  }];
}

def MemPlan_PlaceOp : MemPlan_Op<"place",
    [Pure, DeclareOpInterfaceMethods<ViewLikeOpInterface>]> {
  let summary = "A buffer at a static byte offset of an arena";
  let description = [{
    Yields a statically shaped memref with the identity layout whose first
    byte is byte `offset` of `arena`. The buffer is live during the steps
    `first` to `last` inclusive (steps number the top-level operations of the
    function at planning time, see `docs/ArenaPlan.md`). Its size is the
    number of elements times the byte size of the element type.

    Example:

    ```mlir
    %0 = memplan.place %arena[1024] live [1, 3]
        : memref<2048xi8> to memref<1x8x8x4xf32>
    ```

    `memplan-lower` turns it into
    `memref.view %arena[%c1024][] : memref<2048xi8> to memref<1x8x8x4xf32>`.
  }];
  let arguments = (ins MemRefRankOf<[I8], [1]>:$arena,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$offset,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$first,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$last);
  let results = (outs AnyStaticShapeMemRef:$result);
  let assemblyFormat = [{
    $arena `[` $offset `]` `live` ` ` `[` $first `,` $last `]` attr-dict `:`
    type($arena) `to` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Returns the size of the placed buffer in bytes, or std::nullopt if its
    /// element type has no fixed byte size.
    std::optional<int64_t> getSizeInBytes();
  }];
}

#endif // MEMOPT_DIALECT_MEMPLAN_MEMPLANOPS_TD
