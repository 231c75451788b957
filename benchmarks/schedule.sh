#!/usr/bin/env bash
#===- schedule.sh - Benchmark the memory schedulers on the zoo ---------------===#
#
# Sets up and builds mem-opt, generates the zoo models (NAS cells, stacked NAS
# networks, RandWire WS(32, 4, 0.75) cells with seeds 1-5 in f32 and int8) into
# build/bench/, and prints mem-opt-bench's table: peaks of every algorithm in
# one run, the proven lower bound, and the median time of the exact engine
# over 5 runs (REPEAT). MODEL=lowering schedules under the Cortex-M
# lowering's memory model (what cortex-m-pipeline uses) instead of the
# canonical one; TIME_LIMIT_MS is the search's safety stop (default 60000).
# Results are recorded in docs/Scheduling.md.
#
#===------------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
BUILD_DIR="${MEMOPT_BUILD_DIR:-build}"
OUT="$BUILD_DIR/bench"
mkdir -p "$OUT"
MODELS=(
  nasnet-a-normal nasnet-a-reduction amoebanet-a-normal amoebanet-a-reduction
  pnas-cell darts-v2-normal darts-v2-reduction swiftnet-vww-cell
  nasnet-a-cifar amoebanet-a-cifar darts-v2-cifar pnas-cifar
)
files=()
for model in "${MODELS[@]}"; do
  "$BUILD_DIR/bin/mem-opt-zoo" --model="$model" -o "$OUT/$model.mlir"
  files+=("$OUT/$model.mlir")
done
for seed in 1 2 3 4 5; do
  "$BUILD_DIR/bin/mem-opt-zoo" --model=randwire-ws --seed="$seed" \
    -o "$OUT/randwire-ws-seed$seed.mlir"
  files+=("$OUT/randwire-ws-seed$seed.mlir")
done
for seed in 1 2 3 4 5; do
  "$BUILD_DIR/bin/mem-opt-zoo" --model=randwire-ws --seed="$seed" --dtype=i8 \
    -o "$OUT/randwire-ws-i8-seed$seed.mlir"
  files+=("$OUT/randwire-ws-i8-seed$seed.mlir")
done
"$BUILD_DIR/bin/mem-opt-bench" --repeat="${REPEAT:-5}" \
  --model="${MODEL:-canonical}" --time-limit-ms="${TIME_LIMIT_MS:-60000}" \
  "${files[@]}" \
  test/Inputs/liberis.mlir examples/nas_cell.mlir
