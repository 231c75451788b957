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
#   3. arm-none-eabi-gcc builds the firmware (startup.c, icount.c, main.c,
#      link.ld);
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
    "cortex-m55": ("mps3-an547", ["-mcpu=cortex-m55"]),
}
# The linker script of each board (link.ld unless listed).
LINKER_SCRIPTS = {"mps3-an547": "link-an547.ld"}
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
             "typedef void (*MeasuredFn)(void *, void *, void *, void *);",
             "void measuredCall(const char *name, void *a0, void *a1, "
             "void *a2, void *a3, MeasuredFn fn);",
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
        body.append('measuredCall("model", arena, 0, 0, 0, (MeasuredFn)%s);'
                    % fn)
        body += ["memcpy(out%d, base + %d, sizeof(out%d));" % (i, off, i)
                 for i, off in enumerate(offsets["OUT"])]
        lines.insert(0, "#include <string.h>")
        lines.append("void runModel(void *arena) { %s }" % " ".join(body))
    else:
        args = ["in%d" % i for i in range(len(inputs))]
        args += ["out%d" % i for i in range(len(outputs))]
        if has_arena:
            args.append("arena")
        if len(args) <= 4:
            # The model itself is the measured call.
            call = 'measuredCall("model", %s, (MeasuredFn)%s);' % (", ".join(
                ["(void *)" + a for a in args] + ["0"] * (4 - len(args))), fn)
        else:
            # More arguments than registers: the measured call is a wrapper
            # (a few instructions more than the model).
            lines.append("static void callModel(void *arena, void *a1, "
                         "void *a2, void *a3) { (void)a1; (void)a2; "
                         "(void)a3; (void)arena; %s(%s); }" %
                         (fn, ", ".join(args)))
            call = 'measuredCall("model", arena, 0, 0, 0, callModel);'
        lines.append("void runModel(void *arena) { (void)arena; %s }" % call)
    lines.append("const unsigned numModelOutputs = %d;" % len(outputs))
    lines.append("const struct ModelOutput modelOutputs[] = {%s};" % ", ".join(
        "{out%d, sizeof(out%d)}" % (i, i) for i in range(len(outputs))) +
                 ("" if outputs else "{0, 0}"))
    open(path, "w").write("\n".join(lines) + "\n")


# Instruction counting (--icount). The firmware measures three calls in this
# order: an empty function, a calibration loop and the model.
CALIBRATION_ITERATIONS = 1000000  # ICOUNT_CALIBRATION_ITERATIONS, icount.h
# The CPU clock of each board, which drives SysTick: under -icount shift=0
# an instruction takes 1 ns, so a tick is 1e9 / clock instructions.
BOARD_CLOCK_HZ = {"mps2-an386": 25000000, "mps2-an500": 25000000,
                  "mps3-an547": 32000000}


def build_plugin(here, work):
    """Builds icount-plugin.c for the host; returns the .so's path."""
    so = os.path.join(work, "icount-plugin.so")
    run(["cc", "-shared", "-fPIC", "-O2", "-fvisibility=hidden", "-o", so,
         os.path.join(here, "icount-plugin.c")])
    return so


def icount_args(plugin, elf, work):
    """QEMU's options that count the firmware's instructions: -icount
    shift=0 (1 ns of virtual time per instruction, for SysTick) and the
    plugin, given the firmware's function symbols and markers."""
    symbols, markers = [], {}
    for line in run(["arm-none-eabi-nm", "-S", "--defined-only",
                     elf]).splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in "tTwW":
            symbols.append("%s %s %s" % (fields[0], fields[1], fields[3]))
        elif len(fields) == 3 and fields[2] in ("icountBegin", "icountEnd"):
            markers[fields[2]] = fields[0]
    path = os.path.join(work, "symbols.txt")
    open(path, "w").write("\n".join(symbols) + "\n")
    return ["-icount", "shift=0", "-plugin",
            "%s,symbols=%s,begin=0x%s,end=0x%s,out=%s" % (
                plugin, path, markers["icountBegin"], markers["icountEnd"],
                os.path.join(work, "icount.txt"))]


def read_windows(path):
    """The plugin's windows: a list of (total, {function: count})."""
    windows = []
    for line in open(path):
        _, k, count, name = line.split()
        if count == "total":
            windows.append((int(name), {}))
        else:
            windows[int(k)][1][name] = int(count)
    return windows


