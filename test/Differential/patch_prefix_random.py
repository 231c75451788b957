#!/usr/bin/env python3
"""Differential test of patch-prefix on random prefixes and zoo models.

Generates, from a fixed seed, random f32 functions whose prefix is a chain of
convolutions, depthwise convolutions and poolings with random kernel sizes
(1-5), strides (1-2), dilations (1-2) and paddings, clamps between them,
residual adds around stride-1 blocks and odd image sizes, followed by a
reduction that the prefix cannot hold. Each function is rewritten with
`patch-prefix` on random grids (some that do not divide the image) and the
zoo's models (f32 and int8) with `patches=auto` and forced grids; the test
checks that every random function was patched and that `mem-opt-run
--compare` finds the outputs of the patched and the unpatched function equal
(bit-exact: every output element is computed by the same arithmetic).
The same comparison checks `inplace-depthwise` on the random functions and on
the zoo's MobileNetV2 and MCUNet-style models, patched and not. With `--loop`,
every rewrite asks for one loop over uniform patches (`loop=true`), which
grids that divide the cut get, and at least one case must get it.

Usage: patch_prefix_random.py --mem-opt BIN --mem-opt-run BIN
           --mem-opt-zoo BIN --work-dir DIR [--cases N] [--seed S] [--loop]
"""

import argparse
import os
import random
import subprocess
import sys


def const(name, shape, rng):
    values = ", ".join(repr(round(rng.uniform(-1, 1), 3))
                       for _ in range(_count(shape)))
    text = "x".join(str(d) for d in shape)
    return ('  %%%s = "tosa.const"() <{values = dense<[%s]> : tensor<%sxf32>}>'
            ' : () -> tensor<%sxf32>\n' % (name, values, text, text)).replace(
                "dense<[%s]>" % values,
                "dense<%s>" % _nest(values.split(", "), shape))


def _count(shape):
    count = 1
    for dim in shape:
        count *= dim
    return count


def _nest(values, shape):
    if len(shape) == 1:
        return "[" + ", ".join(values) + "]"
    step = len(values) // shape[0]
    return "[" + ", ".join(_nest(values[i * step:(i + 1) * step], shape[1:])
                           for i in range(shape[0])) + "]"


def ttype(h, w, c):
    return "tensor<1x%dx%dx%dxf32>" % (h, w, c)


def window(size, rng, kernel, stride, dilation):
    """Random padding (before, after) that TOSA accepts, and the output."""
    extent = (kernel - 1) * dilation + 1
    for _ in range(20):
        before = rng.randint(0, kernel - 1)
        after = rng.randint(0, kernel - 1)
        span = size + before + after - extent
        if span >= 0 and span % stride == 0:
            return before, after, span // stride + 1
    return None


