#!/usr/bin/python3
# ===- tflite_one_op.py - One-operator int8 models against TFLite's formulas ===#
#
# Part of the mem-opt project.
#
# ===----------------------------------------------------------------------=== #
#
# tflite_one_op.py WORK_DIR MEM_OPT_IMPORT MEM_OPT_RUN [IMPORT OPTIONS...]
#
# Writes one-operator int8 TFLite models (tflite_writer.py), imports each
# with mem-opt-import (with the options given), runs it on the host with
# mem-opt-run on fixed inputs and compares every output byte with this
# file's own implementation of TFLite Micro's reference formulas
# (reference_integer_ops AveragePool and AddFunc, QuantizedMeanOrSum of
# reduce.h with MEAN's multiplier, QuantizeMultiplier and the rounding
# doubling high multiply and rounding right shift of common.h). Prints, per
# case, the number of differing bytes, the largest difference and the
# differing values "index: got/expected" (at most 4), then a summary line.
# Standard library only; the cases are listed in CASES.
#
# ===----------------------------------------------------------------------=== #

import math
import os
import random
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tflite_writer as tw  # noqa: E402

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def f32(x):
    """The float32 value TFLite reads for the scale `x`."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


# --- TFLite's fixed-point helpers (kernels/internal/common.h) ---

def quantize_multiplier(d):
    """QuantizeMultiplier: d = m * 2^(shift - 31), m in [2^30, 2^31)."""
    if d == 0:
        return 0, 0
    q, shift = math.frexp(d)
    m = math.floor(abs(q) * (1 << 31) + 0.5)  # round half away from zero
    if m == 1 << 31:
        m //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    return m, shift


def high_mul(a, b):
    """SaturatingRoundingDoublingHighMul: (a * b * 2 + 2^31) / 2^32,
    nudge towards zero for negative products, truncating division."""
    if a == b == INT32_MIN:
        return INT32_MAX
    ab = a * b
    nudge = (1 << 30) if ab >= 0 else 1 - (1 << 30)
    t = ab + nudge
    q = abs(t) >> 31
    return q if t >= 0 else -q


def divide_by_pot(x, e):
    """RoundingDivideByPOT: x / 2^e, halves away from zero."""
    mask = (1 << e) - 1
    rem = x & mask
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> e) + (1 if rem > threshold else 0)


def mbqm(x, m, shift):
    """MultiplyByQuantizedMultiplier (double rounding)."""
    left = shift if shift > 0 else 0
    right = 0 if shift > 0 else -shift
    return divide_by_pot(high_mul(x * (1 << left), m), right)


def c_div(a, b):
    """C's integer division (truncation towards zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def clamp8(x):
    return max(-128, min(127, x))


# --- The kernels ---

