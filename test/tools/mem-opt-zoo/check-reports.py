#!/usr/bin/env python3
# ===- check-reports.py - Consistency of the zoo's memory reports -----------===#
#
# Part of the mem-opt project.
#
# ===------------------------------------------------------------------------===#
#
# Generates every model of `mem-opt-zoo --list` (and the int8 variant of the
# cells), and checks that mem-opt models it and that its reports agree under
# the canonical model (whose live tensors add up to every step's bytes):
#   - the file-order report: peak == max(live bytes), the step at peak_step
#     has the peak, the tensors live at the peak add up to it;
#   - every baseline (memory-schedule algorithm=input|kahn|rpo|greedy) and the
#     exact engine: the recorded certificate peak equals the peak memory-report
#     measures on the reordered IR, lower bound <= peak, optimal <=> equal;
#   - input reproduces the file order's peak; exact <= file order and <= every
#     baseline; every proven lower bound is below every order's peak.
# Also checks that the zoo still has every family the benchmark report needs.
# Usage: check-reports.py <mem-opt-zoo> <mem-opt> <work dir>
#
# ===------------------------------------------------------------------------===#

import json
import os
import subprocess
import sys

REQUIRED = [
    "nasnet-a-normal", "nasnet-a-reduction", "amoebanet-a-normal",
    "amoebanet-a-reduction", "pnas-cell", "darts-v2-normal",
    "darts-v2-reduction", "nasnet-a-cifar", "amoebanet-a-cifar",
    "darts-v2-cifar", "pnas-cifar", "nasnet-a-imagenet", "amoebanet-a-imagenet",
    "darts-v2-imagenet", "pnas-imagenet", "randwire-ws", "randwire-ws-net",
    "swiftnet-vww-cell", "inception-v3-block", "squeezenet-fire",
    "densenet-block", "mobilenet-v2", "mcunet", "resnet-block", "hrnet-w18-small-block",
]
BASELINES = ["input", "kahn", "rpo", "greedy"]
# Keeps the test quick: the big random graphs stop at this limit and are
# then checked as "best found + gap".
EXACT_LIMIT_MS = 1500

zoo, memopt, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
errors = []


def fail(message):
    errors.append(message)
    print("error: " + message, file=sys.stderr)


def run(args):
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        fail("command failed: %s\n%s" % (" ".join(args), result.stderr))
        return None
    return result


def report(model_file, passes, tag):
    """Runs mem-opt with `passes` then memory-report=json; returns its functions."""
    out = os.path.join(work, tag + ".json")
    if run([memopt, model_file] + passes +
           ["--memory-report=model=canonical format=json output=" + out, "-o",
            os.devnull]) is None:
        return None
    with open(out) as f:
        return json.load(f)["functions"]


def check_profile(name, fn):
    steps = fn["steps"]
    peak = fn["peak_bytes"]
    if not steps:
        fail("%s: no steps" % name)
        return
    if peak != max(s["live_bytes"] for s in steps):
        fail("%s: peak %d is not the largest step" % (name, peak))
    if steps[fn["peak_step"]]["live_bytes"] != peak:
        fail("%s: step %d does not have the peak" % (name, fn["peak_step"]))
    if fn["peak_op"] != steps[fn["peak_step"]]["loc"]:
        fail("%s: peak_op is not the op at peak_step" % name)
    if sum(t["bytes"] for t in fn["live_at_peak"]) != peak:
        fail("%s: tensors live at the peak do not add up to it" % name)
    if [s["step"] for s in steps] != list(range(len(steps))):
        fail("%s: steps are not numbered 0..n-1" % name)


listing = run([zoo, "--list"])
models = [line.split()[0] for line in listing.stdout.splitlines()] if listing else []
for required in REQUIRED:
    if required not in models:
        fail("the zoo has no '%s'" % required)

variants = [(m, "f32") for m in models]
variants += [(m, "i8") for m in models if m.endswith(("-normal", "-reduction", "-cell"))]
for model, dtype in variants:
    tag = "%s-%s" % (model, dtype)
    path = os.path.join(work, tag + ".mlir")
    if run([zoo, "--model=" + model, "--dtype=" + dtype, "-o", path]) is None:
        continue
    base = report(path, [], tag + "-file")
    if base is None:
        continue
    if len(base) != 1:
        fail("%s: expected one function" % tag)
        continue
    check_profile(tag + " file order", base[0])
    file_peak = base[0]["peak_bytes"]
    peaks, bounds = {}, []
    for algorithm in BASELINES + ["exact"]:
        options = "algorithm=%s record-time=false time-limit-ms=%d" % (
            algorithm, EXACT_LIMIT_MS)
        fns = report(path, ["--memory-schedule=model=canonical " + options], tag + "-" + algorithm)
        if fns is None:
            continue
        fn = fns[0]
        check_profile("%s %s" % (tag, algorithm), fn)
        cert = fn["schedule"]
        what = "%s %s" % (tag, algorithm)
        if cert is None:
            fail("%s: no schedule certificate" % what)
            continue
        if cert["peak_bytes"] != fn["peak_bytes"]:
            fail("%s: certificate says %d bytes, the reordered IR peaks at %d"
                 % (what, cert["peak_bytes"], fn["peak_bytes"]))
        if cert["lower_bound"] > fn["peak_bytes"]:
            fail("%s: lower bound above the peak" % what)
        if cert["optimal"] != (cert["lower_bound"] == fn["peak_bytes"]):
            fail("%s: 'optimal' disagrees with peak == lower bound" % what)
        if len(fn["steps"]) != len(base[0]["steps"]):
            fail("%s: the order has a different number of steps" % what)
        peaks[algorithm] = fn["peak_bytes"]
        bounds.append(cert["lower_bound"])
    if "input" in peaks and peaks["input"] != file_peak:
        fail("%s: input order peaks at %d, the file order at %d"
             % (tag, peaks["input"], file_peak))
    if "exact" in peaks:
        for algorithm, peak in peaks.items():
            if peaks["exact"] > peak:
                fail("%s: exact (%d) is worse than %s (%d)"
                     % (tag, peaks["exact"], algorithm, peak))
    if bounds and peaks and max(bounds) > min(peaks.values()):
        fail("%s: a lower bound exceeds the peak of some order" % tag)
    print("%s: %d steps, file order %d, exact %s" % (
        tag, len(base[0]["steps"]), file_peak, peaks.get("exact")))

print("checked %d models, %d errors" % (len(variants), len(errors)))
sys.exit(1 if errors else 0)
