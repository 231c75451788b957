#!/usr/bin/env python3
# ===- compile-time.py - Time mem-opt-compile on every benchmark model -----===#
#
# Part of the mem-opt project.
#
# usage: benchmarks/compile-time.py [--build build] [--repeat 3]
#            [--cpu cortex-m7] [--out docs/benchmarks.md]
#
# Compiles every model of the benchmarks (the zoo models and imported models
# of report.py, the largest size of each of its scaling series, the RandWire
# cells of schedule.sh in f32 and int8, and a 555-op RandWire cell) with
# `mem-opt-compile model --cpu=<cpu> -o m.o --header m.h --quiet
# --report=json`, REPEAT times each, and writes the median wall time with
# the schedule's outcome into the "Compile time" section of
# docs/benchmarks.md (between its markers; report.py keeps the section).
# torchvision models are exported first when missing (PyTorch from Debian's
# python3-torch, which scripts/setup.sh installs); models that cannot be
# generated here (no PyTorch, or no ../shared for the TFLite models) are
# listed as skipped.
#
# ===----------------------------------------------------------------------===#

import argparse
import datetime
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import report  # noqa: E402  (the model lists)

BEGIN = "<!-- compile-time: begin (benchmarks/compile-time.py) -->"
END = "<!-- compile-time: end -->"


def models(build):
    """Yields (id, source): mem-opt-zoo arguments, or a model file."""
    for model_id, _, source, _ in report.MODELS:
        yield model_id, source
    for seed in range(1, 6):
        yield "randwire-ws-seed%d" % seed, ["--model=randwire-ws", "--seed=%d" % seed]
        yield "randwire-ws-i8-seed%d" % seed, ["--model=randwire-ws", "--seed=%d" % seed,
                                                "--dtype=i8"]
    yield "mobilenet-v2-i8", ["--model=mobilenet-v2", "--dtype=i8"]
    for series_id, _, args, sizes in report.SCALING:
        yield "%s-%d" % (series_id, sizes[-1]), args(sizes[-1])
    yield "randwire-ws-nodes128", ["--model=randwire-ws", "--seed=1", "--nodes=128"]
    for model_id, _, source, _ in report.IMPORTED:
        if "tflite" in source:
            yield model_id, os.path.join(HERE, "..", "..", "shared", "models", "tflite",
                                         source["tflite"] + ".tflite")
        else:
            yield model_id, export_torchvision(build, source["torchvision"],
                                               source["resolution"])


