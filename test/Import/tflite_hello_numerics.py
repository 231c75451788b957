#!/usr/bin/python3
# ===- tflite_hello_numerics.py - Run the imported hello_world models -----=== #
#
# Part of the mem-opt project.
#
# ===----------------------------------------------------------------------=== #
#
# tflite_hello_numerics.py MODEL.tflite IMPORTED.mlir LLVM_BIN
#
# Runs an imported hello_world model (float or int8) on the host: a wrapper
# function calls @main on each of TFLite Micro's own test inputs (x = 0.77,
# 1.57, 2.3, 3.14), the module is lowered with upstream passes and run by
# mlir-runner, and each output must be within 0.05 of sin(x), the tolerance of
# TFLite Micro's hello_world test. For the int8 model the input is quantized
# and the output dequantized with the scales and zero points read from the
# file by tflite_tensors.py (independently of the importer), rounding half
# away from zero as TFLite does.
#
# ===----------------------------------------------------------------------=== #

import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tflite_tensors  # noqa: E402

XS = [0.77, 1.57, 2.3, 3.14]
EPSILON = 0.05


def main():
    tflite, imported, bindir = sys.argv[1:4]
    libdir = os.path.join(os.path.dirname(os.path.realpath(
        os.path.join(bindir, "mlir-opt"))), "..", "lib")
    model = tflite_tensors.decode(tflite)
    tin = model["tensors"][model["inputs"][0]]
    tout = model["tensors"][model["outputs"][0]]
    quantized = tin["type"] == "i8"
    lines = []
    if quantized:
        s_in, z_in = tin["scale"][0], tin["zero_point"][0]
        qs = [max(-128, min(127, int(math.floor(abs(x / s_in) + 0.5)
                                     * (1 if x >= 0 else -1)) + z_in))
              for x in XS]
        lines.append("func.func private @printMemrefI32(tensor<*xi32>)")
    else:
        lines.append("func.func private @printMemrefF32(tensor<*xf32>)")
    lines.append("func.func @run() {")
    for i, x in enumerate(XS):
        if quantized:
            lines += [
                "  %%x%d = arith.constant dense<%d> : tensor<1x1xi8>" % (i, qs[i]),
                "  %%y%d = call @main(%%x%d) : (tensor<1x1xi8>) -> tensor<1x1xi8>" % (i, i),
                "  %%w%d = tosa.cast %%y%d : (tensor<1x1xi8>) -> tensor<1x1xi32>" % (i, i),
                "  %%u%d = tensor.cast %%w%d : tensor<1x1xi32> to tensor<*xi32>" % (i, i),
                "  call @printMemrefI32(%%u%d) : (tensor<*xi32>) -> ()" % i]
        else:
            lines += [
                "  %%x%d = arith.constant dense<%r> : tensor<1x1xf32>" % (i, x),
                "  %%y%d = call @main(%%x%d) : (tensor<1x1xf32>) -> tensor<1x1xf32>" % (i, i),
                "  %%u%d = tensor.cast %%y%d : tensor<1x1xf32> to tensor<*xf32>" % (i, i),
                "  call @printMemrefF32(%%u%d) : (tensor<*xf32>) -> ()" % i]
    lines += ["  return", "}"]
    text = open(imported).read()
    at = text.index("module {") + len("module {")
    text = text[:at] + "\n" + "\n".join(lines) + "\n" + text[at:]

    opt = os.path.join(bindir, "mlir-opt")
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
        [os.path.join(bindir, "mlir-runner"), "-e", "run",
         "-entry-point-result=void",
         "-shared-libs=%s,%s" % (
             os.path.join(libdir, "libmlir_runner_utils.so"),
             os.path.join(libdir, "libmlir_c_runner_utils.so"))],
    ]
    data = text
    for cmd in stages:
        p = subprocess.run(cmd, input=data, capture_output=True, text=True)
        if p.returncode != 0:
            print("FAIL: %s: %s" % (cmd[0], p.stderr[-2000:]))
            return 1
        data = p.stdout
    values = [float(v) for v in re.findall(r"^\[\[(\S+)\]\]$", data, re.M)]
    if len(values) != len(XS):
        print("FAIL: expected %d outputs, got: %s" % (len(XS), data))
        return 1
    bad = 0
    for x, v in zip(XS, values):
        y = (v - tout["zero_point"][0]) * tout["scale"][0] if quantized else v
        err = abs(y - math.sin(x))
        print("x=%.2f y=%.4f sin=%.4f err=%.4f" % (x, y, math.sin(x), err))
        bad += err > EPSILON
    print("FAIL" if bad else "PASS: all within %.2f of sin(x)" % EPSILON)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
