#!/usr/bin/env bash
#===- partition.sh - Benchmark partition-concat on the NAS models ------------===#
#
# For the bundled examples and the zoo models whose concats feed convolutions
# (stacked NAS networks, RandWire, DenseNet, Inception, SwiftNet), prints the
# proven peak of `--memory-schedule` alone and of
# `--partition-concat --memory-schedule`, with the certificate
# (memopt.optimal) and the wall time of each mem-opt run. Set
# MEMOPT_BUILD_DIR to use another build; the build must exist.
# Results are recorded in docs/Partition.md.
#
#===------------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${MEMOPT_BUILD_DIR:-build}"
OUT="$BUILD_DIR/bench-partition"
mkdir -p "$OUT"
MODELS=(
  darts-v2-cifar nasnet-a-cifar amoebanet-a-cifar pnas-cifar
  randwire-ws swiftnet-vww-cell densenet-block inception-v3-block
)
files=(examples/nas_cell.mlir examples/randwire_cell.mlir)
for model in "${MODELS[@]}"; do
  "$BUILD_DIR/bin/mem-opt-zoo" --model="$model" -o "$OUT/$model.mlir"
  files+=("$OUT/$model.mlir")
done
"$BUILD_DIR/bin/mem-opt-zoo" --model=darts-v2-cifar --dtype=i8 \
  -o "$OUT/darts-v2-cifar-i8.mlir"
files+=("$OUT/darts-v2-cifar-i8.mlir")

# Prints "peak optimal seconds sites" for one mem-opt run.
measure() {
  local file=$1
  shift
  local start end out
  start=$(date +%s.%N)
  out=$("$BUILD_DIR/bin/mem-opt" "$file" "$@" \
    --memory-schedule=record-time=false)
  end=$(date +%s.%N)
  local peak optimal sites
  peak=$(grep -o 'memopt.peak_bytes = [0-9]*' <<<"$out" | head -1 | grep -o '[0-9]*$')
  optimal=$(grep -o 'memopt.optimal = [a-z]*' <<<"$out" | head -1 | grep -o '[a-z]*$')
  sites=$(grep -c 'memopt.accumulate' <<<"$out" || true)
  echo "$peak $optimal $(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }') $sites"
}

echo "| model | schedule peak (B) | partition + schedule peak (B) | reduction | proven optimal | accumulating adds | time (s) schedule / both |"
echo "|---|---:|---:|---:|---|---:|---|"
for file in "${files[@]}"; do
  read -r p1 o1 t1 _ <<<"$(measure "$file")"
  read -r p2 o2 t2 s2 <<<"$(measure "$file" --partition-concat)"
  red=$(awk -v a="$p1" -v b="$p2" 'BEGIN { printf "%.1f", 100 * (a - b) / a }')
  printf "| %s | %s | %s | %s%% | %s / %s | %s | %.1f / %.1f |\n" \
    "$(basename "$file" .mlir)" "$p1" "$p2" "$red" "$o1" "$o2" "$s2" "$t1" "$t2"
done
