#!/usr/bin/env bash
#===- patches.sh - Patch-based inference: SRAM, MACs and time, off vs auto ===#
#
# For each model, runs cortex-m-pipeline up to the arena plan with
# patches=off and patches=auto (io=caller: the input and output are the
# caller's, as MCUNetV2 reports) and prints the arena, the caller's I/O, the
# predicted peak, the MACs and the time of the whole run (median of 3).
# Usage: benchmarks/patches.sh [build dir]   (after scripts/setup.sh)
#
#===------------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${1:-build}/bin"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
"$BIN/mem-opt-import" ../shared/models/tflite/person_detect.tflite -o "$WORK/person_detect.mlir"
"$BIN/mem-opt-import" ../shared/models/tflite/mobilenet_v2_quantized_1x3x224x224.tflite -o "$WORK/mobilenet_v2_224.mlir"
"$BIN/mem-opt-zoo" --model=mobilenet-v2 --dtype=i8 -o "$WORK/zoo-mobilenet-v2-i8.mlir"
printf "%-26s %-6s %9s %8s %9s %12s %8s %7s\n" model patches arena io peak macs overhead time_s
for model in "$WORK"/*.mlir; do
  name=$(basename "$model" .mlir)
  for patches in off auto; do
    times=()
    for run in 1 2 3; do
      start=$(date +%s.%N)
      "$BIN/mem-opt" "$model" --cortex-m-pipeline="stop-after=plan io=caller patches=$patches" \
        -o "$WORK/out.mlir" 2>/dev/null
      times+=("$(echo "$(date +%s.%N) - $start" | bc)")
    done
    time=$(printf "%s\n" "${times[@]}" | sort -n | sed -n 2p)
    head=$(grep -m1 "memopt.peak_bytes" "$WORK/out.mlir")
    get() { echo "$head" | grep -o "$1 = [0-9]*" | grep -o "[0-9]*$" | head -1 || true; }
    arena=$(get memplan.arena_size); peak=$(get memopt.peak_bytes)
    before=$(get macs_before); after=$(get macs_after)
    if [ -z "$before" ]; then before="-"; overhead="-"; macs="-"; else
      macs="$after"; overhead=$(echo "scale=1; 100 * ($after - $before) / $before" | bc)%; fi
    printf "%-26s %-6s %9s %8s %9s %12s %8s %7.2f\n" "$name" "$patches" "$arena" \
      "$((peak - arena))" "$peak" "$macs" "$overhead" "$time"
  done
done
