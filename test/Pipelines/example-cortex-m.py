#!/usr/bin/env python3
# ===- example-cortex-m.py - examples/cortex-m against the host ----------=== #
#
# Part of the mem-opt project.
#
# ===--------------------------------------------------------------------=== #
#
# Runs the example as a user does (cmake -S examples/cortex-m -B <dir>
# -DMODEL=... -DCPU=... -DINPUT=..., then cmake --build <dir> --target run)
# and checks the outputs it prints against an independent run of the same
# model on the host: mem-opt-run (upstream MLIR's lowering of the imported
# TOSA, JIT-compiled; no scheduling, no arena, no Cortex-M kernels) on the
# same seeded inputs, which the example embeds with -DINPUT. Integers must
# match bit for bit, floats within 1e-5 + 1e-4 |b|. Prints `OK <cpu>:
# <outputs>` per CPU; exit status 0 only if every CPU matches.
#
# ===--------------------------------------------------------------------=== #

import argparse
import os
import re
import shutil
import subprocess
import sys

import numpy as np

DTYPES = {"int8_t": np.int8, "uint8_t": np.uint8, "int16_t": np.int16,
          "int32_t": np.int32, "int64_t": np.int64, "float": np.float32,
          "double": np.float64}


def run(cmd, **kw):
    res = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if res.returncode != 0:
        sys.exit("FAILED: %s\n%s%s" % (" ".join(cmd), res.stdout, res.stderr))
    return res.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--tools", required=True)
    ap.add_argument("--src", required=True, help="the repository")
    ap.add_argument("--work", required=True)
    ap.add_argument("--cpu", action="append", required=True)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)

    # The host reference: the model as TOSA, run by mem-opt-run.
    tosa = args.model
    if not args.model.endswith(".mlir"):
        tosa = os.path.join(args.work, "model.mlir")
        run([os.path.join(args.tools, "mem-opt-import"), args.model, "-o",
             tosa])
    entry = re.search(r"func\.func @([\w.$-]+)\(", open(tosa).read()).group(1)
    inputs = os.path.join(args.work, "in.bin")
    host = os.path.join(args.work, "host.bin")
    run([os.path.join(args.tools, "mem-opt-run"), tosa, "--entry=" + entry,
         "--seed=%d" % args.seed, "--write-inputs=" + inputs,
         "--outputs=" + host])
    raw = open(host, "rb").read()

    status = 0
    for cpu in args.cpu:
        build = os.path.join(args.work, cpu)
        run(["cmake", "-S", os.path.join(args.src, "examples", "cortex-m"),
             "-B", build, "-DMODEL=" + args.model, "-DCPU=" + cpu,
             "-DINPUT=" + inputs,
             "-DMEMOPT_COMPILE=" + os.path.join(args.tools,
                                                "mem-opt-compile")])
        out = run(["cmake", "--build", build, "--target", "run"])
        printed = re.findall(r"^output (\d+): ([\dx]+) (\w+): (.*)$", out,
                             re.M)
        if not printed or "from the input file" not in out:
            print("FAIL %s: no outputs from the input file in\n%s" % (cpu,
                                                                     out))
            status = 1
            continue
        offset, ok = 0, True
        for index, shape, ctype, values in printed:
            dtype = np.dtype(DTYPES[ctype])
            count = int(np.prod([int(d) for d in shape.split("x")]))
            want = np.frombuffer(raw, dtype=dtype.newbyteorder("<"),
                                 count=count, offset=offset)
            offset += count * dtype.itemsize
            got = np.array([float(v) for v in values.split()])
            if got.size != count:
                ok = False
            elif np.issubdtype(dtype, np.integer):
                ok &= bool(np.all(got == want.astype(np.float64)))
            else:
                ok &= bool(np.all(np.abs(got - want) <=
                                  1e-5 + 1e-4 * np.abs(want)))
            if not ok:
                print("FAIL %s output %s: %s, host %s" % (
                    cpu, index, values, " ".join(str(v) for v in want)))
        if offset != len(raw):
            print("FAIL %s: printed %d output bytes, the host %d" % (
                cpu, offset, len(raw)))
            ok = False
        if re.search(r"^time: \d+ SysTick ticks", out, re.M) is None:
            print("FAIL %s: no time printed" % cpu)
            ok = False
        print("%s %s: %s" % ("OK" if ok else "FAIL", cpu, "; ".join(
            "output %s %s %s" % p[:3] for p in printed)))
        status |= 0 if ok else 1
    return status


if __name__ == "__main__":
    sys.exit(main())
