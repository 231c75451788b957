#!/usr/bin/python3
# ===- zoo-tflite.py - The zoo's int8 MobileNetV2 as a .tflite file ------=== #
#
# Part of the mem-opt project.
#
# ===--------------------------------------------------------------------=== #
#
# Writes `mem-opt-zoo --model=mobilenet-v2 --dtype=i8` (tools/mem-opt-zoo,
# docs/Zoo.md) as a TFLite flatbuffer, so that programs that only read
# .tflite files (TFLite Micro, the peer of docs/Peer.md) run the same
# network. The script describes the model in flatc's JSON form of
# lib/Import/tflite_schema.fbs (the slots of the TFLite format) and lets
# flatc (Debian's flatbuffers-compiler, which the build needs anyway) write
# the binary.
#
# The same network, layer for layer (buildMobileNetV2 in lib/Zoo/ClassicNetworks.cpp):
# stem 3x3 stride-2 conv + ReLU6, the 17 inverted-residual blocks (1x1
# expand + ReLU6 unless the expansion is 1, 3x3 depthwise + ReLU6 at the
# block's stride, 1x1 projection, residual ADD at stride 1 when the width is
# kept), 1x1 head conv to 1280 + ReLU6, global average pooling (a HxW
# AVERAGE_POOL_2D, VALID) and a 1x1 CONV_2D classifier to 10 channels;
# SAME padding everywhere (TFLite's and the zoo's split the odd pixel the
# same way: after the input); channels rounded as torchvision's
# _make_divisible. The zoo's ReLU6 is a separate tosa.clamp to [0, 127];
# here it is the convolution's fused RELU6 on an output of scale 2^-5, which
# TFLite (and mem-opt-import) turn into the same clamp to [0, 127]
# (6 / 2^-5 = 192 > 127).
#
# The same numbers: every weight is 1 and every bias 0 (the zoo's splat
# constants), all zero points are 0. The scales are powers of two chosen so
# that every convolution's requantization factor s_in * s_w / s_out is 2^-8,
# which TFLite's QuantizeMultiplier (and mem-opt-import) represent as
# multiplier 2^30, shift 38: exactly the zoo's tosa.rescale. Activations have
# scale 2^-5, except along a residual stream, where an ADD's output has
# twice the scale of its inputs (the zoo halves the sum) and the projection
# feeding an ADD takes the scale of the block's input (the zoo adds both
# operands with weight 1). The only difference in the imported TOSA is the
# ADD's rescales: mem-opt-import writes TFLite's form (operands times 2^19,
# sum times 2^-20) where the zoo writes x1 and x0.5; the results are the
# same (exact powers of two, one rounding).
#
# Usage:
#   benchmarks/zoo-tflite.py -o zoo_mobilenet_v2_i8.tflite
#       [--channels=16] [--resolution=96] [--flatc=flatc] [--keep-json]
# --channels and --resolution mean what they mean for mem-opt-zoo (width
# multiplier channels/32; --channels=11 is width 0.35).
#
# ===--------------------------------------------------------------------=== #

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib",
                      "Import", "tflite_schema.fbs")
# BuiltinOperator codes of the TFLite format.
ADD, AVERAGE_POOL_2D, CONV_2D, DEPTHWISE_CONV_2D = 0, 1, 3, 4
# The zoo's classes (numClasses in lib/Zoo/Families.h).
NUM_CLASSES = 10
# Activation scale, weight requantization factor (both powers of two).
ACT_SCALE = 2.0 ** -5
REQUANT = 2.0 ** -8


