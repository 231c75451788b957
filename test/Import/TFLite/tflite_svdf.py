#!/usr/bin/python3
# ===- tflite_svdf.py - Small SVDF models against TFLite Micro's formulas --=== #
#
# Part of the mem-opt project.
#
# ===----------------------------------------------------------------------=== #
#
# tflite_svdf.py write CASE OUT.tflite [--flatc=flatc]
# tflite_svdf.py check CASE MODEL.tflite IMPORTED.mlir MEM_OPT_RUN [--steps=N]
#
# `write` describes a one-operator int8 SVDF model in flatc's JSON form of
# lib/Import/tflite_schema.fbs and lets flatc write the .tflite. `check`
# runs the imported model (mem-opt-run) for STEPS calls, feeding each call's
# states into the next, from the case's initial state, and
# tflite_reference.py (TFLite Micro's integer SVDF: the product clamped to
# the state type, then the state's zero point added with wrap-around; scales
# multiplied in float) on the same inputs. It prints, per call, the
# differing output and state bytes, how many state entries wrapped
# (clamped product plus zero point outside the state type) and how many
# differ from a saturating update; with --print, also the bytes. It first
# prints TFLite Micro's two multipliers (float scale products, TFLite's
# QuantizeMultiplier) as TOSA rescale constants.
#
# Cases: `hand` (4 filters, rank 1, memory 2, computed by hand in
# tflite-svdf.test), `i8-neg` (state zero point -13, as keyword_scrambled),
# `i8-pos` (+37), `i16` (int16 state and time weights, zero point 1000),
# all with products beyond the state type at both ends.
#
# ===----------------------------------------------------------------------=== #

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tflite_compare  # noqa: E402
import tflite_reference  # noqa: E402
import tflite_tensors  # noqa: E402

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                      "..", "lib", "Import", "tflite_schema.fbs")
SVDF = 27
NP = {"INT8": np.int8, "INT16": np.int16, "INT32": np.int32}


