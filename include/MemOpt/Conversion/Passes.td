//===- Passes.td - lowering passes -------------------------*- tablegen -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Declares the passes of the lowering from TOSA through linalg to
// bufferized, planned memplan IR and the LLVM dialect: the fusions, the
// in-place rewrites, the bufferization preparation and the memplan passes.
// The generated declarations live in Passes.h.inc; the generated
// documentation is build/docs/MemOptConversionPasses.md.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_CONVERSION_PASSES_TD
#define MEMOPT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def BindStateBuffersPass : Pass<"bind-state-buffers", "ModuleOp"> {
  let summary = "Keep the states of entry functions in one caller-owned "
                "buffer, updated in place";
  let description = [{
    A state of a function (an argument with `memopt.state = j`, the model's
    variable: its value at the call, with result #j its value after the
    call; see `getStateBindings`) lives in the caller's state buffer from
    call to call. For every public function with a body, on bufferized IR:
    the states are laid out in argument order in one `memref<Nxi8>`
    argument appended to the function (`memopt.state_buffer`, `noalias`),
    each at its element's alignment (`memopt.state_offsets`,
    `memopt.state_size`, `memopt.state_alignment` on the function); each
    state argument becomes a `memref.view` of its bytes, and the buffer in
    which the function computes the state's new value (the allocation
    behind result #j, through views) becomes the same view, so the update
    writes over the old state. The state arguments and results are
    removed. The memory model counts neither in the arena; that the update
    may be written over the old state is its rule `getInPlaceStateUpdate`,
    which `memory-schedule` checked on the TOSA (a shift: the kept entries
    are copied towards the start in increasing address order, then the new
    entries written at the end). Runs after one-shot bufferization, before
    `buffer-results-to-out-params` and `memplan-io-to-arena`; fails if a
    state's new value is not computed into an allocation of its own.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def MemPlanIOToArenaPass : Pass<"memplan-io-to-arena", "ModuleOp"> {
  let summary = "Place the inputs and outputs of entry functions in the arena";
  let description = [{
    TFLite Micro's convention: the caller writes the inputs into the arena
    before the call and reads the outputs from it afterwards, so an input's
    bytes are reused once it dies. For every public function with a body
    that no other function calls, each memref argument (but the state
    buffer of `bind-state-buffers`, which the caller keeps) becomes a
    `memref.alloc` at the start of the body, marked `memplan.input = i`, and
    those arguments are removed; the function gets `memplan.io_in_arena`,
    which lets `MemRefLiveness` keep every returned buffer live until the
    return. `memplan-plan-arena` then records the offsets of the inputs and
    outputs (`memplan.input_offsets`, `memplan.output_offsets`), and
    `memplan-lower` drops the results: the function's arguments are the state
    buffer, if it has one, and the arena. Runs on bufferized IR, before `memplan-plan-arena`, instead of
    `buffer-results-to-out-params`.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def MemPlanPlanArenaPass : Pass<"memplan-plan-arena", "func::FuncOp"> {
  let summary = "Place every buffer of a bufferized function in one static "
                "arena";
  let description = [{
    Computes the liveness of the function's buffers (`MemRefLiveness`: every
    statically shaped `memref.alloc`/`memref.alloca` at the top level with
    all its aliases, live from its allocation to the last use of any alias;
    uses in nested regions count at their top-level op), places them with the
    arena planner (`include/MemOpt/Arena/ArenaPlanner.h`), and writes the
    plan as `memplan` IR: one `memplan.arena` at the start of the function,
    each allocation replaced by a `memplan.place` at its offset with its live
    range, and every `memref.dealloc` of a planned buffer removed.

    The function gets discardable attributes: `memplan.arena_size` (bytes),
    `memplan.arena_alignment` and `memplan.lower_bound` (the largest sum of
    aligned sizes of buffers live at one step: no placement can do better).
    A function without buffers gets `memplan.arena_size = 0`.

    A top-level `memref.alloc` whose location carries the
    `"memopt.register_accumulator"` mark of `fuse-rescale-accumulators` (the
    accumulator of a block of at most 4 output channels of a fully connected
    layer) is not an arena buffer: it becomes a `memref.alloca` with the
    unit attribute `memopt.register_accumulator` (one per type, shared by
    the layers: each writes it before reading it), a stack slot that the
    liveness and `memplan-lower` leave alone.

    Every buffer is placed at a multiple of the arena alignment and takes its
    size rounded up to it, except, in a function with `memplan.io_in_arena`,
    the buffers of the inputs (`memplan.input`) and of the returned values:
    they take their element's alignment (an i8 input 1 byte, an f32 one 4;
    at most the arena alignment), as the caller's own arrays would. This is
    the byte rule of the lowering's memory model (`getArenaAlignment`).

    Algorithms: `best` (default; aims at the lower bound), `greedy-by-size`
    (TFLite Micro's) and `no-reuse` (every buffer gets its own bytes). With
    `capacity=<bytes>`, the pass fails when the plan does not fit: the error
    is at the op where the live bytes peak and names the arena size, the
    lower bound and the capacity.
    With `index-bitwidth=<bits>` (the lowering's index width; 32 on
    Cortex-M), an arena of 2^(bits - 1) bytes or more is an error at the
    function naming its size and the limit: its offsets would wrap in the
    lowered code.

    Errors (at their location): functions with several blocks, dynamic
    shapes, non-identity layouts or memory spaces, allocations in nested
    regions, returned buffers (run `buffer-results-to-out-params` first) and
    frees other than `memref.dealloc`. The `alignment` attribute of an
    allocation is a request the arena alignment overrides (one-shot-bufferize
    puts `alignment = 64` on every buffer); with `strict-alignment=true` a
    request larger than the buffer's alignment in the arena is an error.

    Example (1 KiB buffers; steps 0-5 are the top-level ops; `%a` and `%c`
    are never live together and share bytes):

    ```mlir
    %a = memref.alloc() : memref<256xf32>
    "use"(%a) : (memref<256xf32>) -> ()
    %b = memref.alloc() : memref<256xf32>
    "use"(%a, %b) : (memref<256xf32>, memref<256xf32>) -> ()
    %c = memref.alloc() : memref<256xf32>
    "use"(%b, %c) : (memref<256xf32>, memref<256xf32>) -> ()
    // becomes (memplan.arena_size = 2048, memplan.lower_bound = 2048)
    %arena = memplan.arena align 16 : memref<2048xi8>
    %a = memplan.place %arena[0] live [0, 3] : memref<2048xi8> to memref<256xf32>
    "use"(%a) : (memref<256xf32>) -> ()
    %b = memplan.place %arena[1024] live [2, 5] : memref<2048xi8> to memref<256xf32>
    "use"(%a, %b) : (memref<256xf32>, memref<256xf32>) -> ()
    %c = memplan.place %arena[0] live [4, 5] : memref<2048xi8> to memref<256xf32>
    "use"(%b, %c) : (memref<256xf32>, memref<256xf32>) -> ()
    ```
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"16",
           "Alignment of the arena and of every buffer offset but those of "
           "inputs and outputs in the arena, which take their element's (a "
           "power of two; default: 16)">,
    Option<"algorithm", "algorithm", "std::string", /*default=*/"\"best\"",
           "Placement algorithm: best, greedy-by-size or no-reuse "
           "(default: best)">,
    Option<"capacity", "capacity", "int64_t", /*default=*/"0",
           "Activation SRAM in bytes: the arena plus the caller-owned "
           "buffers of the function's memref arguments; fail if the plan "
           "needs more (0: unbounded; default: 0)">,
    Option<"maxSearchNodes", "max-search-nodes", "uint64_t",
           /*default=*/"262144",
           "Node budget of the best placement's search: it stops before a "
           "round of more nodes, so the plan is the same on any machine "
           "(0: none; default: 262144)">,
    Option<"timeLimitMs", "time-limit-ms", "uint64_t", /*default=*/"10000",
           "Safety stop of searching placement algorithms per function, in "
           "milliseconds; a warning says when it ended the search (0: none; "
           "default: 10000)">,
    Option<"strictAlignment", "strict-alignment", "bool", /*default=*/"false",
           "Fail on allocations whose 'alignment' attribute exceeds their "
           "alignment in the arena (by default it is ignored: "
           "one-shot-bufferize puts 64 on every buffer; default: false)">,
    Option<"indexBitwidth", "index-bitwidth", "unsigned", /*default=*/"64",
           "Width of the target's index (its pointers; 32 on Cortex-M): the "
           "arena, and so every offset in it, must stay below "
           "2^(index-bitwidth - 1) bytes, the largest value of that signed "
           "index (8 to 64; default: 64)">,
  ];
  let dependentDialects = ["memplan::MemPlanDialect"];
}

def MemPlanLowerPass : Pass<"memplan-lower", "ModuleOp"> {
  let summary = "Lower memplan ops to memref.view of one arena argument";
  let description = [{
    For every function with a `memplan.arena_size` attribute or a
    `memplan.arena` op (a planned function), appends a trailing argument of
    type `memref<Nxi8>` (N = the arena size), replaces the `memplan.arena`
    with it and every `memplan.place` with a `memref.view` of it at the
    planned offset. With the bare-pointer calling convention the C signature
    ends in `void *arena`; the caller owns the arena, must align it to
    `memplan.arena_alignment`, and must not let it overlap the other
    arguments (it is marked `llvm.noalias`). Both attributes stay on the function (a
    planned function without buffers gets a `memref<0xi8>` argument, so every
    planned function has the same calling convention).

    Calls between planned functions pass a range of the caller's arena:
    callees run one at a time, so all callees of a function share one range
    appended to the end of its arena (its start aligned to the largest
    alignment involved); the caller's `memplan.arena_size` and
    `memplan.arena_alignment` grow accordingly, and each call gets a
    `memref.view` of that range as its last operand. Callees are lowered
    first; recursion between planned functions and calls from functions
    without an arena are errors. Inlining before planning gives smaller
    arenas. A planned function must have at most one `memplan.arena`, in its
    entry block.

    Example:

    ```mlir
    func.func @f(%in: memref<256xf32>) attributes {memplan.arena_size = 2048 : i64, ...} {
      %arena = memplan.arena align 16 : memref<2048xi8>
      %a = memplan.place %arena[1024] live [1, 2] : memref<2048xi8> to memref<256xf32>
    // becomes
    func.func @f(%in: memref<256xf32>, %arena: memref<2048xi8>) attributes {...} {
      %c1024 = arith.constant 1024 : index
      %a = memref.view %arena[%c1024][] : memref<2048xi8> to memref<256xf32>
    ```
  }];
  let dependentDialects = ["arith::ArithDialect", "memref::MemRefDialect"];
}

def PrepareBufferizationPass : Pass<"prepare-bufferization", "func::FuncOp"> {
  let summary = "Ready tensor IR for in-place one-shot bufferization";
  let description = [{
    Runs on linalg-on-tensors IR just before one-shot bufferization, as part
    of `cortex-m-pipeline`, so that buffers are shared where the memory model
    says they can be:

    - every tensor argument gets `bufferization.writable = false`, so that
      bufferization never writes into a caller's input (the C header declares
      inputs `const`);
    - a `tensor.empty` directly followed by a chain of `tensor.insert_slice`s
      that tile it along one dimension (the lowering of a concat) whose
      sources include the result of an op marked
      `memopt.into_concat_slice` (by `mark-fused-elementwise`: the cost
      model's `getInPlaceConcat`) is reordered so that the marked ops write
      into their slices: the `tensor.empty` moves before the first marked
      op's lowering, each marked source's insert right after it in the
      scheduled order, and the init chain of each marked op (followed
      through destination-style ops and `scf.for` inits to its
      `tensor.empty`, cloned where shared, moved right before the op) starts
      from a `tensor.extract_slice` of the concat's destination instead, so
      one-shot bufferization computes it in a subview of the concat's buffer;
      the other sources are still copied where the concat was. A marked op
      whose init cannot be redirected is an error;
    - any other such chain becomes one
      `tensor.concat` of the sources in offset order: the same buffer and
      copies at the same step, but one op for one-shot bufferization instead
      of a chain of in-place writes whose analysis grows as n^3;
    - a `tensor.extract_slice` the function returns, maybe through reshapes
      (`isCopiedSlice` of the cost model), is copied (`linalg.copy` into a `tensor.empty`) right after
      it, and every user reads the copy: the copy is made where the schedule
      put the slice, not at the return, so the sliced buffer dies where the
      model says;
    - with `copy-duplicate-results=true` (for `io=caller`), a value the
      function returns more than once is copied for each further result, so
      every result has a buffer of its own to become the caller's;
    - with `in-place-elementwise=true` (default), an elementwise
      `linalg.generic` (all loops parallel, identity maps) whose init is a
      `tensor.empty` and whose body does not read the init may write over an
      input of the same type that has no other user and is not a function
      argument, a constant or a view (the predicate `canOverwriteOperand` of
      the cost model, which counts the same saving), since that input dies at
      this op. At the top level of the function the generic gets the mark
      `memopt.overwrite_input = N` (the input's operand number), which
      `reuse-dying-inputs` carries out after one-shot bufferization; inside a
      loop its init becomes the input, and one-shot bufferization writes in
      place.

    ```mlir
    %e = tensor.empty() : tensor<4xf32>
    %r = linalg.generic {...} ins(%a, %b : ...) outs(%e : tensor<4xf32>) ...
    // becomes, when %a is used only here:
    %r = linalg.generic {..., memopt.overwrite_input = 0 : i64}
        ins(%a, %b : ...) outs(%e : tensor<4xf32>) ...
    ```

    Marks instead of a tied init keep the alias sets of one-shot
    bufferization small: a tied chain of n ops is one alias set, which
    one-shot analysis checks in O(n^2) per op.
  }];
  let options = [
    Option<"copyDuplicateResults", "copy-duplicate-results", "bool",
           /*default=*/"false",
           "Copy values returned more than once, one buffer per result "
           "(default: false)">,
    Option<"inPlaceElementwise", "in-place-elementwise", "bool",
           /*default=*/"true",
           "Let elementwise ops overwrite an input that dies there "
           "(default: true)">,
  ];
  let dependentDialects = ["bufferization::BufferizationDialect",
                           "linalg::LinalgDialect"];
}

def DecomposeTransposeConvPass
    : Pass<"decompose-transpose-conv", "func::FuncOp"> {
  let summary = "Rewrite tosa.transpose_conv2d into TOSA convolutions";
  let description = [{
    Applies upstream TOSA's transpose-convolution decomposition alone
    (`populateTosaDecomposeTransposeConv`): a stride-1 transposed
    convolution becomes a `tosa.conv2d` of reversed weights, a strided one
    pads, reshapes and transposes its input and weights around a
    `tosa.conv2d`; the reversal of constant weights is folded into a
    constant (the memory model counts ops computed from weights as free).
    `cortex-m-pipeline` runs it before the memory model sees
    the function, so the schedule counts the buffers of the ops that are
    lowered; TOSA to linalg runs without the optional decompositions, whose
    other rewrites (a 1x1 depthwise convolution into elementwise ops) make
    buffers the model does not count.
  }];
  let dependentDialects = ["tosa::TosaDialect"];
}

def SplitConcatsPass : Pass<"split-concats", "func::FuncOp"> {
  let summary = "Split concats of more operands than the TOSA level allows "
                "into a tree";
  let description = [{
    Every `tosa.concat` with more than `max-operands` operands becomes a
    balanced tree of concats along the same axis: runs of `max-operands`
    consecutive operands are concatenated first, then their results, until
    one concat is within the limit. The result is the same tensor.

    Canonicalization folds a tree of concats along one axis into one concat
    of all its leaves (`tosa.concat`'s folder), which can exceed the TOSA
    level's MAX_TENSOR_LIST_SIZE (64 at level 8K) although every concat of
    the input was within it. `cortex-m-pipeline` validates the TOSA after
    its canonicalization, so it runs this pass just before the validation;
    the canonicalization that begins TOSA to linalg folds the tree back into
    the one concat the memory model planned. The pass applies its pattern
    once per concat, without folding.
  }];
  let options = [
    Option<"maxOperands", "max-operands", "int64_t", /*default=*/"0",
           "Most operands of one concat; 0 takes MAX_TENSOR_LIST_SIZE of the "
           "module's TOSA level (default: 0)">,
  ];
  let dependentDialects = ["tosa::TosaDialect"];
}

def ReuseDyingInputsPass : Pass<"reuse-dying-inputs", "func::FuncOp"> {
  let summary = "Let marked elementwise ops write over the buffer of an input "
                "that dies at them";
  let description = [{
    Runs just after one-shot bufferization, as part of `cortex-m-pipeline`,
    and carries out the decisions `prepare-bufferization` marked on tensors:
    a `linalg.generic` at the top level of the function with the attribute
    `memopt.overwrite_input = N` writes its result over the buffer of its
    input `N` instead of the `memref.alloc` bufferization gave it, which is
    erased. It does so only when that is safe on buffers: the input and the
    output have the same type, the output is a top-level allocation no op
    uses before the generic, and no alias of the input's buffer (views,
    reshapes, anything computed from it) is used after the generic or by
    another operand of it. Otherwise the allocation stays. The attribute is
    removed either way.

    ```mlir
    %b = memref.alloc() : memref<4xf32>
    linalg.generic {..., memopt.overwrite_input = 0 : i64}
        ins(%a, %c : ...) outs(%b : memref<4xf32>) ...
    // becomes, when %a (or a view of its buffer) is not used afterwards:
    linalg.generic {...} ins(%a, %c : ...) outs(%a : memref<4xf32>) ...
    ```

    Tying the init to the input on tensors, for one-shot bufferization to
    analyze, gives the same buffers, but a chain of n such ops (a running sum
    of n branches) becomes one alias set whose analysis costs O(n^2) per op;
    this pass walks the function twice, in near-linear time.
  }];
  let statistics = [
    Statistic<"numReused", "num-reused",
              "Marked ops that write over their input's buffer">,
    Statistic<"numKept", "num-kept",
              "Marked ops that keep their own buffer (not safe on buffers)">,
  ];
  let dependentDialects = ["memref::MemRefDialect"];
}

def HoistStaticAllocationsPass
    : Pass<"hoist-static-allocations", "func::FuncOp"> {
  let summary = "Hoist static allocations out of loops, but not out of a "
                "planned loop's body";
  let description = [{
    Moves every `memref.alloc` and `memref.alloca` without operands that is
    inside a loop (`LoopLikeOpInterface`) before the outermost enclosing
    loop that is still inside the function's body or inside the body of a
    loop marked `"memopt.planned_loop"` (`mark-fused-elementwise`: the loops
    of the scheduled TOSA, whose bodies the memory model counts one
    iteration at a time). The per-pixel accumulators of the fused loops
    are then allocated once per function, or once per planned body, where
    `MemRefLiveness` and `memplan-plan-arena` place them. Upstream
    `buffer-loop-hoisting` would hoist them, and the planned body's own
    buffers, to the function level, where every buffer of the body would
    be live for the whole loop.
  }];
}

def MemRefCopyToLinalgPass : Pass<"memref-copy-to-linalg", "func::FuncOp"> {
  let summary = "Turn memref.copy into linalg.copy so copies become loops";
  let description = [{
    Replaces every `memref.copy` by a `linalg.copy` of the same operands.
    `finalize-memref-to-llvm` lowers a `memref.copy` between non-contiguous
    views (a slice of a padded or concatenated buffer) to a call to the
    `memrefCopy` runtime function, which does not exist on a microcontroller;
    `convert-linalg-to-loops` turns a `linalg.copy` into plain loops.
  }];
  let dependentDialects = ["linalg::LinalgDialect"];
}

def OrderConstantGlobalsPass : Pass<"order-constant-globals", "ModuleOp"> {
  let summary = "Name and order bufferization's constant globals by first use";
  let description = [{
    One-shot bufferization with function boundaries turns each constant
    tensor into a private `memref.global` named `__constant_<shape>` (with
    `_0`, `_1`, ... when several share a shape) and inserts it at the start
    of the module, visiting the functions in an order of its own that can
    change from run to run. The names and the order of the globals, and with
    them the object file, then vary for the same input.

    This pass renames those globals and moves them to the start of the
    module in the order of their first `memref.get_global` in the module:
    within each `__constant_<shape>` group, the first used gets the plain
    name, the next ones `_0`, `_1`, ... as a single in-order bufferization
    would name them. Globals that are not used keep their relative order
    after the used ones; globals with other names are left alone.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def SetLLVMTargetPass : Pass<"set-llvm-target", "ModuleOp"> {
  let summary = "Set the module's LLVM target triple and data layout";
  let description = [{
    Sets the `llvm.target_triple` and `llvm.data_layout` attributes of the
    module, which `mlir-translate --mlir-to-llvmir` copies into the LLVM
    module. `cortex-m-pipeline` sets them from its `cpu=` option. An empty
    option leaves the attribute unchanged.
  }];
  let options = [
    Option<"triple", "triple", "std::string", /*default=*/"\"\"",
           "LLVM target triple, e.g. thumbv7em-none-eabihf">,
    Option<"dataLayout", "data-layout", "std::string", /*default=*/"\"\"",
           "LLVM data layout string">,
  ];
}

def DropTosaTargetEnvPass : Pass<"drop-tosa-target-env", "ModuleOp"> {
  let summary = "Remove the module's tosa.target_env once TOSA is lowered";
  let description = [{
    Removes the `tosa.target_env` module attribute. The TFLite importer
    declares the target its TOSA needs there (the `doubleround` extension of
    TFLite's rounding), and `tosa-validate` checks the ops against it; once
    no TOSA op is left the attribute says nothing, and tools without the
    TOSA dialect (`mlir-translate`) cannot parse the output that carries it.
    `cortex-m-pipeline` runs it right after TOSA to linalg. A module without
    the attribute is left as is.
  }];
}

def VerifyDefaultAttributesPass : Pass<"verify-default-attributes"> {
  let summary = "Reject ops whose default-valued attributes the parser left "
                "empty";
  let description = [{
    An attribute with a default value (`DefaultValuedAttr` in ODS, such as
    the `nan_mode` of `tosa.clamp`, `tosa.maximum` or `tosa.reduce_max`)
    is filled in by the parser when it is absent. When it is present with a
    value of the wrong kind (`nan_mode = "PROPAGATE"`, a string, from an
    older TOSA syntax), MLIR 22's parser drops the value without a
    diagnostic and leaves the attribute empty; the op still verifies, and
    upstream patterns that read the attribute (the `tosa.clamp`
    canonicalization) then dereference null. This pass reports every such
    op at its location, with the attribute's default as an example of the
    expected form, and fails. `cortex-m-pipeline` runs it first.
  }];
}

def InPlaceDepthwisePass : Pass<"inplace-depthwise", "func::FuncOp"> {
  let summary = "Compute depthwise convolutions channel by channel over "
                "their dying input";
  let description = [{
    On scheduled TOSA, before TOSA to linalg: every `tosa.depthwise_conv2d`
    that the memory model computes in place (`isInPlaceDepthwise` in
    `MemOpt/CostModel/CostModel.h`: multiplier 1, stride 1, an output of the
    input's shape and type, through its fused rescale for int8, and an input
    that dies at it) becomes an `scf.for` over the channels whose iteration
    argument is the input tensor. Each iteration views channel `c` of the
    iteration argument (`tensor.extract_slice`), computes the one-channel
    depthwise convolution (and its rescale) on it with channel `c`'s weights,
    bias, multiplier and shift, and inserts the result over channel `c`
    (`tensor.insert_slice`). One-shot bufferization writes it in place into
    the input's buffer: input and output never coexist, and the one-channel
    result (with, after `fuse-rescale-accumulators`, a one-pixel accumulator
    and a one-pixel padded window) is the only extra memory, which the cost
    model counts. The loop replaces the convolution (or its rescale) where
    the schedule put it. Results are unchanged bit for bit.
  }];
  let statistics = [
    Statistic<"numInPlace", "num-in-place",
              "Depthwise convolutions computed in place">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FuseRescaleAccumulatorsPass
    : Pass<"fuse-rescale-accumulators", "func::FuncOp"> {
  let summary = "Fuse int8 conv/depthwise/matmul into the rescale of their "
                "i32 accumulator";
  let description = [{
    On linalg-on-tensors (after TOSA to linalg, before bufferization): for
    each elementwise `linalg.generic` that narrows (the lowered
    `tosa.rescale` i32 -> i8) and whose only activation input is the single
    use of a convolution, depthwise convolution or matmul (possibly through
    elementwise ops on the accumulator type, such as the bias add of a
    depthwise convolution), tiles the generic over the output pixels (N, H, W
    of a convolution; batch and row of a matmul; tile size 1, all channels)
    and fuses the accumulating op and its zero/bias initialization into the
    loop. The accumulator becomes one pixel (channels x i32), never the whole
    i32 tensor, as in MCU int8 kernels. An accumulator of a single pixel (a
    fully connected layer: a convolution of an unpadded input, or a
    one-row matmul) is tiled over its output channels instead, in blocks of
    4, 2 or 1 (the largest that divides the channels), and the block's
    accumulator is marked `"memopt.register_accumulator"`:
    `memplan-plan-arena` makes it a stack slot of at most 16 bytes outside
    the arena (the model's `isRegisterAccumulator`). Single-pixel depthwise
    or padded convolutions are not fused (one pixel would be the whole
    accumulator).

    With `require-marks` (as in `cortex-m-pipeline`), the memory model
    decides instead: only a chain whose accumulator (and every op between it
    and the rescale) carries the `"memopt.fused_accumulator"` location mark
    of `mark-fused-elementwise` (the model's `isFusedAccumulator`) is fused,
    so a conv -> i32 elementwise op -> rescale chain, which the model does
    not fuse, stays unfused. Without it (the default, for linalg input
    written by hand) every chain that matches is fused. In both modes a
    marked accumulator that cannot be fused is an error at its location: the
    model counted one pixel of its accumulator. With `fuse-padding`, so is a
    marked `tensor.pad` (a marked accumulator's padding, or an explicit pad
    the model reads through its window: `isPadFusedIntoWindow`) whose padded
    copy is left.

    With `fuse-padding`, a fused op whose input is a `tensor.pad` reads it
    through one window per pixel instead: a `linalg.fill` of the padding
    value and a `tensor.insert_slice` of the part of the unpadded input the
    window covers (clamped with `affine.max`/`affine.min`), so the padded
    copy of the whole input is never built.

    First, a `depthwise_conv_2d_nhwc_hwcm[_q]` whose result is collapsed to
    4-d is rewritten to `depthwise_conv_2d_nhwc_hwc[_q]` (multiplier 1) or
    `conv_2d_nhwc_hwcf[_q]` (one input channel), so the collapse does not
    stop the fusion; other multipliers are not fused.

    After bufferization the per-pixel buffer is allocated inside the loop;
    `buffer-loop-hoisting` moves it to function level for the arena planner.
    `DataflowGraph` counts the same buffers (docs/MemoryModel.md): a
    register accumulator's slot counts no arena bytes.
  }];
  let options = [
    Option<"fusePadding", "fuse-padding", "bool", /*default=*/"true",
           "Read a padded input through one padded window per pixel, built "
           "inside the loop, instead of a padded copy of the whole input">,
    Option<"requireMarks", "require-marks", "bool", /*default=*/"false",
           "Fuse only the chains whose accumulator carries the mark of "
           "mark-fused-elementwise (the memory model's isFusedAccumulator)">,
  ];
  let dependentDialects = ["affine::AffineDialect", "linalg::LinalgDialect",
                           "scf::SCFDialect", "tensor::TensorDialect"];
}

def MarkFusedElementwisePass
    : Pass<"mark-fused-elementwise", "func::FuncOp"> {
  let summary = "Mark the TOSA ops the memory model fuses into their "
                "consumer or their rescale";
  let description = [{
    On scheduled TOSA, before TOSA to linalg: wraps the location of every op
    that the memory model computes inside its only user
    (`isFusedIntoConsumer` in `MemOpt/CostModel/CostModel.h`: the widening
    rescales (or chains of rescales from int8) and int32 adds of int8
    residual adds, the widening rescale of a
    mean pooling's `tosa.reduce_sum`) in a `FusedLoc` whose metadata is
    `"memopt.fused_into_consumer"`. TOSA to linalg gives the op's lowering
    this location, so `fuse-elementwise-groups` fuses exactly the ops the
    model fused, without a second rule.

    Likewise it marks every int8 convolution, depthwise convolution or
    matmul that the model computes one pixel at a time inside the loop of
    its rescale (`isFusedAccumulator`) with `"memopt.fused_accumulator"`,
    and the explicit `tosa.pad` (and slice of it) the model reads through
    such an op's window (`isPadFusedIntoWindow`);
    `fuse-rescale-accumulators{require-marks}` fuses exactly those chains.

    And it marks every op whose result the model computes directly into its
    slice of a concat's buffer (`getInPlaceConcat`, which depends on `io`:
    the concat must be a returned caller-owned output) with
    `"memopt.into_concat_slice"`; `prepare-bufferization` redirects the
    lowering of exactly those ops into their slice.

    The ops of an `scf.for`'s body (a loop over patches) get the same marks,
    and the loop itself `"memopt.planned_loop"`: the model counts its body
    one iteration at a time, so `hoist-static-allocations` keeps the body's
    allocations in the body.
  }];
  let options = [
    Option<"io", "io", "::mlir::memopt::IOPlacement",
           /*default=*/"::mlir::memopt::IOPlacement::Arena",
           "Where graph inputs and outputs live, as the memory model was "
           "told (in-place concat operands need io=caller)",
           [{::llvm::cl::values(
             clEnumValN(::mlir::memopt::IOPlacement::Arena, "arena",
                        "in the arena (default)"),
             clEnumValN(::mlir::memopt::IOPlacement::Caller, "caller",
                        "in the caller's buffers"))}]>,
  ];
}

def FuseElementwiseGroupsPass
    : Pass<"fuse-elementwise-groups", "func::FuncOp"> {
  let summary = "Fuse the marked elementwise ops into their consumer";
  let description = [{
    On linalg-on-tensors (after TOSA to linalg): every `linalg.generic`
    whose location `mark-fused-elementwise` marked is fused into its only
    user with upstream elementwise fusion (`linalg::fuseElementwiseOps`), so
    its result (an int32 tensor four times its int8 input) is never built:
    the fused op computes it per element. A `linalg.reduce` that reads a
    marked op is generalized first, so that the producer fuses into a
    generic with a reduction iterator. A marked op that cannot be fused is
    an error: the memory model counted no buffer for it.
  }];
  let dependentDialects = ["linalg::LinalgDialect"];
}

#endif // MEMOPT_CONVERSION_PASSES_TD
