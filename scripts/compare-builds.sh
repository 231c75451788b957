#!/usr/bin/env bash
#===- compare-builds.sh - Same objects, headers and reports from two builds -===#
#
# Compiles every shared model (../shared/models: the TFLite models, the
# MLPerf Tiny models and the TOSA ones) and the bundled examples with two
# builds' mem-opt-compile, under several configurations (M4, M7 and M55,
# io=caller with patches, TFLite's double rounding, --optimize levels), and
# imports every TFLite model with both mem-opt-import. It then compares,
# file by file, the object, the C header, the JSON report, the imported
# MLIR, the exit code and the diagnostics. The version string (the JSON
# report's "mem_opt_version") is the one difference allowed.
#
#   scripts/compare-builds.sh <old build dir> <new build dir> [work dir]
#
# A restructure that claims "no change in behaviour" runs this with a build
# of the commit before it and a build after it (docs/Development.md). Exits
# 1 and lists the files that differ when any does.
#
#===------------------------------------------------------------------------===#
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 <old build dir> <new build dir> [work dir]" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
old="$(cd "$1" && pwd)"
new="$(cd "$2" && pwd)"
work="${3:-$(mktemp -d)}"
mkdir -p "$work"
shared="${MEMOPT_SHARED_DIR:-$root/../shared}"
if [ ! -d "$shared/models" ]; then
  echo "compare-builds: no shared models at $shared/models" >&2
  exit 2
fi

models=()
while IFS= read -r m; do models+=("$m"); done < <(
  find "$shared/models" "$root/examples" -maxdepth 3 \
    \( -name '*.tflite' -o -name '*.mlir' -o -name '*.onnx' \) \
    -not -path '*/downstream/*' | sort)

# One configuration a line: a short tag, then mem-opt-compile's options.
configs=(
  "m4 --cpu=cortex-m4"
  "m7 --cpu=cortex-m7"
  "m55 --cpu=cortex-m55"
  "m4-caller-patches --cpu=cortex-m4 --io=caller --patches=auto"
  "m7-double --cpu=cortex-m7 --tflite-double-round"
  "m4-speed --cpu=cortex-m4 --optimize=speed"
  "m55-memory --cpu=cortex-m55 --optimize=memory"
)

# Runs one job: <side> <tag> <model> <options...>. Writes the object, the
# header, the report, the exit code and the diagnostics under
# $work/<side>/<model>.<tag>.*.
run_one() {
  local side="$1" tag="$2" model="$3"
  shift 3
  local bin="$old/bin"
  [ "$side" = new ] && bin="$new/bin"
  local base
  base="$work/$side/$(basename "$model").$tag"
  set +e
  if [ "$tag" = import ]; then
    "$bin/mem-opt-import" "$model" -o "$base.mlir" 2>"$base.err"
  else
    "$bin/mem-opt-compile" "$model" "$@" --quiet -o "$base.o" \
      --header "$base.h" --report=json >"$base.json" 2>"$base.err"
  fi
  echo $? >"$base.rc"
  set -e
  # Diagnostics name the build's own paths; the version is allowed to differ.
  sed -i -e "s#$old#BUILD#g; s#$new#BUILD#g" "$base.err"
  if [ -f "$base.json" ]; then
    sed -i -e 's/"mem_opt_version": *"[^"]*"/"mem_opt_version": ""/' \
      "$base.json"
  fi
}
export -f run_one
export old new work

mkdir -p "$work/old" "$work/new"
jobs=()
for model in "${models[@]}"; do
  for side in old new; do
    case "$model" in
    *.tflite) jobs+=("$side import $model") ;;
    esac
    for config in "${configs[@]}"; do
      jobs+=("$side ${config%% *} $model ${config#* }")
    done
  done
done
printf '%s\n' "${jobs[@]}" |
  xargs -P "${MEMOPT_COMPARE_JOBS:-2}" -L 1 bash -c 'run_one "$@"' _

status=0
count=0
for file in "$work"/old/*; do
  name="$(basename "$file")"
  count=$((count + 1))
  if ! cmp -s "$file" "$work/new/$name"; then
    echo "differs: $name"
    status=1
  fi
done
for file in "$work"/new/*; do
  [ -e "$work/old/$(basename "$file")" ] || {
    echo "only in the new build: $(basename "$file")"
    status=1
  }
done
echo "compare-builds: $count files from ${#models[@]} models compared" \
  "($(grep -L '^0$' "$work"/old/*.rc | wc -l) runs failed the same way in" \
  "both); $([ $status = 0 ] && echo 'all identical' || echo 'see above')"
exit $status
