#!/usr/bin/env bash
#===- import.sh - Benchmark the ONNX importer on the torchvision family ------===#
#
# usage: benchmarks/import.sh [MODEL...]
#
# Sets up and builds mem-opt, then for every torchvision classification model
# (or the ones named) runs scripts/check-torchvision.sh: export with seeded
# random weights, import, mlir-opt-22 verification, memory-report,
# memory-schedule, host run compared with PyTorch. Then times
# mem-opt-import alone REPEAT times (default 5) and prints a Markdown table:
# median import time, TOSA ops (without constants), memory-report peak,
# memory-schedule peak and whether that order is proven optimal, and the
# relative error against PyTorch. Results are recorded in docs/Importers.md.
# Generated files go to $MEMOPT_BUILD_DIR/onnx/ (default build/onnx/).
# SKIP_RUN=1 skips the host run (and the numerical comparison).
#
#===------------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
BUILD_DIR="${MEMOPT_BUILD_DIR:-build}"
REPEAT="${REPEAT:-5}"

# Model and export options: 64x64 inputs, Inception-v3 at its minimum 75x75.
SPECS=(
  "squeezenet1_0 --resolution 64"
  "squeezenet1_1 --resolution 64"
  "googlenet --resolution 64"
  "inception_v3 --resolution 75"
  "densenet121 --resolution 64"
  "resnet18 --resolution 64"
  "resnet50 --resolution 64"
  "mobilenet_v2 --resolution 64"
  "mobilenet_v3_small --resolution 64"
  "mobilenet_v3_large --resolution 64"
  "mnasnet1_0 --resolution 64"
  "efficientnet_b0 --resolution 64"
  "shufflenet_v2_x1_0 --resolution 64"
)
if (($#)); then
  selected=()
  for spec in "${SPECS[@]}"; do
    for name in "$@"; do
      [ "${spec%% *}" = "$name" ] && selected+=("$spec")
    done
  done
  SPECS=("${selected[@]}")
fi

echo "| model | input | import (ms, median of $REPEAT) | TOSA ops | memory-report peak (B) | memory-schedule peak (B) | optimal | rel. error vs PyTorch |"
echo "|---|---|---:|---:|---:|---:|---|---:|"
for spec in "${SPECS[@]}"; do
  read -r -a args <<<"$spec"
  result=$(SKIP_RUN="${SKIP_RUN:-}" ./scripts/check-torchvision.sh "${args[@]}" | grep '^RESULT')
  field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$result"; }
  dir="$BUILD_DIR/onnx/$(field model)"
  times=()
  for _ in $(seq "$REPEAT"); do
    start=$(date +%s%N)
    "$BUILD_DIR/bin/mem-opt-import" "$dir/model.onnx" -o /dev/null
    times+=($((($(date +%s%N) - start) / 1000000)))
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((REPEAT + 1) / 2))p")
  echo "| ${args[0]} | $(head -1 "$dir/shape.txt") | $median | $(field ops) | $(field report_peak) | $(field schedule_peak) | $(field optimal) | $(field rel_err) |"
done
