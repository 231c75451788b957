#!/usr/bin/env bash
#===- cortex-m-report.sh - Memory figures of the Cortex-M pipeline ---------===#
#
# Part of the mem-opt project.
#
# For each model prints, as a Markdown table: the schedule's predicted peak
# (canonical model, graph inputs and outputs included), the planned arena of
# the lowered code (inputs and outputs excluded: they are the caller's
# buffers), the liveness lower bound of the lowered buffers, and the arena of
# the unscheduled (file order) greedy-by-size baseline, as TFLite Micro
# would plan it. Usage: benchmarks/cortex-m-report.sh [build-dir]
#
#===------------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
COMPILE="$BUILD/bin/mem-opt-compile"
MODELS=(examples/nas_cell.mlir examples/randwire_cell.mlir
        test/Inputs/liberis.mlir test/Pipelines/Inputs/int8_cell.mlir
        test/Pipelines/Inputs/int8_fused.mlir)

field() { sed -n "s/.* $1=\([0-9n/a]*\).*/\1/p"; }

echo "| model | I/O bytes | predicted peak | arena | lowered lower bound | greedy-by-size, file order |"
echo "|---|---:|---:|---:|---:|---:|"
for m in "${MODELS[@]}"; do
  tmp=$(mktemp -d)
  best=$("$COMPILE" "$m" --report --header "$tmp/m.h")
  base=$("$COMPILE" "$m" --report --schedule=input --placement=greedy-by-size)
  io=$(sed -n 's/^#define [A-Z0-9_]*_\(IN\|OUT\)[0-9]*_BYTES \([0-9]*\).*/\2/p' \
         "$tmp/m.h" | paste -sd+ | bc)
  rm -rf "$tmp"
  echo "| $(basename "$m" .mlir) | $io | $(echo "$best" | field predicted_peak)" \
       "| $(echo "$best" | field arena) | $(echo "$best" | field liveness_lower_bound)" \
       "| $(echo "$base" | field arena) |"
done
