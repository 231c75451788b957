#!/usr/bin/env python3
# ===- run_model.py - Run a model on emulated Cortex-M and on the host ---=== #
#
# Part of the mem-opt project.
#
# ===--------------------------------------------------------------------=== #
#
# For one model (TOSA text, or a .tflite / .onnx that mem-opt-import turns
# into TOSA first) and one or more CPUs:
#   1. mem-opt-compile -> model.o + model.h (the code under test);
#   2. seeded random inputs from mem-opt-run, embedded as C arrays in
#      model_glue.c;
#   3. arm-none-eabi-gcc builds the firmware (main.c here; startup.c,
#      icount.c and the board's link-*.ld from examples/cortex-m);
#   4. qemu-system-arm runs it under `timeout`; the firmware checks the canary
#      around the arena and writes the outputs to out.bin by semihosting;
#   5. the same TOSA function runs on the host (mem-opt-run: upstream MLIR's
#      lowering, no scheduling, no in-place rewrites, no arena), and the
#      outputs are compared: integers bit-exact, floats within a tolerance.
# A model with states (the header's FN_STATE_...: SVDF activation states)
# gets a state buffer outside the arena, set to the host's initial states
# (or reset by the header's function, --reset-state); with --more-inputs it
# is called once more per file, the states carrying over, and the host runs
# the TOSA function call by call with the states it returned; the states
# after the last call are compared too.
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

# CPU: (QEMU board, gcc's CPU and FPU flags). A Cortex-M0+ object runs on
# the microbit's Cortex-M0 (both Armv6-M).
BOARDS = {
    "cortex-m0plus": ("microbit", ["-mcpu=cortex-m0plus"]),
    "cortex-m3": ("mps2-an385", ["-mcpu=cortex-m3"]),
    "cortex-m4": ("mps2-an386", ["-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16"]),
    "cortex-m7": ("mps2-an500", ["-mcpu=cortex-m7", "-mfpu=fpv5-d16"]),
    "cortex-m33": ("mps2-an505", ["-mcpu=cortex-m33", "-mfpu=fpv5-sp-d16"]),
    "cortex-m55": ("mps3-an547", ["-mcpu=cortex-m55"]),
}
# CPUs without an FPU: mem-opt-compile's default float ABI is soft there.
NO_FPU = {"cortex-m0plus", "cortex-m3"}
# The linker script of each board (link-mps2.ld unless listed), in
# examples/cortex-m with the start-up code and icount.c.
LINKER_SCRIPTS = {"mps2-an505": "link-an505.ld", "mps3-an547": "link-an547.ld",
                  "microbit": "link-microbit.ld"}
# Boards without SysTick (icount.c measures no ticks there).
NO_SYSTICK = {"microbit"}
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
    # The states in the caller's state buffer: (shape, ctype, offset).
    states = [(tuple(int(d) for d in shape.split("x")), ctype, int(re.search(
        r"#define %s_STATE%s_OFFSET (\d+)" % (up, i), text).group(1)))
        for i, shape, ctype in re.findall(
            r"#define %s_STATE(\d+)_BYTES \d+ /\* ([\dx]+) (\w+) \*/" % up,
            text)]
    return (fn, arena, align, ios["IN"], ios["OUT"], "void *arena" in text,
            offsets, peak, states)


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


