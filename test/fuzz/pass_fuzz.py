#!/usr/bin/env python3
# ===- pass_fuzz.py - Structure-aware fuzzer of mem-opt's passes -----------===#
#
# Part of the mem-opt project.
#
# ===------------------------------------------------------------------------===#
#
# A seeded property test of the passes on random VALID TOSA functions. For
# every seed, `mem-opt-zoo --model=fuzz` builds a function through the zoo's
# TosaGraphBuilder (random convolutions with random kernels, strides,
# dilations and paddings, depthwise convolutions, pools, adds, muls, clamps,
# casts, rescales, compares and selects, concats on any axis, fan-outs, and
# the views reshape, slice, transpose and pad; f32, f16, i8, i16 and i1
# tensors), and the function goes through:
#
#   memory-report, memory-schedule, partition-concat{mode=always},
#   cortex-m-pipeline{stop-after=schedule partition=always patches=auto},
#   cortex-m-pipeline{stop-after=plan io=arena|caller},
#   cortex-m-pipeline (to LLVM), and mem-opt-compile (object and header).
#
# The properties:
#   1. nothing crashes (signal, LLVM stack dump) or hangs (--timeout);
#   2. every output parses and verifies (mem-opt re-reads it);
#   3. the predicted peak is the planned bytes: memopt.peak_bytes equals
#      memplan.lower_bound + the caller's I/O bytes (io=caller) and the
#      arena is at least the bound (see test/Pipelines/one-number.py); the
#      header's _PREDICTED_PEAK equals _ARENA_SIZE + caller I/O bytes. A
#      prediction below the planned bytes (the device needs more than
#      promised) is a finding; one above them (safe, but not the one
#      number) is listed as a note. --one-number=strict makes both
#      findings, --one-number=note lists both as notes;
#   4. the TOSA results of memory-schedule, partition-concat and the
#      pipeline's schedule stage compute what the original computes on the
#      host (mem-opt-run --compare, 2 seeded inputs; floats within a
#      tolerance, integers and booleans bit-exact).
# An input that a stage legitimately does not support gets a clean error
# (exit code 1 with a diagnostic) and counts as a pass. A seed that fails is
# shrunk: the same seed with fewer ops (--nodes) is tried down to 1 and the
# smallest failing function is kept in <work-dir>/findings/.
#
# Usage:
#   pass_fuzz.py --bin-dir build/bin --work-dir DIR [--first-seed S]
#                [--seeds N] [--seconds T] [--nodes N] [--timeout T]
# Runs seeds S, S+1, ... until N seeds are done or T seconds have passed
# (the clock only stops the run; each seed's result is deterministic).
# Exits with 1 when a property failed. docs/Development.md ("Pass fuzzer")
# has the long-run command.
#
# ===------------------------------------------------------------------------===#
import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import time

# The byte rules of the one-number check (caller_bytes, attr) are those of
# test/Pipelines/one-number.py, loaded from there.
_SPEC = importlib.util.spec_from_file_location(
    "one_number", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                               os.pardir, "Pipelines", "one-number.py"))
_ONE_NUMBER = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_ONE_NUMBER)
caller_bytes = _ONE_NUMBER.caller_bytes
attr = _ONE_NUMBER.attr

CRASH_MARKERS = ("PLEASE submit a bug report", "Stack dump:",
                 "LLVM ERROR", "Assertion", "UNREACHABLE")


class Finding(Exception):
    """A property failed: what and where."""


class Runner:
    """Runs the tools with a time limit and classifies their ends."""

    def __init__(self, bin_dir, timeout):
        self.bin_dir = bin_dir
        self.timeout = timeout

    def tool(self, name):
        return os.path.join(self.bin_dir, name)

    def run(self, stage, argv, clean=(0, 1)):
        """Runs \p argv; returns (returncode, stdout, stderr) for a normal
        end or a clean error (an exit code in \p clean), raises Finding for
        a crash or a hang."""
        try:
            res = subprocess.run(argv, capture_output=True, text=True,
                                 timeout=self.timeout)
        except subprocess.TimeoutExpired:
            raise Finding("%s: HANG (no end within %g s): %s" % (
                stage, self.timeout, " ".join(argv)))
        crashed = res.returncode < 0 or res.returncode >= 128 or any(
            marker in res.stderr for marker in CRASH_MARKERS)
        if crashed:
            raise Finding("%s: CRASH (exit %d): %s\n%s" % (
                stage, res.returncode, " ".join(argv),
                "\n".join(res.stderr.splitlines()[:12])))
        if res.returncode not in clean:
            raise Finding("%s: unexpected exit code %d: %s\n%s" % (
                stage, res.returncode, " ".join(argv), res.stderr[:600]))
        if res.returncode and "error" not in res.stderr + res.stdout:
            raise Finding("%s: failed without a diagnostic: %s" % (
                stage, " ".join(argv)))
        return res.returncode, res.stdout, res.stderr


