#!/usr/bin/python3
# ===- tflite_hello_numerics.py - Run the imported hello_world models -----=== #
#
# Part of the mem-opt project.
#
# ===----------------------------------------------------------------------=== #
#
# tflite_hello_numerics.py MODEL.tflite IMPORTED.mlir MEM_OPT_RUN
#
# Runs an imported hello_world model (float or int8) on the host with
# mem-opt-run on each of TFLite Micro's own test inputs (x = 0.77, 1.57, 2.3,
# 3.14); each output must be within 0.05 of sin(x), the tolerance of
# TFLite Micro's hello_world test. For the int8 model the input is quantized
# and the output dequantized with the scales and zero points read from the
# file by tflite_tensors.py (independently of the importer), rounding half
# away from zero as TFLite does.
#
# ===----------------------------------------------------------------------=== #

import math
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tflite_tensors  # noqa: E402

XS = [0.77, 1.57, 2.3, 3.14]
EPSILON = 0.05


def main():
    tflite, imported, runner = sys.argv[1:4]
    model = tflite_tensors.decode(tflite)
    tin = model["tensors"][model["inputs"][0]]
    tout = model["tensors"][model["outputs"][0]]
    quantized = tin["type"] == "i8"
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        inp, out = os.path.join(d, "in.bin"), os.path.join(d, "out.bin")
        for x in XS:
            if quantized:
                s_in, z_in = tin["scale"][0], tin["zero_point"][0]
                q = int(math.floor(abs(x / s_in) + 0.5)) * (1 if x >= 0 else -1)
                raw = struct.pack("<b", max(-128, min(127, q + z_in)))
            else:
                raw = struct.pack("<f", x)
            open(inp, "wb").write(raw)
            p = subprocess.run([runner, imported, "--entry=main",
                                "--inputs=" + inp, "--outputs=" + out],
                               capture_output=True, text=True)
            if p.returncode != 0:
                print("FAIL: mem-opt-run: " + p.stderr[-2000:])
                return 1
            data = open(out, "rb").read()
            if quantized:
                y = (struct.unpack("<b", data)[0] - tout["zero_point"][0]) \
                    * tout["scale"][0]
            else:
                y = struct.unpack("<f", data)[0]
            err = abs(y - math.sin(x))
            print("x=%.2f y=%.4f sin=%.4f err=%.4f" % (x, y, math.sin(x), err))
            bad += err > EPSILON
    print("FAIL" if bad else "PASS: all within %.2f of sin(x)" % EPSILON)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
