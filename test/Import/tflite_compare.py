#!/usr/bin/python3
# ===- tflite_compare.py - Imported model vs numpy reference --------------=== #
#
# Part of the mem-opt project.
#
# ===----------------------------------------------------------------------=== #
#
# tflite_compare.py MODEL.tflite IMPORTED.mlir LLVM_BIN [SEED]
#
# Runs an imported int8 model on the host (a wrapper calls @main on seeded
# random inputs; upstream lowering; mlir-runner) and the numpy reference
# (tflite_reference.py, reading the file through tflite_tensors.py) on the
# same inputs, with TFLite's double rounding and with TOSA's single rounding.
# Prints the largest difference, in output units, against each, and "PASS"
# when the imported model is within TOLERANCE (environment, default 1: the
# float softmax and the integer mean can differ by one unit) of TFLite's
# double rounding, which the importer's DOUBLE_ROUND rescales follow.
#
# ===----------------------------------------------------------------------=== #

import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tflite_reference  # noqa: E402
import tflite_tensors  # noqa: E402

MLIR_TYPES = {"i8": "i8", "i16": "i16", "i32": "i32", "f32": "f32"}


def tensor_type(t):
    return "tensor<%sx%s>" % ("x".join(str(d) for d in t["shape"]),
                              MLIR_TYPES[t["type"]])


def run_imported(text, args, results, bindir):
    """Runs @main of module `text` on `args` [(tensor, array)] and returns
    the `results` [tensor] as int64 arrays."""
    lines = ["func.func private @printMemrefI32(tensor<*xi32>)",
             "func.func @run() {"]
    names = []
    for k, (t, a) in enumerate(args):
        raw = a.astype(tflite_reference.DTYPES[t["type"]]).tobytes().hex()
        lines.append('  %%a%d = arith.constant dense<"0x%s"> : %s'
                     % (k, raw.upper(), tensor_type(t)))
        names.append("%%a%d" % k)
    rtypes = [tensor_type(t) for t in results]
    lines.append("  %s = call @main(%s) : (%s) -> (%s)" % (
        ", ".join("%%r%d" % k for k in range(len(results))),
        ", ".join(names), ", ".join(tensor_type(t) for t, _ in args),
        ", ".join(rtypes)))
    for k, t in enumerate(results):
        wide = rtypes[k].replace(MLIR_TYPES[t["type"]] + ">", "i32>")
        src = "%%r%d" % k
        if t["type"] != "i32":
            lines.append("  %%w%d = tosa.cast %%r%d : (%s) -> %s"
                         % (k, k, rtypes[k], wide))
            src = "%%w%d" % k
        lines.append("  %%u%d = tensor.cast %s : %s to tensor<*xi32>"
                     % (k, src, wide))
        lines.append("  call @printMemrefI32(%%u%d) : (tensor<*xi32>) -> ()"
                     % k)
    lines += ["  return", "}"]
    at = text.index("\n", text.index("\nmodule") + 1) + 1
    text = text[:at] + "\n" + "\n".join(lines) + "\n" + text[at:]
    opt = os.path.join(bindir, "mlir-opt")
    libdir = os.path.join(os.path.dirname(os.path.realpath(opt)), "..", "lib")
    stages = [
        [opt, "--tosa-to-linalg-pipeline", "--tosa-to-tensor",
         "--tosa-to-arith=include-apply-rescale=true", "--canonicalize"],
        [opt, "--one-shot-bufferize=bufferize-function-boundaries",
         "--canonicalize", "--buffer-deallocation-pipeline",
         "--convert-linalg-to-loops", "--expand-strided-metadata",
         "--lower-affine", "--convert-scf-to-cf", "--finalize-memref-to-llvm",
         "--convert-arith-to-llvm", "--convert-math-to-llvm",
         "--convert-cf-to-llvm", "--convert-func-to-llvm",
         "--convert-index-to-llvm", "--reconcile-unrealized-casts"],
        [os.path.join(bindir, "mlir-runner"), "-e", "run", "-O2",
         "-entry-point-result=void",
         "-shared-libs=%s,%s" % (
             os.path.join(libdir, "libmlir_runner_utils.so"),
             os.path.join(libdir, "libmlir_c_runner_utils.so"))],
    ]
    data = text
    for k, cmd in enumerate(stages):
        # The TOSA target environment (module attribute) is meaningless once
        # lowered, and mlir-runner does not know the TOSA dialect.
        if k > 0:
            data = re.sub(r"module attributes \{tosa.target_env = [^}]*\}",
                          "module", data)
        p = subprocess.run(cmd, input=data, capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit("FAIL: %s: %s" % (cmd[0], p.stderr[-2000:]))
        data = p.stdout
    chunks = data.split("Unranked Memref")[1:]
    outs = []
    for t, chunk in zip(results, chunks):
        body = chunk.split("data =", 1)[1]
        nums = [int(x) for x in re.findall(r"-?\d+", body)]
        outs.append(np.array(nums, dtype=np.int64).reshape(t["shape"]))
    return outs


def main():
    tflite, imported, bindir = sys.argv[1:4]
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
    got = run_imported(open(imported).read(), args, results, bindir)
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
