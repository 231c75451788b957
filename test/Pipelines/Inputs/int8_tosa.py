# ===- int8_tosa.py - Text of seeded TOSA constants ------------------------=== #
#
# Part of the mem-opt project.
#
# ===------------------------------------------------------------------------=== #
#
# What the int8 model generators of this directory (gen_int8_*.py) share:
# tensor type text and a writer of TOSA lines whose constants are seeded
# random tensors named %c0, %c1, ..., and their per-channel rescale.
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
