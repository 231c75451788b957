#!/usr/bin/env python3
# ===- gen_int8_cell.py - Write int8_cell.mlir ---------------------------=== #
#
# Part of the mem-opt project.
#
# ===--------------------------------------------------------------------=== #
#
# Writes a small, irregular int8 TOSA model with random (seeded, non-splat)
# weights and per-channel requantization, in the style of a quantized TFLite
# graph: conv2d / depthwise_conv2d / matmul with i32 accumulators, each
# followed by tosa.rescale back to i8; a residual add done in i32 between two
# rescales (as TOSA requires); a concat; a reshape; ReLU clamps.
#
#   python3 gen_int8_cell.py > int8_cell.mlir
# ===--------------------------------------------------------------------=== #

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from int8_tosa import ConstWriter, t  # noqa: E402

H = W = 12
C = 8
# The constants (the fixed scalars, then the seeded tensors) come before the
# operations in the function.
writer = ConstWriter(2024)
consts, lines = writer.lines, []
zp8, zp8_ty = writer.scalar("zp8", 0, "i8"), "tensor<1xi8>"
zp32, zp32_ty = writer.scalar("zp32", 0, "i32"), "tensor<1xi32>"
writer.scalar("one", 1073741824, "i32")
writer.scalar("shift0", 0, "i8")
writer.scalar("shift30", 30, "i8")


def const(shape, dtype, lo, hi):
    """A random constant tensor; returns its SSA name and type. A tensor of
    more than one dimension is drawn after as many unused draws, as the
    committed int8_cell.mlir was written."""
    if len(shape) != 1:
        n = 1
        for d in shape:
            n *= d
        for _ in range(n):
            writer.rng.randint(lo, hi)
    return writer.const(shape, dtype, lo, hi), t(shape, dtype)


def rescale(x, shape, in_ty, out_ty, name, channels=None):
    """Per-channel rescale of an accumulator (channels given) or a per-tensor
    rescale between i8 and i32."""
    if channels:
        mult, mty = const([channels], "i32", 1 << 29, (1 << 30) - 1)
        shift, sty = const([channels], "i8", 36, 39)
        per_channel = "true"
    else:
        mult, mty, shift, sty = "%one", "tensor<1xi32>", (
            "%shift30" if out_ty == "i8" else "%shift0"), "tensor<1xi8>"
        if out_ty == "i32":
            # i8 -> i32: multiply by 2^30 >> 30 = 1 (exact), with headroom.
            pass
        per_channel = "false"
    izp, izp_ty = (zp32, zp32_ty) if in_ty == "i32" else (zp8, zp8_ty)
    ozp, ozp_ty = (zp32, zp32_ty) if out_ty == "i32" else (zp8, zp8_ty)
    lines.append(
        '  %%%s = tosa.rescale %s, %s, %s, %s, %s {input_unsigned = false, '
        'output_unsigned = false, per_channel = %s, rounding_mode = '
        'SINGLE_ROUND, scale32 = true} : (%s, %s, %s, %s, %s) -> %s loc("%s")'
        % (name, x, mult, shift, izp, ozp, per_channel, t(shape, in_ty), mty,
           sty, izp_ty, ozp_ty, t(shape, out_ty), name))
    return "%" + name


def conv(x, cin, cout, k, name, depthwise=False):
    pad = k // 2
    if depthwise:
        w, wty = const([k, k, cin, 1], "i8", -127, 127)
        op = "tosa.depthwise_conv2d"
        cout = cin
    else:
        w, wty = const([cout, k, k, cin], "i8", -127, 127)
        op = "tosa.conv2d"
    b, bty = const([cout], "i32", -2000, 2000)
    acc = name + "_acc"
    lines.append(
        '  %%%s = %s %s, %s, %s, %s, %s {acc_type = i32, dilation = array<i64: '
        '1, 1>, pad = array<i64: %d, %d, %d, %d>, stride = array<i64: 1, 1>} : '
        '(%s, %s, %s, %s, %s) -> %s loc("%s")' %
        (acc, op, x, w, b, zp8, zp8, pad, pad, pad, pad,
         t([1, H, W, cin], "i8"), wty, bty, zp8_ty, zp8_ty,
         t([1, H, W, cout], "i32"), acc))
    return rescale("%" + acc, [1, H, W, cout], "i32", "i8", name, cout), cout