def icount_report(cpu, board, fn, report, stdout, path, functions):
    """Lines that report the model call's instructions, and whether the
    counters hold on the calibration calls."""
    lines, ok = [], True
    ticks = dict(re.findall(r"^ICOUNT (\w+) systick=(\d+)", stdout, re.M))
    windows = read_windows(path) if os.path.exists(path) else []
    if len(windows) != 3 or set(ticks) != {"empty", "calibration", "model"}:
        return ["FAIL %s: expected 3 measured calls, got %d windows and "
                "SysTick for %s" % (cpu, len(windows), sorted(ticks))], False
    empty, calibration, model = (w[0] for w in windows)
    # icountCall's blx and icountEmpty's bx lr; the loop: blx, two
    # instructions per iteration and bx lr (icount.c).
    expected = [2, 2 * CALIBRATION_ITERATIONS + 2]
    if [empty, calibration] != expected:
        lines.append("FAIL %s: plugin counted %d and %d instructions on the "
                     "calibration calls, expected %d and %d" % (
                         cpu, empty, calibration, *expected))
        ok = False
    # SysTick: instructions per tick from the clock, confirmed on the loop.
    per_tick = 1e9 / BOARD_CLOCK_HZ[board]
    sys_calibration = (int(ticks["calibration"]) - int(ticks["empty"])) * \
        per_tick + empty
    if abs(sys_calibration - calibration) > 2 * per_tick:
        lines.append("FAIL %s: SysTick gives %d instructions on the "
                     "calibration loop, the plugin %d" % (
                         cpu, sys_calibration, calibration))
        ok = False
    # The model's count; a SysTick interrupt during the call (a wrap every
    # 2^24 ticks) adds its handler's instructions, which are not the model's.
    handler = windows[2][1].get("sysTickHandler", 0)
    instructions = model - handler
    sys_model = int(round((int(ticks["model"]) - int(ticks["empty"])) *
                          per_tick)) + empty
    macs = re.search(r"^  MACs\s+(\d+)", report, re.M)
    macs = int(macs.group(1)) if macs else 0
    flash = re.search(r"^  Flash\s+(\d+) bytes: code (\d+) \+ constant data "
                      r"(\d+)", report, re.M)
    arena = re.search(r"\barena=(\d+)", report)
    lines.append(
        "ICOUNT %s on %s: %s: instructions=%d systick_instructions=%d "
        "macs=%d instructions_per_mac=%s arena=%s flash=%s code=%s "
        "constants=%s" % (
            cpu, board, fn, instructions, sys_model, macs,
            "%.3f" % (instructions / macs) if macs else "-",
            arena.group(1) if arena else "-",
            *(flash.groups() if flash else ("-", "-", "-"))))
    # Each of the two samples of a call is late by less than a tick, and the
    # empty call's ticks are subtracted: at most two ticks off.
    if abs(sys_model - instructions) > 2 * per_tick + handler:
        lines.append("FAIL %s: SysTick gives %d instructions, the plugin %d" %
                     (cpu, sys_model, instructions))
        ok = False
    if functions:
        for name, count in sorted(windows[2][1].items(),
                                  key=lambda item: -item[1]):
            lines.append("ICOUNT-FN %s %s %d %.2f%%" % (
                cpu, name, count, 100.0 * count / model))
    return lines, ok


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
    ap.add_argument("--icount", action="store_true",
                    help="count the model call's instructions (QEMU -icount "
                    "shift=0 with SysTick, and icount-plugin.c) and print an "
                    "ICOUNT line per CPU")
    ap.add_argument("--icount-functions", action="store_true",
                    help="with --icount, also print the instructions of "
                    "every function in the model call")
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    reference = None
    status = 0
    plugin = build_plugin(here, args.work) if args.icount else None
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
                        os.path.join(here, LINKER_SCRIPTS.get(board,
                                                              "link.ld")),
                        "-I", work, "-I",
                        here, os.path.join(here, "startup.c"),
                        os.path.join(here, "icount.c"),
                        os.path.join(here, "main.c"), glue, obj, "-o", elf,
                        "-lm"])
        qemu_icount = []
        if plugin:
            qemu_icount = icount_args(plugin, elf, work)
        res = subprocess.run(
            ["timeout", str(args.timeout), "qemu-system-arm", "-M", board,
             "-nographic", "-semihosting", "-monitor", "none", "-serial",
             "none", "-kernel", elf] + qemu_icount,
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
        if plugin:
            lines, ok = icount_report(cpu, board, fn, report, res.stdout,
                                      os.path.join(work, "icount.txt"),
                                      args.icount_functions)
            print("\n".join(lines))
            if not ok:
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