def export_torchvision(build, model, resolution):
    """Returns the ONNX file of a torchvision model, exporting it with
    scripts/export-torchvision.py (seeded random weights, Debian's
    python3-torch) when it is not there yet; a missing file if that fails."""
    out = os.path.join(build, "onnx", "%s-resolution%d" % (model, resolution))
    path = os.path.join(out, "model.onnx")
    if not os.path.exists(path):
        subprocess.run(["/usr/bin/python3", os.path.join(HERE, "..", "scripts",
                                                         "export-torchvision.py"),
                        "--model", model, "--out", out, "--resolution", str(resolution)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default="build")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cpu", default="cortex-m7")
    parser.add_argument("--out", default=os.path.join(HERE, "..", "docs", "benchmarks.md"))
    parser.add_argument("--only", default="", help="substring of the model ids to run")
    args = parser.parse_args()
    compiler = os.path.join(args.build, "bin", "mem-opt-compile")
    zoo = os.path.join(args.build, "bin", "mem-opt-zoo")
    rows, skipped, seen = [], [], set()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as work:
        for model_id, source in models(args.build):
            if (args.only and args.only not in model_id) or model_id in seen:
                continue
            seen.add(model_id)
            if isinstance(source, list):
                path = os.path.join(work, model_id + ".mlir")
                subprocess.run([zoo] + source + ["-o", path], check=True)
                command = "mem-opt-zoo " + " ".join(source)
            elif os.path.exists(source):
                path = source
                command = os.path.relpath(source, os.path.join(HERE, ".."))
            else:
                skipped.append(model_id)
                continue
            times, cpu_times = [], []
            for _ in range(args.repeat):
                start = time.monotonic()
                usage = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu_start = usage.ru_utime + usage.ru_stime
                result = subprocess.run(
                    [compiler, path, "--cpu=" + args.cpu, "-o", os.path.join(work, "m.o"),
                     "--header", os.path.join(work, "m.h"), "--quiet", "--report=json"],
                    capture_output=True, text=True)
                times.append(time.monotonic() - start)
                usage = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu_times.append(usage.ru_utime + usage.ru_stime - cpu_start)
                if result.returncode != 0:
                    raise RuntimeError("%s failed:\n%s" % (model_id, result.stderr))
            data = json.loads(result.stdout)
            fn = data["functions"][0]
            schedule = fn["schedule"]
            proof = ("proven optimal" if schedule["optimal"] else
                     "stopped by the %s, gap %d B" % (
                         "state budget" if schedule["stopped_by"] == "states" else "clock",
                         schedule["peak_bytes"] - schedule["lower_bound_bytes"]))
            row = {"model": model_id, "source": command, "ops": len(fn["layers"]),
                   "median_s": statistics.median(times), "max_s": max(times),
                   "cpu_s": statistics.median(cpu_times),
                   "sram": fn["sram_bytes"], "flash": data["object"]["flash_bytes"],
                   "proof": proof}
            print("compile-time: %(model)s: %(ops)d ops, %(median_s).1f s" % row,
                  file=sys.stderr, flush=True)
            rows.append(row)

    out = [BEGIN, "## Compile time", ""]
    out.append("`mem-opt-compile <model> --cpu=%s -o m.o --header m.h --quiet --report=json`, "
               "wall time, median of %d runs (%s, %s, %d cores); generated by "
               "`python3 benchmarks/compile-time.py`. *ops*: steps of the schedule (TOSA ops "
               "without constants); *SRAM*: the header's `_PREDICTED_PEAK`; "
               "*flash*: code, constants and data of the object; *CPU time*: user + system "
               "time of the compiler (median), which the other jobs of a shared machine "
               "inflate less than the wall time (load average %.1f at the start). Every model "
               "must compile in at most 15 s." % (args.cpu, args.repeat,
                                                 datetime.date.today().isoformat(),
                                                 os.uname().machine, os.cpu_count(), load))
    out.append("")
    out.append("| model | ops | compile time (s) | max (s) | CPU time (s) | schedule | SRAM (B) "
               "| flash (B) |")
    out.append("|---|--:|--:|--:|--:|---|--:|--:|")
    for r in rows:
        out.append("| %s | %d | %.1f | %.1f | %.1f | %s | %d | %d |" % (
            r["model"], r["ops"], r["median_s"], r["max_s"], r["cpu_s"], r["proof"], r["sram"],
            r["flash"]))
    if rows:
        slowest = max(rows, key=lambda r: r["median_s"])
        out.append("")
        out.append("Slowest: %s, %.1f s (median)." % (slowest["model"], slowest["median_s"]))
    if skipped:
        out.append("")
        out.append("Not available on this machine (torchvision exports need PyTorch, "
                   "`scripts/export-torchvision.py`; TFLite models need `../shared`): %s."
                   % ", ".join(skipped))
    out.append(END)
    section = "\n".join(out) + "\n"
    if args.only:
        sys.stdout.write(section)
        return
    text = ""
    if os.path.exists(args.out):
        with open(args.out) as f:
            text = f.read()
    if BEGIN in text and END in text:
        text = text[:text.index(BEGIN)] + section.rstrip("\n") + text[text.index(END) + len(END):]
    else:
        text = text.rstrip("\n") + "\n\n" + section
    with open(args.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
