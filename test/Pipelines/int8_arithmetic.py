#!/usr/bin/env python3
# ===- int8_arithmetic.py - Int8 kernels against TFLite's arithmetic -----=== #
#
# Part of the mem-opt project.
#
# ===--------------------------------------------------------------------=== #
#
# A seeded generator of small int8 TOSA functions and an independent scalar
# reference of their arithmetic, written here from the TOSA 1.0 and TFLite
# definitions and sharing nothing with mem-opt:
#   - DOUBLE_ROUND rescales follow TFLite's MultiplyByQuantizedMultiplier
#     (gemmlowp's SaturatingRoundingDoublingHighMul, then RoundingDivideByPOT
#     with the total shift s = 31 - TFLite's shift), SINGLE_ROUND ones TOSA's
#     apply_scale_32 (TFLite's single-rounding build gives the same);
#   - conv2d, depthwise_conv2d, matmul (fully connected), avg_pool2d (TOSA's
#     reciprocal_scale), max_pool2d, add and mul of rescaled inputs, clamp,
#     and bare rescales int32 -> int8 and int8 -> int8;
# over the range of their parameters: multipliers in [2^30, 2^31) (TFLite's)
# and some others for SINGLE_ROUND, shifts 1-62 (TFLite's shift in [-31, 30];
# 32 and 33 often, where the 32-bit kernels' bit tricks matter), per-tensor
# and per-channel, input and output zero points over int8, channel counts
# that are not multiples of 4, strides, dilations and paddings.
#
# Each seed makes one function of many independent cases (one input and one
# output each), so each CPU needs one firmware. For each CPU of --cpu
# (cortex-m4 with and without the DSP kernels, cortex-m7, cortex-m55) the
# function is compiled by mem-opt-compile and run on QEMU by
# firmware/run_model.py, which compares mem-opt-run's host outputs and the
# CPU's outputs with the reference's bytes. On a difference, the cases that
# differ are named.
#
#   int8_arithmetic.py --tools build/bin --work /tmp/w [--seed 1]
#       [--seeds 10] [--cpu cortex-m4 ...] [--generate-only]
#
# Needs /usr/bin/python3 (Debian's numpy).
# ===--------------------------------------------------------------------=== #

import argparse
import os
import random
import subprocess
import sys

import numpy as np

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1

# --------------------------------------------------------------------------
# The reference arithmetic (scalars, Python integers).
# --------------------------------------------------------------------------


def trunc_div(a, b):
    """C's integer division: the quotient rounded toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def srdhm(a, b):
    """gemmlowp's SaturatingRoundingDoublingHighMul of two int32."""
    if a == INT32_MIN and b == INT32_MIN:
        return INT32_MAX
    ab = a * b
    nudge = (1 << 30) if ab >= 0 else 1 - (1 << 30)
    return trunc_div(ab + nudge, 1 << 31)


def rounding_divide_by_pot(x, exponent):
    """gemmlowp's RoundingDivideByPOT: x / 2^exponent, halves away from
    zero."""
    mask = (1 << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> exponent) + (1 if remainder > threshold else 0)


def tflite_multiply(x, multiplier, s):
    """TFLite's MultiplyByQuantizedMultiplier(x, multiplier, 31 - s)."""
    shift = 31 - s
    left, right = max(shift, 0), max(-shift, 0)
    shifted = x * (1 << left)
    assert INT32_MIN <= shifted <= INT32_MAX, "TFLite's left shift overflows"
    return rounding_divide_by_pot(srdhm(shifted, multiplier), right)


def tosa_apply_scale(x, multiplier, s):
    """TOSA's apply_scale_32 with double_round false."""
    return (x * multiplier + (1 << (s - 1))) >> s


def scale(x, multiplier, s, double):
    result = (tflite_multiply if double else tosa_apply_scale)(x, multiplier,
                                                                s)
    assert INT32_MIN + 256 <= result <= INT32_MAX - 256, "scaled out of int32"
    return result


def requantize(acc, multipliers, shifts, double, out_zp, lo=-128, hi=127):
    """int32 values of shape [..., C] -> int8 with per-channel (or one)
    multiplier and shift."""
    out = np.empty(acc.shape, dtype=np.int64)
    channels = acc.shape[-1]
    flat_in, flat_out = acc.reshape(-1, channels), out.reshape(-1, channels)
    for c in range(channels):
        m = multipliers[c % len(multipliers)]
        s = shifts[c % len(shifts)]
        for i in range(flat_in.shape[0]):
            v = scale(int(flat_in[i, c]), m, s, double) + out_zp
            flat_out[i, c] = min(max(v, lo), hi)
    return out


def reciprocal_scale(count):
    """TOSA's reciprocal_scale: (multiplier, shift) of 1 / count."""
    k = (count - 1).bit_length()
    return (((1 << 30) + 1) << k) // count, 30 + k