def random_function(index, rng):
    h = w = rng.choice([9, 11, 12, 16])
    c = rng.choice([1, 2, 3])
    h0, w0, c0 = h, w, c
    lines = []
    body = []
    value = "%x"
    counter = [0]

    def fresh():
        counter[0] += 1
        return "%%v%d" % counter[0]

    lines.append('  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> '
                 ': () -> tensor<1xf32>\n')
    windows = 0
    for layer in range(rng.randint(2, 5)):
        kind = rng.choice(["conv", "conv", "depthwise", "pool", "residual"])
        kernel = rng.choice([1, 2, 3, 3, 5])
        stride = rng.choice([1, 1, 2])
        dilation = rng.choice([1, 1, 2]) if kind != "pool" else 1
        if kind == "residual":
            stride = 1
        pads = window(h, rng, kernel, stride, dilation)
        padsw = window(w, rng, kernel, stride, dilation)
        if not pads or not padsw or pads[2] < 2 or padsw[2] < 2:
            continue
        if kind == "residual" and (pads[2] != h or padsw[2] != w):
            continue
        oh, ow = pads[2], padsw[2]
        attrs = ("pad = array<i64: %d, %d, %d, %d>, stride = array<i64: %d, "
                 "%d>" % (pads[0], pads[1], padsw[0], padsw[1], stride,
                          stride))
        name = "l%d_%d" % (index, layer)
        out = fresh()
        if kind in ("conv", "residual"):
            oc = c if kind == "residual" else rng.choice([1, 2, 4])
            lines.append(const(name + "w", [oc, kernel, kernel, c], rng))
            lines.append(const(name + "b", [oc], rng))
            body.append(
                "  %s = tosa.conv2d %s, %%%sw, %%%sb, %%zp, %%zp {acc_type = "
                "f32, %s, dilation = array<i64: %d, %d>} : (%s, tensor<%dx%dx"
                "%dx%dxf32>, tensor<%dxf32>, tensor<1xf32>, tensor<1xf32>) -> "
                "%s\n" % (out, value, name, name, attrs, dilation, dilation,
                          ttype(h, w, c), oc, kernel, kernel, c, oc,
                          ttype(oh, ow, oc)))
            if kind == "residual":
                summed = fresh()
                body.append("  %s = tosa.add %s, %s : (%s, %s) -> %s\n" % (
                    summed, out, value, ttype(oh, ow, oc), ttype(h, w, c),
                    ttype(oh, ow, oc)))
                out = summed
            c = oc
        elif kind == "depthwise":
            lines.append(const(name + "w", [kernel, kernel, c, 1], rng))
            lines.append(const(name + "b", [c], rng))
            body.append(
                "  %s = tosa.depthwise_conv2d %s, %%%sw, %%%sb, %%zp, %%zp "
                "{acc_type = f32, %s, dilation = array<i64: %d, %d>} : (%s, "
                "tensor<%dx%dx%dx1xf32>, tensor<%dxf32>, tensor<1xf32>, "
                "tensor<1xf32>) -> %s\n" % (
                    out, value, name, name, attrs, dilation, dilation,
                    ttype(h, w, c), kernel, kernel, c, c, ttype(oh, ow, c)))
        else:
            if max(pads[0], pads[1], padsw[0], padsw[1]) >= kernel:
                continue
            body.append(
                "  %s = tosa.max_pool2d %s {kernel = array<i64: %d, %d>, %s} "
                ": (%s) -> %s\n" % (out, value, kernel, kernel, attrs,
                                    ttype(h, w, c), ttype(oh, ow, c)))
        windows += 1
        h, w, value = oh, ow, out
        clamped = fresh()
        body.append("  %s = tosa.clamp %s {min_val = -0.5 : f32, max_val = "
                    "0.75 : f32} : (%s) -> %s\n" % (
                        clamped, value, ttype(h, w, c), ttype(h, w, c)))
        value = clamped
    if windows == 0:
        return None
    body.append("  %%y = tosa.reduce_sum %s {axis = 3 : i32} : (%s) -> "
                "tensor<1x%dx%dx1xf32>\n" % (value, ttype(h, w, c), h, w))
    return ("func.func @f%d(%%x: tensor<1x%dx%dx%dxf32>) -> "
            "tensor<1x%dx%dx1xf32> {\n%s%s  return %%y : tensor<1x%dx%dx1xf32>"
            "\n}\n" % (index, h0, w0, c0, h, w, "".join(lines),
                        "".join(body), h, w)), (h, w)


def run(args, check=True):
    return subprocess.run(args, capture_output=True, text=True, check=check)


