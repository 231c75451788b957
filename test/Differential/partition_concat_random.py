#!/usr/bin/env python3
"""Differential test of partition-concat on randomized cases.

Generates, from a fixed seed, one module per pattern (concat + conv2d and
concat + depthwise_conv2d) holding many small random functions: f32 and int8,
2-4 branches of 1-6 channels, random kernel sizes, strides, paddings and
dilations, channel multipliers, random weights, biases and zero points, and
elementwise ops between the concat and the convolution (clamp, sigmoid,
per-tensor and per-channel rescale). Some concats also feed the function's
results (other consumers). Each module is rewritten with
`mem-opt --partition-concat=mode=always`; the test checks that every site was
rewritten and that `mem-opt-run --compare` finds int8 results bit-exact and
f32 results within the stated tolerance on several seeded inputs.

Usage: partition_concat_random.py --mem-opt BIN --mem-opt-run BIN
           --work-dir DIR [--cases N] [--seed S] [--input-seeds K]
Only the Python standard library is needed.
"""

import argparse
import os
import random
import subprocess
import sys


def dense(values, shape, elem):
    """Formats a dense attribute of `shape` from a flat list."""
    def fmt(v):
        return repr(float(v)) if elem == "f32" else str(int(v))

    def nest(flat, dims):
        if not dims:
            return fmt(flat[0])
        step = len(flat) // dims[0]
        return "[" + ", ".join(nest(flat[i * step:(i + 1) * step], dims[1:])
                               for i in range(dims[0])) + "]"
    if not shape:
        return fmt(values[0])
    return nest(values, shape)


def ttype(shape, elem):
    return "tensor<" + "x".join(str(d) for d in shape) + "x" + elem + ">"


class Func:
    """Builds the text of one function."""

    def __init__(self, name):
        self.name = name
        self.lines = []
        self.counter = 0

    def value(self):
        self.counter += 1
        return "%v" + str(self.counter)

    def const(self, values, shape, elem):
        v = self.value()
        t = ttype(shape, elem)
        self.lines.append(
            f'  {v} = "tosa.const"() <{{values = dense<{dense(values, shape, elem)}> : {t}}}> : () -> {t}')
        return v

    def op(self, text):
        v = self.value()
        self.lines.append(f"  {v} = {text}")
        return v


def rand_f32(rng, n):
    return [round(rng.uniform(-1.0, 1.0), 4) for _ in range(n)]


def rand_i8(rng, n):
    return [rng.randint(-128, 127) for _ in range(n)]


def conv_geometry(rng, size):
    """Returns kernel, stride, dilation and pads with a valid output size."""
    while True:
        k = rng.randint(1, 3)
        d = rng.randint(1, 2) if k > 1 else 1
        s = rng.randint(1, 2)
        p0, p1 = rng.randint(0, k - 1), rng.randint(0, k - 1)
        num = size - 1 + p0 + p1 - (k - 1) * d
        if num < 0:
            continue
        if num % s:
            p1 += s - num % s
            num += s - num % s
        return k, s, d, p0, p1, num // s + 1


def rescale(f, rng, x, shape, in_elem, out_elem, per_channel):
    """Appends a tosa.rescale of x and returns its value."""
    c = shape[-1] if per_channel else 1
    mult = f.const([rng.randint(1 << 29, (1 << 31) - 1) for _ in range(c)], [c], "i32")
    shift = f.const([rng.randint(30, 40) for _ in range(c)], [c], "i8")
    izp_val = 0 if in_elem == "i32" else rng.randint(-20, 20)
    izp = f.const([izp_val], [1], in_elem)
    ozp = f.const([rng.randint(-20, 20)], [1], out_elem)
    mode = rng.choice(["SINGLE_ROUND", "DOUBLE_ROUND"])
    pc = "true" if per_channel else "false"
    return f.op(
        f"tosa.rescale {x}, {mult}, {shift}, {izp}, {ozp} {{scale32 = true, rounding_mode = {mode}, "
        f"per_channel = {pc}, input_unsigned = false, output_unsigned = false}} : "
        f"({ttype(shape, in_elem)}, tensor<{c}xi32>, tensor<{c}xi8>, tensor<1x{in_elem}>, tensor<1x{out_elem}>) -> {ttype(shape, out_elem)}")


