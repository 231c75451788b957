#!/usr/bin/python3
# ===- tflite_reference.py - numpy reference of TFLite int8 kernels -------=== #
#
# Part of the mem-opt project.
#
# ===----------------------------------------------------------------------=== #
#
# A small reference interpreter, in numpy, of the TFLite kernels the shared
# models use, written from TFLite's published reference-kernel semantics
# (QuantizeMultiplier, MultiplyByQuantizedMultiplier with its rounding
# doubling high multiply and rounding right shift, per-channel convolution,
# the int8 add with 20 extra bits, average pooling with rounded division,
# TFLite Micro's integer mean, TFLite Micro's SVDF, whose state update
# wraps, the int8 softmax in gemmlowp's fixed-point arithmetic). It reads
# models through tflite_tensors.py, not through mem-opt. `rounding` selects
# "double" (TFLite's) or "single" (one rounding, half up, as TOSA's
# SINGLE_ROUND) for the rescales; the softmax is TFLite's in both. A float or
# int16-input softmax is computed in float from the dequantized input and
# quantized back.
#
# ===----------------------------------------------------------------------=== #

import math

import numpy as np

I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1
DTYPES = {"f32": np.float32, "i32": np.int32, "i8": np.int8, "i16": np.int16,
          "i64": np.int64, "ui8": np.uint8, "f16": np.float16}
RANGES = {"i8": (-128, 127), "i16": (-32768, 32767), "i32": (I32_MIN, I32_MAX)}


def quantize_multiplier(m):
    """TFLite's QuantizeMultiplier: (q_fixed, shift) with m ~ q * 2^shift."""
    if m == 0:
        return 0, 0
    q, shift = math.frexp(m)
    q_fixed = int(math.floor(abs(q) * (1 << 31) + 0.5))
    if q_fixed == (1 << 31):
        q_fixed //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    return q_fixed, shift


def f32_scale(a, b, c):
    """a * b / c in float32, as TFLite Micro's SVDF Prepare computes its
    effective scales (from the tensors' float scales)."""
    return float(np.float32(np.float32(a) * np.float32(b)) / np.float32(c))


def wrap(x, type_name):
    """Two's complement narrowing of integers to `type_name` (i8 or i16), as
    C++ stores an int32 into int8_t or int16_t."""
    bits = {"i8": 8, "i16": 16}[type_name]
    half = 1 << (bits - 1)
    return ((np.asarray(x, dtype=np.int64) + half) % (1 << bits)) - half


