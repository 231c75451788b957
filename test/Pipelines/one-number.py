#!/usr/bin/env python3
# ===- one-number.py - The proven peak is the SRAM the device uses ----------===#
#
# Part of the mem-opt project.
#
# ===------------------------------------------------------------------------===#
#
# For every model given (TOSA files), in both `io=` modes, runs
# `cortex-m-pipeline` up to the arena plan and checks the one number:
#
#   memopt.peak_bytes (the schedule's peak under the lowering's model)
#     == memplan.lower_bound (the liveness bound of the buffers the lowering
#        really allocates) + the bytes of the caller-owned inputs and outputs
#
# The caller's bytes come from the TOSA signature (elements x element bytes;
# none under io=arena; states, which live in the caller's state buffer, are
# not counted). The planned arena is at least the bound; when the
# placement is above it (printed), the header reports the placed arena.
# Usage: one-number.py <mem-opt> [--options <pipeline options>]
#                      [--zoo <mem-opt-zoo> <work dir>]
#                      [--random <count> <mem-opt-zoo> <work dir>] <model>...
# --zoo adds every model of `mem-opt-zoo --list`, in f32 and int8; --random
# adds <count> random DAGs: seeded Watts-Strogatz RandWire cells of 6-20
# nodes (padded convs, depthwise convs, adds, concats), f32 and int8 in turn.
#
# ===------------------------------------------------------------------------===#
import os
import re
import subprocess
import sys

ELEMENT_BYTES = {"f32": 4, "f16": 2, "i8": 1, "i16": 2, "i32": 4, "i64": 8,
                 "i1": 1}


def tensor_bytes(text):
    """Bytes of the tensor types in a signature fragment, as C stores them."""
    total = 0
    for shape, element in re.findall(r"tensor<((?:\d+x)*)(\w+)>", text):
        count = 1
        for dim in shape.split("x")[:-1]:
            count *= int(dim)
        total += count * ELEMENT_BYTES[element]
    return total


def caller_bytes(model):
    """Bytes of the inputs and outputs of the model's public function. A
    state (an argument with `memopt.state`, and the result it names, of the
    same type) is neither: it lives in the caller's state buffer."""
    text = open(model).read()
    match = re.search(r"func\.func @\w+\((.*?)\)\s*->\s*(\(.*?\)|tensor<[^>]*>)",
                      text, re.S)
    states = sum(tensor_bytes(state) for state in re.findall(
        r"(tensor<[^>]*>)\s*\{[^}]*memopt\.state = ", match.group(1)))
    return (tensor_bytes(match.group(1)) + tensor_bytes(match.group(2)) -
            2 * states)


def attr(text, name):
    match = re.search(name + r" = (\d+)", text)
    return int(match.group(1)) if match else None


def zoo_models(zoo, work):
    """Generates every zoo model in f32 and int8 into \p work."""
    names = [line.split()[0] for line in subprocess.run(
        [zoo, "--list"], capture_output=True, text=True,
        check=True).stdout.splitlines() if line.strip()]
    os.makedirs(work, exist_ok=True)
    paths = []
    for name in names:
        for dtype in ("f32", "i8"):
            path = os.path.join(work, "%s-%s.mlir" % (name, dtype))
            subprocess.run([zoo, "--model=" + name, "--dtype=" + dtype, "-o",
                            path], check=True)
            paths.append(path)
    return paths


def random_models(count, zoo, work):
    """Generates \p count seeded random RandWire cells into \p work."""
    os.makedirs(work, exist_ok=True)
    paths = []
    for seed in range(1, count + 1):
        path = os.path.join(work, "random-%d.mlir" % seed)
        subprocess.run([zoo, "--model=randwire-ws", "--seed=%d" % seed,
                        "--nodes=%d" % (6 + seed % 15), "--channels=8",
                        "--resolution=16",
                        "--dtype=" + ("i8" if seed % 2 else "f32"), "-o", path],
                       check=True)
        paths.append(path)
    return paths


def main():
    mem_opt, models = sys.argv[1], sys.argv[2:]
    extra = ""
    if models[:1] == ["--options"]:
        extra, models = " " + models[1], models[2:]
    if models[:1] == ["--zoo"]:
        models = zoo_models(models[1], models[2]) + models[3:]
    if models[:1] == ["--random"]:
        models = random_models(int(models[1]), models[2],
                               models[3]) + models[4:]
    errors = 0
    for model in models:
        name = model.rsplit("/", 1)[-1]
        for io in ("arena", "caller"):
            res = subprocess.run(
                [mem_opt, model,
                 "--cortex-m-pipeline=stop-after=plan io=" + io + extra],
                capture_output=True, text=True)
            if res.returncode:
                print("error: %s io=%s: pipeline failed\n%s" % (
                    name, io, res.stderr[:300]))
                errors += 1
                continue
            head = next(line for line in res.stdout.splitlines()
                        if "func.func @" in line and "memopt.peak_bytes" in line)
            peak = attr(head, "memopt.peak_bytes")
            bound = attr(head, "memplan.lower_bound")
            arena = attr(head, "memplan.arena_size")
            io_bytes = caller_bytes(model) if io == "caller" else 0
            status = "ok" if peak == bound + io_bytes else "MISMATCH"
            if status != "ok":
                errors += 1
            note = "" if arena == bound else \
                " (placement above the bound: arena %d)" % arena
            print("%s io=%s: peak %d, bound %d + caller %d: %s%s" % (
                name, io, peak, bound, io_bytes, status, note))
            if arena < bound:
                print("error: %s io=%s: arena %d below its bound %d" % (
                    name, io, arena, bound))
                errors += 1
    print("checked %d models, %d errors" % (len(models), errors))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
