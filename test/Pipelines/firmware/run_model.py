#!/usr/bin/env python3
# ===- run_model.py - Run a model on emulated Cortex-M and on the host ---=== #
#
# Part of the mem-opt project.
#
# ===--------------------------------------------------------------------=== #
#
# For one TOSA model and one or more CPUs:
#   1. mem-opt-compile -> model.o + model.h (the code under test);
#   2. seeded random inputs from mem-opt-run, embedded as C arrays in
#      model_glue.c;
#   3. arm-none-eabi-gcc builds the firmware (startup.c, main.c, link.ld);
#   4. qemu-system-arm runs it under `timeout`; the firmware checks the canary
#      around the arena and writes the outputs to out.bin by semihosting;
#   5. the same TOSA function runs on the host (mem-opt-run: upstream MLIR's
#      lowering, no scheduling, no in-place rewrites, no arena), and the
#      outputs are compared: integers bit-exact, floats within a tolerance.
# It also checks that the object references no malloc, free or memrefCopy
# when the model is arena-planned. Exit status 0 only if everything holds.
#
# Needs /usr/bin/python3 (Debian's numpy).
# ===--------------------------------------------------------------------=== #

import argparse
import os
import re
import shutil
import subprocess
import sys

import numpy as np

BOARDS = {
    "cortex-m4": ("mps2-an386", ["-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16"]),
    "cortex-m7": ("mps2-an500", ["-mcpu=cortex-m7", "-mfpu=fpv5-d16"]),
}
LLVM_BIN = "/usr/lib/llvm-22/bin"
CTYPES = {
    "float": (np.float32, "float"),
    "double": (np.float64, "double"),
    "int8_t": (np.int8, "int8_t"),
    "uint8_t": (np.uint8, "uint8_t"),
    "int16_t": (np.int16, "int16_t"),
    "int32_t": (np.int32, "int32_t"),
    "int64_t": (np.int64, "int64_t"),
}


def run(cmd, **kw):
    """Runs cmd; on failure prints its output and exits."""
    res = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if res.returncode != 0:
        sys.stderr.write("FAILED: %s\n%s%s" % (" ".join(cmd), res.stdout,
                                               res.stderr))
        sys.exit(1)
    return res.stdout


def parse_header(path):
    """Returns (function, arena size, arena align, inputs, outputs) where
    inputs/outputs are lists of (shape, ctype)."""
    text = open(path).read()
    fn = re.search(r"^void (\w+)\(", text, re.M).group(1)
    up = fn.upper()
    arena = int(re.search(r"#define %s_ARENA_SIZE (\d+)" % up, text).group(1))
    align = int(re.search(r"#define %s_ARENA_ALIGN (\d+)" % up,
                          text).group(1))
    ios = {"IN": [], "OUT": []}
    for kind, _, shape, ctype in re.findall(
            r"#define %s_(IN|OUT)(\d+)_BYTES \d+ /\* ([\dx]+) (\w+) \*/" % up,
            text):
        ios[kind].append((tuple(int(d) for d in shape.split("x")), ctype))
    offsets = {kind: [int(v) for _, v in re.findall(
        r"#define %s_%s(\d+)_OFFSET (\d+)" % (up, kind), text)]
        for kind in ("IN", "OUT")}
    peak = int(re.search(r"#define %s_PREDICTED_PEAK (\d+)" % up,
                         text).group(1))
    return (fn, arena, align, ios["IN"], ios["OUT"], "void *arena" in text,
            offsets, peak)


def caller_bytes(specs):
    """Bytes of the buffers of the given (shape, ctype)s."""
    return sum(int(np.prod(shape)) * np.dtype(CTYPES[ctype][0]).itemsize
               for shape, ctype in specs)


def split(raw, specs):
    """Splits raw little-endian bytes into arrays of the given
    (shape, ctype)s."""
    arrays, offset = [], 0
    for shape, ctype in specs:
        dtype = np.dtype(CTYPES[ctype][0]).newbyteorder("<")
        count = int(np.prod(shape))
        arrays.append(np.frombuffer(raw, dtype=dtype, count=count,
                                    offset=offset).reshape(shape))
        offset += count * dtype.itemsize
    if offset != len(raw):
        return None
    return arrays


