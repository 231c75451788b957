#!/usr/bin/env python3
# ===- fit-instruction-rates.py - Fit the report's instruction rates ------=== #
#
# Part of the mem-opt project.
#
# usage: benchmarks/fit-instruction-rates.py [--build build] COUNTS MODEL...
#
# Fits the rates of the compile report's instruction estimate
# (lib/Compiler/CompileLayers.cpp; docs/CortexM.md, "Instruction estimate")
# to QEMU's per-layer counts. COUNTS is the output of
#
#   benchmarks/cortex-m-icount.sh --functions --cpu ... MODEL...
#
# For every model and CPU of COUNTS, `mem-opt-compile MODEL --cpu=CPU
# --report=json` gives each layer's work by kernel kind (its `work`) and the
# current estimate. The layer functions (`<model>.extracted.N`, one per loop
# nest, in schedule order) are assigned to the layers in order: each layer
# with work takes a run of consecutive functions (possibly none), the runs
# chosen to minimize the squared log-ratio of the current estimate to the
# run's count (dynamic programming; layers without work take none). Per CPU,
# the rates minimize the squared error of the layers' counts, each layer's
# as a fraction of its model's total (every model weighs the same), with
# every rate >= 0 (kinds without work are not fitted). Prints the
# rates in tenths, the per-model totals (measured, current estimate, fit)
# and the layers the fit misses most.
#
# ===--------------------------------------------------------------------=== #

import argparse
import itertools
import json
import math
import os
import re
import subprocess
import sys

import numpy

KINDS = ("conv_macs", "narrow_conv_macs", "depthwise_macs",
         "strided_depthwise_macs", "fully_connected_macs", "float_macs",
         "accumulators", "elements", "window_elements")


def read_counts(path):
    """{(model, cpu): {"total": n, "functions": {name: n}}} of COUNTS."""
    counts = {}
    in_functions = False
    for line in open(path):
        line = line.strip()
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("|") and len(cells) > 3 and cells[2].isdigit():
            counts.setdefault((cells[0], cells[1]), {"functions": {}})[
                "total"] = int(cells[2])
        elif line.startswith("Per function"):
            in_functions = True
        elif in_functions and line:
            model, cpu, function, n = line.split()[:4]
            counts.setdefault((model, cpu), {"functions": {}})[
                "functions"][function] = int(n)
    return counts


def report(build, model, cpu):
    """The JSON report's only function of MODEL on CPU."""
    out = subprocess.run(
        [os.path.join(build, "bin", "mem-opt-compile"), model,
         "--cpu=" + cpu, "--report=json", "--quiet"],
        check=True, capture_output=True, text=True).stdout
    return json.loads(out)["functions"][0]


def layer_functions(stem, functions):
    """The counts of <stem>.extracted[.N], in N's order."""
    nests = []
    for name, n in functions.items():
        match = re.fullmatch(re.escape(stem) + r"\.extracted(?:\.(\d+))?",
                             name)
        if match:
            nests.append((int(match.group(1) or 0), n))
    return [n for _, n in sorted(nests)]


def assign(estimates, nests):
    """Splits NESTS (in order) into one run per estimate (in order),
    minimizing the sum of squared log-ratios; returns the runs' sums."""
    def cost(estimate, measured):
        return (math.log1p(measured) - math.log1p(estimate)) ** 2

    prefix = [0] + list(itertools.accumulate(nests))
    m = len(nests)
    inf = float("inf")
    best = [[inf] * (m + 1) for _ in estimates] + [[inf] * (m + 1)]
    choice = [[0] * (m + 1) for _ in estimates]
    best[0][0] = 0.0
    for i, estimate in enumerate(estimates):
        for j in range(m + 1):
            for k in range(j + 1):
                if best[i][k] == inf:
                    continue
                c = best[i][k] + cost(estimate, prefix[j] - prefix[k])
                if c < best[i + 1][j]:
                    best[i + 1][j], choice[i][j] = c, k
    runs, j = [], m
    for i in reversed(range(len(estimates))):
        k = choice[i][j]
        runs.append(prefix[j] - prefix[k])
        j = k
    return list(reversed(runs))


def fit(rows):
    """Rates (per unit) >= 0 minimizing the weighted squared error of ROWS,
    (work vector, measured, weight); None for kinds without work."""
    used = [k for k in range(len(KINDS)) if any(r[0][k] for r in rows)]
    a = numpy.array([[r[0][k] * r[2] for k in used] for r in rows], float)
    b = numpy.array([r[1] * r[2] for r in rows], float)
    best = None
    # Every subset of the used kinds free, the others at 0: the best
    # non-negative solution (few kinds, so all subsets).
    for size in range(len(used), 0, -1):
        for free in itertools.combinations(range(len(used)), size):
            x, *_ = numpy.linalg.lstsq(a[:, free], b, rcond=None)
            if (x < 0).any():
                continue
            error = float(((a[:, free] @ x - b) ** 2).sum())
            if best is None or error < best[0]:
                full = [0.0] * len(used)
                for f, v in zip(free, x):
                    full[f] = float(v)
                best = (error, full)
    rates = [None] * len(KINDS)
    for k, v in zip(used, best[1]):
        rates[k] = v
    return rates


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default="build")
    parser.add_argument("counts")
    parser.add_argument("models", nargs="+")
    args = parser.parse_args()
    counts = read_counts(args.counts)
    cpus = sorted({cpu for _, cpu in counts})
    for cpu in cpus:
        rows, models = [], []
        for path in args.models:
            stem = os.path.splitext(os.path.basename(path))[0]
            if (stem, cpu) not in counts:
                continue
            measured = counts[(stem, cpu)]
            fn = report(args.build, path, cpu)
            layers = [l for l in fn["layers"]
                      if any(l["work"][k] for k in KINDS)]
            runs = assign([l["instructions"] for l in layers],
                          layer_functions(fn["name"], measured["functions"]))
            total = measured["total"]
            for layer, n in zip(layers, runs):
                rows.append(([layer["work"][k] for k in KINDS], n,
                             1.0 / total, stem, layer))
            models.append((stem, total, fn["instructions"],
                           [l["work"] for l in layers]))
        rates = fit([r[:3] for r in rows])
        print("%s rates (instructions per unit, in tenths): %s" % (
            cpu, ", ".join("%s %.2f (%d)" % (k, v, round(10 * v))
                           for k, v in zip(KINDS, rates) if v is not None)))
        tenths = [round(10 * (v or 0)) for v in rates]
        print("| model | CPU | measured | estimate | error | fitted | error |")
        print("|---|---|--:|--:|--:|--:|--:|")
        for stem, total, estimate, works in models:
            fitted = sum((sum(w[k] * t for k, t in zip(KINDS, tenths)) + 5)
                         // 10 for w in works)
            print("| %s | %s | %d | %d | %+.1f%% | %d | %+.1f%% |" % (
                stem, cpu, total, estimate, 100.0 * (estimate - total) / total,
                fitted, 100.0 * (fitted - total) / total))
        def predict(work):
            return sum(a * t for a, t in zip(work, tenths)) / 10.0

        worst = sorted(rows, key=lambda r: -abs(predict(r[0]) - r[1]) * r[2])
        for work, n, _, stem, layer in worst[:5]:
            fitted = predict(work)
            print("  %s %s layer %d %s: measured %d, fitted %d (%+.0f%%)" % (
                stem, cpu, layer["layer"], layer["kind"], n, fitted,
                100.0 * (fitted - n) / max(n, 1)))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
