#!/usr/bin/env python3
# ===- gen_int8_fused.py - Write int8_fused.mlir -------------------------=== #
#
# Part of the mem-opt project.
#
# ===--------------------------------------------------------------------=== #
#
# Writes a small int8 TOSA model that exercises every case of
# fuse-rescale-accumulators, with non-zero input zero points (the `_q` linalg
# ops, as in TFLite models) and random seeded weights:
#   dw1: depthwise, 1 input channel, multiplier 4, stride 2 (becomes a conv);
#   dw2: depthwise, multiplier 1, padded (becomes a 4-d depthwise);
#   pw:  1x1 conv2d (fully connected per pixel);
#   dw3: depthwise with 2 channels and multiplier 3 (not fused: full i32);
#   fc:  matmul;
# each followed by a per-channel tosa.rescale to i8.
#
#   python3 gen_int8_fused.py > int8_fused.mlir
# ===--------------------------------------------------------------------=== #

import random

rng = random.Random(7)
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


def main():
    lines.append("func.func @int8_fused(%x: tensor<1x9x9x1xi8>) -> "
                 "(tensor<1x5x5x6xi8>, tensor<1x25x5xi8>) {")
    scalar("izp", -7, "i8")
    scalar("wzp", 0, "i8")
    scalar("zp32", 0, "i32")
    scalar("ozp", 3, "i8")
    a, s = depthwise("%x", [1, 9, 9, 1], 1, 4, 1, 2, "dw1_acc")
    a = rescale(a, s, "dw1")
    b, s = depthwise(a, s, 4, 1, 1, 1, "dw2_acc")
    b = rescale(b, s, "dw2")
    wt = const([2, 1, 1, 4], "i8", -127, 127)
    bias = const([2], "i32", -2000, 2000)
    lines.append(
        '  %%pw_acc = tosa.conv2d %s, %s, %s, %%izp, %%wzp {acc_type = i32, '
        'dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = '
        'array<i64: 1, 1>} : (%s, %s, %s, tensor<1xi8>, tensor<1xi8>) -> %s '
        'loc("pw_acc")' % (b, wt, bias, t(s, "i8"), t([2, 1, 1, 4], "i8"),
                           t([2], "i32"), t([1, 5, 5, 2], "i32")))
    p = rescale("%pw_acc", [1, 5, 5, 2], "pw")
    d, s3 = depthwise(p, [1, 5, 5, 2], 2, 3, 1, 1, "dw3_acc")
    d = rescale(d, s3, "dw3")
    lines.append('  %shape = tosa.const_shape {values = dense<[1, 25, 2]> : '
                 'tensor<3xindex>} : () -> !tosa.shape<3>')
    lines.append('  %%flat = tosa.reshape %s, %%shape : (%s, !tosa.shape<3>) -> '
                 '%s loc("flat")' % (p, t([1, 5, 5, 2], "i8"), t([1, 25, 2], "i8")))
    fw = const([1, 2, 5], "i8", -127, 127)
    lines.append('  %%fc_acc = tosa.matmul %%flat, %s, %%izp, %%wzp : (%s, %s, '
                 'tensor<1xi8>, tensor<1xi8>) -> %s loc("fc_acc")'
                 % (fw, t([1, 25, 2], "i8"), t([1, 2, 5], "i8"),
                    t([1, 25, 5], "i32")))
    f = rescale("%fc_acc", [1, 25, 5], "fc")
    lines.append("  return %s, %s : %s, %s" % (d, f, t([1, 5, 5, 6], "i8"),
                                                t([1, 25, 5], "i8")))
    lines.append("}")
    print("// int8_fused.mlir -- generated by gen_int8_fused.py (seed 7); do not "
          "edit.")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