def case(name):
    """The case's parameters: shapes, types, quantization, constants and
    the initial state, and a function giving each call's input."""
    if name == "hand":
        # x . wf = 150, -150, 100, 0; feature scale 1; state zero point -13.
        return {
            "batch": 1, "input": 2, "filters": 4, "rank": 1, "memory": 2,
            "state_type": "INT8", "in_q": (1.0, 0), "wf_scale": 1.0,
            "st_q": (1.0, -13), "wt_scale": 1.0, "out_q": (8.0, 0),
            "wf": np.array([[1, 1], [-1, -1], [1, 0], [0, 0]]),
            "wt": np.ones((4, 2), dtype=np.int64),
            "bias": np.array([8, 0, 0, 0]),
            "state": np.array([[1, 2, 3, 4, 5, 6, 7, 8]]),
            "inputs": lambda step: np.array([[100, 50]]),
        }
    rng = np.random.default_rng({"i8-neg": 11, "i8-pos": 12,
                                 "i16": 13}[name])
    st_type = "INT16" if name == "i16" else "INT8"
    lo, hi = tflite_reference.RANGES[{"INT8": "i8", "INT16": "i16"}[st_type]]
    b, i, f, r, m = 2, 24, 16, 2, 5
    if name == "i16":
        # Feature factor ~1.3: products of ~35,000 typically, up to ~2^19.
        st_q, wt_scale, in_q = (0.00013, 1000), 0.0021, (0.041, 3)
        wf_scale, out_q = 0.004, (0.5, -7)
    else:
        # Feature factor ~0.0055: products of ~150 typically, up to ~2,000.
        st_q = (0.043, -13 if name == "i8-neg" else 37)
        wt_scale, in_q, wf_scale = 0.0032, (0.0227, -5), 0.0104
        out_q = (0.09, 4)
    span = min(hi, 30000)
    return {
        "batch": b, "input": i, "filters": f, "rank": r, "memory": m,
        "state_type": st_type, "in_q": in_q, "wf_scale": wf_scale,
        "st_q": st_q, "wt_scale": wt_scale, "out_q": out_q,
        "wf": rng.integers(-127, 128, size=(f, i)),
        "wt": rng.integers(-span, span + 1, size=(f, m)) // (
            1 if st_type == "INT8" else 8),
        "bias": rng.integers(-4000, 4001, size=(f // r,)),
        "state": rng.integers(lo, hi + 1, size=(b, f * m)),
        "inputs": lambda step: np.random.default_rng(100 + step).integers(
            -128, 128, size=(b, i)),
    }


def model_json(c):
    """flatc's JSON of the case's one-SVDF model."""
    buffers = [{}]
    tensors = []

    def tensor(name, shape, ttype, q, data=None, variable=False):
        buf = 0
        if data is not None:
            buffers.append({"data": list(np.asarray(data).astype(
                np.dtype(NP[ttype]).newbyteorder("<")).tobytes())})
            buf = len(buffers) - 1
        t = {"shape": list(shape), "type": ttype, "buffer": buf,
             "name": name, "quantization": {"scale": [q[0]],
                                            "zero_point": [q[1]]}}
        if variable:
            t["is_variable"] = True
        tensors.append(t)
        return len(tensors) - 1

    b, f, m = c["batch"], c["filters"], c["memory"]
    st = c["state_type"]
    x = tensor("input", [b, c["input"]], "INT8", c["in_q"])
    wf = tensor("weights_feature", [f, c["input"]], "INT8",
                (c["wf_scale"], 0), c["wf"])
    wt = tensor("weights_time", [f, m], st, (c["wt_scale"], 0), c["wt"])
    bias = tensor("bias", [f // c["rank"]], "INT32",
                  (c["st_q"][0] * c["wt_scale"], 0), c["bias"])
    state = tensor("state", [b, f * m], st, c["st_q"], variable=True)
    out = tensor("output", [b, f // c["rank"]], "INT8", c["out_q"])
    return {
        "version": 3,
        "operator_codes": [{"deprecated_builtin_code": SVDF, "version": 1,
                            "builtin_code": SVDF}],
        "subgraphs": [{
            "tensors": tensors, "inputs": [x], "outputs": [out],
            "operators": [{
                "opcode_index": 0, "inputs": [x, wf, wt, bias, state],
                "outputs": [out], "builtin_options_type": "SVDFOptions",
                "builtin_options": {"rank": c["rank"]}}],
            "name": "main"}],
        "description": "mem-opt test/Import/TFLite/tflite_svdf.py",
        "buffers": buffers}


def write(args):
    tmp = tempfile.mkdtemp()
    try:
        path = os.path.join(tmp, "svdf.json")
        with open(path, "w") as f:
            json.dump(model_json(case(args.case)), f)
        res = subprocess.run([args.flatc, "-b", "-o", tmp, SCHEMA, path],
                             capture_output=True, text=True)
        if res.returncode != 0:
            sys.stderr.write("flatc failed:\n%s%s" % (res.stdout, res.stderr))
            return 1
        shutil.copyfile(os.path.join(tmp, "svdf.tflite"), args.output)
    finally:
        shutil.rmtree(tmp)
    return 0


def check(args):
    c = case(args.case)
    model = tflite_tensors.decode(args.tflite)
    ts = model["tensors"]
    op = model["ops"][0]
    x_t, st_t = ts[model["inputs"][0]], ts[op["inputs"][4]]
    results = [ts[model["outputs"][0]], st_t]
    # TFLite Micro's multipliers, as TOSA rescale constants (shift 31 - e).
    scale = [t["scale"][0] for t in (ts[op["inputs"][0]], ts[op["inputs"][1]],
                                     st_t, ts[op["inputs"][2]], results[0])]
    for what, (a, b_, c_) in (("feature", scale[0:3]),
                              ("output", (scale[2], scale[3], scale[4]))):
        q, e = tflite_reference.quantize_multiplier(
            tflite_reference.f32_scale(a, b_, c_))
        print("%s multiplier %d shift %d" % (what, q, 31 - e))
    state = c["state"].astype(np.int64)
    failed = False
    for step in range(args.steps):
        x = c["inputs"](step).astype(np.int64)
        got_out, got_state = tflite_compare.run_imported(
            args.imported, [(x_t, x), (st_t, state)], results, args.runner)
        stats = {}
        outs, states = tflite_reference.run(model, [x], "double", [state],
                                            stats=stats)
        want_out, want_state = outs[0], states[0].reshape(state.shape)
        d_out = int((got_out != want_out.reshape(got_out.shape)).sum())
        d_state = int((got_state != want_state).sum())
        print("call %d: %d of %d output bytes differ, %d of %d state "
              "entries differ; %d wrapped, %d differ from saturation"
              % (step, d_out, want_out.size, d_state, want_state.size,
                 stats["svdf_wrapped"], stats["svdf_unsaturated"]))
        if args.print:
            print("  output %s" % " ".join(str(int(v))
                                           for v in got_out.ravel()))
            print("  state %s" % " ".join(str(int(v))
                                          for v in got_state.ravel()))
        failed = failed or d_out or d_state
        state = got_state
    print("FAIL" if failed else "PASS")
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("write")
    w.add_argument("case")
    w.add_argument("output")
    w.add_argument("--flatc", default="flatc")
    k = sub.add_parser("check")
    k.add_argument("case")
    k.add_argument("tflite")
    k.add_argument("imported")
    k.add_argument("runner")
    k.add_argument("--steps", type=int, default=3)
    k.add_argument("--print", action="store_true")
    args = ap.parse_args()
    return write(args) if args.cmd == "write" else check(args)


if __name__ == "__main__":
    sys.exit(main())
