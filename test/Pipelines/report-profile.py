#!/usr/bin/env python3
# ===- report-profile.py - The report's profile is the schedule's peak ------===#
#
# Part of the mem-opt project.
#
# ===------------------------------------------------------------------------===#
#
# For every model given (in both io= modes) and every zoo model (f32 and
# int8, io=arena), runs `mem-opt-compile -O0 --report=json` and checks that
# the report's numbers agree:
#
#   max over the layers of live_bytes == profile_peak_bytes
#     == schedule.peak_bytes (memopt.peak_bytes, what the scheduler proved)
#   the layer named in peak_op is the first one at that peak (it has
#     peak_step), and the layers' steps add up to the function's
#   the sum of the layers' MACs == the function's MACs
#   sram_bytes == arena_bytes + caller_io_bytes, and, when the placement
#     reaches the liveness bound, == schedule.peak_bytes (the one number)
#
# Usage: report-profile.py <mem-opt-compile> <mem-opt-zoo> <work dir> <model>...
#
# ===------------------------------------------------------------------------===#
import json
import os
import subprocess
import sys


def check(compiler, model, io):
    result = subprocess.run([compiler, model, "--quiet", "-O0", "--io=" + io,
                             "--report=json"], capture_output=True, text=True)
    if result.returncode != 0:
        return ["%s: mem-opt-compile failed:\n%s" % (model, result.stderr)]
    errors = []
    for fn in json.loads(result.stdout)["functions"]:
        where = "%s (io=%s) @%s" % (os.path.basename(model), io, fn["name"])
        layers = fn["layers"]
        peak = fn["schedule"]["peak_bytes"]
        live = [layer["live_bytes"] for layer in layers]
        if max(live) != fn["profile_peak_bytes"] or peak != max(live):
            errors.append("%s: profile peaks at %d, report says %d, schedule %d"
                          % (where, max(live), fn["profile_peak_bytes"], peak))
        row = live.index(max(live))
        if (fn["peak_op"]["layer"] != row
                or fn["peak_op"]["name"] != layers[row]["name"]
                or fn["peak_op"]["step"] != fn["peak_step"]
                or fn["peak_step"] < layers[row]["first_step"]):
            errors.append("%s: peak op %s, first peak at layer %d" %
                          (where, fn["peak_op"], row))
        if sum(layer["steps"] for layer in layers) != fn["steps"]:
            errors.append("%s: layers have %d steps, the function %d" % (
                where, sum(layer["steps"] for layer in layers), fn["steps"]))
        if sum(layer["macs"] for layer in layers) != fn["macs"]:
            errors.append("%s: layers have %d MACs, the function %d" % (
                where, sum(layer["macs"] for layer in layers), fn["macs"]))
        if fn["sram_bytes"] != fn["arena_bytes"] + fn["caller_io_bytes"]:
            errors.append("%s: SRAM %d != arena %d + caller I/O %d" % (
                where, fn["sram_bytes"], fn["arena_bytes"], fn["caller_io_bytes"]))
        if (fn["arena_bytes"] == fn["liveness_lower_bound_bytes"]
                and fn["sram_bytes"] != peak):
            errors.append("%s: SRAM %d != schedule peak %d" % (
                where, fn["sram_bytes"], peak))
    return errors


def main():
    compiler, zoo, work = sys.argv[1:4]
    runs = [(model, io) for model in sys.argv[4:] for io in ("arena", "caller")]
    os.makedirs(work, exist_ok=True)
    names = [line.split()[0] for line in subprocess.run(
        [zoo, "--list"], capture_output=True, text=True,
        check=True).stdout.splitlines() if line.strip()]
    for name in names:
        for dtype in ("f32", "i8"):
            path = os.path.join(work, "%s-%s.mlir" % (name, dtype))
            subprocess.run([zoo, "--model=" + name, "--dtype=" + dtype, "-o", path],
                           check=True)
            runs.append((path, "arena"))
    errors = []
    for model, io in runs:
        errors += check(compiler, model, io)
    for error in errors:
        print("ERROR " + error)
    print("checked %d runs, %d errors" % (len(runs), len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