def average_pool(x, shape, kernel, stride, padding):
    """reference_integer_ops::AveragePool (no activation) on NHWC `x`."""
    n, h, w, c = shape
    oh, pad_h = out_size(h, kernel[0], stride[0], padding)
    ow, pad_w = out_size(w, kernel[1], stride[1], padding)
    out = []
    for b in range(n):
        for oy in range(oh):
            for ox in range(ow):
                for ch in range(c):
                    y0, x0 = oy * stride[0] - pad_h, ox * stride[1] - pad_w
                    acc = count = 0
                    for fy in range(max(0, -y0), min(kernel[0], h - y0)):
                        for fx in range(max(0, -x0), min(kernel[1], w - x0)):
                            acc += x[((b * h + y0 + fy) * w + x0 + fx) * c
                                     + ch]
                            count += 1
                    if acc > 0:
                        acc = c_div(acc + count // 2, count)
                    else:
                        acc = c_div(acc - count // 2, count)
                    out.append(clamp8(acc))
    return out


def out_size(size, kernel, stride, padding):
    """TFLite's output size and leading padding (ComputePaddingHeightWidth)."""
    if padding == tw.VALID:
        out = (size - kernel + stride) // stride
    else:
        out = (size + stride - 1) // stride
    total = max(0, (out - 1) * stride + kernel - size)
    return out, total // 2


def add(a, b, qa, qb, qo):
    """reference_integer_ops AddFunc, parameters as TFLite Micro's
    CalculateOpDataAdd (left shift 20)."""
    sa, sb, so = f32(qa[0]), f32(qb[0]), f32(qo[0])
    twice = 2 * max(sa, sb)
    ma, ea = quantize_multiplier(sa / twice)
    mb, eb = quantize_multiplier(sb / twice)
    mo, eo = quantize_multiplier(twice / ((1 << 20) * so))
    out = []
    for x, y in zip(a, b):
        ra = divide_by_pot(high_mul((x - qa[1]) * (1 << 20), ma), -ea)
        rb = divide_by_pot(high_mul((y - qb[1]) * (1 << 20), mb), -eb)
        r = divide_by_pot(high_mul(ra + rb, mo), -eo) + qo[1]
        out.append(clamp8(r))
    return out


def mean(x, shape, axes, qi, qo):
    """QuantizedMeanOrSum (compute_sum = false) over `axes` of NHWC `x`:
    QuantizeMultiplier(s_in / s_out) with the count folded in."""
    m, shift = quantize_multiplier(f32(qi[0]) / f32(qo[0]))
    count = 1
    for a in axes:
        count *= shape[a]
    k = min(count.bit_length() - 1, 32, 31 + shift)
    m = (m << k) // count
    shift -= k
    kept = [d for d in range(4) if d not in axes]
    sums = {}
    for i, v in enumerate(x):
        idx, rest = [], i
        for d in reversed(range(4)):
            idx.append(rest % shape[d])
            rest //= shape[d]
        idx.reverse()
        key = tuple(idx[d] for d in kept)
        sums[key] = sums.get(key, 0) + v - qi[1]
    return [clamp8(mbqm(sums[key], m, shift) + qo[1])
            for key in sorted(sums)]


# --- The cases: name -> (model bytes, inputs, reference outputs) ---

def pool_case(shape, kernel, stride, padding, q, values):
    oh = out_size(shape[1], kernel[0], stride[0], padding)[0]
    ow = out_size(shape[2], kernel[1], stride[1], padding)[0]
    model = tw.average_pool(shape, kernel, stride, padding, q[0], q[1],
                            [shape[0], oh, ow, shape[3]])
    return model, [values], average_pool(values, shape, kernel, stride,
                                         padding)


def half_channels(count, lo_value, channels):
    """`count` values per channel whose mean is lo_value + 1/2 in channel 0
    (half lo_value, half lo_value + 1), lo_value elsewhere."""
    vals = []
    for i in range(count):
        for ch in range(channels):
            vals.append(lo_value + (i % 2 if ch == 0 else 0))
    return vals


def cases():
    rng = random.Random(26)

    def rand(n):
        return [rng.randint(-128, 127) for _ in range(n)]

    out = {}
    # ResNet-8's final pool: 8x8, a channel sum of -7776 = 64 * -121.5,
    # which TFLite rounds to -122 (away from zero). TOSA's avg_pool2d
    # subtracts the zero point first: with -128, +6.5, rounded to 7: -121.
    # And a raw +100.5 (101 in TFLite) that is -19.5 after the zero point
    # 120 (-20 in TOSA: 100).
    out["pool_global_neg_half"] = pool_case(
        [1, 8, 8, 4], [8, 8], [1, 1], tw.VALID, (0.05, -128),
        half_channels(64, -122, 4))
    out["pool_global_pos_half"] = pool_case(
        [1, 8, 8, 4], [8, 8], [1, 1], tw.VALID, (0.05, 120),
        half_channels(64, 100, 4))
    out["pool_global_random"] = pool_case(
        [1, 6, 6, 12], [6, 6], [1, 1], tw.VALID, (0.02, 3), rand(432))
    # Windows of 4: halves are frequent.
    out["pool_2x2_valid"] = pool_case(
        [1, 8, 8, 5], [2, 2], [2, 2], tw.VALID, (0.1, -128), rand(320))
    out["pool_3x3_valid"] = pool_case(
        [1, 7, 7, 3], [3, 3], [1, 1], tw.VALID, (0.1, 0), rand(147))
    # SAME padding: windows of 4, 6 and 9 values at the borders.
    out["pool_3x3_same"] = pool_case(
        [1, 6, 6, 5], [3, 3], [2, 2], tw.SAME, (0.1, 2), rand(180))
    # ADD: a's factor 0.05 / 0.14 needs TFLite's shift by 20 bits and a
    # second rescale (no single rescale gives TFLite's value for every
    # input); every pair of int8 values of a and b is tried.
    qa, qb, qo = (0.05, -3), (0.07, 7), (0.1, -10)
    a = [x for x in range(-128, 128) for _ in range(16)]
    b = [(x * 37 + 11) % 256 - 128 for x in range(4096)]
    out["add_two_step"] = (tw.add([1, 16, 16, 16], qa, qb, qo), [a, b],
                           add(a, b, qa, qb, qo))
    qa, qb, qo = (0.0392157, 12), (0.0235294, -128), (0.0470588, -20)
    a, b = rand(2 * 4 * 4 * 8), rand(2 * 4 * 4 * 8)
    out["add_random"] = (tw.add([2, 4, 4, 8], qa, qb, qo), [a, b],
                         add(a, b, qa, qb, qo))
    # MEAN over H and W (as MobileNetV2's head) and over one axis.
    x = rand(1 * 7 * 7 * 16)
    out["mean_hw"] = (tw.mean([1, 7, 7, 16], [1, 2], True, (0.05, -3),
                              (0.02, 4), [1, 1, 1, 16]), [x],
                      mean(x, [1, 7, 7, 16], [1, 2], (0.05, -3), (0.02, 4)))
    x = rand(1 * 4 * 6 * 8)
    out["mean_w"] = (tw.mean([1, 4, 6, 8], [2], False, (0.03, 5),
                             (0.03, 5), [1, 4, 8]), [x],
                     mean(x, [1, 4, 6, 8], [2], (0.03, 5), (0.03, 5)))
    return out


def main():
    work, importer, runner = sys.argv[1:4]
    options = sys.argv[4:]
    os.makedirs(work, exist_ok=True)
    failed = 0
    for name, (model, inputs, expected) in sorted(cases().items()):
        base = os.path.join(work, name)
        with open(base + ".tflite", "wb") as f:
            f.write(model)
        with open(base + ".in", "wb") as f:
            for values in inputs:
                f.write(struct.pack("<%db" % len(values), *values))
        subprocess.run([importer, base + ".tflite", "-o", base + ".mlir"]
                       + options, check=True)
        subprocess.run([runner, base + ".mlir", "--entry=main",
                        "--inputs=" + base + ".in",
                        "--outputs=" + base + ".out"], check=True)
        raw = open(base + ".out", "rb").read()
        got = list(struct.unpack("<%db" % len(raw), raw))
        if len(got) != len(expected):
            print("%s: %d output bytes, expected %d" % (name, len(got),
                                                        len(expected)))
            failed += 1
            continue
        diffs = [(i, g, e) for i, (g, e) in enumerate(zip(got, expected))
                 if g != e]
        worst = max((abs(g - e) for _, g, e in diffs), default=0)
        print("%s: %d of %d differ, max %d%s" % (
            name, len(diffs), len(got), worst,
            "".join(" %d: %d/%d" % d for d in diffs[:4])))
        failed += bool(diffs)
    print("%d of %d cases differ" % (failed, len(cases())))


if __name__ == "__main__":
    main()