def relu(x, shape, name):
    lines.append('  %%%s = tosa.clamp %s {max_val = 127 : i8, min_val = 0 : '
                 'i8} : (%s) -> %s loc("%s")' % (name, x, t(shape, "i8"),
                                                 t(shape, "i8"), name))
    return "%" + name


# Branch a: 3x3 conv C -> 2C, ReLU.
a, ca = conv("%x", C, 2 * C, 3, "a_conv")
a = relu(a, [1, H, W, ca], "a_relu")
# Branch b: 3x3 depthwise, then 1x1 conv C -> 2C.
b, _ = conv("%x", C, C, 3, "b_dw", depthwise=True)
b, cb = conv(b, C, 2 * C, 1, "b_pw")
# Residual add in i32: rescale both to i32, add, rescale back.
a32 = rescale(a, [1, H, W, 2 * C], "i8", "i32", "a_to_i32")
b32 = rescale(b, [1, H, W, 2 * C], "i8", "i32", "b_to_i32")
lines.append('  %%sum = tosa.add %s, %s : (%s, %s) -> %s loc("sum")' %
             (a32, b32, t([1, H, W, 2 * C], "i32"), t([1, H, W, 2 * C], "i32"),
              t([1, H, W, 2 * C], "i32")))
s = rescale("%sum", [1, H, W, 2 * C], "i32", "i8", "sum_to_i8")
# Concat of the ReLU branch and the sum: 4C channels.
lines.append('  %%cat = tosa.concat %s, %s {axis = 3 : i32} : (%s, %s) -> %s '
             'loc("cat")' % (a, s, t([1, H, W, 2 * C], "i8"),
                             t([1, H, W, 2 * C], "i8"), t([1, H, W, 4 * C],
                                                          "i8")))
# 1x1 conv 4C -> C.
p, cp = conv("%cat", 4 * C, C, 1, "proj")
# Reshape to [1, H*W, C] (a view) and a matmul with a [1, C, 10] weight.
lines.append('  %%shape = tosa.const_shape {values = dense<[1, %d, %d]> : '
             'tensor<3xindex>} : () -> !tosa.shape<3>' % (H * W, C))
lines.append('  %%flat = tosa.reshape %s, %%shape : (%s, !tosa.shape<3>) -> '
             '%s loc("flat")' % (p, t([1, H, W, C], "i8"),
                                 t([1, H * W, C], "i8")))
mw, mwty = const([1, C, 10], "i8", -127, 127)
lines.append('  %%fc_acc = tosa.matmul %%flat, %s, %s, %s : (%s, %s, %s, %s) -> '
             '%s loc("fc_acc")' % (mw, zp8, zp8, t([1, H * W, C], "i8"), mwty,
                                   zp8_ty, zp8_ty, t([1, H * W, 10], "i32")))
fc = rescale("%fc_acc", [1, H * W, 10], "i32", "i8", "fc", 10)

print("// int8_cell.mlir -- generated by gen_int8_cell.py (seed 2024); do not "
      "edit.")
print("// A small irregular int8 model: conv2d / depthwise_conv2d / matmul "
      "with i32")
print("// accumulators, each rescaled to i8 per channel, a residual add in "
      "i32, a")
print("// concat, a reshape and ReLUs, with random weights.")
print("func.func @int8_cell(%%x: %s) -> %s {" % (t([1, H, W, C], "i8"),
                                                 t([1, H * W, 10], "i8")))
for line in consts + lines:
    print(line)
print("  return %s : %s" % (fc, t([1, H * W, 10], "i8")))
print("}")
