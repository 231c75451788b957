#!/usr/bin/env bash
#===- patches.sh - Patch-based inference: SRAM, MACs and time, off vs auto ===#
#
# For each model, runs cortex-m-pipeline up to the arena plan with
# patches=off and patches=auto (io=caller: the input and output are the
# caller's, as MCUNetV2 reports; default max-mac-overhead, 20%; in-place
# depthwise convolutions are always on) and prints the arena, the caller's
# I/O, the predicted peak (arena + I/O, the one number), the MACs with their
# overhead over the unpatched model, and the time of the whole run (median
# of REPEAT runs, default 3).
# Models: the TFLite Micro person_detect and MobileNetV2 224 of ../shared,
# the zoo's int8 MobileNetV2 (width 0.5 and 0.35, 96x96) and MCUNet-style
# model, and the torchvision models of benchmarks/import.sh (f32, 64x64,
# Inception-v3 75x75; exported with scripts/export-torchvision.py into
# <build>/onnx/, reused when already there). TORCHVISION=0 skips them.
# Usage: benchmarks/patches.sh [build dir]   (after scripts/setup.sh)
#
#===------------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
BIN="$BUILD/bin"
REPEAT="${REPEAT:-3}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
models=()
add() { models+=("$WORK/$1.mlir"); }
"$BIN/mem-opt-import" ../shared/models/tflite/person_detect.tflite -o "$WORK/person_detect.mlir"; add person_detect
"$BIN/mem-opt-import" ../shared/models/tflite/mobilenet_v2_quantized_1x3x224x224.tflite -o "$WORK/mobilenet_v2_224.mlir"; add mobilenet_v2_224
"$BIN/mem-opt-zoo" --model=mobilenet-v2 --dtype=i8 -o "$WORK/zoo-mbv2-0.5-i8.mlir"; add zoo-mbv2-0.5-i8
"$BIN/mem-opt-zoo" --model=mobilenet-v2 --channels=11 --dtype=i8 -o "$WORK/zoo-mbv2-0.35-i8.mlir"; add zoo-mbv2-0.35-i8
"$BIN/mem-opt-zoo" --model=mcunet --dtype=i8 -o "$WORK/zoo-mcunet-i8.mlir"; add zoo-mcunet-i8
if [ "${TORCHVISION:-1}" != 0 ]; then
  for spec in "squeezenet1_0 64" "squeezenet1_1 64" "googlenet 64" \
      "inception_v3 75" "densenet121 64" "resnet18 64" "resnet50 64" \
      "mobilenet_v2 64" "mobilenet_v3_small 64" "mobilenet_v3_large 64" \
      "mnasnet1_0 64" "efficientnet_b0 64" "shufflenet_v2_x1_0 64"; do
    read -r name resolution <<<"$spec"
    dir="$BUILD/onnx/$name--resolution-$resolution"
    if [ ! -f "$dir/model.onnx" ]; then
      mkdir -p "$dir"
      /usr/bin/python3 scripts/export-torchvision.py --model "$name" \
        --resolution "$resolution" --out "$dir" >"$dir/export.log" 2>&1
    fi
    "$BIN/mem-opt-import" "$dir/model.onnx" -o "$WORK/tv-$name.mlir"; add "tv-$name"
  done
fi
printf "%-24s %-6s %9s %8s %9s %13s %8s %7s\n" model patches arena io peak macs overhead time_s
for model in "${models[@]}"; do
  name=$(basename "$model" .mlir)
  for patches in off auto; do
    times=()
    for _ in $(seq "$REPEAT"); do
      start=$(date +%s.%N)
      "$BIN/mem-opt" "$model" --cortex-m-pipeline="stop-after=plan io=caller patches=$patches" \
        -o "$WORK/out.mlir" 2>/dev/null
      times+=("$(echo "$(date +%s.%N) - $start" | bc)")
    done
    time=$(printf "%s\n" "${times[@]}" | sort -n | sed -n "$(((REPEAT + 1) / 2))p")
    head=$(grep -m1 "memopt.peak_bytes" "$WORK/out.mlir")
    get() { echo "$head" | grep -o "$1 = [0-9]*" | grep -o "[0-9]*$" | head -1 || true; }
    arena=$(get memplan.arena_size); peak=$(get memopt.peak_bytes)
    before=$(get macs_before); after=$(get macs_after)
    if [ -z "$before" ]; then overhead="-"; macs="-"; else
      macs="$after"; overhead=$(echo "scale=1; 100 * ($after - $before) / $before" | bc)%; fi
    printf "%-24s %-6s %9s %8s %9s %13s %8s %7.2f\n" "$name" "$patches" "$arena" \
      "$((peak - arena))" "$peak" "$macs" "$overhead" "$time"
  done
done
