#!/usr/bin/env python3
"""Appends a host `main` to a bufferized (and maybe planned) model.

usage: add-main.py MODEL.mlir --function=NAME --inputs=K

MODEL.mlir holds `func.func @NAME` in bufferized form: K input memrefs, then
output memrefs (buffer-results-to-out-params), of f32, i8 or i32 elements,
then, if the function
was planned and lowered (it has `memplan.arena_size = N`), a trailing
`memref<Nxi8>` arena. The generated `main`, inserted at the end of the
model's top-level module, runs on mlir-runner:
- input k, element i (row-major) = ((7 i + 3 k) mod 13) * 0.25 - 1.5 (f32)
  or ((7 i + 3 k) mod 13) * 9 - 54 (integers);
- outputs start as zeros and are printed with printMemrefF32, or
  printMemrefI32 (i8 outputs are sign-extended to i32 first);
- the arena is bytes [64, 64 + N) of a buffer of N + 128 bytes filled with
  0x5A; after the call, the number of changed guard bytes (64 on each side)
  is printed on a line of its own.
"""

import argparse
import re
import sys


def num_elements(memref):
    dims = memref[len("memref<"):].split("x")[:-1]
    count = 1
    for dim in dims:
        count *= int(dim)
    return count


def rank(memref):
    return len(memref[len("memref<"):].split("x")) - 1


def element(memref):
    return memref[:-1].split("x")[-1]


def fill_input(lines, k, memref):
    n = num_elements(memref)
    elt = element(memref)
    flat = f"memref<{n}x{elt}>"
    if elt == "f32":
        value = ["    %mf = arith.sitofp %mi : i32 to f32",
                 "    %s = arith.mulf %mf, %quarter : f32",
                 "    %v = arith.subf %s, %offset : f32"]
    else:
        value = ["    %s = arith.muli %mi, %c9i : i32",
                 "    %w = arith.subi %s, %c54i : i32"]
        value += (["    %v = arith.trunci %w : i32 to i8"] if elt == "i8"
                  else ["    %v = arith.addi %w, %c0i : i32"])
    reassoc = "[[" + ", ".join(str(d) for d in range(rank(memref))) + "]]"
    lines += [
        f"  %in{k} = memref.alloc() : {memref}",
        f"  %flat{k} = memref.collapse_shape %in{k} {reassoc} : {memref} into {flat}",
        f"  %n{k} = arith.constant {n} : index",
        f"  %k{k} = arith.constant {3 * k} : index",
        f"  scf.for %i = %c0 to %n{k} step %c1 {{",
        "    %i7 = arith.muli %i, %c7 : index",
        f"    %ik = arith.addi %i7, %k{k} : index",
        "    %m = arith.remui %ik, %c13 : index",
        "    %mi = arith.index_cast %m : index to i32",
    ] + value + [
        f"    memref.store %v, %flat{k}[%i] : {flat}",
        "  }",
    ]