def mbqm(x, m, rounding):
    """MultiplyByQuantizedMultiplier on an int64 array, real factor m."""
    q, shift = quantize_multiplier(m)
    x = x.astype(np.int64)
    if rounding == "single":
        total = 31 - shift
        return (x * q + (1 << (total - 1))) >> total
    left = max(shift, 0)
    right = max(-shift, 0)
    a = x * (1 << left)
    a = np.clip(a, I32_MIN, I32_MAX)
    ab = a * q
    nudge = np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    # C++ integer division truncates toward zero.
    num = ab + nudge
    high = np.where(num >= 0, num // (1 << 31), -((-num) // (1 << 31)))
    if right == 0:
        return high
    mask = (1 << right) - 1
    rem = high & mask
    threshold = (mask >> 1) + (high < 0)
    return (high >> right) + (rem > threshold)


def mbqm_fixed(x, q, shift):
    """MultiplyByQuantizedMultiplier on an int64 array with a given
    multiplier q and TFLite shift (positive: left), double rounding."""
    x = np.clip(x.astype(np.int64) * (1 << max(shift, 0)), I32_MIN, I32_MAX)
    ab = x * q
    num = ab + np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    high = np.where(num >= 0, num // (1 << 31), -((-num) // (1 << 31)))
    right = max(-shift, 0)
    if right == 0:
        return high
    mask = (1 << right) - 1
    threshold = (mask >> 1) + (high < 0)
    return (high >> right) + ((high & mask) > threshold)


class Model:
    def __init__(self, decoded):
        self.t = decoded["tensors"]
        self.ops = decoded["ops"]
        self.inputs = decoded["inputs"]
        self.outputs = decoded["outputs"]

    def const(self, i):
        t = self.t[i]
        a = np.frombuffer(t["data"], dtype=DTYPES[t["type"]])
        return a.reshape(t["shape"])

    def q(self, i):
        t = self.t[i]
        return (t["scale"] or [1.0]), (t["zero_point"] or [0])


def act_range(model, out, act):
    t = model.t[out]
    lo, hi = RANGES[t["type"]]
    s, z = model.q(out)
    rnd = lambda v: int(math.floor(abs(v / s[0]) + 0.5)) * (1 if v >= 0 else -1)
    if act == 1:
        lo = max(lo, z[0] + rnd(0.0))
    elif act == 3:
        lo = max(lo, z[0] + rnd(0.0))
        hi = min(hi, z[0] + rnd(6.0))
    elif act == 2:
        lo = max(lo, z[0] + rnd(-1.0))
        hi = min(hi, z[0] + rnd(1.0))
    return lo, hi


def same_pad(size, k, stride, dil, padding):
    eff = (k - 1) * dil + 1
    if padding == 0:  # SAME
        out = (size + stride - 1) // stride
        total = max((out - 1) * stride + eff - size, 0)
        return out, total // 2
    return (size - eff + stride) // stride, 0


def patches(x, kh, kw, sh, sw, dh, dw, padding, fill):
    """[N, OH, OW, KH, KW, C] windows of NHWC x, padded with `fill`."""
    n, h, w, c = x.shape
    oh, ph = same_pad(h, kh, sh, dh, padding)
    ow, pw = same_pad(w, kw, sw, dw, padding)
    big = np.full((n, h + (oh * sh + (kh - 1) * dh + 1), w + (ow * sw +
                  (kw - 1) * dw + 1), c), fill, dtype=np.int64)
    big[:, ph:ph + h, pw:pw + w, :] = x
    out = np.empty((n, oh, ow, kh, kw, c), dtype=np.int64)
    for i in range(kh):
        for j in range(kw):
            out[:, :, :, i, j, :] = big[:, i * dh:i * dh + oh * sh:sh,
                                        j * dw:j * dw + ow * sw:sw, :]
    valid = np.zeros((oh, ow, kh, kw), dtype=bool)
    rows = np.arange(oh)[:, None] * sh + np.arange(kh)[None, :] * dh - ph
    cols = np.arange(ow)[:, None] * sw + np.arange(kw)[None, :] * dw - pw
    valid = ((rows >= 0) & (rows < h))[:, None, :, None] & \
        ((cols >= 0) & (cols < w))[None, :, None, :]
    return out, valid


# --- TFLite's int8 softmax (reference_ops::Softmax), from the formulas of
# gemmlowp's fixed-point arithmetic, in Python integers. A FixedPoint value
# with k integer bits is an int32 raw r meaning r / 2^(31 - k).

def srdhm(a, b):
    """Saturating rounding doubling high multiply: a * b / 2^31 rounded to
    nearest, halves away from zero (C++ division truncates toward zero)."""
    if a == b == I32_MIN:
        return I32_MAX
    ab = a * b
    num = ab + ((1 << 30) if ab >= 0 else 1 - (1 << 30))
    return num // (1 << 31) if num >= 0 else -((-num) // (1 << 31))


def rdbpot(x, e):
    """x / 2^e rounded to nearest, halves away from zero."""
    if e == 0:
        return x
    q, r = divmod(x, 1 << e)  # floor division, r >= 0
    half = 1 << (e - 1)
    return q + (1 if r > half or (r == half and x >= 0) else 0)


def sat_shl(x, e):
    """gemmlowp's saturating multiplication of an int32 by 2^e, e > 0."""
    return max(I32_MIN, min(I32_MAX, x * (1 << e)))


def fp_exp_negative(a, int_bits):
    """exp(a / 2^(31 - int_bits)) for a <= 0 as a Q0.31 raw value: a Taylor
    polynomial around -1/8 on the remainder modulo 1/4, times exp(-1/4),
    exp(-1/2), ..., exp(-16) (Q0.31 constants) for each bit of the whole
    quarters; exp(0) is the largest raw value."""
    frac = 31 - int_bits
    quarter = 1 << (frac - 2)
    mod = (a & (quarter - 1)) - quarter
    y = sat_shl(mod, int_bits) if int_bits else mod  # to Q0.31
    # exp on [-1/4, 0): e^(-1/8) (1 + x + x^2/2 + x^3/6 + x^4/24), x = y + 1/8.
    c, third = 1895147668, 715827883
    x = y + (1 << 28)
    x2 = srdhm(x, x)
    x3 = srdhm(x2, x)
    x4 = srdhm(x2, x2)
    poly = rdbpot(srdhm(rdbpot(x4, 2) + x3, third) + x2, 1)
    result = c + srdhm(c, x + poly)
    rem = mod - a
    for k, m in zip(range(-2, 5), (1672461947, 1302514674, 790015084,
                                   290630308, 39332535, 720401, 242)):
        if int_bits > k and rem & (1 << (frac + k)):
            result = srdhm(result, m)
    if int_bits > 5 and a < -(1 << (36 - int_bits)):
        result = 0
    return I32_MAX if a == 0 else result


def fp_one_over_one_plus_x(a):
    """1 / (1 + a) for Q0.31 a in [0, 1): Newton-Raphson in Q2.29 on
    d = (1 + a) / 2 from 48/17 - 32/17 d; the Q0.31 result."""
    d = (a + I32_MAX + 1) // 2  # RoundingHalfSum(a, One), a >= 0
    x = 1515870810 + srdhm(d, -1010580540)
    for _ in range(3):
        err = (1 << 29) - srdhm(d, x)
        x = x + sat_shl(srdhm(x, err), 2)
    return sat_shl(x, 1)


def softmax_params(beta, scale):
    """PreprocessSoftmaxScaling and CalculateInputRadius for 5 integer bits:
    (multiplier, left shift, diff_min)."""
    real = min(beta * scale * (1 << 26), float((1 << 31) - 1))
    if not real > 1.0:
        raise SystemExit("reference: softmax multiplier %g not above 1" % real)
    q, shift = quantize_multiplier(real)
    diff_min = -math.floor(31.0 * (1 << 26) / (1 << shift))
    return q, shift, diff_min


def softmax_int8(x, beta, scale, out_bits):
    """TFLite's int8 softmax over the last axis of int array x, to int8
    (zero point -128) or int16 (zero point -32768) output values."""
    q, shift, diff_min = softmax_params(beta, scale)
    lo, hi = -(1 << (out_bits - 1)), (1 << (out_bits - 1)) - 1
    flat = x.reshape(-1, x.shape[-1])
    out = np.empty(flat.shape, np.int64)
    for r, row in enumerate(flat):
        row = [int(v) for v in row]
        mx = max(row)
        exps = [fp_exp_negative(srdhm((v - mx) << shift, q), 5)
                if v - mx >= diff_min else None for v in row]
        total = sum(rdbpot(e, 12) for e in exps if e is not None)  # Q12.19
        # GetReciprocal: the sum normalized into [1, 2) by its leading zeros.
        zeros = 32 - total.bit_length()
        recip = fp_one_over_one_plus_x(((total << zeros) & I32_MAX))
        exponent = (12 - zeros) + 31 - out_bits
        assert 0 <= exponent <= 31, exponent
        for c, e in enumerate(exps):
            out[r, c] = lo if e is None else max(lo, min(
                hi, rdbpot(srdhm(recip, e), exponent) + lo))
    return out.reshape(x.shape)


def run(decoded, inputs, rounding="double", states=None, stats=None):
    """Runs the model on `inputs` (numpy arrays); returns the outputs and
    the updated SVDF states (in operator order). `stats`, a dict, receives
    counts of SVDF state entries: "svdf_wrapped" (the clamped product plus
    the zero point left the state type) and "svdf_unsaturated" (the entry
    differs from the saturated sum of product and zero point)."""
    m = Model(decoded)
    stats = {} if stats is None else stats
    stats.setdefault("svdf_wrapped", 0)
    stats.setdefault("svdf_unsaturated", 0)
    v = {}
    for i, x in zip(m.inputs, inputs):
        v[i] = x
    new_states = []
    states = list(states or [])

    def get(i):
        if i in v:
            return v[i]
        return m.const(i)

    for op in m.ops:
        kind, ins, out, o = op["op"], op["inputs"], op["outputs"][0], \
            op["options"]
        tout = m.t[out]
        if kind in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"):
            x = get(ins[0]).astype(np.int64)
            w = m.const(ins[1]).astype(np.int64)
            b = (m.const(ins[2]).astype(np.int64)
                 if len(ins) > 2 and ins[2] >= 0 else 0)
            si, zi = m.q(ins[0])
            sw, zw = m.q(ins[1])
            so, zo = m.q(out)
            if kind == "FULLY_CONNECTED":
                x = x.reshape(-1, w.shape[1])
                acc = (x - zi[0]) @ (w - zw[0]).T + b
                chan = acc.shape[-1]
            else:
                if kind == "CONV_2D":
                    kh, kw_ = w.shape[1], w.shape[2]
                else:
                    kh, kw_ = w.shape[1], w.shape[2]
                p, valid = patches(x, kh, kw_, o["stride_h"], o["stride_w"],
                                   o["dilation_h"], o["dilation_w"],
                                   o["padding"], zi[0])
                p = p - zi[0]
                if kind == "CONV_2D":
                    acc = np.einsum("nhwijc,oijc->nhwo", p, w) + b
                else:
                    cin = x.shape[3]
                    mult = w.shape[3] // cin
                    p = np.repeat(p, mult, axis=5)
                    acc = np.einsum("nhwijc,ijc->nhwc", p, w[0]) + b
                chan = acc.shape[-1]
            res = np.empty_like(acc)
            for c in range(chan):
                s_w = sw[c] if len(sw) > 1 else sw[0]
                res[..., c] = mbqm(acc[..., c], si[0] * s_w / so[0], rounding)
            res = res + zo[0]
            lo, hi = act_range(m, out, o.get("act", 0))
            v[out] = np.clip(res, lo, hi).reshape(tout["shape"])
        elif kind == "AVERAGE_POOL_2D":
            x = get(ins[0]).astype(np.int64)
            p, valid = patches(x, o["filter_h"], o["filter_w"], o["stride_h"],
                               o["stride_w"], 1, 1, o["padding"], 0)
            mask = valid[None, :, :, :, :, None]
            s = (p * mask).sum(axis=(3, 4))
            cnt = mask.sum(axis=(3, 4))
            avg = np.where(s > 0, (s + cnt // 2) // cnt,
                           -((-s + cnt // 2) // cnt))
            lo, hi = act_range(m, out, o.get("act", 0))
            v[out] = np.clip(avg, lo, hi)
        elif kind == "ADD":
            # TFLite's int8 add: both inputs to 2 * max scale with 20 bits.
            a = get(ins[0]).astype(np.int64)
            b = get(ins[1]).astype(np.int64)
            sa, za = m.q(ins[0])
            sb, zb = m.q(ins[1])
            so, zo = m.q(out)
            twice = 2 * max(sa[0], sb[0])
            ra = mbqm((a - za[0]) * (1 << 20), sa[0] / twice, rounding)
            rb = mbqm((b - zb[0]) * (1 << 20), sb[0] / twice, rounding)
            y = mbqm(ra + rb, twice / ((1 << 20) * so[0]), rounding) + zo[0]
            lo, hi = act_range(m, out, o.get("act", 0))
            v[out] = np.clip(y, lo, hi)
        elif kind in ("PAD", "PADV2"):
            x = get(ins[0])
            pads = m.const(ins[1]).reshape(-1, 2)
            zp = m.q(ins[0])[1][0] if m.t[ins[0]]["scale"] else 0
            v[out] = np.pad(x, [tuple(p) for p in pads], constant_values=zp)
        elif kind == "TRANSPOSE":
            v[out] = np.transpose(get(ins[0]), m.const(ins[1]))
        elif kind == "MEAN":
            # TFLite Micro's integer mean (reduce.h, QuantizedMeanOrSum):
            # the sum minus count * zero point, times QuantizeMultiplier(
            # s_in / s_out) with the count folded into the multiplier,
            # (q << k) // count with 2^k <= count (k <= 32, shift - k >= -31).
            x = get(ins[0]).astype(np.int64)
            axes = tuple(int(a) % x.ndim for a in m.const(ins[1]).ravel())
            si, zi = m.q(ins[0])
            so, zo = m.q(out)
            cnt = int(np.prod([x.shape[a] for a in axes]))
            acc = (x - zi[0]).sum(axis=axes)
            if rounding == "single":
                acc = mbqm(acc, si[0] / (so[0] * cnt), rounding)
            else:
                q, shift = quantize_multiplier(si[0] / so[0])
                k = min(cnt.bit_length() - 1, 32, 31 + shift)
                acc = mbqm_fixed(acc, ((q << k) // cnt), shift - k)
            v[out] = np.clip(acc + zo[0], -128, 127).reshape(tout["shape"])
        elif kind in ("RESHAPE",):
            v[out] = get(ins[0]).reshape(tout["shape"])
        elif kind == "SOFTMAX" and m.t[ins[0]]["type"] == "i8":
            si, _ = m.q(ins[0])
            v[out] = softmax_int8(get(ins[0]).astype(np.int64),
                                  o.get("beta") or 1.0, si[0],
                                  8 if tout["type"] == "i8" else 16)
        elif kind == "SOFTMAX":
            x = get(ins[0]).astype(np.float64)
            si, zi = m.q(ins[0])
            so, zo = m.q(out)
            f = (x - zi[0]) * si[0] * (o.get("beta") or 1.0)
            e = np.exp(f - f.max(axis=-1, keepdims=True))
            y = e / e.sum(axis=-1, keepdims=True)
            q = np.floor(y / so[0] + 0.5) + zo[0]
            lo, hi = RANGES[tout["type"]]
            v[out] = np.clip(q, lo, hi).astype(np.int64)
        elif kind == "QUANTIZE":
            x = get(ins[0])
            si, zi = m.q(ins[0])
            so, zo = m.q(out)
            lo, hi = RANGES[tout["type"]]
            if m.t[ins[0]]["type"] == "f32":
                q = np.round(x.astype(np.float64) / so[0]) + zo[0]
            else:
                q = mbqm(x.astype(np.int64) - zi[0], si[0] / so[0],
                         rounding) + zo[0]
            v[out] = np.clip(q, lo, hi).astype(np.int64)
        elif kind == "SVDF":  # As TFLite Micro's integer kernel.
            x = get(ins[0]).astype(np.int64)
            wf = m.const(ins[1]).astype(np.int64)
            wt = m.const(ins[2]).astype(np.int64)
            bias = m.const(ins[3]).astype(np.int64) if ins[3] >= 0 else 0
            st = states.pop(0).astype(np.int64)
            si, zi = m.q(ins[0])
            sf, _ = m.q(ins[1])
            stt, _ = m.q(ins[2])
            ss, zs = m.q(ins[4])
            so, zo = m.q(out)
            bsz, nf, mem = x.shape[0], wf.shape[0], wt.shape[1]
            rank = o["rank"]
            st = st.reshape(bsz, nf, mem)
            st = np.concatenate([st[:, :, 1:], np.zeros((bsz, nf, 1),
                                                        np.int64)], axis=2)
            # TFLite Micro clamps the product to the state type first and
            # then adds the state's zero point, storing the sum into the
            # state type, which wraps (zero point -13: -128 becomes 115).
            feat = (x - zi[0]) @ wf.T
            feat = mbqm(feat, f32_scale(si[0], sf[0], ss[0]), rounding)
            st_type = m.t[ins[4]]["type"]
            slo, shi = RANGES[st_type]
            total = np.clip(feat, slo, shi) + zs[0]
            st[:, :, -1] = wrap(total, st_type)
            stats["svdf_wrapped"] += int(((total < slo) | (total > shi)).sum())
            stats["svdf_unsaturated"] += int(
                (st[:, :, -1] != np.clip(feat + zs[0], slo, shi)).sum())
            new_states.append(st.reshape(bsz, nf * mem))
            # The time weights' zero point is not used, as in TFLite Micro.
            t = ((st - zs[0]) * wt[None]).sum(axis=2)
            u = t.reshape(bsz, nf // rank, rank).sum(axis=2) + bias
            y = mbqm(u, f32_scale(ss[0], stt[0], so[0]), rounding) + zo[0]
            v[out] = np.clip(y, -128, 127)
        else:
            raise SystemExit("reference: unsupported op " + kind)
    return [v[i] for i in m.outputs], new_states
