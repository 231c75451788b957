//===- Passes.td - mem-opt pass definitions ----------------*- tablegen -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Declares every mem-opt pass, its options and its statistics. The generated
// declarations live in Passes.h.inc; the generated documentation goes to
// build/docs/MemOptPasses.md.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TRANSFORMS_PASSES_TD
#define MEMOPT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

// The options that select the memory model (MemOpt/CostModel/CostModel.h),
// shared by every pass that measures peaks.
defvar CostModelOptions = [
  Option<"model", "model", "::mlir::memopt::MemoryModelKind",
         /*default=*/"::mlir::memopt::MemoryModelKind::Lowering",
         "Memory model: the bytes the Cortex-M lowering allocates, or the "
         "canonical model of the papers",
         [{::llvm::cl::values(
           clEnumValN(::mlir::memopt::MemoryModelKind::Lowering, "lowering",
                      "what cortex-m-pipeline allocates (default)"),
           clEnumValN(::mlir::memopt::MemoryModelKind::Canonical, "canonical",
                      "every op writes a fresh buffer; for published "
                      "figures"))}]>,
  Option<"io", "io", "::mlir::memopt::IOPlacement",
         /*default=*/"::mlir::memopt::IOPlacement::Arena",
         "Where graph inputs and outputs live (lowering model)",
         [{::llvm::cl::values(
           clEnumValN(::mlir::memopt::IOPlacement::Arena, "arena",
                      "in the arena, reused once dead (default)"),
           clEnumValN(::mlir::memopt::IOPlacement::Caller, "caller",
                      "in the caller's buffers, live for the whole call"))}]>,
  Option<"alignment", "alignment", "int64_t", /*default=*/"16",
         "Alignment of every arena buffer in bytes (lowering model; "
         "default: 16)">,
];


def MemoryReportPass : Pass<"memory-report", "ModuleOp"> {
  let summary = "Report live activation bytes per step and the peak of each "
                "function";
  let description = [{
    Builds the dataflow graph of every `func.func` with a body and evaluates
    the memory model `model=` selects (by default `lowering`: the bytes
    `cortex-m-pipeline` allocates, the numbers `memory-schedule` records as
    `memopt.peak_bytes`; see `docs/MemoryModel.md`) for the order in which
    the ops appear in the block. Weights (`tosa.const`, other
    constant-like ops and everything computed only from constants) are not
    counted; view-like ops (`tosa.reshape`, `tensor.expand_shape`,
    `tensor.collapse_shape`, `tensor.cast`) add no bytes and extend the life of
    the buffer they view.

    The IR is not changed. The report goes to stderr unless `output=` names a
    file. `format=text` (default) prints a table per function:

    ```
    memory report for @main: 7 steps, peak 5216 bytes at step 2 (op3)
       step  op           location    live bytes
          0  tosa.conv2d  op1               4704
          1  tosa.conv2d  op2               4704
          2  tosa.conv2d  op3               5216  <- peak
          ...
      peak: 5216 bytes; live: op1 (3136) op2 (1568) op3 (512)
    ```

    `format=svg` writes an SVG chart per function (stacked in one document),
    titled with the memory model: the live bytes of the text and JSON
    reports, in KiB per step, as a staircase line; the peak marked with a dot, a dashed line and a label
    naming the op at the peak (kept clear of the title); axes labelled in
    steps and KiB; and a legend with each line's peak and peak op.
    `compare=kahn|rpo|greedy|exact|input` overlays the order that
    `memory-schedule algorithm=<name>` would compute for the same graph, e.g.
    file order against mem-opt's exact order; an overlay equal to the first
    line is drawn dashed on top of it:

    ```
    mem-opt model.mlir --memory-report="format=svg compare=exact output=t.svg"
    ```

    `format=json` prints an object with `format_version` (1; it changes when
    a member is renamed or removed or changes meaning), `mem_opt_version`
    and a `functions` array. Each function
    has `name`, `peak_bytes`, `peak_op`, `peak_step`, `live_at_peak` (the
    tensors live at the peak, with their bytes) and `steps`, one entry per
    op with `step`, `op`, `loc` and `live_bytes`.
    `loc` is the name of a `NameLoc` or `file:line:col`; `peak_op` is the
    `loc` of the op at the peak. Functions that cannot be modelled (dynamic
    shapes, several blocks, ops with regions, unknown ops producing tensors)
    get an error at the offending location and the pass fails.

    With `partition=true` (text and json), each function also gets the peak of its file
    order, the best peak `memory-schedule` finds, and the best peak after
    `partition-concat` (auto) plus scheduling, computed on a copy (text: a
    `partition:` line; JSON: a `partition` object with `input_peak`,
    `scheduled_peak`, `partitioned_peak`, `sites` and `optimal`).
  }];
  let options = !listconcat(CostModelOptions, [
    Option<"format", "format", "std::string", /*default=*/"\"text\"",
           "Report format: `text` (a table per function), `json` or `svg` "
           "(a chart per function) (default: text)">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "File to write the report to; `-` means stderr (default: -)">,
    Option<"partition", "partition", "bool", /*default=*/"false",
           "Also report, per function, the best scheduled peak before and "
           "after partition-concat (auto), computed on a copy (default: "
           "false)">,
    Option<"compare", "compare", "std::string", /*default=*/"\"none\"",
           "With format=svg, overlay the order of another algorithm: "
           "`none`, `input`, `kahn`, `rpo`, `greedy` or `exact` (default: "
           "none)">,
    Option<"compareTimeLimitMs", "compare-time-limit-ms", "uint64_t",
           /*default=*/"::mlir::memopt::schedule::kDefaultTimeLimitMs",
           "Time limit of the exact search for compare=exact, in "
           "milliseconds (default: 10000)">,
  ]);
}

