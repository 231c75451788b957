#!/usr/bin/env bash
#===- scale.sh - Time the passes on large graphs without choices -------------===#
#
# Generates chains, fan-outs, residual ladders and concat trees of 1k, 5k and
# 20k TOSA ops (benchmarks/scale-gen.py; SIZES, KINDS override) into
# build/bench-scale/ and prints, per graph, the median wall time over REPEAT
# runs (default 3) of
#   schedule  mem-opt --memory-schedule
#   plan      mem-opt --cortex-m-pipeline=stop-after=plan
#   compile   mem-opt-compile --quiet (a Cortex-M object)
# and, per kind and tool, the growth exponent: the least-squares slope of
# log(time) against log(ops). Every run has a timeout of TIMEOUT seconds
# (default 60); a run that reaches it prints '>T' (e.g. '>60'), is not
# repeated, and the larger sizes of that kind are not tried with that tool.
# The slope then uses T as a lower bound of the time and prints as '>=s'.
# Set MEMOPT_BUILD_DIR to use another build; the build must exist.
# Results are recorded in docs/Scale.md.
#
#===------------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${MEMOPT_BUILD_DIR:-build}"
OUT="$BUILD_DIR/bench-scale"
mkdir -p "$OUT"
read -r -a SIZES <<<"${SIZES:-1000 5000 20000}"
read -r -a KINDS <<<"${KINDS:-chain fanout ladder concat}"
REPEAT="${REPEAT:-3}"
TIMEOUT="${TIMEOUT:-60}"
TOOLS=(schedule plan compile)

# Runs tool $1 on file $2 once; prints the wall time in seconds, or '>T'.
run_once() {
  local tool=$1 file=$2 start end status=0
  local -a cmd
  case $tool in
  schedule) cmd=("$BUILD_DIR/bin/mem-opt" --memory-schedule "$file"
                 -o /dev/null) ;;
  plan) cmd=("$BUILD_DIR/bin/mem-opt" --cortex-m-pipeline=stop-after=plan
             "$file" -o /dev/null) ;;
  compile) cmd=("$BUILD_DIR/bin/mem-opt-compile" --quiet "$file"
                -o "$OUT/out.o") ;;
  esac
  start=$(date +%s.%N)
  timeout --kill-after=5 "$TIMEOUT" "${cmd[@]}" >/dev/null 2>"$OUT/last.err" ||
    status=$?
  end=$(date +%s.%N)
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo ">$TIMEOUT"
  elif [ "$status" -ne 0 ]; then
    echo "error"
    echo "scale.sh: $tool failed on $file:" >&2
    head -3 "$OUT/last.err" | cut -c1-300 >&2
  else
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", b - a }'
  fi
}

# Prints the median of REPEAT runs, or the first run's '>T' / 'error'.
run_median() {
  local tool=$1 file=$2 first i
  local -a times
  first=$(run_once "$tool" "$file")
  case $first in '>'* | error) echo "$first"; return ;; esac
  times=("$first")
  for ((i = 1; i < REPEAT; ++i)); do
    times+=("$(run_once "$tool" "$file")")
  done
  printf '%s\n' "${times[@]}" | sort -g |
    awk '{ t[NR] = $1 } END { if (NR % 2) print t[(NR + 1) / 2];
          else printf "%.3f\n", (t[NR / 2] + t[NR / 2 + 1]) / 2 }'
}

# Prints the least-squares slope of log(time) on log(ops) of "ops time"
# lines; a time '>T' counts as T and makes the slope a lower bound.
slope() {
  awk '{ t = $2; if (t ~ /^>/) { lower = 1; t = substr(t, 2) }
         if (t == "error" || t + 0 <= 0) next
         x = log($1); y = log(t); n++; sx += x; sy += y; sxx += x * x;
         sxy += x * y }
       END { if (n < 2) { print "-"; exit }
             s = (n * sxy - sx * sy) / (n * sxx - sx * sx);
             printf "%s%.2f\n", lower ? ">=" : "", s }'
}

echo "# mem-opt scale benchmark: median of $REPEAT runs, timeout ${TIMEOUT} s"
echo "# $(nproc) cores; $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
printf '%-8s %7s %10s %10s %10s\n' kind ops schedule plan compile
declare -A result
for kind in "${KINDS[@]}"; do
  declare -A stopped=()
  for n in "${SIZES[@]}"; do
    file="$OUT/$kind-$n.mlir"
    python3 benchmarks/scale-gen.py "$kind" "$n" >"$file"
    ops=$(grep -c ' = tosa\.' "$file")
    row=()
    for tool in "${TOOLS[@]}"; do
      if [ -n "${stopped[$tool]:-}" ]; then
        t="-"
      else
        t=$(run_median "$tool" "$file")
        case $t in '>'* | error) stopped[$tool]=1 ;; esac
      fi
      result[$kind,$tool,$ops]=$t
      row+=("$t")
    done
    result[$kind,ops]="${result[$kind,ops]:-} $ops"
    printf '%-8s %7s %10s %10s %10s\n' "$kind" "$ops" "${row[@]}"
  done
  unset stopped
done

echo
echo "# growth exponent (slope of log time on log ops)"
printf '%-8s %10s %10s %10s\n' kind schedule plan compile
for kind in "${KINDS[@]}"; do
  row=()
  for tool in "${TOOLS[@]}"; do
    row+=("$(for ops in ${result[$kind,ops]}; do
      t=${result[$kind,$tool,$ops]}
      if [ "$t" != "-" ]; then echo "$ops $t"; fi
    done | slope)")
  done
  printf '%-8s %10s %10s %10s\n' "$kind" "${row[@]}"
done