def compare(tools, original, patched):
    res = run([tools.mem_opt_run, "--compare", "--atol=0", "--rtol=0",
               "--seeds=2", original, patched], check=False)
    return res.returncode == 0, res.stdout + res.stderr


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mem-opt", required=True)
    parser.add_argument("--mem-opt-run", required=True)
    parser.add_argument("--mem-opt-zoo", required=True)
    parser.add_argument("--work-dir", required=True)
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--loop", action="store_true")
    tools = parser.parse_args()
    loop = " loop=true" if tools.loop else ""
    loops = 0
    os.makedirs(tools.work_dir, exist_ok=True)
    rng = random.Random(tools.seed)
    errors = patched = 0
    case = 0
    while case < tools.cases:
        made = random_function(case, rng)
        if not made:
            continue
        text, (h, w) = made
        source = os.path.join(tools.work_dir, "case%d.mlir" % case)
        with open(source, "w") as f:
            f.write(text)
        rows = rng.randint(1, min(h, 5))
        cols = rng.randint(1, min(w, 5))
        target = os.path.join(tools.work_dir, "case%d-%dx%d.mlir" % (
            case, rows, cols))
        res = run([tools.mem_opt, source, "--pass-pipeline=builtin.module("
                   "func.func(patch-prefix{patches=%dx%d%s}))" % (
                       rows, cols, loop), "-o", target], check=False)
        case += 1
        if res.returncode:
            print("error: case %d %dx%d: patch-prefix failed\n%s" % (
                case - 1, rows, cols, res.stderr[:400]))
            errors += 1
            continue
        if "memopt.patches" in open(target).read():
            patched += 1
        loops += "scf.for" in open(target).read()
        ok, out = compare(tools, source, target)
        if not ok:
            print("error: case %d %dx%d differs\n%s" % (case - 1, rows, cols,
                                                        out[:400]))
            errors += 1
    print("random: %d cases, %d patched" % (tools.cases, patched))
    zoo_patched = 0
    for model in ("mobilenet-v2", "resnet-block", "squeezenet-fire"):
        for dtype in ("f32", "i8"):
            source = os.path.join(tools.work_dir, "%s-%s.mlir" % (model, dtype))
            run([tools.mem_opt_zoo, "--model=" + model, "--dtype=" + dtype,
                 "-o", source])
            for patches in ("auto max-mac-overhead=100", "3x2"):
                target = source.replace(".mlir", "-%s.mlir" % patches[:4])
                res = run([tools.mem_opt, source, "--pass-pipeline=builtin."
                           "module(func.func(patch-prefix{patches=%s%s}))" %
                           (patches, loop), "-o", target], check=False)
                if res.returncode:
                    print("error: %s %s: patch-prefix failed\n%s" % (
                        source, patches, res.stderr[:400]))
                    errors += 1
                    continue
                if "memopt.patches" not in open(target).read():
                    continue
                zoo_patched += 1
                loops += "scf.for" in open(target).read()
                ok, out = compare(tools, source, target)
                if not ok:
                    print("error: %s %s differs\n%s" % (source, patches,
                                                        out[:400]))
                    errors += 1
    print("zoo: %d patched functions compared" % zoo_patched)
    if patched < tools.cases or zoo_patched == 0:
        print("error: not every case was patched")
        errors += 1
    if tools.loop:
        print("loops: %d functions patched as one loop" % loops)
        if loops == 0:
            print("error: no function was patched as one loop")
            errors += 1
    # In-place depthwise convolutions (inplace-depthwise): the random
    # functions, and the zoo's models (f32 and int8) patched and not, whose
    # depthwise convolutions run channel by channel over their input.
    sources = [os.path.join(tools.work_dir, "case%d.mlir" % case)
               for case in range(tools.cases)]
    for model in ("mobilenet-v2", "mcunet"):
        for dtype in ("f32", "i8"):
            source = os.path.join(tools.work_dir, "%s-%s.mlir" % (model, dtype))
            if not os.path.exists(source):
                run([tools.mem_opt_zoo, "--model=" + model, "--dtype=" + dtype,
                     "-o", source])
            sources.append(source)
            sources.append(source.replace(".mlir", "-3x2.mlir"))
            if not os.path.exists(sources[-1]):
                run([tools.mem_opt, source, "--pass-pipeline=builtin.module("
                     "func.func(patch-prefix{patches=3x2}))", "-o",
                     sources[-1]])
    in_place = 0
    for source in sources:
        target = source.replace(".mlir", "-inplace.mlir")
        res = run([tools.mem_opt, source, "--pass-pipeline=builtin.module("
                   "func.func(inplace-depthwise))", "-o", target], check=False)
        if res.returncode:
            print("error: %s: inplace-depthwise failed\n%s" % (
                source, res.stderr[:400]))
            errors += 1
            continue
        loops = open(target).read().count("scf.for")
        if not loops:
            continue
        in_place += loops
        ok, out = compare(tools, source, target)
        if not ok:
            print("error: %s in place differs\n%s" % (source, out[:400]))
            errors += 1
    print("in place: %d depthwise convolutions compared" % in_place)
    if in_place == 0:
        print("error: no depthwise convolution was computed in place")
        errors += 1
    print("%d errors" % errors)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