def c_literal(value, ctype):
    if ctype in ("float", "double"):
        return repr(float(value)) + ("f" if ctype == "float" else "")
    return str(int(value))


def write_glue(path, header, fn, arena, align, inputs, outputs, arrays,
               has_arena, offsets):
    """Writes the C glue that feeds the inputs, calls the model and exposes
    its outputs. With the inputs and outputs in the arena (offsets given),
    the inputs are copied to their offsets before the call and the outputs
    copied out after it."""
    lines = ['#include "%s"' % os.path.basename(header), "",
             "struct ModelOutput { const void *data; unsigned bytes; };",
             "const unsigned modelArenaSize = %d;" % arena,
             "const unsigned modelArenaAlign = %d;" % align]
    for i, ((shape, ctype), array) in enumerate(zip(inputs, arrays)):
        values = ",".join(c_literal(v, ctype) for v in array.ravel())
        lines.append("static const %s in%d[%d] __attribute__((aligned(16))) "
                     "= {%s};" % (ctype, i, array.size, values))
    for i, (shape, ctype) in enumerate(outputs):
        lines.append("static %s out%d[%d] __attribute__((aligned(16)));" %
                     (ctype, i, int(np.prod(shape))))
    if offsets["IN"] or offsets["OUT"]:
        body = ["char *base = (char *)arena;"]
        body += ["memcpy(base + %d, in%d, sizeof(in%d));" % (off, i, i)
                 for i, off in enumerate(offsets["IN"])]
        body.append("%s(arena);" % fn)
        body += ["memcpy(out%d, base + %d, sizeof(out%d));" % (i, off, i)
                 for i, off in enumerate(offsets["OUT"])]
        lines.insert(0, "#include <string.h>")
        lines.append("void runModel(void *arena) { %s }" % " ".join(body))
    else:
        args = ["in%d" % i for i in range(len(inputs))]
        args += ["out%d" % i for i in range(len(outputs))]
        if has_arena:
            args.append("arena")
        lines.append("void runModel(void *arena) { (void)arena; %s(%s); }" %
                     (fn, ", ".join(args)))
    lines.append("const unsigned numModelOutputs = %d;" % len(outputs))
    lines.append("const struct ModelOutput modelOutputs[] = {%s};" % ", ".join(
        "{out%d, sizeof(out%d)}" % (i, i) for i in range(len(outputs))) +
                 ("" if outputs else "{0, 0}"))
    open(path, "w").write("\n".join(lines) + "\n")


def tosa_entry(model):
    """The model's public function: mem-opt-compile names the C function
    after the file, mem-opt-run needs the TOSA name."""
    with open(model) as f:
        names = re.findall(r"^\s*func\.func @([\w.$-]+)\(", f.read(), re.M)
    if len(names) != 1:
        raise SystemExit("FAIL expected one public function in %s" % model)
    return names[0]


def host_run(tools, model, fn, seed, work):
    """Seeded inputs and the outputs of the TOSA function run on the host by
    mem-opt-run (upstream MLIR's lowering, JIT-compiled; no scheduling, no
    in-place rewrites, no arena)."""
    inputs, outputs = os.path.join(work, "in.bin"), os.path.join(
        work, "host_out.bin")
    run([os.path.join(tools, "mem-opt-run"), model, "--entry=" + fn,
         "--seed=%d" % seed, "--write-inputs=" + inputs,
         "--outputs=" + outputs])
    return open(inputs, "rb").read(), open(outputs, "rb").read()