def make_divisible(value):
    """torchvision's _make_divisible(value, 8), as mem-opt-zoo computes it."""
    rounded = max(8, int(value + 4) // 8 * 8)
    if rounded < 0.9 * value:
        rounded += 8
    return rounded


def same_out(size, stride):
    return -(-size // stride)


class Model:
    """Tensors, buffers and operators of one subgraph, in flatc's JSON."""

    def __init__(self):
        self.tensors, self.operators, self.codes = [], [], []
        self.buffers = [{}]  # buffer 0: empty, as TFLite writes it

    def tensor(self, name, shape, ttype, scale, data=None):
        buffer = 0
        if data is not None:
            self.buffers.append({"data": list(data)})
            buffer = len(self.buffers) - 1
        self.tensors.append({
            "shape": list(shape), "type": ttype, "buffer": buffer,
            "name": name,
            "quantization": {"scale": [scale], "zero_point": [0]}})
        return len(self.tensors) - 1

    def op(self, code, inputs, outputs, options_type, options):
        if code not in self.codes:
            self.codes.append(code)
        self.operators.append({
            "opcode_index": self.codes.index(code), "inputs": inputs,
            "outputs": outputs, "builtin_options_type": options_type,
            "builtin_options": options})

    def shape(self, t):
        return self.tensors[t]["shape"]

    def scale(self, t):
        return self.tensors[t]["quantization"]["scale"][0]

    def json(self, inputs, outputs):
        return {
            "version": 3,
            "operator_codes": [{"deprecated_builtin_code": c, "version": 1,
                                "builtin_code": c} for c in self.codes],
            "subgraphs": [{"tensors": self.tensors, "inputs": inputs,
                           "outputs": outputs, "operators": self.operators,
                           "name": "main"}],
            "description": "mem-opt benchmarks/zoo-tflite.py",
            "buffers": self.buffers}


def conv(m, x, out_c, k, stride, relu6, name, out_scale=ACT_SCALE,
         depthwise=False):
    """A KxK (depthwise) convolution with SAME padding; weights 1, bias 0,
    requantization factor 2^-8."""
    _, h, w, in_c = m.shape(x)
    s_w = REQUANT * out_scale / m.scale(x)
    if depthwise:
        out_c = in_c
        wshape = [1, k, k, in_c]
    else:
        wshape = [out_c, k, k, in_c]
    count = 1
    for d in wshape:
        count *= d
    weight = m.tensor(name + "_weight", wshape, "INT8", s_w, b"\x01" * count)
    bias = m.tensor(name + "_bias", [out_c], "INT32", m.scale(x) * s_w,
                    bytes(4 * out_c))
    y = m.tensor(name, [1, same_out(h, stride), same_out(w, stride), out_c],
                 "INT8", out_scale)
    options = {"padding": "SAME", "stride_w": stride, "stride_h": stride,
               "fused_activation_function": "RELU6" if relu6 else "NONE"}
    if depthwise:
        options["depth_multiplier"] = 1
        m.op(DEPTHWISE_CONV_2D, [x, weight, bias], [y],
             "DepthwiseConv2DOptions", options)
    else:
        m.op(CONV_2D, [x, weight, bias], [y], "Conv2DOptions", options)
    return y


def mobilenet_v2(channels, resolution):
    """mem-opt-zoo's buildMobileNetV2 (width channels / 32)."""
    settings = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]
    width = channels / 32.0
    m = Model()
    inp = m.tensor("input0", [1, resolution, resolution, 3], "INT8",
                   ACT_SCALE)
    x = conv(m, inp, make_divisible(32 * width), 3, 2, True, "stem_relu6")
    block = 0
    for t, c, n, s in settings:
        out_c = make_divisible(c * width)
        for r in range(n):
            name = "b%d" % block
            stride = s if r == 0 else 1
            in_c = m.shape(x)[3]
            residual = stride == 1 and in_c == out_c
            y = x
            if t != 1:
                y = conv(m, y, in_c * t, 1, 1, True, name + "_expand_relu6")
            y = conv(m, y, 0, 3, stride, True, name + "_dw_relu6",
                     depthwise=True)
            y = conv(m, y, out_c, 1, 1, False, name + "_project",
                     out_scale=m.scale(x) if residual else ACT_SCALE)
            if residual:
                sum_ = m.tensor(name + "_add", m.shape(x), "INT8",
                                2 * m.scale(x))
                m.op(ADD, [x, y], [sum_], "AddOptions",
                     {"fused_activation_function": "NONE"})
                y = sum_
            x = y
            block += 1
    last = make_divisible(1280 * max(1.0, width))
    x = conv(m, x, last, 1, 1, True, "head_relu6")
    _, h, w, c = m.shape(x)
    pooled = m.tensor("gap", [1, 1, 1, c], "INT8", m.scale(x))
    m.op(AVERAGE_POOL_2D, [x], [pooled], "Pool2DOptions",
         {"padding": "VALID", "stride_w": 1, "stride_h": 1,
          "filter_width": w, "filter_height": h,
          "fused_activation_function": "NONE"})
    out = conv(m, pooled, NUM_CLASSES, 1, 1, False, "classifier")
    return m.json([inp], [out])


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("-o", dest="output", required=True)
    ap.add_argument("--channels", type=int, default=16)
    ap.add_argument("--resolution", type=int, default=96)
    ap.add_argument("--flatc", default="flatc")
    ap.add_argument("--schema", default=SCHEMA)
    ap.add_argument("--keep-json", action="store_true",
                    help="also write the JSON next to the output")
    args = ap.parse_args()
    model = mobilenet_v2(args.channels, args.resolution)
    tmp = tempfile.mkdtemp()
    try:
        stem = os.path.splitext(os.path.basename(args.output))[0]
        path = os.path.join(tmp, stem + ".json")
        with open(path, "w") as f:
            json.dump(model, f, separators=(",", ":"))
        res = subprocess.run([args.flatc, "-b", "-o", tmp, args.schema, path],
                             capture_output=True, text=True)
        if res.returncode != 0:
            sys.stderr.write("flatc failed:\n%s%s" % (res.stdout, res.stderr))
            return 1
        shutil.copyfile(os.path.join(tmp, stem + ".tflite"), args.output)
        if args.keep_json:
            shutil.copyfile(path, os.path.splitext(args.output)[0] + ".json")
    finally:
        shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