def check_model(runner, model, work, stats, one_number):
    """Runs every stage on \p model; raises Finding when a property fails.
    Counts clean errors and checks in \p stats."""
    mem_opt = runner.tool("mem-opt")
    io_bytes = caller_bytes(model)

    def check_peak(name, predicted, planned, what):
        # Property 3. A prediction below the planned bytes promises less
        # SRAM than the device needs; one above them is safe but not the
        # one number. Which of them are findings: --one-number.
        stats["peak checks"] += 1
        if predicted == planned:
            return
        under = predicted < planned
        if one_number == "strict" or (under and one_number == "under"):
            raise Finding("%s: predicted peak %d != planned %d (%s)" % (
                name, predicted, planned, what))
        stats["under-predicted peaks" if under else "over-predicted peaks"] += 1
        stats.setdefault("peak notes", []).append(
            "%s: predicted %d %s planned %d (%s)" % (
                name, predicted, "<" if under else ">", planned, what))

    def stage(name, args, output=None):
        argv = [mem_opt, model] + args
        if output:
            argv += ["-o", output]
        rc, out, err = runner.run(name, argv)
        if rc:
            stats["clean errors"] += 1
            stats.setdefault("errors by stage", {}).setdefault(name, 0)
            stats["errors by stage"][name] += 1
            return None
        stats["stage runs"] += 1
        if output:
            # Property 2: the output parses and verifies.
            rc, _, err = runner.run(name + " (re-read)",
                                    [mem_opt, output, "-o", os.devnull])
            if rc:
                raise Finding("%s: the output does not verify:\n%s" % (
                    name, err[:800]))
        return out

    def compare(name, transformed):
        # Property 4: same results on the host as the original.
        tol = ["--atol=1e-3", "--rtol=1e-3"]
        if "f16" in open(model).read():
            tol = ["--atol=5e-2", "--rtol=5e-2"]
        rc, out, err = runner.run(name + " (host run)", [
            runner.tool("mem-opt-run"), "--compare", model, transformed,
            "--seeds=2"] + tol, clean=(0, 1, 2))
        if rc == 0:
            stats["host comparisons"] += 1
            return
        if rc == 1:
            raise Finding("%s: host execution differs from the original:\n%s"
                          % (name, "\n".join(out.splitlines()[:6])))
        # Exit code 2: mem-opt-run cannot lower or call the original.
        stats["not executable on the host"] += 1
        reason = err.strip().splitlines()[0] if err.strip() else "?"
        reasons = stats.setdefault("host run reasons", {})
        reason = re.sub(r"\S+\.mlir", "<file>", re.sub(r"^\S+: ", "", reason))
        reasons[reason] = reasons.get(reason, 0) + 1

    stage("memory-report", ["--memory-report"], os.path.join(work, "report.mlir"))
    out = os.path.join(work, "schedule.mlir")
    if stage("memory-schedule", ["--memory-schedule"], out) is not None:
        compare("memory-schedule", out)
    out = os.path.join(work, "partition.mlir")
    if stage("partition-concat",
             ["--pass-pipeline=builtin.module(func.func("
              "partition-concat{mode=always}))"], out) is not None:
        compare("partition-concat", out)
    out = os.path.join(work, "pipeline-schedule.mlir")
    if stage("cortex-m-pipeline stop-after=schedule",
             ["--cortex-m-pipeline=stop-after=schedule partition=always "
              "patches=auto"], out) is not None:
        compare("cortex-m-pipeline stop-after=schedule", out)
    for io in ("arena", "caller"):
        name = "cortex-m-pipeline stop-after=plan io=" + io
        out = os.path.join(work, "plan-%s.mlir" % io)
        if stage(name, ["--cortex-m-pipeline=stop-after=plan io=" + io],
                 out) is None:
            continue
        # Property 3: the one number.
        head = next((line for line in open(out)
                     if "func.func @" in line and "memopt.peak_bytes" in line),
                    None)
        if head is None:
            raise Finding("%s: no memopt.peak_bytes on the function" % name)
        peak = attr(head, "memopt.peak_bytes")
        bound = attr(head, "memplan.lower_bound")
        arena = attr(head, "memplan.arena_size")
        extra = io_bytes if io == "caller" else 0
        if arena < bound:
            raise Finding("%s: arena %s below its lower bound %s" % (
                name, arena, bound))
        check_peak(name, peak, bound + extra, "lower bound %s + caller "
                   "bytes %d" % (bound, extra))
    stage("cortex-m-pipeline", ["--cortex-m-pipeline"],
          os.path.join(work, "llvm.mlir"))
    for io in ("arena", "caller"):
        name = "mem-opt-compile io=" + io
        header = os.path.join(work, "model-%s.h" % io)
        if os.path.exists(header):
            os.remove(header)
        rc, _, _ = runner.run(name, [
            runner.tool("mem-opt-compile"), model, "--quiet", "--io=" + io,
            "--name=model", "-o", os.path.join(work, "model.o"),
            "--header", header])
        if rc:
            stats["clean errors"] += 1
            stats.setdefault("errors by stage", {}).setdefault(name, 0)
            stats["errors by stage"][name] += 1
            continue
        stats["stage runs"] += 1
        text = open(header).read()
        arena = int(re.search(r"#define MODEL_ARENA_SIZE (\d+)", text).group(1))
        peak = int(re.search(r"#define MODEL_PREDICTED_PEAK (\d+)",
                             text).group(1))
        extra = io_bytes if io == "caller" else 0
        check_peak(name, peak, arena + extra, "header _ARENA_SIZE %d + caller "
                   "bytes %d" % (arena, extra))