def write_glue(path, header, fn, arena, align, inputs, outputs, frames,
               has_arena, offsets, states, state_init):
    """Writes the C glue that feeds the inputs, calls the model and exposes
    its outputs. \p frames holds the input arrays of each call (one call
    unless the model has states, which carry over from call to call); only
    the first call is measured. With the inputs and outputs in the arena
    (offsets given), the inputs are copied to their offsets before each
    call and the outputs copied out after it. A model with states gets a
    state buffer, set before the first call to \p state_init (the initial
    states' arrays) or, if that is None, by the header's reset function;
    the states after the last call follow the outputs."""
    lines = ['#include "%s"' % os.path.basename(header), "",
             "struct ModelOutput { const void *data; unsigned bytes; };",
             "typedef void (*MeasuredFn)(void *, void *, void *, void *);",
             "unsigned long long measuredCall(const char *name, void *a0, "
             "void *a1, void *a2, void *a3, MeasuredFn fn);",
             "const unsigned modelArenaSize = %d;" % arena,
             "const unsigned modelArenaAlign = %d;" % align]
    for k, arrays in enumerate(frames):
        for i, ((shape, ctype), array) in enumerate(zip(inputs, arrays)):
            values = ",".join(c_literal(v, ctype) for v in array.ravel())
            lines.append("static const %s in%d_%d[%d] __attribute__"
                         "((aligned(16))) = {%s};" % (ctype, i, k, array.size,
                                                      values))
        for i, (shape, ctype) in enumerate(outputs):
            lines.append("static %s out%d_%d[%d] __attribute__((aligned(16)));"
                         % (ctype, i, k, int(np.prod(shape))))
    setup = []
    if states:
        lines.append("static unsigned char state[%s_STATE_BYTES] __attribute__"
                     "((aligned(16)));" % fn.upper())
        if state_init is None:
            setup.append("%s_reset_state(state);" % fn)
        for i, ((shape, ctype, offset), array) in enumerate(
                zip(states, state_init or [])):
            values = ",".join(c_literal(v, ctype) for v in array.ravel())
            lines.append("static const %s state%d_init[%d] = {%s};" % (
                ctype, i, array.size, values))
            setup.append("memcpy(state + %d, state%d_init, sizeof(state%d_init));"
                         % (offset, i, i))
    in_arena = bool(offsets["IN"] or offsets["OUT"])
    body = list(setup)
    for k in range(len(frames)):
        if in_arena:
            args = (["state"] if states else []) + ["arena"]
            body += ["memcpy((char *)arena + %d, in%d_%d, sizeof(in%d_%d));" %
                     (off, i, k, i, k) for i, off in enumerate(offsets["IN"])]
        else:
            args = ["(void *)in%d_%d" % (i, k) for i in range(len(inputs))]
            args += ["state"] if states else []
            args += ["out%d_%d" % (i, k) for i in range(len(outputs))]
            args += ["arena"] if has_arena else []
        if k > 0:
            # Only the first call is measured.
            body.append("%s(%s);" % (fn, ", ".join(args)))
        elif len(args) <= 4:
            # The model itself is the measured call.
            body.append('measuredCall("model", %s, (MeasuredFn)%s);' % (
                ", ".join(["(void *)" + a for a in args] +
                          ["0"] * (4 - len(args))), fn))
        else:
            # More arguments than registers: the measured call is a wrapper
            # (a few instructions more than the model).
            lines.append("static void callModel(void *arena, void *a1, "
                         "void *a2, void *a3) { (void)a1; (void)a2; "
                         "(void)a3; (void)arena; %s(%s); }" %
                         (fn, ", ".join(args)))
            body.append('measuredCall("model", arena, 0, 0, 0, callModel);')
        if in_arena:
            body += ["memcpy(out%d_%d, (char *)arena + %d, sizeof(out%d_%d));"
                     % (i, k, off, i, k) for i, off in enumerate(offsets["OUT"])]
    lines.insert(0, "#include <string.h>")
    lines.append("void runModel(void *arena) { (void)arena; %s }" %
                 " ".join(body))
    entries = ["{out%d_%d, sizeof(out%d_%d)}" % (i, k, i, k)
               for k in range(len(frames)) for i in range(len(outputs))]
    entries += ["{state + %d, %d}" % (offset, int(np.prod(shape)) *
                                      np.dtype(CTYPES[ctype][0]).itemsize)
                for shape, ctype, offset in states]
    lines.append("const unsigned numModelOutputs = %d;" % len(entries))
    lines.append("const struct ModelOutput modelOutputs[] = {%s};" %
                 (", ".join(entries) or "{0, 0}"))
    open(path, "w").write("\n".join(lines) + "\n")


# Instruction counting (--icount). The firmware measures three calls in this
# order: an empty function, a calibration loop and the model.
CALIBRATION_ITERATIONS = 1000000  # ICOUNT_CALIBRATION_ITERATIONS, icount.h
# The CPU clock of each board, which drives SysTick: under -icount shift=0
# an instruction takes 1 ns, so a tick is 1e9 / clock instructions.
BOARD_CLOCK_HZ = {"mps2-an385": 25000000, "mps2-an386": 25000000,
                  "mps2-an500": 25000000, "mps2-an505": 20000000,
                  "mps3-an547": 32000000}
# The plugin's cycle model of each CPU (cycle-model.h; docs/CortexM.md,
# "Cycles per inference"), and the calibration calls' cycles counted by hand
# from its table: the empty call is blx and bx lr, each 1 + P with P = 1 on
# both (M7: the blx reads the r4 that icountCall's ldr writes, so they do
# not pair); the loop on M4 is subs (1) and bne (1, + 1 when taken) per
# iteration, on M7 subs and bne issue together (1, + 1 when taken).
CYCLE_MODELS = {"cortex-m4": "m4", "cortex-m7": "m7"}
CALIBRATION_CYCLES = {
    "m4": (4, 3 * CALIBRATION_ITERATIONS + 3),
    "m7": (4, 2 * CALIBRATION_ITERATIONS + 3),
}