def compare(name, got, want, rtol, atol):
    if np.issubdtype(want.dtype, np.integer):
        bad = np.count_nonzero(got != want)
        if bad:
            idx = np.argwhere(got != want)[0]
            return "%s: %d of %d values differ (first at %s: %s vs %s)" % (
                name, bad, want.size, tuple(idx), got[tuple(idx)],
                want[tuple(idx)])
        return None
    tol = atol + rtol * np.abs(want)
    diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
    if not np.all(np.isfinite(got)) or np.any(diff > tol):
        return "%s: max abs diff %g exceeds tolerance" % (name, diff.max())
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--tools", required=True, help="mem-opt's bin directory")
    ap.add_argument("--work", required=True, help="scratch directory")
    ap.add_argument("--cpu", action="append", default=[])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--atol", type=float, default=1e-5)
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--compile-arg", action="append", default=[])
    ap.add_argument("--symbol-prefix", default="",
                    help="prefix for the model's symbols in the firmware")
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    reference = None
    status = 0
    for cpu in args.cpu or ["cortex-m4"]:
        board, gccflags = BOARDS[cpu]
        work = os.path.join(args.work, cpu)
        os.makedirs(work)
        obj, header = os.path.join(work, "model.o"), os.path.join(
            work, "model.h")
        report = run([os.path.join(args.tools, "mem-opt-compile"), args.model,
                      "--cpu=" + cpu, "-o", obj, "--header", header,
                      "--report", "--symbol-prefix=" + args.symbol_prefix] +
                     args.compile_arg).strip()
        (fn, arena, align, inputs, outputs, has_arena, offsets,
         peak) = parse_header(header)
        # One number: the predicted peak is the arena plus the buffers the
        # caller owns (none when the inputs and outputs live in the arena).
        io = 0 if offsets["IN"] or offsets["OUT"] else (
            caller_bytes(inputs) + caller_bytes(outputs))
        if peak != arena + io:
            print("FAIL %s: predicted peak %d != arena %d + caller I/O %d" %
                  (cpu, peak, arena, io))
            status = 1
        undefined = run([os.path.join(LLVM_BIN, "llvm-nm"), "-u",
                         obj]).split()
        banned = sorted({"malloc", "free", "memrefCopy"} & set(undefined))
        if has_arena and banned:
            print("FAIL %s: object references %s" % (cpu, ", ".join(banned)))
            status = 1
        if reference is None:
            raw_in, raw_out = host_run(args.tools, args.model,
                                       tosa_entry(args.model), args.seed,
                                       args.work)
            arrays = split(raw_in, inputs)
            reference = split(raw_out, outputs)
            if arrays is None or reference is None:
                print("FAIL mem-opt-run's data does not match the header")
                return 1
        glue = os.path.join(work, "model_glue.c")
        write_glue(glue, header, fn, arena, align, inputs, outputs, arrays,
                   has_arena, offsets)
        elf = os.path.join(work, "fw.elf")
        run(["arm-none-eabi-gcc", "-mthumb", "-mfloat-abi=hard", "-O2"] +
            gccflags + ["--specs=rdimon.specs", "-nostartfiles", "-T",
                        os.path.join(here, "link.ld"), "-I", work,
                        os.path.join(here, "startup.c"),
                        os.path.join(here, "main.c"), glue, obj, "-o", elf,
                        "-lm"])
        res = subprocess.run(
            ["timeout", str(args.timeout), "qemu-system-arm", "-M", board,
             "-nographic", "-semihosting", "-monitor", "none", "-serial",
             "none", "-kernel", elf],
            capture_output=True, text=True, cwd=work)
        if res.returncode != 0:
            print("FAIL %s on %s: exit %d (124: timeout)\n%s%s" % (
                cpu, board, res.returncode, res.stdout, res.stderr))
            status = 1
            continue
        raw = open(os.path.join(work, "out.bin"), "rb").read()
        offset = 0
        for i, want in enumerate(reference):
            got = np.frombuffer(raw, dtype=want.dtype, count=want.size,
                                offset=offset).reshape(want.shape)
            offset += want.nbytes
            err = compare("%s out%d" % (cpu, i), got, want, args.rtol,
                          args.atol)
            if err:
                print("FAIL " + err)
                status = 1
        if offset != len(raw):
            print("FAIL %s: %d output bytes, expected %d" % (cpu, len(raw),
                                                            offset))
            status = 1
        print("%s %s on %s: %s" % ("OK" if status == 0 else "FAIL", cpu,
                                   board, report.splitlines()[0]))
    return status


if __name__ == "__main__":
    sys.exit(main())