def conv_acc(x, izp, w, wzp, bias, stride, pad, dil):
    """TOSA conv2d: x [1,H,W,C], w [O,KH,KW,C], pad [top,bottom,left,right];
    padding contributes nothing (it is the zero point)."""
    _, h, wd, _ = x.shape
    o, kh, kw, _ = w.shape
    oh = (h + pad[0] + pad[1] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + pad[2] + pad[3] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    xs = x.astype(np.int64) - izp
    ws = w.astype(np.int64) - wzp
    acc = np.zeros((1, oh, ow, o), dtype=np.int64) + bias
    for oy in range(oh):
        for ox in range(ow):
            for ky in range(kh):
                for kx in range(kw):
                    y = oy * stride[0] - pad[0] + ky * dil[0]
                    xx = ox * stride[1] - pad[2] + kx * dil[1]
                    if 0 <= y < h and 0 <= xx < wd:
                        acc[0, oy, ox, :] += ws[:, ky, kx, :] @ xs[0, y, xx, :]
    return acc


def depthwise_acc(x, izp, w, wzp, bias, stride, pad, dil):
    """TOSA depthwise_conv2d: w [KH,KW,C,M], output channel c * M + m."""
    _, h, wd, c = x.shape
    kh, kw, _, mult = w.shape
    oh = (h + pad[0] + pad[1] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + pad[2] + pad[3] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    xs = x.astype(np.int64) - izp
    ws = w.astype(np.int64) - wzp
    acc = np.zeros((1, oh, ow, c * mult), dtype=np.int64) + bias
    for oy in range(oh):
        for ox in range(ow):
            for ky in range(kh):
                for kx in range(kw):
                    y = oy * stride[0] - pad[0] + ky * dil[0]
                    xx = ox * stride[1] - pad[2] + kx * dil[1]
                    if 0 <= y < h and 0 <= xx < wd:
                        acc[0, oy, ox, :] += (
                            xs[0, y, xx, :, None] * ws[ky, kx]).reshape(-1)
    return acc


def pool(x, kernel, stride, pad, izp, out_zp, average):
    """TOSA avg_pool2d (padding not counted, reciprocal_scale, single
    rounding) or max_pool2d (padding never wins)."""
    _, h, wd, c = x.shape
    oh = (h + pad[0] + pad[1] - kernel[0]) // stride[0] + 1
    ow = (wd + pad[2] + pad[3] - kernel[1]) // stride[1] + 1
    out = np.zeros((1, oh, ow, c), dtype=np.int64)
    for oy in range(oh):
        for ox in range(ow):
            for ch in range(c):
                values = []
                for ky in range(kernel[0]):
                    for kx in range(kernel[1]):
                        y = oy * stride[0] - pad[0] + ky
                        xx = ox * stride[1] - pad[2] + kx
                        if 0 <= y < h and 0 <= xx < wd:
                            values.append(int(x[0, y, xx, ch]))
                if not average:
                    out[0, oy, ox, ch] = max(values)
                    continue
                total = sum(v - izp for v in values)
                m, s = reciprocal_scale(len(values))
                v = tosa_apply_scale(total, m, s) + out_zp
                out[0, oy, ox, ch] = min(max(v, -128), 127)
    return out


def self_test():
    """Values of the reference worked out by hand, so that the reference
    itself can fail."""
    # -0.75 -> -1 either way.
    assert tflite_multiply(-3, 1 << 30, 32) == -1
    assert tosa_apply_scale(-3, 1 << 30, 32) == -1
    # 0.375: TFLite's first rounding (to 2^-31) gives 0.5, its second 1;
    # one rounding gives 0.
    assert tflite_multiply(3, 1 << 30, 33) == 1
    assert tosa_apply_scale(3, 1 << 30, 33) == 0
    # -0.5: TFLite rounds away from zero, TOSA's single rounding up.
    assert tflite_multiply(-2, 1 << 30, 32) == -1
    assert tosa_apply_scale(-2, 1 << 30, 32) == 0
    assert tflite_multiply(2, 1 << 30, 32) == 1
    # Shifts below 31 are a left shift in TFLite: +-5 * 0.75 * 2^1 = +-7.5,
    # and its high multiply rounds halves up.
    assert tflite_multiply(5, 3 << 29, 30) == 8
    assert tflite_multiply(-5, 3 << 29, 30) == -7
    assert tosa_apply_scale(-5, 3 << 29, 30) == -7
    # gemmlowp's one saturating case.
    assert srdhm(INT32_MIN, INT32_MIN) == INT32_MAX
    # 1 / 3 and 1 / 4 as TOSA's reciprocal_scale: ((2^30 + 1) << k) / n.
    assert reciprocal_scale(3) == (1431655766, 32)
    assert reciprocal_scale(4) == ((1 << 30) + 1, 32)
    # Averages: (1 + 2 + 4) / 3 = 2.33 -> 2, -6 / 3 = -2, a padded 0.
    x = np.array([1, 2, 4, -1, -2, -3, 0, 0]).reshape(1, 1, 8, 1)
    got = pool(x, [1, 3], [1, 3], [0, 0, 0, 1], 0, 0, True)
    assert got.reshape(-1).tolist() == [2, -2, 0], got
    got = pool(x, [1, 4], [1, 4], [0, 0, 0, 0], 0, 0, True)
    assert got.reshape(-1).tolist() == [2, -1], got  # 1.5 and -1.25
    # A 3x3 convolution, stride 2, one pixel of padding: the corner output
    # sees the 2x2 corner of the input.
    x = np.arange(25).reshape(1, 5, 5, 1)
    w = np.ones((1, 3, 3, 1), dtype=np.int64)
    acc = conv_acc(x, 1, w, 0, np.array([10]), [2, 2], [1, 1, 1, 1], [1, 1])
    assert acc[0, 0, 0, 0] == 10 + (0 + 1 + 5 + 6) - 4
    assert acc[0, 1, 1, 0] == 10 + sum(range(6, 9)) + sum(range(11, 14)) + \
        sum(range(16, 19)) - 9


# --------------------------------------------------------------------------
# The generator.
# --------------------------------------------------------------------------


def tensor(shape, dtype):
    return "tensor<%sx%s>" % ("x".join(map(str, shape)), dtype)


def dense(values):
    values = np.asarray(values)
    if values.ndim == 0:
        return str(int(values))
    return "[" + ", ".join(dense(v) for v in values) + "]"


class Function:
    """The TOSA text, inputs and expected outputs of one test function."""

    def __init__(self, rng):
        self.rng = rng
        self.lines = []
        self.args = []  # (name, shape, dtype, values)
        self.results = []  # (name, shape, values, description)
        self.count = 0

    def name(self, prefix):
        self.count += 1
        return "%%%s%d" % (prefix, self.count)

    def const(self, values, dtype):
        values = np.asarray(values)
        name = self.name("c")
        ty = tensor(values.shape, dtype)
        self.lines.append('  %s = "tosa.const"() <{values = dense<%s> : %s}> '
                          ': () -> %s' % (name, dense(values), ty, ty))
        return name

    def arg(self, values, dtype):
        name = "%%arg%d" % len(self.args)
        self.args.append((name, values.shape, dtype, values))
        return name

    def result(self, name, values, description):
        self.results.append((name, values.shape, values, description))

    def rescale(self, x, in_shape, in_type, out_type, multipliers, shifts,
                in_zp, out_zp, double):
        per_channel = len(multipliers) > 1
        m = self.const(multipliers, "i32")
        s = self.const(shifts, "i8")
        izp = self.const([in_zp], in_type)
        ozp = self.const([out_zp], out_type)
        name = self.name("r")
        self.lines.append(
            "  %s = tosa.rescale %s, %s, %s, %s, %s {input_unsigned = false, "
            "output_unsigned = false, per_channel = %s, rounding_mode = %s, "
            "scale32 = true} : (%s, %s, %s, %s, %s) -> %s" % (
                name, x, m, s, izp, ozp, "true" if per_channel else "false",
                "DOUBLE_ROUND" if double else "SINGLE_ROUND",
                tensor(in_shape, in_type), tensor([len(multipliers)], "i32"),
                tensor([len(shifts)], "i8"), tensor([1], in_type),
                tensor([1], out_type), tensor(in_shape, out_type)))
        return name

    def text(self):
        outs = ", ".join(tensor(shape, "i8") for _, shape, _, _ in
                         self.results)
        params = ", ".join("%s: %s" % (n, tensor(shape, dtype)) for
                           n, shape, dtype, _ in self.args)
        body = ["module attributes {tosa.target_env = #tosa.target_env<"
                "specification_version = \"1.0\", level = \"8k\", profiles = "
                "[pro_int, pro_fp], extensions = [doubleround]>} {",
                "func.func @int8_arithmetic(%s) -> (%s) {" % (params, outs)]
        body += self.lines
        body.append("  return %s : %s" % (", ".join(
            n for n, _, _, _ in self.results), outs))
        body += ["}", "}"]
        return "\n".join(body) + "\n"


DTYPES = {"i8": np.int8, "i32": np.int32}


class Generator:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.fn = Function(self.rng)
        # Set by edges(): the shifts of every rescale, and small inputs.
        self.forced_shifts = None

    # Parameters -------------------------------------------------------
    def multiplier(self, double):
        r = self.rng.random()
        if r < 0.15:
            return 1 << 30  # exact halves at every shift
        if r < 0.25:
            return INT32_MAX
        if r < 0.3 and not double:
            # TOSA allows any multiplier for SINGLE_ROUND.
            return self.rng.choice([self.rng.randint(1, 1 << 20),
                                    -self.rng.randint(1, INT32_MAX),
                                    self.rng.randint(1 << 20, 1 << 30)])
        return self.rng.randint(1 << 30, INT32_MAX)

    def shift(self, vector):
        """A shift in [32, 62] (the 32-bit kernels' domain, 32 and 33
        often), or in [1, 62]."""
        if vector:
            if self.rng.random() < 0.4:
                return self.rng.choice([32, 33])
            return self.rng.randint(32, 62)
        return self.rng.randint(1, 62)

    def zero_point(self):
        return self.rng.choice([-128, 127, 0, self.rng.randint(-128, 127),
                                self.rng.randint(-128, 127)])

    def fit_shifts(self, acc, multipliers, shifts, double):
        """Raises the shift of every channel whose values would overflow:
        TFLite's left shift for s < 31, or a scaled value out of int32."""
        channels = acc.shape[-1]
        flat = acc.reshape(-1, channels)
        for c in range(len(shifts)):
            column = flat if len(shifts) == 1 else flat[:, c:c + 1]
            big = int(np.abs(column).max()) + 1
            m = multipliers[c]
            while shifts[c] < 62 and (
                    (double and shifts[c] < 31 and big > (1 << shifts[c]) - 1)
                    or big * abs(m) >= (1 << (shifts[c] + 30))):
                shifts[c] += 1
        return shifts

    def choose_scale(self, acc, channels, per_channel, double, vector):
        """Multipliers and shifts for the int32 values acc [..., C]: the
        shift from the data (outputs spread over int8) or drawn."""
        n = channels if per_channel else 1
        multipliers = [self.multiplier(double) for _ in range(n)]
        shifts = []
        flat = acc.reshape(-1, channels)
        for c in range(n):
            if self.forced_shifts:
                shifts.append(self.forced_shifts[c % len(self.forced_shifts)])
                continue
            if self.rng.random() < 0.3:
                shifts.append(self.shift(vector))
                continue
            column = flat[:, c] if per_channel else flat
            spread = float(np.abs(column).max()) + 1
            target = self.rng.choice([4, 60, 200])
            s = int(round(np.log2(spread * abs(multipliers[c]) / target)))
            shifts.append(min(max(s, 32 if vector else 1), 62))
        return multipliers, self.fit_shifts(acc, multipliers, shifts, double)

    def finish(self, acc_name, acc, per_channel, double, vector, what):
        """Rescales the int32 acc to int8 and makes it a result."""
        channels = acc.shape[-1]
        multipliers, shifts = self.choose_scale(acc, channels, per_channel,
                                                double, vector)
        out_zp = self.zero_point()
        name = self.fn.rescale(acc_name, acc.shape, "i32", "i8", multipliers,
                               shifts, 0, out_zp, double)
        want = requantize(acc, multipliers, shifts, double, out_zp)
        if self.rng.random() < 0.25:
            lo = self.rng.randint(-128, 0)
            hi = self.rng.randint(lo, 127)
            clamped = self.fn.name("clamp")
            self.fn.lines.append(
                "  %s = tosa.clamp %s {max_val = %d : i8, min_val = %d : i8} "
                ": (%s) -> %s" % (clamped, name, hi, lo,
                                  tensor(acc.shape, "i8"),
                                  tensor(acc.shape, "i8")))
            name, want = clamped, np.clip(want, lo, hi)
            what += " clamp[%d,%d]" % (lo, hi)
        self.fn.result(name, want, "%s %s shifts=%s ozp=%d" % (
            what, "double" if double else "single",
            ",".join(map(str, shifts)), out_zp))

    def window(self, size, kernel, dil, pool=False):
        """Stride and paddings with which the window divides exactly (TOSA
        requires it); pads smaller than the kernel for pools."""
        stride = self.rng.choice([1, 1, 2])
        span = dil * (kernel - 1) + 1
        limit = kernel - 1 if pool else span - 1
        for _ in range(20):
            before = self.rng.randint(0, min(limit, 2))
            after = self.rng.randint(0, min(limit, 2))
            total = size + before + after - span
            if total >= 0 and total % stride == 0:
                return stride, before, after
        return 1, 0, 0

    def int8(self, shape, lo=-128, hi=127):
        return np.array([self.rng.randint(lo, hi) for _ in
                         range(int(np.prod(shape)))],
                        dtype=np.int64).reshape(shape)

    def activations(self, shape, zp):
        """Inputs over all of int8, or near the zero point (small
        accumulators: shifts 32 and 33 without saturation)."""
        amplitude = self.rng.choice([255, 255, 16, 2])
        if self.forced_shifts:
            amplitude = 2
        return self.int8(shape, max(-128, zp - amplitude),
                         min(127, zp + amplitude))

    def weights(self, shape):
        """Weights over all of int8, or small ones (small accumulators:
        shifts below 32)."""
        amplitude = self.rng.choice([127, 127, 8, 1])
        if self.forced_shifts:
            amplitude = 8
        return self.int8(shape, max(-128, -amplitude), amplitude)

    def bias(self, n):
        amplitude = self.rng.choice([0, 100, 5000, 1 << 20])
        if self.forced_shifts:
            amplitude = 100
        return np.array([self.rng.randint(-amplitude, amplitude)
                         for _ in range(n)], dtype=np.int64)

    # Cases --------------------------------------------------------------
    def conv_like(self, depthwise, double, vector):
        rng = self.rng
        c = rng.randint(1, 10)
        h, w = rng.randint(1, 7), rng.randint(1, 7)
        kh, kw = rng.randint(1, min(h, 3)), rng.randint(1, min(w, 3))
        dil = [rng.choice([1, 1, 2]) if k > 1 and s >= 2 * k - 1 else 1
               for k, s in ((kh, h), (kw, w))]
        sy, pt, pb = self.window(h, kh, dil[0])
        sx, pl, pr = self.window(w, kw, dil[1])
        izp = self.zero_point()
        wzp = 0 if rng.random() < 0.7 else rng.randint(-128, 127)
        x = self.activations([1, h, w, c], izp)
        xa = self.fn.arg(x, "i8")
        izp_name = self.fn.const([izp], "i8")
        wzp_name = self.fn.const([wzp], "i8")
        if depthwise:
            mult = rng.choice([1, 1, 2])
            wt = self.weights([kh, kw, c, mult])
            oc = c * mult
        else:
            oc = rng.randint(1, 10)
            wt = self.weights([oc, kh, kw, c])
        bias = self.bias(oc)
        wn, bn = self.fn.const(wt, "i8"), self.fn.const(bias, "i32")
        stride, pad = [sy, sx], [pt, pb, pl, pr]
        acc = (depthwise_acc if depthwise else conv_acc)(x, izp, wt, wzp, bias,
                                                         stride, pad, dil)
        op = "depthwise_conv2d" if depthwise else "conv2d"
        name = self.fn.name("acc")
        self.fn.lines.append(
            "  %s = tosa.%s %s, %s, %s, %s, %s {acc_type = i32, dilation = "
            "array<i64: %d, %d>, pad = array<i64: %d, %d, %d, %d>, stride = "
            "array<i64: %d, %d>} : (%s, %s, %s, %s, %s) -> %s" % (
                name, op, xa, wn, bn, izp_name, wzp_name, dil[0], dil[1],
                *pad, *stride, tensor(x.shape, "i8"), tensor(wt.shape, "i8"),
                tensor(bias.shape, "i32"), tensor([1], "i8"),
                tensor([1], "i8"), tensor(acc.shape, "i32")))
        self.finish(name, acc, rng.random() < 0.8, double, vector,
                    "%s %dx%dx%d k%dx%d s%s p%s d%s izp=%d wzp=%d oc=%d" % (
                        op, h, w, c, kh, kw, stride, pad, dil, izp, wzp, oc))

    def fully_connected(self, double, vector):
        rng = self.rng
        k, n = rng.randint(1, 20), rng.randint(1, 12)
        if rng.random() < 0.5:
            # A 1x1 convolution of one pixel, as TFLite's importer lowers it.
            self.conv_fc(k, n, double, vector)
            return
        rows = rng.randint(1, 4)
        azp, bzp = self.zero_point(), 0 if rng.random() < 0.7 else \
            rng.randint(-128, 127)
        a, b = self.activations([1, rows, k], azp), self.weights([1, k, n])
        an = self.fn.arg(a, "i8")
        bn = self.fn.const(b, "i8")
        azn, bzn = self.fn.const([azp], "i8"), self.fn.const([bzp], "i8")
        acc = np.einsum("mk,kn->mn", a[0] - azp, b[0] - bzp)[None]
        name = self.fn.name("acc")
        self.fn.lines.append(
            "  %s = tosa.matmul %s, %s, %s, %s : (%s, %s, %s, %s) -> %s" % (
                name, an, bn, azn, bzn, tensor(a.shape, "i8"),
                tensor(b.shape, "i8"), tensor([1], "i8"), tensor([1], "i8"),
                tensor(acc.shape, "i32")))
        self.finish(name, acc, rng.random() < 0.5, double, vector,
                    "matmul %dx%dx%d azp=%d bzp=%d" % (rows, k, n, azp, bzp))

    def conv_fc(self, k, n, double, vector):
        rng = self.rng
        izp = self.zero_point()
        x = self.activations([1, 1, 1, k], izp)
        wt = self.weights([n, 1, 1, k])
        bias = self.bias(n)
        acc = conv_acc(x, izp, wt, 0, bias, [1, 1], [0, 0, 0, 0], [1, 1])
        xa = self.fn.arg(x, "i8")
        wn, bn = self.fn.const(wt, "i8"), self.fn.const(bias, "i32")
        izn, wzn = self.fn.const([izp], "i8"), self.fn.const([0], "i8")
        name = self.fn.name("acc")
        self.fn.lines.append(
            "  %s = tosa.conv2d %s, %s, %s, %s, %s {acc_type = i32, dilation "
            "= array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = "
            "array<i64: 1, 1>} : (%s, %s, %s, %s, %s) -> %s" % (
                name, xa, wn, bn, izn, wzn, tensor(x.shape, "i8"),
                tensor(wt.shape, "i8"), tensor(bias.shape, "i32"),
                tensor([1], "i8"), tensor([1], "i8"),
                tensor(acc.shape, "i32")))
        self.finish(name, acc, rng.random() < 0.8, double, vector,
                    "fully-connected %d->%d izp=%d" % (k, n, izp))

    def pool(self, average, double, vector):
        rng = self.rng
        c = rng.randint(1, 10)
        h, w = rng.randint(1, 8), rng.randint(1, 8)
        kh, kw = rng.randint(1, min(h, 4)), rng.randint(1, min(w, 4))
        sy, pt, pb = self.window(h, kh, 1, pool=True)
        sx, pl, pr = self.window(w, kw, 1, pool=True)
        x = self.int8([1, h, w, c])
        xa = self.fn.arg(x, "i8")
        stride, pad = [sy, sx], [pt, pb, pl, pr]
        izp, ozp = self.zero_point(), self.zero_point()
        want = pool(x, [kh, kw], stride, pad, izp, ozp, average)
        name = self.fn.name("pool")
        if average:
            izn, ozn = self.fn.const([izp], "i8"), self.fn.const([ozp], "i8")
            self.fn.lines.append(
                "  %s = tosa.avg_pool2d %s, %s, %s {acc_type = i32, kernel = "
                "array<i64: %d, %d>, pad = array<i64: %d, %d, %d, %d>, stride "
                "= array<i64: %d, %d>} : (%s, %s, %s) -> %s" % (
                    name, xa, izn, ozn, kh, kw, *pad, *stride,
                    tensor(x.shape, "i8"), tensor([1], "i8"),
                    tensor([1], "i8"), tensor(want.shape, "i8")))
        else:
            self.fn.lines.append(
                "  %s = tosa.max_pool2d %s {kernel = array<i64: %d, %d>, pad = "
                "array<i64: %d, %d, %d, %d>, stride = array<i64: %d, %d>} : "
                "(%s) -> %s" % (name, xa, kh, kw, *pad, *stride,
                                tensor(x.shape, "i8"),
                                tensor(want.shape, "i8")))
        self.fn.result(name, want, "%s %dx%dx%d k%dx%d s%s p%s izp=%d ozp=%d" %
                       ("avg_pool2d" if average else "max_pool2d", h, w, c,
                        kh, kw, stride, pad, izp, ozp))

    def elementwise(self, op, double, vector):
        """An add or mul of int8 tensors as TOSA writes TFLite's: each input
        rescaled to int32 (its zero point subtracted; for add, scaled up by
        about 2^20 as TFLite's left shift does), then the int32 add or mul
        and a rescale to int8."""
        rng = self.rng
        shape = [1, rng.randint(1, 3), rng.randint(1, 4), rng.randint(1, 10)]
        ins, scaled, names, what = [], [], [], []
        for _ in range(2):
            zp = self.zero_point()
            x = self.activations(shape, zp)
            if op == "add":
                # (x - zp) << 20 times a multiplier < 1: at most 2^28.
                m = rng.randint(1 << 30, INT32_MAX)
                s = rng.randint(31, 34)
                m_eff, s_eff = m, s - 20
            else:
                m_eff, s_eff = 1 << 30, 30
            v = np.vectorize(lambda a: scale(int(a) - zp, m_eff, s_eff,
                                             double))(x)
            xa = self.fn.arg(x, "i8")
            names.append(self.fn.rescale(xa, shape, "i8", "i32", [m_eff],
                                         [s_eff], zp, 0, double))
            scaled.append(v.astype(np.int64))
            what.append("in zp=%d m=%d s=%d" % (zp, m_eff, s_eff))
        acc = scaled[0] + scaled[1] if op == "add" else scaled[0] * scaled[1]
        name = self.fn.name(op)
        if op == "add":
            self.fn.lines.append("  %s = tosa.add %s, %s : (%s, %s) -> %s" % (
                name, names[0], names[1], tensor(shape, "i32"),
                tensor(shape, "i32"), tensor(shape, "i32")))
        else:
            zero = self.fn.const([0], "i8")
            self.fn.lines.append(
                "  %s = tosa.mul %s, %s, %s : (%s, %s, %s) -> %s" % (
                    name, names[0], names[1], zero, tensor(shape, "i32"),
                    tensor(shape, "i32"), tensor([1], "i8"),
                    tensor(shape, "i32")))
        self.finish(name, acc, False, double, vector,
                    "%s %s (%s)" % (op, "x".join(map(str, shape)),
                                    "; ".join(what)))

    def bare_rescale(self, double, vector, shape=None, shifts=None,
                     multipliers=None, values=None):
        """A rescale of int32 inputs drawn for their shift: values whose
        results spread over int8, exact halves, and the extremes. Given
        shifts (one: per tensor) and multipliers cycle over the channels;
        given values (cycling over the channels, shifts of at least 32)
        replace the drawn ones."""
        rng = self.rng
        c = rng.randint(1, 20)
        if not shape:
            shape = [1, 1, 1, c] if rng.random() < 0.6 else \
                [1, rng.randint(1, 3), rng.randint(1, 3), c]
        c = shape[-1]
        if shifts is not None:
            per_channel = len(shifts) > 1
        else:
            per_channel = rng.random() < 0.8
        n = c if per_channel else 1
        if multipliers is None:
            multipliers = [self.multiplier(double) for _ in range(n)]
        multipliers = [multipliers[i % len(multipliers)] for i in range(n)]
        if shifts is None:
            shifts = [self.shift(vector) for _ in range(n)]
        shifts = [shifts[i % len(shifts)] for i in range(n)]
        pixels = int(np.prod(shape[:-1]))
        x = np.zeros((pixels, c), dtype=np.int64)
        for ch in range(c if values is None else 0):
            m, s = multipliers[ch % n], shifts[ch % n]
            # The inputs that keep TFLite's left shift and the scaled value
            # within int32.
            hi = INT32_MAX
            if double and s < 31:
                hi = (1 << s) - 1
            hi = min(hi, ((INT32_MAX - 256) << s) // abs(m) - 1)
            target = min(hi, max(1, (150 << s) // abs(m)))
            for p in range(pixels):
                r = rng.random()
                if r < 0.5:
                    v = rng.randint(-target, target)
                elif r < 0.8 and s > 1:
                    # Around an exact half: x m = (2k + 1) 2^(s-1) nearly.
                    k = rng.randint(-130, 130)
                    v = (((2 * k + 1) << (s - 1)) // m) + rng.randint(-2, 2)
                else:
                    v = rng.choice([hi, -hi, 0, 1, -1])
                x[p, ch] = min(max(v, -hi), hi)
        if values is not None:
            x[:, :] = [values[ch % len(values)] for ch in range(c)]
        x = x.reshape(shape)
        xa = self.fn.arg(x, "i32")
        out_zp = self.zero_point()
        name = self.fn.rescale(xa, shape, "i32", "i8", multipliers, shifts, 0,
                               out_zp, double)
        want = requantize(x, multipliers, shifts, double, out_zp)
        self.fn.result(name, want, "rescale i32 %s %s shifts=%s m=%s ozp=%d"
                       % ("x".join(map(str, shape)),
                          "double" if double else "single",
                          ",".join(map(str, shifts)),
                          ",".join(map(str, multipliers)), out_zp))

    def requantize_int8(self, double, vector, x=None, izp=None, ozp=None,
                        m=None, s=None):
        """An int8 -> int8 rescale with both zero points (TFLite's
        quantize of int8); given x, zero points, m and s replace the drawn
        ones."""
        rng = self.rng
        c = rng.randint(1, 12)
        shape = [1, rng.randint(1, 3), rng.randint(1, 3), c]
        if x is None:
            x = self.int8(shape)
        shape = list(x.shape)
        if izp is None:
            izp, ozp = self.zero_point(), self.zero_point()
        if m is None:
            m = rng.randint(1 << 30, INT32_MAX)
        if s is None:
            s = rng.randint(32, 33) if vector else rng.randint(28, 33)
        xa = self.fn.arg(x, "i8")
        name = self.fn.rescale(xa, shape, "i8", "i8", [m], [s], izp, ozp,
                               double)
        want = requantize(x.astype(np.int64) - izp, [m], [s], double, ozp)
        self.fn.result(name, want, "rescale i8 %s %s m=%d s=%d izp=%d ozp=%d"
                       % ("x".join(map(str, shape)),
                          "double" if double else "single", m, s, izp, ozp))

    def chain_rescale(self, double, x, izp, s, ozp):
        """TFLite's add in small: int8 x and y -> int32 (x - izp and y,
        m = 2^30 + 1, s = 30: exactly), their sum -> int8 (m = 2^30 + 1,
        shift s), fused into one loop where the last rescale's input has a
        known range. (2^30 + 1: a power of two would fold into a shift.)"""
        shape = list(x.shape)
        y = np.flip(x)
        m = (1 << 30) + 1
        names, total = [], 0
        for v, zp in ((x, izp), (y, 0)):
            names.append(self.fn.rescale(self.fn.arg(v, "i8"), shape, "i8",
                                         "i32", [m], [30], zp, 0, double))
            total = total + np.vectorize(
                lambda e: scale(int(e) - zp, m, 30, double))(v).astype(
                    np.int64)
        name = self.fn.name("add")
        self.fn.lines.append("  %s = tosa.add %s, %s : (%s, %s) -> %s" % (
            name, names[0], names[1], tensor(shape, "i32"),
            tensor(shape, "i32"), tensor(shape, "i32")))
        out = self.fn.rescale(name, shape, "i32", "i8", [m], [s], 0, ozp,
                              double)
        want = requantize(total, [m], [s], double, ozp)
        self.fn.result(out, want, "rescale i8->i32, add, ->i8 %s izp=%d s=%d "
                       "ozp=%d" % ("double" if double else "single", izp, s,
                                   ozp))

    def edges(self):
        """The edges of the 32-bit kernels' domain, in every function: one
        pixel of 13 channels (a vector tail) and a row of 6 pixels of 5
        channels, shifts 32 and 33 (where the bits below 2^31 of the
        product round), 62 and 61, and 31 (just outside: the whole rescale
        stays 64-bit), in both rounding modes."""
        for double in (False, True):
            self.bare_rescale(double, True, [1, 1, 1, 13],
                              [32, 33, 62, 32, 33, 61, 32, 33, 32, 33, 40,
                               32, 33])
            self.bare_rescale(double, True, [1, 1, 6, 5],
                              [33, 32, 32, 33, 62])
            self.bare_rescale(double, True, [1, 1, 1, 7],
                              [31, 32, 33, 31, 62, 32, 33])
            # The extremes of the high multiply (a = INT32_MIN, INT32_MAX),
            # exact halves of either sign at e = s - 31 = 1 (a m = -2^31 at
            # s = 32) and at s = 62 (INT32_MIN 2^30), and products in
            # [-2^30, 0) whose high multiply is 0 but whose sign still
            # rounds: per channel (26 channels, a vector tail of 2) and per
            # tensor (a constant shift; a tail of 1), shifts 32, 33, 61, 62.
            extremes = [INT32_MIN, INT32_MAX, INT32_MIN + 1, -1, -2, -3, 2,
                        3, 0, -(1 << 30), (1 << 30) + 1, -(1 << 31) // 3]
            edge_m = [1 << 30, INT32_MAX, (1 << 30) + 1, 1 << 30, INT32_MAX]
            self.bare_rescale(double, True, [1, 1, 1, 26],
                              [32, 33, 62, 61, 62, 32, 40, 33, 61], edge_m,
                              extremes)
            for s in (32, 33, 61, 62):
                self.bare_rescale(double, True, [1, 1, 1, 13],
                                  [s], [edge_m[s % len(edge_m)]], extremes)
            # Rescales of int8 inputs, a = x - izp in [-255, 0] or [0, 255]:
            # one high-word multiply (SMMULR of a 2^(32-s) when it fits
            # int32, s >= 9; of 2a for s >= 32, with the sign term of
            # DOUBLE_ROUND): every int8 value, both extreme zero points,
            # shifts at that bound (8 stays 64-bit) and across 31-32, with
            # multipliers that make exact halves (2^(s-1): a / 2) or are
            # the extremes (INT32_MIN for SINGLE_ROUND: -a 2^31 / 2^s).
            every = np.arange(-128, 128, dtype=np.int64).reshape([1, 1, 16,
                                                                  16])
            for i, s in enumerate([8, 9, 16, 31, 32, 33, 62]):
                if s <= 31:
                    ms = [1 << (s - 1), (1 << (s - 1)) + (1 << (s - 3)) + 1]
                else:
                    ms = [1 << 30, INT32_MIN if not double else INT32_MAX]
                for j, izp in enumerate((127, -128)):
                    self.requantize_int8(double, False, every, izp,
                                         [0, -128, 127, 5][(i + j) % 4],
                                         ms[j], s)
            # The same through int32 as TFLite's add (chain_rescale): the
            # sum's rescale at s = 32, 33 rounds SRDHM(sum, 2^30 + 1), about
            # sum / 2, again by 2 or 4: halves of either sign, where the
            # sign term of DOUBLE_ROUND decides.
            for s, izp, ozp in ((32, 3, 0), (33, -7, 5), (32, -100, -128)):
                self.chain_rescale(double, every, izp, s, ozp)
            # Convolutions of small accumulators, per-channel shifts 32
            # and 33 (the fused kernels' rescales).
            self.forced_shifts = [32, 33, 33, 32, 32]
            self.conv_like(False, double, True)
            self.conv_like(True, double, True)
            self.forced_shifts = None

    def inplace_depthwise(self, double, vector):
        """A depthwise convolution that mem-opt computes in place
        (inplace-depthwise: multiplier 1, stride 1, an output of the input's
        shape, an input that dies at it and is not a graph input): its input
        is an int8 -> int8 rescale of an argument. Maps of 4-28 rows and 1-9
        columns (the MVE channel vectors along a row need 4 interior
        columns, those along a column 4 rows), 2-20 channels, kernels up to
        5x5 with the padding split either way, sometimes dilation 2; and
        sometimes stride 2, which is not done in place."""
        rng = self.rng
        c = rng.randint(2, 20)
        h, w = rng.randint(4, 28), rng.randint(1, 9)
        if rng.random() < 0.3:
            h, w = w, h
        kh, kw = rng.choice([1, 2, 3, 3, 3, 4, 5]), rng.choice([1, 2, 3, 3,
                                                                 3, 4, 5])
        dil = [2 if k > 1 and rng.random() < 0.15 else 1 for k in (kh, kw)]
        stride = [1, 1]
        pad = []
        for k, d in ((kh, dil[0]), (kw, dil[1])):
            total = d * (k - 1)
            before = rng.choice([total // 2, (total + 1) // 2])
            pad += [before, total - before]
        if rng.random() < 0.15:
            # Stride 2, not in place: the padding that divides exactly.
            stride = [2, 2]
            for i, (size, k, d) in enumerate(((h, kh, dil[0]),
                                              (w, kw, dil[1]))):
                if (size + pad[2 * i] + pad[2 * i + 1] - d * (k - 1) - 1) % 2:
                    pad[2 * i + 1] += 1
        x_zp, izp = self.zero_point(), self.zero_point()
        wzp = 0 if rng.random() < 0.7 else rng.randint(-128, 127)
        x = self.activations([1, h, w, c], x_zp)
        m = rng.randint(1 << 30, INT32_MAX)
        s = rng.randint(31, 32)
        name = self.fn.rescale(self.fn.arg(x, "i8"), x.shape, "i8", "i8", [m],
                               [s], x_zp, izp, double)
        y = requantize(x - x_zp, [m], [s], double, izp)
        wt = self.weights([kh, kw, c, 1])
        bias = self.bias(c)
        wn, bn = self.fn.const(wt, "i8"), self.fn.const(bias, "i32")
        izp_name = self.fn.const([izp], "i8")
        wzp_name = self.fn.const([wzp], "i8")
        acc = depthwise_acc(y, izp, wt, wzp, bias, stride, pad, dil)
        acc_name = self.fn.name("acc")
        self.fn.lines.append(
            "  %s = tosa.depthwise_conv2d %s, %s, %s, %s, %s {acc_type = i32, "
            "dilation = array<i64: %d, %d>, pad = array<i64: %d, %d, %d, %d>, "
            "stride = array<i64: %d, %d>} : (%s, %s, %s, %s, %s) -> %s" % (
                acc_name, name, wn, bn, izp_name, wzp_name, dil[0], dil[1],
                *pad, *stride, tensor(x.shape, "i8"), tensor(wt.shape, "i8"),
                tensor(bias.shape, "i32"), tensor([1], "i8"),
                tensor([1], "i8"), tensor(acc.shape, "i32")))
        self.finish(acc_name, acc, rng.random() < 0.8, double, vector,
                    "in-place depthwise_conv2d %dx%dx%d k%dx%d s%s p%s d%s "
                    "izp=%d wzp=%d" % (h, w, c, kh, kw, stride, pad, dil, izp,
                                       wzp))

    def generate_inplace_depthwise(self, cases):
        """Only in-place depthwise convolutions; rounding modes take turns,
        and so do the shift ranges ([32, 62] three times in four)."""
        for i in range(cases):
            self.inplace_depthwise(i % 2 == 1, i % 8 < 6)
        return self.fn

    def generate(self, cases):
        """Cases of each kind in turn; round r of the kinds has DOUBLE_ROUND
        rescales if r is odd, and shifts in [32, 62] (the 32-bit kernels')
        in rounds 0-3 of every 6, in [1, 62] in rounds 4 and 5."""
        kinds = [lambda *a: self.conv_like(False, *a),
                 lambda *a: self.conv_like(True, *a), self.fully_connected,
                 lambda *a: self.pool(True, *a),
                 lambda *a: self.pool(False, *a),
                 lambda *a: self.elementwise("add", *a),
                 lambda *a: self.elementwise("mul", *a), self.bare_rescale,
                 self.bare_rescale, self.requantize_int8]
        self.edges()
        for i in range(cases):
            r = i // len(kinds)
            kinds[i % len(kinds)](r % 2 == 1, r % 6 < 4)
        return self.fn


def raw_bytes(arrays_and_types):
    return b"".join(np.asarray(v).astype(np.dtype(DTYPES[t]).newbyteorder(
        "<")).tobytes() for v, t in arrays_and_types)


def write_case_files(fn, work):
    """Writes the model, its inputs and its expected outputs to work."""
    model = os.path.join(work, "int8_arithmetic.mlir")
    with open(model, "w") as f:
        f.write(fn.text())
    inputs = os.path.join(work, "inputs.bin")
    with open(inputs, "wb") as f:
        f.write(raw_bytes((v, t) for _, _, t, v in fn.args))
    expected = os.path.join(work, "expected.bin")
    with open(expected, "wb") as f:
        f.write(raw_bytes((v, "i8") for _, _, v, _ in fn.results))
    return model, inputs, expected


def name_differences(fn, out_path):
    """The cases whose bytes in out_path differ from the reference."""
    raw = open(out_path, "rb").read()
    offset, lines = 0, []
    for i, (_, shape, want, what) in enumerate(fn.results):
        count = int(np.prod(shape))
        got = np.frombuffer(raw, dtype=np.int8, count=count, offset=offset)
        offset += count
        bad = np.count_nonzero(got != want.reshape(-1))
        if bad:
            first = int(np.argmax(got != want.reshape(-1)))
            lines.append("  out%d: %d/%d bytes differ (first: %d, want %d): %s"
                         % (i, bad, count, got[first], want.reshape(-1)[first],
                            what))
    return lines


# The kernels each configuration runs: (cpu, mem-opt-compile arguments).
CONFIGS = {
    "cortex-m4": ("cortex-m4", []),
    "cortex-m4-scalar": ("cortex-m4", ["--dsp-kernels=false"]),
    "cortex-m7": ("cortex-m7", []),
    "cortex-m55": ("cortex-m55", []),
    "cortex-m55-scalar": ("cortex-m55", ["--mve-kernels=false"]),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tools", required=True, help="mem-opt's bin directory")
    ap.add_argument("--work", required=True, help="scratch directory")
    ap.add_argument("--seed", type=int, default=1, help="the first seed")
    ap.add_argument("--seeds", type=int, default=1, help="how many seeds")
    ap.add_argument("--cases", type=int, default=60,
                    help="cases per function (default: 60)")
    ap.add_argument("--config", action="append", default=[],
                    choices=sorted(CONFIGS),
                    help="CPU and kernels (default: all)")
    ap.add_argument("--inplace-depthwise", action="store_true",
                    help="only in-place depthwise convolutions")
    ap.add_argument("--generate-only", action="store_true",
                    help="write the model, inputs and expected outputs only")
    args = ap.parse_args()
    self_test()
    here = os.path.dirname(os.path.abspath(__file__))
    run_model = os.path.join(here, "firmware", "run_model.py")
    status = 0
    for seed in range(args.seed, args.seed + args.seeds):
        work = os.path.join(args.work, "seed%d" % seed)
        os.makedirs(work, exist_ok=True)
        generator = Generator(seed)
        fn = (generator.generate_inplace_depthwise(args.cases)
              if args.inplace_depthwise else generator.generate(args.cases))
        model, inputs, expected = write_case_files(fn, work)
        print("seed %d: %d cases, %d output bytes" % (
            seed, len(fn.results), sum(int(np.prod(r[1])) for r in
                                       fn.results)))
        if args.generate_only:
            continue
        for config in args.config or list(CONFIGS):
            cpu, compile_args = CONFIGS[config]
            cwork = os.path.join(work, config)
            res = subprocess.run(
                [sys.executable, run_model, model, "--tools", args.tools,
                 "--work", cwork, "--cpu", cpu, "--inputs", inputs,
                 "--expected", expected] +
                ["--compile-arg=" + a for a in compile_args],
                capture_output=True, text=True)
            ok = res.returncode == 0
            print("%s seed %d %s" % ("OK" if ok else "FAIL", seed, config))
            if not ok:
                status = 1
                sys.stdout.write(res.stdout + res.stderr)
                out = os.path.join(cwork, cpu, "out.bin")
                if os.path.exists(out):
                    print("\n".join(name_differences(fn, out)))
    return status


if __name__ == "__main__":
    sys.exit(main())
