#!/usr/bin/env python3
"""Generate large TOSA graphs without search choices, for scale benchmarks.

  scale-gen.py KIND N [--dtype f32]

KIND is one of
  chain    N tosa.clamp ops in a row (one order exists);
  fanout   N/2 clamps of one input, summed by a chain of N/2 tosa.add;
  ladder   N/2 residual rungs: x = add(x, clamp(x));
  concat   a binary tree of tosa.concat over N/2 clamp leaves (channel axis).
The graph is printed on stdout with about N operations. Tensors are small
(1x4x4xC f32) so that the time goes to the passes, not to the bytes, and
every clamp has its own bound so that CSE merges none of them.
"""
import argparse


def ty(c):
    return f"tensor<1x4x4x{c}xf32>"


_clamps = [0]


def clamp(out, inp, c):
    # Every clamp gets its own bound, so that CSE merges none of them.
    _clamps[0] += 1
    bound = 1.0 + _clamps[0] / 64.0
    return (f"  {out} = tosa.clamp {inp} {{max_val = {bound!r} : f32, "
            f"min_val = 0.0 : f32}} : ({ty(c)}) -> {ty(c)}")


def add(out, a, b, c):
    return f"  {out} = tosa.add {a}, {b} : ({ty(c)}, {ty(c)}) -> {ty(c)}"


def chain(n):
    body, prev = [], "%arg0"
    for i in range(n):
        body.append(clamp(f"%c{i}", prev, 4))
        prev = f"%c{i}"
    return body, prev, 4


def fanout(n):
    half = max(1, n // 2)
    body = [clamp(f"%b{i}", "%arg0", 4) for i in range(half)]
    acc = "%b0"
    for i in range(1, half):
        body.append(add(f"%s{i}", acc, f"%b{i}", 4))
        acc = f"%s{i}"
    return body, acc, 4


def ladder(n):
    body, x = [], "%arg0"
    for i in range(max(1, n // 2)):
        body.append(clamp(f"%r{i}", x, 4))
        body.append(add(f"%x{i}", x, f"%r{i}", 4))
        x = f"%x{i}"
    return body, x, 4


def concat(n):
    leaves = max(2, n // 2)
    body = [clamp(f"%l{i}", "%arg0", 1) for i in range(leaves)]
    level = [(f"%l{i}", 1) for i in range(leaves)]
    k = 0
    while len(level) > 1:
        nxt = []
        for j in range(0, len(level) - 1, 2):
            (a, ca), (b, cb) = level[j], level[j + 1]
            out = f"%t{k}"
            k += 1
            body.append(f"  {out} = tosa.concat {a}, {b} {{axis = 3 : i32}} : "
                        f"({ty(ca)}, {ty(cb)}) -> {ty(ca + cb)}")
            nxt.append((out, ca + cb))
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return body, level[0][0], level[0][1]


KINDS = {"chain": chain, "fanout": fanout, "ladder": ladder, "concat": concat}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("kind", choices=sorted(KINDS))
    p.add_argument("n", type=int, help="number of operations (about)")
    args = p.parse_args()
    if args.n < 1:
        p.error("n must be at least 1")
    body, result, c = KINDS[args.kind](args.n)
    in_c = 1 if args.kind == "concat" else 4
    print(f"func.func @{args.kind}(%arg0: {ty(in_c)}) -> {ty(c)} {{")
    print("\n".join(body))
    print(f"  return {result} : {ty(c)}")
    print("}")


if __name__ == "__main__":
    main()
