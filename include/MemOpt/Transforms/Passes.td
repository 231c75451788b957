//===- Passes.td - TOSA-level passes -----------------------*- tablegen -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Declares mem-opt's passes on TOSA functions: the memory report, the
// memory-aware schedule, the patch-based prefix and the concat partition.
// The generated declarations live in Passes.h.inc; the generated
// documentation is build/docs/MemOptTransformsPasses.md.
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

    By default the steps are the ops as written, the ones `memory-schedule`
    orders and certifies. `canonicalize=true` reports a copy of each function
    after `canonicalize` and `cse`, the first stage of `cortex-m-pipeline`,
    which folds ops away (a `tosa.clamp` to the whole int8 range, a reshape
    of a reshape) and merges duplicates: the steps that the pipeline
    schedules and `mem-opt-compile --report` counts. The TFLite importer
    emits nothing these fold, so on an imported `.tflite` both give the
    compile report's steps.
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
    Option<"canonicalize", "canonicalize", "bool", /*default=*/"false",
           "Report each function after canonicalize and cse on a copy, as "
           "cortex-m-pipeline schedules it and mem-opt-compile --report "
           "shows it; false reports the ops as written (default: false)">,
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
    which the memory model counts. Every op of a patch carries
    `memopt.patch = array<i64: grid, k>`, and the memory model runs patch k
    after patch k - 1 (one at a time, as a loop over the patches would), so
    `memory-schedule` proves its order among those. The results do not
    change: every output element is computed from the same inputs by the
    same arithmetic.

    Ops the prefix may hold: `tosa.conv2d`, `tosa.depthwise_conv2d`,
    `tosa.avg_pool2d`, `tosa.max_pool2d` (any stride, dilation and padding),
    elementwise ops (residual adds, `tosa.rescale`, clamps; operands of
    height and width 1 are broadcast) and channel concats, on NHWC tensors.

    `patches=auto` (default) tries every cut and square grids from 2x2 to
    `max-grid` and keeps the one with the smallest predicted peak (under the
    memory model options, in block order) among those whose extra
    multiply-accumulates stay within `max-mac-overhead` percent of the whole
    function's, if it is smaller than the peak the exact scheduler finds
    without patches. Ties go to fewer patches, then to the earlier cut
    (with `+blocks`, first to the smaller peak of the prefix's own steps:
    the bands lower the blocks after the cut); the choice is deterministic. `patches=<rows>x<cols>` forces a grid on
    the longest prefix whose extra multiply-accumulates stay within the
    limit (or the shortest it fits if none does),
    `patches=<rows>x<cols>@<cut>` forces it on the prefix up to the valid
    cut of that index (0 is the first in block order; mem-opt-compile's
    `--sram` weighs these plans), `patches=off` does nothing. The choice is
    attached to the function as `memopt.patches` (cut op, grid, MACs before
    and after, predicted peak before and after). When `patches=auto` keeps
    no grid, a remark says why in one line.

    `loop=true` (experimental) emits the chosen grid, if it divides the
    cut, as one `scf.for` over the patches in grid order instead of one
    copy per patch: the body computes every value over its unclamped region
    (the same size in every patch), the windowed ops without padding over
    tiles whose rows and columns outside the image hold the padding value
    (the graph input's part inside padded by a `tensor.pad`; a body
    value's tile written over in place with views of constant strips), and
    inserts the patch into the carried cut value. The memory model takes
    the loop as one step whose workspace is its body's peak. Border patches
    compute halos outside the image: the summary's MACs and peak are the
    loop's. Prefixes with other ops (pads, slices, transposes, padded
    average pools, broadcasts) or regions that are not the same in every
    patch keep their copies. `patches=auto` weighs each grid as a loop
    where it applies: its MACs with the halos, its peak.

    `+blocks` after any of these (`auto+blocks`, `3x3@2+blocks`,
    `off+blocks`) then computes the blocks at the peak in bands: while the
    peak comes from the ops between a value and a later cut (an inverted
    residual block), those ops are rewritten like a prefix into row bands
    (or a grid up to 4x4) that read views of the value, as long as the
    function's extra multiply-accumulates stay within `max-mac-overhead`
    and the exact scheduler proves the new order optimal. Each rewrite is
    listed in `memopt.patch_blocks`.
  }];
  let options = !listconcat(CostModelOptions, [
    Option<"patches", "patches", "std::string", /*default=*/"\"auto\"",
           "`auto`: the best grid within the MAC limit, if it lowers the "
           "peak; `<rows>x<cols>`: that grid; `<rows>x<cols>@<cut>`: that "
           "grid up to cut number <cut>; `off`: no patches; each may be "
           "followed by `+blocks` (default: auto)">,
    Option<"maxMacOverhead", "max-mac-overhead", "double",
           /*default=*/"20.0",
           "Largest extra multiply-accumulates of patches=auto, in percent "
           "of the function's (default: 20)">,
    Option<"maxGrid", "max-grid", "unsigned", /*default=*/"8",
           "Largest number of patch rows and columns patches=auto tries "
           "(default: 8)">,
    Option<"loop", "loop", "bool", /*default=*/"false",
           "Experimental: emit the chosen grid as one scf.for over uniform "
           "patches where the prefix allows it (see the description); "
           "otherwise one copy of the prefix per patch (default: false)">,
  ]);
  let statistics = [
    Statistic<"prefixesPatched", "prefixes-patched",
              "Functions whose prefix runs patch by patch">,
    Statistic<"blocksPatched", "blocks-patched",
              "Blocks computed in bands (patches=<...>+blocks)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def WidenDepthwisePass : Pass<"widen-depthwise", "func::FuncOp"> {
  let summary = "Compute a band's stride-1 depthwise convolution over its "
                "whole input, in place";
  let description = [{
    A band (or patch) of a stride-1 depthwise convolution with channel
    multiplier 1 reads its rows with the halo its window needs, so its
    output has fewer rows or columns than its input and cannot be computed
    in place (`isInPlaceDepthwise` needs an output of its input's shape).
    This pass computes it over its whole input, with padding at least the
    original's on every side (half the window before, where the original
    allows it), together with its fused rescale and the elementwise ops of
    one activation operand after it, and takes the rows and columns the
    original had as a view (`tensor.extract_slice`). The wider convolution
    is then computed in place over its dying input; the rows it computes
    from the new padding are never read. Results do not change; the extra
    multiply-accumulates are the halo rows and columns of the depthwise
    convolution. A convolution whose wider form would not be in place (its
    input has another reader, is a slice, or has another type) is left.
    `patch-prefix{patches=<...>+blocks}` applies it to the bands it makes.

    ```mlir
    // Rows 1 to 4 of 6 (both neighbours are halo rows):
    %d = tosa.depthwise_conv2d %x, %w, %b, %zp, %zp {pad = array<i64: 0, 0, 1, 1>, ...}
        : (tensor<1x6x8x4xi8>, ...) -> tensor<1x4x8x4xi32>
    %r = tosa.rescale %d, ... -> tensor<1x4x8x4xi8>
    // becomes
    %d = tosa.depthwise_conv2d %x, %w, %b, %zp, %zp {pad = array<i64: 1, 1, 1, 1>, ...}
        : (tensor<1x6x8x4xi8>, ...) -> tensor<1x6x8x4xi32>
    %e = tosa.rescale %d, ... -> tensor<1x6x8x4xi8>
    %r = tensor.extract_slice %e[0, 1, 0, 0] [1, 4, 8, 4] [1, 1, 1, 1]
    ```
  }];
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

#endif // MEMOPT_TRANSFORMS_PASSES_TD
