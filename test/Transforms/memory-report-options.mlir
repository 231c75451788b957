// Bad option values and unwritable outputs are errors, not crashes.
// RUN: not mem-opt %s --memory-report=format=xml -o /dev/null 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: error: memory-report: unknown format 'xml'; expected 'text', 'json' or 'svg'
// RUN: not mem-opt %s --memory-report="format=svg compare=fifo" -o /dev/null 2>&1 | FileCheck %s --check-prefix=COMPARE
// COMPARE: error: memory-report: unknown compare order 'fifo'; expected none, input, kahn, rpo, greedy or exact
// RUN: not mem-opt %s --memory-report="format=json compare=kahn" -o /dev/null 2>&1 | FileCheck %s --check-prefix=COMPARE-FORMAT
// COMPARE-FORMAT: error: memory-report: 'compare' needs format=svg
// RUN: not mem-opt %s --memory-report=output=%t.missing-dir/sub/r.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=OUTPUT
// OUTPUT: error: memory-report: cannot open output file '{{.*}}r.json'
// An empty function has no steps and a peak of 0.
// RUN: mem-opt %s --memory-report=format=json -o /dev/null 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: "name": "empty",
// EMPTY-NEXT: "patches": null,
// EMPTY-NEXT: "peak_bytes": 0,
// EMPTY-NEXT: "peak_op": null,
// EMPTY-NEXT: "peak_step": null,
// EMPTY-NEXT: "schedule": null,
// EMPTY-NEXT: "steps": []
func.func @empty() {
  return
}

// `mem-opt --help` lists the pass with its one-line summary and options.
// RUN: mem-opt --help | FileCheck %s --check-prefix=HELP
// HELP: --memory-report {{ *}}- Report live activation bytes per step and the peak of each function
// HELP-NEXT: --alignment=<long> {{ *}}- Alignment of every arena buffer in bytes (lowering model; default: 16)
// HELP-NEXT: --canonicalize {{ *}}- Report each function after canonicalize and cse on a copy, as cortex-m-pipeline schedules it and mem-opt-compile --report shows it; false reports the ops as written
// HELP-NEXT: --compare=<string> {{ *}}- With format=svg, overlay the order of another algorithm: `none`, `input`, `kahn`, `rpo`, `greedy` or `exact`
// HELP-NEXT: --compare-time-limit-ms=<ulong> {{ *}}- Time limit of the exact search for compare=exact
// HELP-NEXT: --format=<string> {{ *}}- Report format: `text` (a table per function), `json` or `svg` (a chart per function)
// HELP-NEXT: --io=<value> {{ *}}- Where graph inputs and outputs live (lowering model)
// HELP-NEXT: =arena {{ *}}- in the arena, reused once dead (default)
// HELP-NEXT: =caller {{ *}}- in the caller's buffers, live for the whole call
// HELP-NEXT: --model=<value> {{ *}}- Memory model: the bytes the Cortex-M lowering allocates, or the canonical model of the papers
// HELP-NEXT: =lowering {{ *}}- what cortex-m-pipeline allocates (default)
// HELP-NEXT: =canonical {{ *}}- every op writes a fresh buffer; for published figures
// HELP-NEXT: --output=<string> {{ *}}- File to write the report to; `-` means stderr