def MemorySchedulePass : Pass<"memory-schedule", "func::FuncOp"> {
  let summary = "Reorder ops to minimize peak activation memory, with a "
                "certificate of optimality";
  let description = [{
    Reorders the ops of each function body so that the peak of live
    activation bytes (canonical model, `docs/MemoryModel.md`) is as small as
    possible. Only the order changes: defs still dominate uses, ops with side
    effects keep their relative order, and constants move along with their
    first user. The same input always gives the same order.

    `algorithm=exact` (default) searches sets of scheduled ops, best first and
    then in rounds that each look depth first for an order below the best
    one found, with admissible lower bounds, an upper bound from heuristics
    and dominance rules (see `docs/Scheduling.md`); when it finishes, the
    order is proven optimal. If a limit (`max-states`, `max-search-nodes`, or the safety stop
    `time-limit-ms`) stops it, it keeps the best order found, emits a remark
    with the gap to the proven lower bound and the limit that stopped it, and
    never returns an order worse than the input. The state and node budgets
    are deterministic; the time limit covers the whole pass (building the
    graph included) and is only a safety stop. On graphs without choices
    (chains, fan-outs, residual ladders, concat trees) the pass runs in
    about O(n log n) time (`docs/Scale.md`). Baselines:
    `input` (file order, what TFLite runs), `kahn` (breadth-first
    topological order), `rpo` (reverse post-order) and `greedy` (smallest step
    first; falls back to the input order if that is better).

    Statistics (peak before and after, states explored, time) are pass
    statistics for `-mlir-pass-statistics`; Debian's LLVM 22 is built with
    statistics compiled out, so `print-statistics=true` also emits them as a
    remark per function.

    The function gets discardable attributes: `memopt.peak_bytes`,
    `memopt.lower_bound`, `memopt.optimal` and `memopt.schedule_time_ms`
    (the last one unless `record-time=false`, which keeps the output
    byte-identical across runs). `memory-report` shows them.

    With `budget=<bytes>`, the pass fails if the best order needs more: the
    error is at the op where the peak occurs and names the peak, the budget
    and the tensors live there.

    Example (Liberis & Lane 2019, Fig. 1): the file order op1..op7 peaks at
    5216 bytes; the pass returns op1, op4, op6, op2, op3, op5, op7 with
    `memopt.peak_bytes = 4960`, `memopt.lower_bound = 4960` and
    `memopt.optimal = true`.
  }];
  let options = !listconcat(CostModelOptions, [
    Option<"algorithm", "algorithm", "std::string", /*default=*/"\"exact\"",
           "Ordering algorithm: exact, input, kahn, rpo or greedy "
           "(default: exact)">,
    Option<"timeLimitMs", "time-limit-ms", "uint64_t",
           /*default=*/"::mlir::memopt::schedule::kDefaultTimeLimitMs",
           "Time limit of the pass per function, building the graph "
           "included, in milliseconds; a safety stop (0: none; default: "
           "10000)">,
    Option<"maxStates", "max-states", "uint64_t",
           /*default=*/"::mlir::memopt::schedule::kDefaultMaxStates",
           "Most search states the exact search keeps per function "
           "(0: no limit; default: 4000000)">,
    Option<"maxSearchNodes", "max-search-nodes", "uint64_t",
           /*default=*/"::mlir::memopt::schedule::kDefaultMaxSearchNodes",
           "Largest segment, in ops, the exact search takes on; a larger one "
           "keeps its best heuristic order (0: no limit; default: 4096)">,
    Option<"bestFirstStates", "best-first-states", "uint64_t",
           /*default=*/"::mlir::memopt::schedule::kDefaultBestFirstStates",
           "Expansions the exact search spends best first above the bound "
           "it started from before it searches in rounds under a budget; "
           "deterministic, the order stays optimal (0: rounds from the "
           "start; default: 1024)">,
    Option<"budget", "budget", "int64_t", /*default=*/"0",
           "Activation memory of the device in bytes; fail if the order "
           "needs more (0: no budget; default: 0)">,
    Option<"recordTime", "record-time", "bool", /*default=*/"true",
           "Record the scheduling time as memopt.schedule_time_ms "
           "(default: true)">,
    Option<"printStatistics", "print-statistics", "bool", /*default=*/"false",
           "Emit the statistics of each function as a remark (Debian's LLVM "
           "22 compiles -mlir-pass-statistics out; default: false)">,
    Option<"progressMs", "progress-ms", "uint64_t", /*default=*/"0",
           "While the exact search runs, emit a remark with its states, "
           "best peak and proven bound at most every this many "
           "milliseconds (0: none; default: 0)">,
  ]);
  let statistics = [
    Statistic<"peakBefore", "peak-before", "Peak bytes of the input order "
              "(summed over functions)">,
    Statistic<"peakAfter", "peak-after", "Peak bytes of the chosen order "
              "(summed over functions)">,
    Statistic<"statesExplored", "states-explored", "Search states expanded">,
    Statistic<"scheduleTimeMs", "time-ms", "Milliseconds spent scheduling">,
    Statistic<"provenOptimal", "proven-optimal",
              "Functions whose order is proven optimal">,
  ];
}

