#!/usr/bin/env python3
# ===- gen_int8_dsp.py - Write int8_dsp.mlir -----------------------------=== #
#
# Part of the mem-opt project.
#
# ===--------------------------------------------------------------------=== #
#
# Writes a small int8 TOSA model for the DSP kernels of arm-dsp-int8-kernels
# (SXTB16/SADD16/SMLAD): convolutions and depthwise convolutions whose
# channel counts are not multiples of 4 (scalar tails) or of the output
# channel block, with padding, stride 2, dilation 2, input zero points -7,
# -128 and 127 (the extremes of int8 - zp), a non-zero weight zero point, and
# weights over the whole int8 range:
#   conv0: 1x1 conv, 7 -> 1 channel, zp -7;
#   dwm: 3x3 depthwise of conv0, multiplier 6, pad 1, zp -128 (a conv with
#        an HWCF filter of one input channel and 6 output channels);
#   conv1: 3x3 conv, pad 1, 7 -> 6 channels, zp -7;
#   dw1: 3x3 depthwise, pad 1, stride 2, 6 channels, zp -128;
#   dw2: 3x3 depthwise, pad 1, 6 channels, zp 127;
#   conv2: 1x1 conv, 6 -> 9 channels, zp 127, weight zp 5;
#   conv3: 3x3 conv, dilation 2, pad 2, 9 -> 5 channels, zp -128;
#   dw3: 3x3 depthwise, no padding, 5 channels, zp -7;
# each followed by a per-channel tosa.rescale to i8.
#
#   python3 gen_int8_dsp.py > int8_dsp.mlir
# ===--------------------------------------------------------------------=== #

import random

rng = random.Random(11)
lines, counter = [], [0]


def t(shape, dtype):
    return "tensor<%sx%s>" % ("x".join(map(str, shape)), dtype)


def const(shape, dtype, lo, hi):
    """A random constant tensor; returns its SSA name."""
    name = "%%c%d" % counter[0]
    counter[0] += 1
    n = 1
    for d in shape:
        n *= d
    flat = [rng.randint(lo, hi) for _ in range(n)]

    def nest(vals, dims):
        if len(dims) == 1:
            return "[" + ", ".join(map(str, vals)) + "]"
        step = len(vals) // dims[0]
        return "[" + ", ".join(nest(vals[i * step:(i + 1) * step], dims[1:])
                               for i in range(dims[0])) + "]"

    lines.append('  %s = "tosa.const"() <{values = dense<%s> : %s}> : () -> %s'
                 % (name, nest(flat, shape), t(shape, dtype), t(shape, dtype)))
    return name


def scalar(name, value, dtype):
    lines.append('  %%%s = "tosa.const"() <{values = dense<%d> : tensor<1x%s>}> '
                 ': () -> tensor<1x%s>' % (name, value, dtype, dtype))
    return "%" + name


def rescale(x, shape, name):
    c = shape[-1]
    mult = const([c], "i32", 1 << 29, (1 << 30) - 1)
    shift = const([c], "i8", 36, 38)
    lines.append(
        '  %%%s = tosa.rescale %s, %s, %s, %%zp32, %%ozp {input_unsigned = '
        'false, output_unsigned = false, per_channel = true, rounding_mode = '
        'SINGLE_ROUND, scale32 = true} : (%s, %s, %s, tensor<1xi32>, '
        'tensor<1xi8>) -> %s loc("%s")'
        % (name, x, mult, shift, t(shape, "i32"), t([c], "i32"), t([c], "i8"),
           t(shape, "i8"), name))
    return "%" + name


def depthwise(x, xshape, channels, mult, pad, stride, name):
    n, h, w, c = xshape
    oh = (h + 2 * pad - 3) // stride + 1
    ow = (w + 2 * pad - 3) // stride + 1
    out = [n, oh, ow, c * mult]
    wt = const([3, 3, c, mult], "i8", -127, 127)
    bias = const([c * mult], "i32", -2000, 2000)
    lines.append(
        '  %%%s = tosa.depthwise_conv2d %s, %s, %s, %%izp, %%wzp {acc_type = i32, '
        'dilation = array<i64: 1, 1>, pad = array<i64: %d, %d, %d, %d>, stride = '
        'array<i64: %d, %d>} : (%s, %s, %s, tensor<1xi8>, tensor<1xi8>) -> %s '
        'loc("%s")' % (name, x, wt, bias, pad, pad, pad, pad, stride, stride,
                       t(xshape, "i8"), t([3, 3, c, mult], "i8"),
                       t([c * mult], "i32"), t(out, "i32"), name))
    return "%" + name, out


