# ===- int8_tosa.py - Text of seeded TOSA constants ------------------------=== #
#
# Part of the mem-opt project.
#
# ===------------------------------------------------------------------------=== #
#
# What the int8 model generators of this directory (gen_int8_*.py) share:
# tensor type text and a writer of TOSA lines whose constants are seeded
# random tensors named %c0, %c1, ..., their (depthwise) convolutions and
# their per-channel rescale.
#
# ===------------------------------------------------------------------------=== #

import random


def t(shape, dtype):
    return "tensor<%sx%s>" % ("x".join(map(str, shape)), dtype)


class ConstWriter:
    """Collects the lines of a function; `const` draws from one seeded
    generator, so a seed gives the same model every time."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.lines = []
        self.counter = 0

    def const(self, shape, dtype, lo, hi):
        """A random constant tensor; returns its SSA name."""
        name = "%%c%d" % self.counter
        self.counter += 1
        n = 1
        for d in shape:
            n *= d
        flat = [self.rng.randint(lo, hi) for _ in range(n)]

        def nest(vals, dims):
            if len(dims) == 1:
                return "[" + ", ".join(map(str, vals)) + "]"
            step = len(vals) // dims[0]
            return "[" + ", ".join(
                nest(vals[i * step:(i + 1) * step], dims[1:])
                for i in range(dims[0])) + "]"

        self.lines.append(
            '  %s = "tosa.const"() <{values = dense<%s> : %s}> : () -> %s'
            % (name, nest(flat, shape), t(shape, dtype), t(shape, dtype)))
        return name

    def scalar(self, name, value, dtype):
        """A one-element constant %name; returns its SSA name."""
        self.lines.append(
            '  %%%s = "tosa.const"() <{values = dense<%d> : tensor<1x%s>}> '
            ': () -> tensor<1x%s>' % (name, value, dtype, dtype))
        return "%" + name

    def conv(self, op, x, xshape, kernel, channels, pad, stride, izp, wzp,
             name, dilation=(1, 1), weights=(-128, 127), bias=(-2000, 2000)):
        """A tosa.conv2d (op "conv2d", filter [channels, kh, kw, ic]) or
        tosa.depthwise_conv2d (op "depthwise_conv2d", filter
        [kh, kw, ic, channels], channels the multiplier) %name of the int8
        NHWC %x of shape xshape and the zero points izp and wzp: its filter
        drawn in the range weights, then its bias in the range bias. kernel,
        stride and dilation are (h, w), pad (top, bottom, left, right).
        Returns its SSA name and its output shape."""
        n, h, w, c = xshape
        kh, kw = kernel
        dh, dw = dilation
        oh = (h + pad[0] + pad[1] - dh * (kh - 1) - 1) // stride[0] + 1
        ow = (w + pad[2] + pad[3] - dw * (kw - 1) - 1) // stride[1] + 1
        if op == "conv2d":
            wshape, oc = [channels, kh, kw, c], channels
        else:
            wshape, oc = [kh, kw, c, channels], c * channels
        out = [n, oh, ow, oc]
        wt = self.const(wshape, "i8", *weights)
        b = self.const([oc], "i32", *bias)
        self.lines.append(
            '  %%%s = tosa.%s %s, %s, %s, %s, %s {acc_type = i32, dilation = '
            'array<i64: %d, %d>, pad = array<i64: %d, %d, %d, %d>, stride = '
            'array<i64: %d, %d>} : (%s, %s, %s, tensor<1xi8>, tensor<1xi8>) '
            '-> %s loc("%s")'
            % (name, op, x, wt, b, izp, wzp, *dilation, *pad, *stride,
               t(xshape, "i8"), t(wshape, "i8"), t([oc], "i32"), t(out, "i32"),
               name))
        return "%" + name, out

    def rescale(self, x, shape, name):
        """A per-channel SINGLE_ROUND rescale of the i32 %x to i8 with seeded
        multipliers and shifts 36-38; the zero points are the function's
        %zp32 and %ozp. Returns its SSA name."""
        c = shape[-1]
        mult = self.const([c], "i32", 1 << 29, (1 << 30) - 1)
        shift = self.const([c], "i8", 36, 38)
        self.lines.append(
            '  %%%s = tosa.rescale %s, %s, %s, %%zp32, %%ozp {input_unsigned = '
            'false, output_unsigned = false, per_channel = true, rounding_mode = '
            'SINGLE_ROUND, scale32 = true} : (%s, %s, %s, tensor<1xi32>, '
            'tensor<1xi8>) -> %s loc("%s")'
            % (name, x, mult, shift, t(shape, "i32"), t([c], "i32"),
               t([c], "i8"), t(shape, "i8"), name))
        return "%" + name
