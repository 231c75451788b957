#!/bin/sh
#===- tflite-import.sh - Import the shared TFLite models and report ---------===#
#
# Part of the mem-opt project.
#
# For every model in ../shared/models/tflite: operator and tensor counts (from
# the independent decoder test/Import/TFLite/tflite_tensors.py), TOSA op count, the
# peak of memory-report and of memory-schedule, and the median wall time of
# mem-opt-import over RUNS runs (default 5), next to the median time of a run
# that fails at once (process start-up: loading libMLIR). Usage, from the
# repository root after building into build/:
#   ./benchmarks/tflite-import.sh [RUNS]
#
#===----------------------------------------------------------------------===#
set -eu
runs=${1:-5}
bin=build/bin
models=${MODELS:-../shared/models/tflite}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
timeit() {
  ts=""
  for i in $(seq "$runs"); do
    s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N)
    ts="$ts $(( (e - s) / 1000000 ))"
  done
  echo "$ts" | median
}

printf 'x' > "$tmp/empty.tflite"
echo "start-up (failing run): $(timeit $bin/mem-opt-import "$tmp/empty.tflite") ms"
printf '| model | ops | tensors | TOSA ops | memory-report peak (B) | memory-schedule peak (B) | import median (ms) |\n'
printf '|---|---|---|---|---|---|---|\n'
for f in "$models"/*.tflite; do
  m=$(basename "$f" .tflite)
  $bin/mem-opt-import "$f" -o "$tmp/$m.mlir"
  dec=$(/usr/bin/python3 test/Import/TFLite/tflite_tensors.py "$f")
  ops=$(echo "$dec" | grep -c '^op ')
  tensors=$(echo "$dec" | grep -c '^[0-9]')
  tosa=$(grep -c '= tosa\.\|= "tosa' "$tmp/$m.mlir")
  report=$($bin/mem-opt "$tmp/$m.mlir" --memory-report -o /dev/null 2>&1 | sed -n 's/.*peak: \([0-9]*\) bytes.*/\1/p')
  sched=$($bin/mem-opt "$tmp/$m.mlir" --memory-schedule -o - | sed -n 's/.*memopt.peak_bytes = \([0-9]*\).*/\1/p' | head -1)
  t=$(timeit $bin/mem-opt-import "$f" -o /dev/null)
  printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$m" "$ops" "$tensors" "$tosa" "$report" "$sched" "$t"
done