def conv(x, xshape, oc, k, pad, stride, dil, izp, wzp, name):
    n, h, w, c = xshape
    oh = (h + 2 * pad - dil * (k - 1) - 1) // stride + 1
    ow = (w + 2 * pad - dil * (k - 1) - 1) // stride + 1
    out = [n, oh, ow, oc]
    wt = const([oc, k, k, c], "i8", -128, 127)
    bias = const([oc], "i32", -2000, 2000)
    lines.append(
        '  %%%s = tosa.conv2d %s, %s, %s, %s, %s {acc_type = i32, dilation = '
        'array<i64: %d, %d>, pad = array<i64: %d, %d, %d, %d>, stride = '
        'array<i64: %d, %d>} : (%s, %s, %s, tensor<1xi8>, tensor<1xi8>) -> %s '
        'loc("%s")' % (name, x, wt, bias, izp, wzp, dil, dil, pad, pad, pad,
                       pad, stride, stride, t(xshape, "i8"),
                       t([oc, k, k, c], "i8"), t([oc], "i32"), t(out, "i32"),
                       name))
    return "%" + name, out


def dw(x, xshape, pad, stride, izp, name, mult=1):
    n, h, w, c = xshape
    oh = (h + 2 * pad - 3) // stride + 1
    ow = (w + 2 * pad - 3) // stride + 1
    out = [n, oh, ow, c * mult]
    wt = const([3, 3, c, mult], "i8", -128, 127)
    bias = const([c * mult], "i32", -2000, 2000)
    lines.append(
        '  %%%s = tosa.depthwise_conv2d %s, %s, %s, %s, %%wzp {acc_type = i32, '
        'dilation = array<i64: 1, 1>, pad = array<i64: %d, %d, %d, %d>, stride = '
        'array<i64: %d, %d>} : (%s, %s, %s, tensor<1xi8>, tensor<1xi8>) -> %s '
        'loc("%s")' % (name, x, wt, bias, izp, pad, pad, pad, pad, stride,
                       stride, t(xshape, "i8"), t([3, 3, c, mult], "i8"),
                       t([c * mult], "i32"), t(out, "i32"), name))
    return "%" + name, out


lines.append("func.func @int8_dsp(%x: tensor<1x11x11x7xi8>) -> "
             "(tensor<1x4x4x5xi8>, tensor<1x6x6x9xi8>, tensor<1x11x11x6xi8>) {")
scalar("zpm7", -7, "i8")
scalar("zpm128", -128, "i8")
scalar("zp127", 127, "i8")
scalar("wzp", 0, "i8")
scalar("wzp5", 5, "i8")
scalar("zp32", 0, "i32")
scalar("ozp", 3, "i8")
m, ms = conv("%x", [1, 11, 11, 7], 1, 1, 0, 1, 1, "%zpm7", "%wzp", "conv0_acc")
m = rescale(m, ms, "conv0")
m, ms = dw(m, ms, 1, 1, "%zpm128", "dwm_acc", mult=6)
m = rescale(m, ms, "dwm")
a, s = conv("%x", [1, 11, 11, 7], 6, 3, 1, 1, 1, "%zpm7", "%wzp", "conv1_acc")
a = rescale(a, s, "conv1")
a, s = dw(a, s, 1, 2, "%zpm128", "dw1_acc")
a = rescale(a, s, "dw1")
a, s = dw(a, s, 1, 1, "%zp127", "dw2_acc")
a = rescale(a, s, "dw2")
a, s = conv(a, s, 9, 1, 0, 1, 1, "%zp127", "%wzp5", "conv2_acc")
c2 = rescale(a, s, "conv2")
a, s = conv(c2, s, 5, 3, 2, 1, 2, "%zpm128", "%wzp", "conv3_acc")
a = rescale(a, s, "conv3")
a, s = dw(a, s, 0, 1, "%zpm7", "dw3_acc")
a = rescale(a, s, "dw3")
lines.append("  return %s, %s, %s : %s, %s, %s" % (
    a, c2, m, t([1, 4, 4, 5], "i8"), t([1, 6, 6, 9], "i8"),
    t([1, 11, 11, 6], "i8")))
lines.append("}")
print("// int8_dsp.mlir -- generated by gen_int8_dsp.py (seed 11); do not "
      "edit.")
print("\n".join(lines))