def fresh_stats():
    return {"stage runs": 0, "clean errors": 0, "peak checks": 0,
            "host comparisons": 0, "not executable on the host": 0,
            "under-predicted peaks": 0, "over-predicted peaks": 0}


def generate(runner, seed, nodes, path):
    runner.run("mem-opt-zoo", [runner.tool("mem-opt-zoo"), "--model=fuzz",
                               "--seed=%d" % seed, "--nodes=%d" % nodes,
                               "-o", path])


def nodes_of(seed, max_nodes):
    """Ops of the function of \p seed: 4 .. max_nodes, varied by seed."""
    return 4 + seed * 7919 % max(1, max_nodes - 3)


def main():
    parser = argparse.ArgumentParser(description="Structure-aware fuzzer of mem-opt's passes")
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--work-dir", required=True)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--seeds", type=int, default=1 << 62)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--nodes", type=int, default=24,
                        help="largest number of random ops per function")
    parser.add_argument("--timeout", type=float, default=60,
                        help="seconds after which one tool run is a hang")
    parser.add_argument("--one-number", choices=("strict", "under", "note"),
                        default="under",
                        help="which predicted peaks that differ from the "
                        "planned bytes are findings: all (strict), those "
                        "below (under, the default) or none (note: listed "
                        "and counted only)")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()

    runner = Runner(args.bin_dir, args.timeout)
    os.makedirs(args.work_dir, exist_ok=True)
    findings_dir = os.path.join(args.work_dir, "findings")
    work = os.path.join(args.work_dir, "current")
    os.makedirs(work, exist_ok=True)
    stats = fresh_stats()
    start = time.monotonic()
    findings = 0
    seed = args.first_seed
    done = 0
    while done < args.seeds:
        if args.seconds is not None and time.monotonic() - start > args.seconds:
            break
        nodes = nodes_of(seed, args.nodes)
        model = os.path.join(work, "model.mlir")
        try:
            generate(runner, seed, nodes, model)
            check_model(runner, model, work, stats, args.one_number)
            for note in stats.pop("peak notes", []):
                print("note: seed %d (%d ops): %s" % (seed, nodes, note),
                      flush=True)
            if args.verbose:
                print("seed %d (%d ops): ok" % (seed, nodes), flush=True)
        except Finding as finding:
            findings += 1
            print("FINDING seed %d (%d ops): %s" % (seed, nodes, finding),
                  flush=True)
            # Shrink: the same seed with fewer ops, while it still fails.
            smallest = nodes
            for fewer in range(nodes - 1, 0, -1):
                generate(runner, seed, fewer, model)
                try:
                    check_model(runner, model, work, fresh_stats(),
                                args.one_number)
                except Finding:
                    smallest = fewer
            os.makedirs(findings_dir, exist_ok=True)
            generate(runner, seed, smallest, model)
            kept = os.path.join(findings_dir, "seed-%d-nodes-%d.mlir" % (
                seed, smallest))
            shutil.copy(model, kept)
            print("  smallest failing function: --seed=%d --nodes=%d (%s)" % (
                seed, smallest, kept), flush=True)
        seed += 1
        done += 1
    by_stage = stats.pop("errors by stage", {})
    reasons = stats.pop("host run reasons", {})
    print("pass fuzzer: %d seeds (%d..%d), %d findings, %.0f s" % (
        done, args.first_seed, seed - 1, findings, time.monotonic() - start))
    print("  " + ", ".join("%s %d" % item for item in stats.items()))
    for name, count in sorted(by_stage.items()):
        print("  clean errors of %s: %d" % (name, count))
    for reason, count in sorted(reasons.items()):
        print("  not executable on the host (%d): %s" % (count, reason))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