def build_plugin(here, work):
    """Builds icount-plugin.c for the host; returns the .so's path."""
    so = os.path.join(work, "icount-plugin.so")
    run(["cc", "-shared", "-fPIC", "-O2", "-fvisibility=hidden", "-o", so,
         os.path.join(here, "icount-plugin.c"),
         os.path.join(here, "cycle-model.c")])
    return so


def icount_args(plugin, elf, work, cycles=None):
    """QEMU's options that count the firmware's instructions: -icount
    shift=0 (1 ns of virtual time per instruction, for SysTick) and the
    plugin, given the firmware's function symbols and markers, and the
    cycle model (CYCLE_MODELS) if any."""
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
                os.path.join(work, "icount.txt")) +
            (",cycles=" + cycles if cycles else "")]


def read_windows(path):
    """The plugin's windows: a list of (total, {function: count})."""
    windows = []
    for line in open(path):
        kind, k, count, name = line.split()
        if kind != "window":
            continue
        if count == "total":
            windows.append((int(name), {}))
        else:
            windows[int(k)][1][name] = int(count)
    return windows


def read_cycles(path):
    """The plugin's cycle estimates: a list of (total, {function: cycles}),
    empty without a cycle model."""
    windows = []
    for line in open(path):
        kind, k, count, name = line.split()
        if kind != "cycles":
            continue
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
    cycle_windows = read_cycles(path)
    model_cycles = "-"
    if cycle_windows:
        want = CALIBRATION_CYCLES[CYCLE_MODELS[cpu]]
        got = tuple(w[0] for w in cycle_windows[:2])
        if got != want:
            lines.append("FAIL %s: the cycle model gives %d and %d cycles on "
                         "the calibration calls, counted by hand %d and %d" %
                         (cpu, *got, *want))
            ok = False
        model_cycles = cycle_windows[2][0] - cycle_windows[2][1].get(
            "sysTickHandler", 0)
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
        "macs=%d instructions_per_mac=%s cycles=%s cycles_per_mac=%s "
        "arena=%s flash=%s code=%s constants=%s" % (
            cpu, board, fn, instructions, sys_model, macs,
            "%.3f" % (instructions / macs) if macs else "-", model_cycles,
            "%.3f" % (model_cycles / macs) if macs and cycle_windows else "-",
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
            lines.append("ICOUNT-FN %s %s %d %.2f%%%s" % (
                cpu, name, count, 100.0 * count / model,
                " cycles=%d" % cycle_windows[2][1].get(name, 0)
                if cycle_windows else ""))
    return lines, ok


def as_tosa(tools, model, work):
    """The model as TOSA text: a .tflite or .onnx (anything that is not
    UTF-8 text) is imported with mem-opt-import into <work>/<stem>.mlir, so
    that mem-opt-compile names the C function after the same stem."""
    with open(model, "rb") as f:
        data = f.read()
    try:
        data.decode("utf-8")
        return model
    except UnicodeDecodeError:
        pass
    stem = os.path.splitext(os.path.basename(model))[0]
    mlir = os.path.join(work, stem + ".mlir")
    run([os.path.join(tools, "mem-opt-import"), model, "-o", mlir])
    return mlir


def tosa_entry(model):
    """The model's public function: mem-opt-compile names the C function
    after the file, mem-opt-run needs the TOSA name."""
    with open(model) as f:
        names = re.findall(r"^\s*func\.func @([\w.$-]+)\(", f.read(), re.M)
    if len(names) != 1:
        raise SystemExit("FAIL expected one public function in %s" % model)
    return names[0]


def host_run(tools, model, fn, seed, work, given_inputs=None):
    """Seeded inputs (or the bytes of the file \p given_inputs) and the
    outputs of the TOSA function run on the host by mem-opt-run (upstream
    MLIR's lowering, JIT-compiled; no scheduling, no in-place rewrites, no
    arena)."""
    inputs, outputs = os.path.join(work, "in.bin"), os.path.join(
        work, "host_out.bin")
    if given_inputs:
        inputs = given_inputs
        source = ["--inputs=" + inputs]
    else:
        source = ["--seed=%d" % seed, "--write-inputs=" + inputs]
    run([os.path.join(tools, "mem-opt-run"), model, "--entry=" + fn,
         "--outputs=" + outputs] + source)
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
    ap.add_argument("--inputs", help="the inputs' bytes (mem-opt-run "
                    "--inputs) instead of seeded random ones")
    ap.add_argument("--more-inputs", action="append", default=[],
                    help="a model with states: the inputs' bytes (the "
                    "model's inputs only) of one more call; the states "
                    "carry over from call to call, on the board and on the "
                    "host (mem-opt-run, each call given the states the "
                    "previous one returned)")
    ap.add_argument("--reset-state", action="store_true",
                    help="a model with states: the firmware resets them "
                    "with the header's reset function instead of copying "
                    "the host's initial states (which must then be the "
                    "reset values, as in --inputs)")
    ap.add_argument("--expected", help="the outputs' bytes from an "
                    "independent reference: the host's and every CPU's "
                    "outputs must equal them too, byte for byte")
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--atol", type=float, default=1e-5)
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--compile-arg", action="append", default=[])
    ap.add_argument("--symbol-prefix", default="",
                    help="prefix for the model's symbols in the firmware")
    ap.add_argument("--icount", action="store_true",
                    help="count the model call's instructions (QEMU -icount "
                    "shift=0 with SysTick, and icount-plugin.c), estimate "
                    "its cycles on M4 and M7 (cycle-model.c) and print an "
                    "ICOUNT line per CPU")
    ap.add_argument("--icount-functions", action="store_true",
                    help="with --icount, also print the instructions of "
                    "every function in the model call")
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    # The start-up code, linker scripts and icount.c of the example.
    example = os.path.join(here, "..", "..", "..", "examples", "cortex-m")
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    args.model = as_tosa(args.tools, args.model, args.work)
    # gcc's float ABI: the one given to mem-opt-compile, else its default.
    float_abi = None
    for arg in args.compile_arg:
        if arg.startswith("--float-abi="):
            float_abi = arg.split("=", 1)[1]
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
         peak, states) = parse_header(header)
        state_specs = [(shape, ctype) for shape, ctype, _ in states]
        if args.more_inputs and not states:
            print("FAIL --more-inputs needs a model with states")
            return 1
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
            # The TOSA function's arguments are the inputs and then the
            # states (as mem-opt-import makes them), its results the
            # outputs and then the new states. Each further call gets the
            # states the previous one returned.
            raw_in, raw_out = host_run(args.tools, args.model,
                                       tosa_entry(args.model), args.seed,
                                       args.work, args.inputs)
            first = split(raw_in, inputs + state_specs)
            frames = [first and first[:len(inputs)]]
            state_init = first and first[len(inputs):]
            results = split(raw_out, outputs + state_specs)
            reference = results and results[:len(outputs)]
            for k, more in enumerate(args.more_inputs):
                if results is None or frames[-1] is None:
                    break
                given = os.path.join(args.work, "in%d.bin" % (k + 1))
                state_bytes = b"".join(
                    a.tobytes() for a in results[len(outputs):])
                open(given, "wb").write(open(more, "rb").read() + state_bytes)
                raw_in, raw_out = host_run(args.tools, args.model,
                                           tosa_entry(args.model), args.seed,
                                           args.work, given)
                frames.append(split(raw_in, inputs + state_specs))
                results = split(raw_out, outputs + state_specs)
                if frames[-1] is not None:
                    frames[-1] = frames[-1][:len(inputs)]
                if results is not None:
                    reference += results[:len(outputs)]
            if results is not None:
                reference += results[len(outputs):]
            if any(f is None for f in frames) or results is None:
                print("FAIL mem-opt-run's data does not match the header")
                return 1
            if args.expected:
                # The host against the independent reference, then the
                # reference is what every CPU must produce.
                expected = split(open(args.expected, "rb").read(),
                                 outputs * len(frames) + state_specs)
                if expected is None:
                    print("FAIL --expected does not match the header")
                    return 1
                for i, (host, want) in enumerate(zip(reference, expected)):
                    err = compare("host out%d" % i, host, want, args.rtol,
                                  args.atol)
                    if err:
                        print("FAIL " + err)
                        status = 1
                reference = expected
        glue = os.path.join(work, "model_glue.c")
        write_glue(glue, header, fn, arena, align, inputs, outputs, frames,
                   has_arena, offsets, states,
                   None if args.reset_state else state_init)
        elf = os.path.join(work, "fw.elf")
        abi = float_abi or ("soft" if cpu in NO_FPU else "hard")
        if abi == "soft":
            # A plain link: no -mfpu, as a soft-float firmware would have.
            gccflags = [f for f in gccflags if not f.startswith("-mfpu=")]
        defines = ["-DICOUNT_NO_SYSTICK"] if board in NO_SYSTICK else []
        run(["arm-none-eabi-gcc", "-mthumb", "-mfloat-abi=" + abi, "-O2"] +
            gccflags + defines +
            ["--specs=rdimon.specs", "-nostartfiles", "-L", example, "-T",
             os.path.join(example, LINKER_SCRIPTS.get(board, "link-mps2.ld")),
             "-I", work, "-I", example, os.path.join(example, "startup.c"),
             os.path.join(example, "icount.c"), os.path.join(here, "main.c"),
             glue, obj, "-o", elf, "-lm"])
        qemu_icount = []
        if plugin:
            qemu_icount = icount_args(plugin, elf, work,
                                      CYCLE_MODELS.get(cpu))
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
