#!/usr/bin/env bash
#===- arena.sh - Benchmark the arena planners on MiniMalloc's instances ------===#
#
# Sets up and builds mem-opt, then runs mem-opt-arena-bench on the public
# MiniMalloc "challenging" instances (../shared/data/minimalloc/*.csv, or
# $MINIMALLOC_DIR) with the 1 MiB capacity they are known to fit in: for
# greedy-by-size and `best`, whether each fits, the arena against the liveness
# lower bound, and the median time over $REPEAT runs (default 5). Results are
# recorded in docs/ArenaPlanning.md.
#
#===------------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
BUILD_DIR="${MEMOPT_BUILD_DIR:-build}"
DATA="${MINIMALLOC_DIR:-../shared/data/minimalloc}"
"$BUILD_DIR/bin/mem-opt-arena-bench" --repeat="${REPEAT:-5}" \
  --capacity=1048576 --alignment=16 --time-limit-ms="${TIME_LIMIT_MS:-60000}" \
  "$DATA"/*.csv
