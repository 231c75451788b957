#!/usr/bin/env bash
#===- cortex-m-icount.sh - Instructions per inference on emulated Cortex-M -===#
#
# Part of the mem-opt project.
#
# For each model and CPU, runs test/Pipelines/firmware/run_model.py --icount:
# mem-opt-compile builds the object, the firmware runs it on QEMU's board of
# that CPU with seeded inputs, the outputs are checked against mem-opt-run's
# host run (int8 bit-exact) and the canary around the arena, and the model
# call's instructions are counted twice: exactly, by a QEMU TCG plugin
# (test/Pipelines/firmware/icount-plugin.c), and by SysTick under
# `-icount shift=0` (one tick every 40 instructions at 25 MHz, 31.25 at the
# 32 MHz of mps3-an547), after both
# counters are checked on a calibration loop of known length. On M4 and M7
# the plugin also estimates the call's cycles from a table of the CPU's
# timings (test/Pipelines/firmware/cycle-model.c; docs/CortexM.md, "Cycles
# per inference"). Prints a Markdown table: instructions per inference (the
# plugin's), estimated cycles (`-` on M55), MACs, instructions and cycles
# per MAC, arena and flash (the object's code + constants).
#
# Usage: benchmarks/cortex-m-icount.sh [options] [model.{tflite,mlir} ...]
#   --build DIR         mem-opt's build directory (default build)
#   --cpu CPU           cortex-m4 (mps2-an386), cortex-m7 (mps2-an500),
#                       cortex-m55 (mps3-an547); default all three;
#                       repeatable
#   --functions         also print every function's instructions and cycles (per layer:
#                       mem-opt-compile emits one function per layer)
#   --compile-arg ARG   passed to mem-opt-compile (repeatable)
#   --timeout S         QEMU's timeout per run (default 600)
#   --work DIR          scratch directory (default: a temporary one, removed)
# Without models: every .tflite of ../shared/models/tflite and the zoo's
# int8 models (ZOO below). A .tflite is imported with mem-opt-import first
# (mem-opt-run needs TOSA).
#
#===------------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$PWD
BUILD=build
CPUS=()
FUNCTIONS=
COMPILE_ARGS=()
TIMEOUT=600
WORK=
MODELS=()
# The zoo's int8 models that run on the boards (4 MiB of code, 4 MiB of
# activation SRAM), at their default options.
ZOO=(mobilenet-v2 mcunet squeezenet-fire resnet-block swiftnet-vww-cell
     densenet-block darts-v2-cifar randwire-ws)
while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD=$2; shift 2 ;;
    --cpu) CPUS+=("$2"); shift 2 ;;
    --functions) FUNCTIONS=--icount-functions; shift ;;
    --compile-arg) COMPILE_ARGS+=("--compile-arg=$2"); shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    -h|--help) sed -n '/^# Usage/,/^#===/{/^#===/!p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "unknown option $1" >&2; exit 1 ;;
    *) MODELS+=("$1"); shift ;;
  esac
done
[ ${#CPUS[@]} -gt 0 ] || CPUS=(cortex-m4 cortex-m7 cortex-m55)
BUILD=$(cd "$BUILD" && pwd)
if [ -z "$WORK" ]; then
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"

if [ ${#MODELS[@]} -eq 0 ]; then
  for m in "$SRC"/../shared/models/tflite/*.tflite; do
    [ -e "$m" ] && MODELS+=("$m")
  done
  for z in "${ZOO[@]}"; do
    "$BUILD/bin/mem-opt-zoo" --model="$z" --dtype=i8 -o "$WORK/zoo_${z//-/_}_i8.mlir"
    MODELS+=("$WORK/zoo_${z//-/_}_i8.mlir")
  done
fi

CPU_ARGS=()
for c in "${CPUS[@]}"; do CPU_ARGS+=(--cpu "$c"); done

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }

ROWS=()
DETAILS=()
STATUS=0
for m in "${MODELS[@]}"; do
  name=$(basename "$m"); name=${name%.*}
  mlir=$m
  if [ "${m##*.}" != mlir ]; then
    mlir="$WORK/$name.mlir"
    "$BUILD/bin/mem-opt-import" "$m" -o "$mlir"
  fi
  out=$(/usr/bin/python3 "$SRC/test/Pipelines/firmware/run_model.py" "$mlir" \
          --tools "$BUILD/bin" --work "$WORK/run-$name" --seed 1 \
          --timeout "$TIMEOUT" --icount $FUNCTIONS "${CPU_ARGS[@]}" \
          ${COMPILE_ARGS[@]+"${COMPILE_ARGS[@]}"} 2>&1) || {
    STATUS=1
    echo "$name: FAILED" >&2
    echo "$out" >&2
  }
  while read -r line; do
    cpu=$(echo "$line" | sed -n 's/^ICOUNT \([^ ]*\) .*/\1/p')
    ROWS+=("| $name | $cpu | $(echo "$line" | field instructions) | $(echo "$line" | field cycles) | $(echo "$line" | field macs) | $(echo "$line" | field instructions_per_mac) | $(echo "$line" | field cycles_per_mac) | $(echo "$line" | field arena) | $(echo "$line" | field flash) | $(echo "$line" | field code) | $(echo "$line" | field systick_instructions) |")
  done < <(echo "$out" | grep '^ICOUNT ')
  if [ -n "$FUNCTIONS" ]; then
    while read -r line; do DETAILS+=("$name $line"); done \
      < <(echo "$out" | grep '^ICOUNT-FN ' | sed 's/^ICOUNT-FN //')
  fi
done

echo "| model | CPU | instructions | est. cycles | MACs | instructions/MAC | cycles/MAC | arena | flash | code | SysTick check |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${ROWS[@]}"
if [ -n "$FUNCTIONS" ]; then
  echo
  echo "Per function (model CPU function instructions share cycles):"
  printf '%s\n' "${DETAILS[@]}"
fi
exit $STATUS