def make_case(rng, name, depthwise, int8):
    """Returns (function text, number of branches)."""
    elem = "i8" if int8 else "f32"
    acc = "i32" if int8 else "f32"
    nb = rng.randint(2, 4)
    widths = [rng.randint(1, 6) for _ in range(nb)]
    c = sum(widths)
    h, w = rng.randint(3, 9), rng.randint(3, 9)
    kh, sh, dh, pt, pb, oh = conv_geometry(rng, h)
    kw, sw, dw, pl, pr, ow = conv_geometry(rng, w)
    f = Func(name)
    args = [f"%a{i}: {ttype([1, h, w, wi], elem)}" for i, wi in enumerate(widths)]
    cat_shape = [1, h, w, c]
    cat = f.op(f"tosa.concat {', '.join('%a' + str(i) for i in range(nb))} {{axis = 3 : i32}} : "
               f"({', '.join(ttype([1, h, w, wi], elem) for wi in widths)}) -> {ttype(cat_shape, elem)}")
    x = cat
    # Elementwise ops between the concat and the convolution.
    chain = rng.choice(["none", "clamp", "two"] + (["rescale", "rescale_pc"] if int8 else ["sigmoid"]))
    if chain in ("clamp", "two"):
        if int8:
            lo = rng.randint(-128, 0)
            x = f.op(f"tosa.clamp {x} {{min_val = {lo} : i8, max_val = 127 : i8}} : "
                     f"({ttype(cat_shape, elem)}) -> {ttype(cat_shape, elem)}")
        else:
            x = f.op(f"tosa.clamp {x} {{min_val = 0.0 : f32, max_val = 6.0 : f32}} : "
                     f"({ttype(cat_shape, elem)}) -> {ttype(cat_shape, elem)}")
    if chain == "two":
        if int8:
            x = rescale(f, rng, x, cat_shape, "i8", "i8", rng.random() < 0.5)
        else:
            x = f.op(f"tosa.tanh {x} : ({ttype(cat_shape, elem)}) -> {ttype(cat_shape, elem)}")
    if chain in ("rescale", "rescale_pc"):
        x = rescale(f, rng, x, cat_shape, "i8", "i8", chain == "rescale_pc")
    if chain == "sigmoid":
        x = f.op(f"tosa.sigmoid {x} : ({ttype(cat_shape, elem)}) -> {ttype(cat_shape, elem)}")

    izp = f.const([rng.randint(-128, 127) if int8 else 0], [1], elem)
    wzp = f.const([rng.randint(-128, 127) if int8 else 0], [1], elem)
    rand = (lambda n: rand_i8(rng, n)) if int8 else (lambda n: rand_f32(rng, n))
    rand_bias = (lambda n: [rng.randint(-5000, 5000) for _ in range(n)]) if int8 else (lambda n: rand_f32(rng, n))
    attrs = (f"{{acc_type = {acc}, pad = array<i64: {pt}, {pb}, {pl}, {pr}>, "
             f"stride = array<i64: {sh}, {sw}>, dilation = array<i64: {dh}, {dw}>}}")
    if depthwise:
        m = rng.randint(1, 3)
        oc = c * m
        wshape = [kh, kw, c, m]
        bias_n = oc if rng.random() < 0.8 else 1
        wt = f.const(rand(kh * kw * c * m), wshape, elem)
        bias = f.const(rand_bias(bias_n), [bias_n], acc)
        y = f.op(f"tosa.depthwise_conv2d {x}, {wt}, {bias}, {izp}, {wzp} {attrs} : "
                 f"({ttype(cat_shape, elem)}, {ttype(wshape, elem)}, tensor<{bias_n}x{acc}>, tensor<1x{elem}>, tensor<1x{elem}>) "
                 f"-> {ttype([1, oh, ow, oc], acc)}")
    else:
        oc = rng.randint(1, 6)
        wshape = [oc, kh, kw, c]
        bias_n = oc if rng.random() < 0.8 else 1
        wt = f.const(rand(oc * kh * kw * c), wshape, elem)
        bias = f.const(rand_bias(bias_n), [bias_n], acc)
        y = f.op(f"tosa.conv2d {x}, {wt}, {bias}, {izp}, {wzp} {attrs} : "
                 f"({ttype(cat_shape, elem)}, {ttype(wshape, elem)}, tensor<{bias_n}x{acc}>, tensor<1x{elem}>, tensor<1x{elem}>) "
                 f"-> {ttype([1, oh, ow, oc], acc)}")
    out_shape = [1, oh, ow, oc]
    results = [(y, ttype(out_shape, acc))]
    if int8 and rng.random() < 0.5:
        results = [(rescale(f, rng, y, out_shape, "i32", "i8", rng.random() < 0.5), ttype(out_shape, "i8"))]
    if rng.random() < 0.15:
        # Another consumer of the concat: it must keep its value.
        results.append((cat, ttype(cat_shape, elem)))
    ret_types = ", ".join(t for _, t in results)
    text = [f"func.func @{name}({', '.join(args)}) -> ({ret_types}) {{"]
    text += f.lines
    text.append(f"  return {', '.join(v for v, _ in results)} : {ret_types}")
    text.append("}")
    return "\n".join(text), nb