def PatchPrefixPass : Pass<"patch-prefix", "func::FuncOp"> {
  let summary = "Run the memory-heavy prefix of a network one spatial patch "
                "at a time (patch-based inference)";
  let description = [{
    MCUNetV2's patch-based inference as an identity rewrite on TOSA. The
    prefix of the function up to a cut value `%v` (every op before it in
    block order, with `%v` the only value the rest reads) is cloned once per
    patch of a grid over `%v`'s height and width. Each clone computes only
    its patch of `%v`, from the slice of the input its receptive field needs:
    overlapping halos are recomputed, convolution and pooling padding is kept
    at the image borders only, and grids that do not divide the image give
    patches whose sizes differ by one row or column. Each patch is inserted
    into its slice of `%v` (`tensor.insert_slice`, in place), so only the
    prefix's input, `%v` and one patch's intermediates are live at a time,
    which the memory model counts. The results do not change: every output
    element is computed from the same inputs by the same arithmetic.

    Ops the prefix may hold: `tosa.conv2d`, `tosa.depthwise_conv2d`,
    `tosa.avg_pool2d`, `tosa.max_pool2d` (any stride, dilation and padding),
    elementwise ops (residual adds, `tosa.rescale`, clamps; operands of
    height and width 1 are broadcast) and channel concats, on NHWC tensors.

    `patches=auto` (default) tries every cut and square grids from 2x2 to
    `max-grid` and keeps the one with the smallest predicted peak (under the
    memory model options, in block order) among those whose extra
    multiply-accumulates stay within `max-mac-overhead` percent of the whole
    function's, if it is smaller than the peak the exact scheduler finds
    without patches. Ties go to fewer patches, then to the earlier cut; the
    choice is deterministic. `patches=<rows>x<cols>` forces a grid on
    the longest prefix whose extra multiply-accumulates stay within the
    limit (or the shortest it fits if none does), `patches=off` does
    nothing. The choice is
    attached to the function as `memopt.patches` (cut op, grid, MACs before
    and after, predicted peak before and after).
  }];
  let options = !listconcat(CostModelOptions, [
    Option<"patches", "patches", "std::string", /*default=*/"\"auto\"",
           "`auto`: the best grid within the MAC limit, if it lowers the "
           "peak; `<rows>x<cols>`: that grid; `off`: no patches (default: "
           "auto)">,
    Option<"maxMacOverhead", "max-mac-overhead", "double",
           /*default=*/"20.0",
           "Largest extra multiply-accumulates of patches=auto, in percent "
           "of the function's (default: 20)">,
    Option<"maxGrid", "max-grid", "unsigned", /*default=*/"8",
           "Largest number of patch rows and columns patches=auto tries "
           "(default: 8)">,
  ]);
  let statistics = [
    Statistic<"prefixesPatched", "prefixes-patched",
              "Functions whose prefix runs patch by patch">,
  ];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def PartitionConcatPass : Pass<"partition-concat", "func::FuncOp"> {
  let summary = "Split convolutions that read a channel concat into "
                "per-branch partial convolutions (identity rewrites)";
  let description = [{
    SERENITY's identity graph rewrites (see `docs/Partition.md`). A
    `tosa.concat` along channels keeps every branch alive until the last one
    is ready; splitting its consumer per branch lets each branch die as soon
    as its share of the work has run. The results do not change.

    - `tosa.conv2d` (channel-wise partition): one partial conv2d per branch
      on the matching input-channel slice of the weights; the partials are
      summed by `tosa.add` ops marked `memopt.accumulate`, which the memory
      model (and a lowering) treat as accumulation into a single buffer. The
      bias is added once. For int8 the partials are i32 accumulators summed
      before the existing `tosa.rescale`, so the result is bit-exact; zero
      points, strides, padding and dilation are kept by every partial.
    - `tosa.depthwise_conv2d` (kernel-wise partition): one depthwise conv per
      branch on the matching channel slice of weights and bias (channel
      multiplier included), concatenated.
    - Unary elementwise ops between the concat and the convolution (ReLU as
      `tosa.clamp`, `tosa.rescale` with per-channel parameters sliced,
      `tosa.cast`, sigmoid, tanh, ...) are cloned into the branches.
    - Other users of the concat (or of the elementwise ops) keep the
      original ops; only the convolution is rewritten.

    `mode=always` rewrites every legal site. `mode=auto` (default) rewrites a
    concat's consumers only if the peak found by the exact scheduler
    (`memory-schedule`'s engine, with the accumulation in one buffer) goes
    down: it tries all consumers of a concat together, then each alone, and
    keeps the best strict improvement. `conv=false` and `depthwise=false`
    disable a pattern.

    Example (f32, two branches of 4 and 2 channels):

    ```mlir
    %c = tosa.concat %a, %b {axis = 3 : i32} : (...) -> tensor<1x8x8x6xf32>
    %y = tosa.conv2d %c, %w, %bias, %zp, %zp {...} : (...) -> tensor<1x8x8x16xf32>
    ```
    becomes
    ```mlir
    %p0 = tosa.conv2d %a, %w0, %bias, %zp, %zp {...}   // %w0 = %w[..., 0:4]
    %p1 = tosa.conv2d %b, %w1, %zero, %zp, %zp {...}   // %w1 = %w[..., 4:6]
    %y = tosa.add %p0, %p1 {memopt.accumulate} : ...
    ```
  }];
  let options = !listconcat(CostModelOptions, [
    Option<"conv", "conv", "bool", /*default=*/"true",
           "Partition concat + conv2d (default: true)">,
    Option<"depthwise", "depthwise", "bool", /*default=*/"true",
           "Partition concat + depthwise_conv2d (default: true)">,
    Option<"mode", "mode", "std::string", /*default=*/"\"auto\"",
           "`auto`: only where the optimal peak goes down; `always`: every "
           "legal site (default: auto)">,
    Option<"timeLimitMs", "time-limit-ms", "uint64_t", /*default=*/"2000",
           "Time limit of each exact scheduling in auto mode, in "
           "milliseconds (0: none; default: 2000)">,
  ]);
  let statistics = [
    Statistic<"sitesRewritten", "sites-rewritten",
              "Convolutions split into per-branch parts">,
  ];
  let dependentDialects = ["tosa::TosaDialect"];
}

def MemPlanIOToArenaPass : Pass<"memplan-io-to-arena", "ModuleOp"> {
  let summary = "Place the inputs and outputs of entry functions in the arena";
  let description = [{
    TFLite Micro's convention: the caller writes the inputs into the arena
    before the call and reads the outputs from it afterwards, so an input's
    bytes are reused once it dies. For every public function with a body
    that no other function calls, each memref argument becomes a
    `memref.alloc` at the start of the body, marked `memplan.input = i`, and
    the arguments are removed; the function gets `memplan.io_in_arena`,
    which lets `MemRefLiveness` keep every returned buffer live until the
    return. `memplan-plan-arena` then records the offsets of the inputs and
    outputs (`memplan.input_offsets`, `memplan.output_offsets`), and
    `memplan-lower` drops the results: the function's only argument is the
    arena. Runs on bufferized IR, before `memplan-plan-arena`, instead of
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

def ArmDspInt8KernelsPass : Pass<"arm-dsp-int8-kernels", "func::FuncOp"> {
  let summary = "Lower int8 convolutions on memrefs to Armv7E-M DSP kernels";
  let description = [{
    Replaces every bufferized `linalg.conv_2d_nhwc_fhwc[_q]` and
    `linalg.depthwise_conv_2d_nhwc_hwc[_q]` (int8 input and filter, int32
    accumulator, constant zero points; the plain ops have none) by loops
    that use the DSP extension
    of Armv7E-M through LLVM's ARM intrinsics: `SXTB16` widens four int8
    values into two pairs of halfwords, `SADD16` subtracts the zero points
    from both halves, `SMLAD` does two multiply-accumulates of a
    convolution's reduction and `SMLABB`/`SMLATT` one per channel of a
    depthwise convolution; `linalg.conv_2d_nhwc_hwcf[_q]` (a first layer,
    or a depthwise convolution of one input channel) widens four output
    channels from one filter word and uses `SMLABB`/`SMLABT`. The 64-bit
    rounding multiply of a lowered `tosa.rescale` whose shifts are constants
    in [32, 62] becomes one `SMULL` and 32-bit shifts (exact, see
    RescaleTo32Bit). A convolution keeps `oc-block` output channels
    in registers over one widened input word; channels or input channels
    that are not a multiple of the block or of 4 are computed by scalar
    tails. The accumulator stays in a register over the whole reduction.

    The result is bit-exact with the linalg op: every product of two
    zero-point-corrected int8 values fits in 16x16 bits and the int32 sums
    wrap as the op's do. The kernels read their operands in place through
    unaligned 32-bit loads and need no scratch memory, so the arena the
    memory model predicted is unchanged. The output is only valid for a
    target with the DSP extension (`cortex-m-pipeline` runs the pass for
    cortex-m4 and cortex-m7).

    Before (one pixel of a fused 1x1 convolution, 8 input channels):
    ```mlir
    linalg.conv_2d_nhwc_fhwc_q {...} ins(%x, %w, %c-128_i32, %c0_i32 : ...)
        outs(%acc : memref<1x1x1x4xi32>)
    ```
    After (per block of output channels; %zp is the pair (128, 128)):
    ```mlir
    %r:4 = scf.for %ic = %c0 to %c8 step %c4 iter_args(...) -> (i32, ...) {
      %word = llvm.load %px {alignment = 1 : i64} : !llvm.ptr -> i32
      %e = llvm.call_intrinsic "llvm.arm.sxtb16"(%word) : (i32) -> i32
      %ez = llvm.call_intrinsic "llvm.arm.sadd16"(%e, %zp) : (i32, i32) -> i32
      ...
      %a = llvm.call_intrinsic "llvm.arm.smlad"(%ez, %we, %acc0)
          : (i32, i32, i32) -> i32
      ...
    }
    memref.store %r#0, %acc[%c0, %c0, %c0, %oc] : memref<1x1x1x4xi32>
    ```
  }];
  let options = [
    Option<"ocBlock", "oc-block", "unsigned", /*default=*/"4",
           "Output channels of a convolution computed together over one "
           "widened input word (1 to 8)">,
    Option<"unroll", "unroll", "unsigned", /*default=*/"0",
           "LLVM's unroll count of a convolution's SIMD reduction loop "
           "(llvm.loop.unroll.count, honoured at -Os too); 0 or 1: none">,
  ];
  let dependentDialects = ["LLVM::LLVMDialect", "scf::SCFDialect",
                           "arith::ArithDialect", "memref::MemRefDialect"];
}

def ArmDspFoldInputZeroPointsPass
    : Pass<"arm-dsp-fold-zero-points", "ModuleOp"> {
  let summary = "Fold the input zero point of int8 convolutions into their "
                "bias";
  let description = [{
    For each bufferized `linalg.conv_2d_nhwc_fhwc_q` with a constant filter
    whose output is initialized, right before it, by a `linalg.generic`
    that copies a constant per-channel bias, rewrites

        sum((x - zi) * (w - zw)) + b  =  sum(x * (w - zw)) + b'

    with `b' = b - zi * sum(w - zw)` per output channel, a new constant
    global (`<bias>_izp`) that the initialization reads instead: the
    convolution gets the input zero point 0. Both sides are equal in int32
    arithmetic (modulo 2^32), so the result is bit-exact. The DSP kernels
    (`arm-dsp-int8-kernels`) then need no `SADD16` per input word, and the
    MVE kernels (`arm-mve-int8-kernels`) no filter sum (`VADDVA.S8`). A
    convolution whose input is a padded window (a buffer filled with the
    zero point, written by `linalg.fill`; the kernels skip its taps outside
    the image) keeps its zero point. Runs before `arm-dsp-int8-kernels` and
    `arm-mve-int8-kernels` in `cortex-m-pipeline`; no activation memory
    changes (the new bias is flash).
  }];
  let statistics = [
    Statistic<"numFolded", "num-folded",
              "Convolutions whose input zero point was folded into the bias">,
  ];
  let dependentDialects = ["arith::ArithDialect", "memref::MemRefDialect"];
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
    i32 tensor, as in MCU int8 kernels. Accumulators of a single pixel are
    not fused (fusion would keep the op's input, the accumulator and the
    output live together, saving nothing).

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
    `DataflowGraph` counts the same buffers (docs/MemoryModel.md).
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
    rescales and int32 adds of int8 residual adds, the widening rescale of a
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

def ArmMveInt8KernelsPass : Pass<"arm-mve-int8-kernels", "func::FuncOp"> {
  let summary = "Lower int8 convolutions on memrefs to Armv8.1-M MVE kernels";
  let description = [{
    Replaces every bufferized `linalg.conv_2d_nhwc_fhwc[_q]` whose input
    channels are contiguous and every `linalg.depthwise_conv_2d_nhwc_hwc[_q]`
    (int8 input and filter, int32
    accumulator, constant zero points; the plain ops have none) by loops on
    vectors that LLVM's ARM backend selects as MVE (Helium) instructions on
    Armv8.1-M (Cortex-M55):

    - convolution: per output pixel and block of `oc-block` output
      channels, sixteen input channels at a time: a `vector<16xi8>` load of
      the input and, per output channel, of the filter, and
      `vector.reduction <add>` of the product of the sign-extended vectors
      (one `VMLAVA.S8`). The input channels left over take one masked load.
      When the taps are contiguous in input and filter (a first layer's
      padded window), the reduction is one run of KH * KW * IC bytes.
      The zero points are applied once per output:
      `sum (x - zx)(w - zw) = sum x w - zx sum w - zw sum x + N zx zw`, with
      `sum w` (`VADDVA.S8`) only when zx is not 0 and `sum x` only when zw is
      not 0.
    - depthwise convolution of at least 4 contiguous channels: eight
      channels at a time (then four, then a masked group of four) as
      `vector<8xi32>`: per tap the sign-extended
      input and filter (`VLDRB.S32`), the zero points added, multiplied and
      added to the accumulator vector, loaded and stored once per pixel.
      Fewer than 4 channels are scalar with the taps unrolled and the
      accumulator in a register.
    - the in-place depthwise convolution's channel loops (one channel of a
      padded KxK window per output pixel, its bias, its rescale to int8;
      `inplace-depthwise`, `fuse-rescale-accumulators`): the rows are split
      into border and interior rows, and the columns whose windows lie
      inside the input become vectors of 4 output pixels of the channel:
      per tap a gather of the 4 input bytes
      (`llvm.arm.mve.vldr.gather.offset`, `VLDRB.S32` with a vector of
      offsets) times the tap's weight (`VMLA.I32` by a scalar), the input
      zero point folded per channel (`sum (x - zx) w = sum x w - zx sum w`,
      added back for a window row outside the input), then the vector
      rescale and a store of 4 bytes. Weights, bias, multiplier and shift
      are read once per channel; the border columns keep their scalar
      loops. The pattern checks, by evaluating the window's index
      computations at every output pixel, that the window copy is exactly
      the window's intersection with the input, and that the output
      channel does not overlap the input. The `linalg.copy` of the
      contiguous channel back over the input's channel (pixels C bytes
      apart) becomes 4 pixels per vector: a load of 4 bytes and a scatter
      store (`llvm.arm.mve.vstr.scatter.offset`, `VSTRB.32` with a vector
      of offsets).
    - `linalg.conv_2d_nhwc_hwcf[_q]` (first layers): a vector of output
      channels of the filter times the zero-point-corrected input value.
    - A padded window (`linalg.fill` with the input zero point, then
      `linalg.copy` of the in-bounds input) that a depthwise or HWCF
      convolution of one output pixel reads: the kernel reads the input
      directly (a padded tap adds `(zp - zp) * w = 0`) and the fill and copy
      go; the window stays allocated, unwritten.
    - The `linalg.generic` of a per-pixel rescale to int8 (the 64-bit
      rounding multiply of `tosa-to-arith`, per channel from constant
      globals or per tensor with constants in its body) over at least 4
      channels whose
      shifts are constants in [32, 62] and multipliers constants other than
      INT32_MIN: 4 channels per vector, with the high words of the product
      from `llvm.arm.mve.vmulh` and `t = P >> 31 = (hi << 1) | (lo >> 31)`,
      `round(P / 2^s) = floor((t + 2^(s - 32)) / 2^(s - 31))`, one rounding
      shift (`VRSHL.S32` by `31 - s` per lane, `llvm.arm.mve.vshl.vector`),
      then the zero point, the clamp and a narrowing store.

    The result is bit-exact with the linalg op: the int32 sums wrap modulo
    2^32 as the op's do, and every product is exact. The kernels read their
    operands in place and need no scratch memory, so the arena the memory
    model predicted is unchanged. The vector ops need
    `convert-vector-to-llvm`; the output is only valid for a target with MVE
    (`cortex-m-pipeline` runs the pass for cortex-m55, option
    `mve-kernels`).

    Before (one pixel of a fused 1x1 convolution, 32 input channels):
    ```mlir
    linalg.conv_2d_nhwc_fhwc_q {...} ins(%x, %w, %c-128_i32, %c0_i32 : ...)
        outs(%acc : memref<1x1x1x8xi32>)
    ```
    After (per output channel of a block; %sw sums the filter for the input
    zero point):
    ```mlir
    %r:8 = scf.for %ic = %c0 to %c32 step %c16 iter_args(...) -> (i32, ...) {
      %xb = llvm.load %px {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
      %x = arith.extsi %xb : vector<16xi8> to vector<16xi32>
      %wb = llvm.load %pw {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
      %w = arith.extsi %wb : vector<16xi8> to vector<16xi32>
      %p = arith.muli %x, %w : vector<16xi32>
      %d = vector.reduction <add>, %p : vector<16xi32> into i32
      %a = arith.addi %acc0, %d : i32
      %s = vector.reduction <add>, %w : vector<16xi32> into i32
      %sw = arith.addi %sw0, %s : i32
      ...
    }
    ```
  }];
  let options = [
    Option<"ocBlock", "oc-block", "unsigned", /*default=*/"4",
           "Output channels of a convolution computed together over one "
           "input vector (1 to 8)">,
  ];
  let dependentDialects = ["LLVM::LLVMDialect", "scf::SCFDialect",
                           "arith::ArithDialect", "memref::MemRefDialect",
                           "vector::VectorDialect"];
}

#endif // MEMOPT_TRANSFORMS_PASSES_TD
