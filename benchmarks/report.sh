#!/usr/bin/env bash
#===- report.sh - Regenerate docs/benchmarks.md ------------------------------===#
#
# Sets up and builds mem-opt, then runs benchmarks/report.py: every zoo family
# under every schedule (file order, Kahn, RPO, greedy, exact), with partition
# and arena size when those passes exist, one timeline SVG per model, and the
# scaling series. Writes docs/benchmarks.md, docs/benchmarks.csv,
# docs/benchmarks.json and docs/benchmarks/*.svg. Takes about 10 minutes on 2
# cores; extra arguments (or REPORT_ARGS) go to report.py, e.g. --quick.
#
#===------------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
BUILD_DIR="${MEMOPT_BUILD_DIR:-build}"
# The report needs only Python's standard library.
exec python3 benchmarks/report.py --build "$BUILD_DIR" ${REPORT_ARGS:-} "$@"