def guard_loop(lines, name, start, end, init, arena_type):
    lines += [
        f"  %{name} = scf.for %i = {start} to {end} step %c1 iter_args(%acc = {init}) -> (i64) {{",
        f"    %b = memref.load %guarded[%i] : {arena_type}",
        "    %bad = arith.cmpi ne, %b, %canary : i8",
        "    %inc = arith.select %bad, %one, %zero : i64",
        "    %next = arith.addi %acc, %inc : i64",
        "    scf.yield %next : i64",
        "  }",
    ]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--function", required=True)
    parser.add_argument("--inputs", type=int, required=True)
    args = parser.parse_args()
    model = open(args.model).read()

    match = re.search(r"func\.func @" + re.escape(args.function) + r"\((.*?)\)( attributes \{(.*?)\})? \{", model)
    if not match:
        sys.exit(f"no func.func @{args.function} in {args.model}")
    types = re.findall(r"%\w+: (memref<[^>]*>)", match.group(1))
    size = re.search(r"memplan\.arena_size = (\d+)", match.group(3) or "")
    arena = int(size.group(1)) if size else None
    if arena is not None:
        if types[-1] != f"memref<{arena}xi8>":
            sys.exit(f"the last argument of @{args.function} is not its memref<{arena}xi8> arena")
        types = types[:-1]
    inputs, outputs = types[:args.inputs], types[args.inputs:]
    if not outputs or any(element(t) not in ("f32", "i8", "i32") for t in types):
        sys.exit("expected f32, i8 or i32 inputs and at least one output")

    lines = ["", "func.func private @printMemrefF32(memref<*xf32>)",
             "func.func private @printMemrefI32(memref<*xi32>)",
             "func.func private @printI64(i64)", "func.func private @printNewline()",
             "func.func @main() {",
             "  %c0 = arith.constant 0 : index", "  %c1 = arith.constant 1 : index",
             "  %c7 = arith.constant 7 : index", "  %c13 = arith.constant 13 : index",
             "  %quarter = arith.constant 0.25 : f32", "  %offset = arith.constant 1.5 : f32",
             "  %c9i = arith.constant 9 : i32", "  %c54i = arith.constant 54 : i32",
             "  %c0i = arith.constant 0 : i32"]
    for k, memref in enumerate(inputs):
        fill_input(lines, k, memref)
    for j, memref in enumerate(outputs):
        elt = element(memref)
        lines += [f"  %out{j} = memref.alloc() : {memref}",
                  f"  %zero{j} = arith.constant 0{'.0' if elt == 'f32' else ''} : {elt}",
                  f"  linalg.fill ins(%zero{j} : {elt}) outs(%out{j} : {memref})"]
    operands = [f"%in{k}" for k in range(len(inputs))] + [f"%out{j}" for j in range(len(outputs))]
    call_types = list(types)
    if arena is not None:
        guarded = f"memref<{arena + 128}xi8>"
        lines += [f"  %guarded = memref.alloc() {{alignment = 16 : i64}} : {guarded}",
                  "  %canary = arith.constant 90 : i8",
                  f"  linalg.fill ins(%canary : i8) outs(%guarded : {guarded})",
                  "  %c64 = arith.constant 64 : index",
                  f"  %arena = memref.view %guarded[%c64][] : {guarded} to memref<{arena}xi8>"]
        operands.append("%arena")
        call_types.append(f"memref<{arena}xi8>")
    lines.append(f"  call @{args.function}({', '.join(operands)}) : ({', '.join(call_types)}) -> ()")
    for j, memref in enumerate(outputs):
        elt = element(memref)
        printed, value = memref, f"%out{j}"
        if elt == "i8":
            printed = memref.replace("xi8>", "xi32>")
            maps = "affine_map<(" + ", ".join(f"d{d}" for d in range(rank(memref))) + ") -> (" + \
                ", ".join(f"d{d}" for d in range(rank(memref))) + ")>"
            lines += [f"  %wide{j} = memref.alloc() : {printed}",
                      f"  linalg.generic {{indexing_maps = [{maps}, {maps}], iterator_types = [" +
                      ", ".join(['"parallel"'] * rank(memref)) + f"]}} ins(%out{j} : {memref}) outs(%wide{j} : {printed}) {{",
                      "  ^bb0(%a: i8, %b: i32):",
                      "    %e = arith.extsi %a : i8 to i32",
                      "    linalg.yield %e : i32",
                      "  }"]
            value, elt = f"%wide{j}", "i32"
        kind = "F32" if elt == "f32" else "I32"
        lines += [f"  %u{j} = memref.cast {value} : {printed} to memref<*x{elt}>",
                  f"  call @printMemref{kind}(%u{j}) : (memref<*x{elt}>) -> ()"]
    if arena is not None:
        lines += ["  %zero = arith.constant 0 : i64", "  %one = arith.constant 1 : i64",
                  f"  %tail = arith.constant {arena + 64} : index",
                  f"  %end = arith.constant {arena + 128} : index"]
        guard_loop(lines, "head", "%c0", "%c64", "%zero", guarded)
        guard_loop(lines, "all", "%tail", "%end", "%head", guarded)
        lines += ["  call @printI64(%all) : (i64) -> ()", "  call @printNewline() : () -> ()"]
    lines += ["  return", "}", ""]

    end = model.rstrip().rfind("}")
    if not re.search(r"^module\b", model, re.M) or end < 0:
        sys.exit(f"{args.model} has no top-level module")
    sys.stdout.write(model[:end] + "\n".join(lines) + "}\n")


if __name__ == "__main__":
    main()
