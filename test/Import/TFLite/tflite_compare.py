#!/usr/bin/python3
# ===- tflite_compare.py - Imported model vs numpy reference --------------=== #
#
# Part of the mem-opt project.
#
# ===----------------------------------------------------------------------=== #
#
# tflite_compare.py MODEL.tflite IMPORTED.mlir MEM_OPT_RUN [SEED]
#
# Runs an imported int8 model on the host (mem-opt-run, on seeded random
# inputs written to a raw little-endian file) and the numpy reference
# (tflite_reference.py, reading the file through tflite_tensors.py) on the
# same inputs, with TFLite's double rounding and with TOSA's single rounding.
# Prints the largest difference, in output units, against each, and "PASS"
# when the imported model is within TOLERANCE (environment, default 1) of
# TFLite's double rounding, which the importer's DOUBLE_ROUND rescales
# follow.
#
# ===----------------------------------------------------------------------=== #

import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tflite_reference  # noqa: E402
import tflite_tensors  # noqa: E402

def run_imported(path, args, results, runner):
    """Runs @main of module `path` with mem-opt-run on `args` [(tensor,
    array)] and returns the `results` [tensor] as int64 arrays."""
    with tempfile.TemporaryDirectory() as d:
        inp, out = os.path.join(d, "in.bin"), os.path.join(d, "out.bin")
        with open(inp, "wb") as f:
            for t, a in args:
                f.write(a.astype(tflite_reference.DTYPES[t["type"]])
                        .astype("<" + np.dtype(
                            tflite_reference.DTYPES[t["type"]]).str[1:])
                        .tobytes())
        p = subprocess.run([runner, path, "--entry=main", "--inputs=" + inp,
                            "--outputs=" + out], capture_output=True,
                           text=True)
        if p.returncode != 0:
            raise SystemExit("FAIL: mem-opt-run: " + p.stderr[-2000:])
        raw = open(out, "rb").read()
    outs = []
    at = 0
    for t in results:
        dt = np.dtype(tflite_reference.DTYPES[t["type"]]).newbyteorder("<")
        n = int(np.prod(t["shape"]))
        outs.append(np.frombuffer(raw, dtype=dt, count=n, offset=at)
                    .astype(np.int64).reshape(t["shape"]))
        at += n * dt.itemsize
    return outs


def main():
    tflite, imported, runner = sys.argv[1:4]
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    tolerance = int(os.environ.get("TOLERANCE", "1"))
    model = tflite_tensors.decode(tflite)
    rng = np.random.default_rng(seed)
    ts = model["tensors"]
    args = []
    inputs = []
    for i in model["inputs"]:
        lo, hi = tflite_reference.RANGES[ts[i]["type"]]
        a = rng.integers(lo, hi + 1, size=ts[i]["shape"], dtype=np.int64)
        args.append((ts[i], a))
        inputs.append(a)
    # SVDF states start at their zero point (TFLite Micro resets variable
    # tensors so), in operator order, as the importer appends them.
    states = []
    state_tensors = [op["inputs"][4] for op in model["ops"]
                     if op["op"] == "SVDF"]
    for i in state_tensors:
        zp = (ts[i]["zero_point"] or [0])[0]
        a = np.full(ts[i]["shape"], zp, dtype=np.int64)
        args.append((ts[i], a))
        states.append(a)
    results = [ts[i] for i in model["outputs"]] + [ts[i]
                                                   for i in state_tensors]
    got = run_imported(imported, args, results, runner)
    worst = {}
    for rounding in ("single", "double"):
        outs, new_states = tflite_reference.run(model, inputs, rounding,
                                                states)
        diff = 0
        for g, r in zip(got, outs + new_states):
            diff = max(diff, int(np.abs(g - r.reshape(g.shape)).max()))
        worst[rounding] = diff
        print("%s rounding: max difference %d" % (rounding, diff))
    ok = worst["double"] <= tolerance
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