def run(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc.returncode, proc.stdout, proc.stderr


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mem-opt", required=True)
    parser.add_argument("--mem-opt-run", required=True)
    parser.add_argument("--work-dir", required=True)
    parser.add_argument("--cases", type=int, default=200,
                        help="random cases per pattern and element type")
    parser.add_argument("--seed", type=int, default=2020)
    parser.add_argument("--input-seeds", type=int, default=2)
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--atol", type=float, default=1e-4)
    opts = parser.parse_args()
    os.makedirs(opts.work_dir, exist_ok=True)
    rng = random.Random(opts.seed)
    failures = 0
    jobs = []
    for pattern in ("conv", "depthwise"):
        funcs = []
        expected_parts = 0
        for int8 in (False, True):
            for i in range(opts.cases):
                name = f"{pattern}_{'i8' if int8 else 'f32'}_{i}"
                text, nb = make_case(rng, name, pattern == "depthwise", int8)
                funcs.append(text)
                expected_parts += nb
        before = os.path.join(opts.work_dir, f"{pattern}.mlir")
        after = os.path.join(opts.work_dir, f"{pattern}.partitioned.mlir")
        with open(before, "w") as out:
            out.write("\n\n".join(funcs) + "\n")
        code, _, err = run([opts.mem_opt, before, "--partition-concat=mode=always", "-o", after])
        if code:
            print(f"FAIL {pattern}: mem-opt failed:\n{err}")
            failures += 1
            continue
        with open(after) as f:
            text = f.read()
        op = "tosa.depthwise_conv2d" if pattern == "depthwise" else "tosa.conv2d"
        parts = text.count(op + " ")
        if parts != expected_parts:
            print(f"FAIL {pattern}: expected {expected_parts} partial convolutions "
                  f"(one per branch), found {parts}")
            failures += 1
        # Both comparisons run at once: one JIT process per pattern.
        proc = subprocess.Popen(
            [opts.mem_opt_run, "--compare", before, after,
             f"--seeds={opts.input_seeds}", f"--rtol={opts.rtol}", f"--atol={opts.atol}"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        jobs.append((pattern, proc))
    for pattern, proc in jobs:
        out, err = proc.communicate()
        code = proc.returncode
        summary = out.strip().splitlines()[-1] if out.strip() else ""
        if code:
            mismatches = [l for l in out.splitlines() if l.startswith("MISMATCH")]
            print(f"FAIL {pattern}: mem-opt-run --compare exit {code}\n" +
                  "\n".join(mismatches[:10]) + err)
            failures += 1
            continue
        worst = 0.0
        for line in out.splitlines():
            if "max abs err" in line:
                worst = max(worst, float(line.split("max abs err ")[1].split(",")[0]))
        print(f"ok {pattern}: {2 * opts.cases} cases ({opts.cases} f32 within "
              f"rtol={opts.rtol} atol={opts.atol}, worst abs err {worst:.3g}; "
              f"{opts.cases} int8 bit-exact), {opts.input_seeds} input seeds each; {summary}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
