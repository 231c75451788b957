#!/usr/bin/env python3
# ===- report.py - Regenerate docs/benchmarks.md and its data -------------===#
#
# Part of the mem-opt project.
#
# ===----------------------------------------------------------------------===#
#
# Generates the zoo models (every family of docs/Zoo.md), measures them with
# mem-opt-bench (peaks of the file order, Kahn, reverse post-order, greedy and
# the exact engine; lower bound; median time of the exact engine), the peak
# with partition-concat and the arena size when those passes exist in this
# build, draws one timeline SVG per model (file order vs mem-opt's exact
# order), runs the scaling series (RandWire and stacked cells up to 1000+
# ops) and writes:
#   docs/benchmarks.md, docs/benchmarks.csv, docs/benchmarks.json,
#   docs/benchmarks/<model>.svg
# Standard library only. Called by benchmarks/report.sh, which builds first.
#
# ===----------------------------------------------------------------------===#

import argparse
import csv
import datetime
import json
import math
import os
import platform
import re
import subprocess
import sys
import time

# (id, family, mem-opt-zoo arguments or a bundled file, note)
MODELS = [
    ("nasnet-a-normal", "NASNet-A", ["--model=nasnet-a-normal"], "cell"),
    ("nasnet-a-reduction", "NASNet-A", ["--model=nasnet-a-reduction"], "cell"),
    ("nasnet-a-cifar", "NASNet-A", ["--model=nasnet-a-cifar"], "CIFAR stack"),
    ("nasnet-a-imagenet", "NASNet-A", ["--model=nasnet-a-imagenet"], "ImageNet stack"),
    ("amoebanet-a-normal", "AmoebaNet-A", ["--model=amoebanet-a-normal"], "cell"),
    ("amoebanet-a-reduction", "AmoebaNet-A", ["--model=amoebanet-a-reduction"], "cell"),
    ("amoebanet-a-cifar", "AmoebaNet-A", ["--model=amoebanet-a-cifar"], "CIFAR stack"),
    ("amoebanet-a-imagenet", "AmoebaNet-A", ["--model=amoebanet-a-imagenet"], "ImageNet stack"),
    ("pnas-cell", "PNASNet-5", ["--model=pnas-cell"], "cell"),
    ("pnas-cifar", "PNASNet-5", ["--model=pnas-cifar"], "CIFAR stack"),
    ("pnas-imagenet", "PNASNet-5", ["--model=pnas-imagenet"], "ImageNet stack"),
    ("darts-v2-normal", "DARTS V2", ["--model=darts-v2-normal"], "cell"),
    ("darts-v2-reduction", "DARTS V2", ["--model=darts-v2-reduction"], "cell"),
    ("darts-v2-cifar", "DARTS V2", ["--model=darts-v2-cifar"], "CIFAR stack"),
    ("darts-v2-imagenet", "DARTS V2", ["--model=darts-v2-imagenet"], "ImageNet stack"),
    ("darts-v2-cifar-i8", "DARTS V2", ["--model=darts-v2-cifar", "--dtype=i8"], "CIFAR stack, int8"),
    ("randwire-ws-seed1", "RandWire", ["--model=randwire-ws", "--seed=1"], "WS(32,4,0.75) cell"),
    ("randwire-ws-seed2", "RandWire", ["--model=randwire-ws", "--seed=2"], "WS(32,4,0.75) cell"),
    ("randwire-ws-seed3", "RandWire", ["--model=randwire-ws", "--seed=3"], "WS(32,4,0.75) cell"),
    ("randwire-ws-seed1-i8", "RandWire", ["--model=randwire-ws", "--seed=1", "--dtype=i8"], "WS(32,4,0.75) cell, int8"),
    ("randwire-ws-net", "RandWire", ["--model=randwire-ws-net", "--seed=2"], "3 stages, seed 2"),
    ("swiftnet-vww-cell", "SwiftNet-like", ["--model=swiftnet-vww-cell"], "VWW cell (approximation)"),
    ("hrnet-w18-small-block", "HRNet", ["--model=hrnet-w18-small-block", "--cells=2"], "W18-small, 2 modules"),
    ("inception-v3-block", "Inception-v3", ["--model=inception-v3-block", "--cells=3"], "Mixed_5b..5d"),
    ("squeezenet-fire", "SqueezeNet", ["--model=squeezenet-fire"], "1.1, 8 fire modules"),
    ("densenet-block", "DenseNet", ["--model=densenet-block"], "DenseNet-121 block 1"),
    ("mobilenet-v2", "MobileNetV2", ["--model=mobilenet-v2"], "width 0.5, 96x96"),
    ("resnet-block", "ResNet", ["--model=resnet-block"], "4 basic blocks"),
    ("liberis", "reference", "test/Inputs/liberis.mlir", "Liberis & Lane Fig. 1 (known optimum 4960)"),
    ("nas_cell", "reference", "examples/nas_cell.mlir", "bundled example"),
]

# Real models through mem-opt-import: the TFLite Micro models of
# ../shared/models/tflite (skipped when absent) and torchvision models
# exported to ONNX with random weights by scripts/export-torchvision.py.
SHARED_TFLITE = os.path.join("..", "shared", "models", "tflite")
IMPORTED = [
    ("tflite-person_detect", "TFLite Micro", {"tflite": "person_detect"}, "int8, 96x96 (TFLM arena 136 KiB)"),
    ("tflite-micro_speech", "TFLite Micro", {"tflite": "micro_speech_quantized"}, "int8"),
    ("tflite-keyword_scrambled", "TFLite Micro", {"tflite": "keyword_scrambled_8bit"}, "int8"),
    ("tflite-mobilenet_v2", "TFLite Micro", {"tflite": "mobilenet_v2_quantized_1x3x224x224"}, "int8, 224x224"),
    ("onnx-squeezenet1_1", "torchvision (ONNX)", {"torchvision": "squeezenet1_1", "resolution": 64}, "64x64"),
    ("onnx-googlenet", "torchvision (ONNX)", {"torchvision": "googlenet", "resolution": 64}, "64x64"),
    ("onnx-resnet18", "torchvision (ONNX)", {"torchvision": "resnet18", "resolution": 64}, "64x64"),
    ("onnx-mobilenet_v2", "torchvision (ONNX)", {"torchvision": "mobilenet_v2", "resolution": 64}, "64x64"),
    ("onnx-shufflenet_v2_x0_5", "torchvision (ONNX)", {"torchvision": "shufflenet_v2_x0_5", "resolution": 64}, "64x64"),
    ("onnx-densenet121", "torchvision (ONNX)", {"torchvision": "densenet121", "resolution": 64}, "64x64"),
]

# Scaling series: (id, title, model arguments per size, sizes).
SCALING = [
    ("randwire-cell", "RandWire cell WS(N, 4, 0.75), seed 1, N nodes",
     lambda n: ["--model=randwire-ws", "--seed=1", "--nodes=%d" % n],
     [16, 24, 32, 48, 64, 96, 128, 192, 256]),
    ("randwire-net", "RandWire network, k stages of WS(32, 4, 0.75), seed 2",
     lambda k: ["--model=randwire-ws-net", "--seed=2", "--cells=%d" % k],
     [1, 2, 3, 4, 6, 8]),
    ("darts-stack", "DARTS V2 CIFAR stack, k cells",
     lambda k: ["--model=darts-v2-cifar", "--cells=%d" % k],
     [3, 6, 12, 18, 24, 30]),
    ("nasnet-stack", "NASNet-A CIFAR stack, k cells",
     lambda k: ["--model=nasnet-a-cifar", "--cells=%d" % k],
     [5, 10, 15, 25]),
]

# Published figures (BACKGROUND.md); different graphs, orientation only.
PUBLISHED = [
    ("SERENITY (Ahn et al., MLSys 2020)", "peak reduction vs TFLite order, DARTS/SwiftNet/RandWire cells", "1.68x"),
    ("SERENITY", "same, with identity graph rewriting", "1.86x"),
    ("SERENITY", "mean scheduling time per cell (DP + budgeting)", "40.6 s (48.8 s with rewriting)"),
    ("SERENITY", "SwiftNet cell, 62 nodes", "37.9 s; 7.2 h without budgeting"),
    ("Zhong et al. 2023", "peak reduction vs reverse post-order, NASNet-A/AmoebaNet-A/DARTS/RandWire/HRNet", "13.4%"),
    ("Zhong et al. 2023", "scheduling time", "1-23 s (SERENITY, HMCOS > 30000 s on HRNet)"),
    ("Liberis & Lane 2019", "SwiftNet cell peak, default vs optimal order", "351 KB -> 301 KB (1.17x)"),
]

BASELINES = [("input", "file order"), ("kahn", "Kahn"), ("rpo", "RPO"), ("greedy", "greedy")]


def log(message):
    print("report: " + message, file=sys.stderr, flush=True)


def run(args, check=True):
    result = subprocess.run(args, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise RuntimeError("%s failed:\n%s" % (" ".join(args), result.stderr))
    return result


class Tools:
    def __init__(self, build):
        self.zoo = os.path.join(build, "bin", "mem-opt-zoo")
        self.memopt = os.path.join(build, "bin", "mem-opt")
        self.bench = os.path.join(build, "bin", "mem-opt-bench")
        self.importer = os.path.join(build, "bin", "mem-opt-import")
        help_text = run([self.memopt, "--help"]).stdout
        self.has_partition = re.search(r"^\s*--partition-concat\b", help_text, re.M) is not None
        self.has_arena = re.search(r"^\s*--memplan-plan-arena\b", help_text, re.M) is not None

    def generate(self, source, path):
        if isinstance(source, dict):
            model = source.get("tflite")
            if model:
                model = os.path.join(SHARED_TFLITE, model + ".tflite")
            else:
                out = path + ".onnx.d"
                run(["/usr/bin/python3", "scripts/export-torchvision.py",
                     "--model", source["torchvision"], "--out", out,
                     "--resolution", str(source["resolution"])])
                model = os.path.join(out, "model.onnx")
            run([self.importer, model, "-o", path])
        elif isinstance(source, str):
            with open(source) as src, open(path, "w") as dst:
                dst.write(src.read())
        else:
            run([self.zoo] + source + ["-o", path])

    def measure(self, path, repeat, limit_ms):
        out = run([self.bench, "--format=json", "--repeat=%d" % repeat,
                   "--time-limit-ms=%d" % limit_ms, path]).stdout
        rows = json.loads(out)
        if len(rows) != 1:
            raise RuntimeError("%s: expected one function" % path)
        return rows[0]

    def partition_peak(self, path, limit_ms, work):
        """Peak after partition-concat + exact scheduling, or a reason."""
        if not self.has_partition:
            return None, "n/a"
        out = os.path.join(work, os.path.basename(path) + ".partition.json")
        result = run([self.memopt, path, "--partition-concat",
                      "--memory-schedule=record-time=false time-limit-ms=%d" % limit_ms,
                      "--memory-report=format=json output=" + out, "-o", os.devnull],
                     check=False)
        if result.returncode != 0:
            return None, "error"
        with open(out) as f:
            fn = json.load(f)["functions"][0]
        return fn["peak_bytes"], None

    def arena_size(self, path, limit_ms, work):
        """memplan.arena_size of the compiled program: cortex-m-pipeline
        (exact schedule, lowering with fused int8 accumulators, bufferization,
        memplan-plan-arena) stopped at the planned IR."""
        if not self.has_arena:
            return None, "n/a"
        plan = run([self.memopt, path,
                    "--cortex-m-pipeline=stop-after=plan schedule-time-limit-ms=%d" % limit_ms],
                   check=False)
        if plan.returncode != 0:
            return None, "lowering failed"
        sizes = re.findall(r"memplan\.arena_size\s*=\s*(\d+)", plan.stdout)
        if not sizes:
            return None, "error"
        return max(int(v) for v in sizes), None

    def timeline(self, path, svg, limit_ms):
        # cortex-m-pipeline canonicalizes and CSEs the TOSA before it
        # schedules, so the chart does too: its peaks are then the device's.
        run([self.memopt, path, "--canonicalize", "--cse",
             "--memory-report=format=svg compare=exact "
             "compare-time-limit-ms=%d output=%s" % (limit_ms, svg), "-o", os.devnull])


def source_text(source):
    """Where a model comes from, for the report."""
    if isinstance(source, str):
        return source
    if isinstance(source, dict):
        if "tflite" in source:
            return "mem-opt-import %s/%s.tflite" % (SHARED_TFLITE, source["tflite"])
        return ("scripts/export-torchvision.py --model %s --resolution %d | mem-opt-import"
                % (source["torchvision"], source["resolution"]))
    return "mem-opt-zoo " + " ".join(source)


def ratio(a, b):
    return a / b if b else float("nan")


def kib(n):
    return "%.1f" % (n / 1024.0)


def fmt_ms(ms):
    if ms >= 1000:
        return "%.2f s" % (ms / 1000.0)
    if ms >= 10:
        return "%.0f ms" % ms
    return "%.1f ms" % ms


def gap_text(row):
    if row["optimal"]:
        return "proven optimal"
    gap = row["peak_exact"] - row["lower_bound"]
    return "gap %s KiB (%.1f%%)" % (kib(gap), 100.0 * gap / row["peak_exact"])


def best_baseline(row):
    best = min(("kahn", "rpo", "greedy"), key=lambda a: (row["peak_" + a], a))
    return best, row["peak_" + best]


def geomean(values):
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default="build")
    parser.add_argument("--out", default="docs")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--time-limit-ms", type=int, default=10000)
    parser.add_argument("--scaling-repeat", type=int, default=3)
    parser.add_argument("--scaling-limit-ms", type=int, default=10000)
    parser.add_argument("--quick", action="store_true",
                        help="1 run, 2 s limits, small scaling series (for testing the script)")
    parser.add_argument("--rerender", action="store_true",
                        help="rewrite the Markdown, CSV and scaling chart from the JSON of "
                             "the last run, without measuring")
    args = parser.parse_args()
    if args.rerender:
        with open(os.path.join(args.out, "benchmarks.json")) as f:
            data = json.load(f)
        write_csv(os.path.join(args.out, "benchmarks.csv"), data["models"], data["scaling"])
        write_scaling_svg(os.path.join(args.out, "benchmarks", "scaling.svg"), data["meta"],
                          data["scaling"])
        write_markdown(os.path.join(args.out, "benchmarks.md"), data["meta"], data["models"],
                       data["scaling"])
        return
    if args.quick:
        args.repeat = args.scaling_repeat = 1
        args.time_limit_ms = args.scaling_limit_ms = 2000

    started = time.time()
    tools = Tools(args.build)
    work = os.path.join(args.build, "report")
    svg_dir = os.path.join(args.out, "benchmarks")
    os.makedirs(work, exist_ok=True)
    os.makedirs(svg_dir, exist_ok=True)
    for name in os.listdir(svg_dir):
        if name.endswith(".svg"):
            os.remove(os.path.join(svg_dir, name))

    rows = []
    models = list(MODELS)
    for entry in IMPORTED:
        if "tflite" in entry[2] and not os.path.isdir(SHARED_TFLITE):
            log("skipping %s: %s not found" % (entry[0], SHARED_TFLITE))
            continue
        models.append(entry)
    for model_id, family, source, note in models:
        path = os.path.join(work, model_id + ".mlir")
        tools.generate(source, path)
        log("measuring %s" % model_id)
        row = tools.measure(path, args.repeat, args.time_limit_ms)
        row.update({"id": model_id, "family": family, "note": note,
                    "source": source_text(source)})
        row["model"] = model_id
        row["file"] = os.path.relpath(path)
        row["peak_partition"], row["partition_note"] = tools.partition_peak(path, args.time_limit_ms, work)
        row["arena_bytes"], row["arena_note"] = tools.arena_size(path, args.time_limit_ms, work)
        svg = os.path.join(svg_dir, model_id + ".svg")
        tools.timeline(path, svg, args.time_limit_ms)
        row["svg"] = os.path.relpath(svg, args.out)
        rows.append(row)

    scaling = []
    for series_id, title, make_args, sizes in SCALING:
        if args.quick:
            sizes = sizes[:2]
        for size in sizes:
            path = os.path.join(work, "%s-%d.mlir" % (series_id, size))
            tools.generate(make_args(size), path)
            log("scaling %s %d" % (series_id, size))
            row = tools.measure(path, args.scaling_repeat, args.scaling_limit_ms)
            row.update({"series": series_id, "title": title, "size": size,
                        "source": "mem-opt-zoo " + " ".join(make_args(size))})
            row["file"] = os.path.relpath(path)
            scaling.append(row)

    meta = {
        "command": "./benchmarks/report.sh",
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
        "commit": run(["git", "rev-parse", "--short", "HEAD"], check=False).stdout.strip(),
        "machine": "%s, %d cores (%s)" % (platform.machine(), os.cpu_count() or 0, cpu_name()),
        "repeat": args.repeat, "time_limit_ms": args.time_limit_ms,
        "scaling_repeat": args.scaling_repeat, "scaling_limit_ms": args.scaling_limit_ms,
        "partition_concat": tools.has_partition, "arena_planner": tools.has_arena,
        "report_seconds": round(time.time() - started),
    }
    write_json(os.path.join(args.out, "benchmarks.json"), meta, rows, scaling)
    write_csv(os.path.join(args.out, "benchmarks.csv"), rows, scaling)
    write_scaling_svg(os.path.join(svg_dir, "scaling.svg"), meta, scaling)
    write_markdown(os.path.join(args.out, "benchmarks.md"), meta, rows, scaling)
    log("done in %d s" % meta["report_seconds"])


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def write_json(path, meta, rows, scaling):
    keep = lambda r: {k: v for k, v in r.items()}
    with open(path, "w") as f:
        json.dump({"meta": meta, "models": [keep(r) for r in rows],
                   "scaling": [keep(r) for r in scaling]}, f, indent=2, sort_keys=True)
        f.write("\n")


CSV_FIELDS = ["table", "id", "family", "series", "size", "function", "ops", "tensors",
              "peak_input", "peak_kahn", "peak_rpo", "peak_greedy", "peak_exact",
              "lower_bound", "optimal", "limit_reached", "states", "exact_ms_median",
              "time_limit_ms", "peak_partition", "arena_bytes", "arena_lower_bound",
              "arena_no_reuse", "arena_greedy_by_size", "arena_best", "source"]


def write_csv(path, rows, scaling):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore",
                                lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow(dict(row, table="models",
                                 peak_partition=row["peak_partition"] if row["peak_partition"] is not None else row["partition_note"],
                                 arena_bytes=row["arena_bytes"] if row["arena_bytes"] is not None else row["arena_note"],
                                 exact_ms_median="%.3f" % row["exact_ms_median"]))
        for row in scaling:
            writer.writerow(dict(row, table="scaling", id=row["series"],
                                 peak_partition="", arena_bytes="", arena_lower_bound="",
                                 arena_no_reuse="", arena_greedy_by_size="", arena_best="",
                                 exact_ms_median="%.3f" % row["exact_ms_median"]))


SERIES_COLORS = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"]


def write_scaling_svg(path, meta, scaling):
    """Exact scheduling time (log scale) against ops, one line per series;
    hollow markers are runs stopped at the time limit."""
    left, top, width, height = 80, 40, 640, 300
    max_ops = max(r["ops"] for r in scaling)
    x_top = 200 * math.ceil(max_ops / 200.0)
    lo, hi = -2, math.ceil(math.log10(max(meta["scaling_limit_ms"], 1)))
    x = lambda ops: left + width * ops / x_top
    y = lambda ms: top + height - height * (min(max(math.log10(max(ms, 1e-2)), lo), hi) - lo) / (hi - lo)
    o = []
    o.append('<?xml version="1.0" encoding="UTF-8"?>')
    total_h = top + height + 60 + 18 * len(SCALING)
    o.append('<svg xmlns="http://www.w3.org/2000/svg" width="800" height="%d" viewBox="0 0 800 %d" '
             'font-family="DejaVu Sans, Arial, sans-serif" font-size="12">' % (total_h, total_h))
    o.append('<rect width="100%" height="100%" fill="#ffffff"/>')
    o.append('<text x="400" y="24" text-anchor="middle" font-size="15">Exact scheduling time against graph size</text>')
    for e in range(lo, hi + 1):
        yy = y(10 ** e)
        label = ("%g ms" % (10 ** e)) if e < 3 else "%g s" % (10 ** (e - 3))
        o.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#dddddd"/>' % (left, left + width, yy, yy))
        o.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (left - 6, yy + 4, label))
    for ops in range(0, x_top + 1, 200):
        o.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>' % (x(ops), top + height + 16, ops))
    o.append('<path d="M%d %d V%d H%d" fill="none" stroke="#000000"/>' % (left, top, top + height, left + width))
    o.append('<text x="%d" y="%d" text-anchor="middle">ops in the graph</text>' % (left + width // 2, top + height + 36))
    o.append('<text transform="translate(22,%d) rotate(-90)" text-anchor="middle">median time (log scale)</text>'
             % (top + height // 2))
    ylim = y(meta["scaling_limit_ms"])
    o.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#000000" stroke-dasharray="4 3"/>'
             % (left, left + width, ylim, ylim))
    o.append('<text x="%d" y="%.1f" text-anchor="end">time limit</text>' % (left + width - 4, ylim - 5))
    for index, (series_id, title, _, _) in enumerate(SCALING):
        series = [r for r in scaling if r["series"] == series_id]
        if not series:
            continue
        color = SERIES_COLORS[index % len(SERIES_COLORS)]
        points = " ".join("%.1f,%.1f" % (x(r["ops"]), y(r["exact_ms_median"])) for r in series)
        o.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' % (color, points))
        for r in series:
            fill = "#ffffff" if not r["optimal"] else color
            o.append('<circle cx="%.1f" cy="%.1f" r="4" fill="%s" stroke="%s" stroke-width="2"/>'
                     % (x(r["ops"]), y(r["exact_ms_median"]), fill, color))
        ly = top + height + 58 + 18 * index
        o.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="2"/>'
                 % (left, left + 24, ly - 4, ly - 4, color))
        o.append('<text x="%d" y="%d">%s</text>' % (left + 30, ly, title))
    o.append('<text x="%d" y="%d" text-anchor="end">filled: proven optimal; hollow: not proven</text>'
             % (left + width, top + height + 58 + 18 * len(SCALING) - 4 - 18 * len(SCALING)))
    o.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")


def write_markdown(path, meta, rows, scaling):
    out = []
    w = out.append
    w("# Benchmarks: peak activation memory and scheduling time")
    w("")
    w("Generated by `%s` (commit %s, %s UTC, %s; took %d s). Do not edit by hand:"
      % (meta["command"], meta["commit"], meta["date_utc"], meta["machine"], meta["report_seconds"]))
    w("rerun the command. Data: [benchmarks.csv](benchmarks.csv), [benchmarks.json](benchmarks.json);")
    w("timelines: [benchmarks/](benchmarks/). Models come from `mem-opt-zoo` ([Zoo.md](Zoo.md)),")
    w("f32 with the zoo's default sizes unless the note says otherwise, except the real models")
    w("imported with `mem-opt-import` ([Importers.md](Importers.md)): the TFLite Micro models of")
    w("`../shared/models/tflite` and torchvision models exported to ONNX with random weights; the")
    w("memory model is")
    w("[MemoryModel.md](MemoryModel.md), the scheduler [Scheduling.md](Scheduling.md).")
    w("")
    w("Columns: peaks in KiB of activation memory under each order. *file order* is the order")
    w("of the ops in the model (what TFLite runs); Kahn, RPO (reverse post-order) and greedy are")
    w("the baselines of `memory-schedule algorithm=`; *mem-opt* is the exact engine")
    w("(`algorithm=exact`, time limit %d s). *x file* = file-order peak / mem-opt peak."
      % (meta["time_limit_ms"] // 1000))
    w("*proof*: proven optimal, or the gap to the proven lower bound when the search stopped")
    w("at its limit (the fallback returns the best order found). *time* is the median of %d"
      % meta["repeat"])
    w("runs of the exact engine (one run when it reaches the limit). *partition*: peak after")
    w("`--partition-concat` and exact scheduling; *arena*: `memplan.arena_size` of the compiled")
    w("program (`--cortex-m-pipeline=stop-after=plan`, [CortexM.md](CortexM.md)): it includes the")
    w("buffers lowering adds (f32 padding copies, pooling windows) and runs elementwise ops in place")
    w("and leaves out the function's arguments and results (the caller owns them), so it can be")
    w("above or below the peak. *lowering failed*: the int8 models' `tosa.add` on i8 is outside")
    w("the TOSA profiles the upstream lowering accepts (see [Zoo.md](Zoo.md#int8)). Both are")
    w("`n/a` when this build does not have the pass. Click a model for its timeline.")
    w("")
    w("| model | family | note | ops | tensors | file order | Kahn | RPO | greedy | mem-opt | x file | proof | time | partition | arena |")
    w("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|--:|")
    for r in rows:
        part = kib(r["peak_partition"]) if r["peak_partition"] is not None else r["partition_note"]
        arena = kib(r["arena_bytes"]) if r["arena_bytes"] is not None else r["arena_note"]
        w("| [%s](%s) | %s | %s | %d | %d | %s | %s | %s | %s | **%s** | %.2fx | %s | %s | %s | %s |" % (
            r["id"], r["svg"], r["family"], r["note"], r["ops"], r["tensors"],
            kib(r["peak_input"]), kib(r["peak_kahn"]), kib(r["peak_rpo"]), kib(r["peak_greedy"]),
            kib(r["peak_exact"]), ratio(r["peak_input"], r["peak_exact"]), gap_text(r),
            fmt_ms(r["exact_ms_median"]), part, arena))
    w("")

    w("## Arena planners on mem-opt's order")
    w("")
    w("The activation arena each planner of `ArenaPlanner.h` lays out for the buffer lifetimes")
    w("of the exact order (offsets aligned to %d bytes; workspace and in-place reuse are not"
      % rows[0]["arena_alignment"])
    w("modelled here), on the TOSA-level buffers. *lower bound*: the most aligned bytes live")
    w("at one step, which no placement can beat; *x bound* = planner / lower bound. The *arena*")
    w("column above is the compiled program's arena instead.")
    w("")
    w("| model | mem-opt peak | lower bound | no reuse | greedy-by-size (TFLite) | x bound | mem-opt planner | x bound |")
    w("|---|--:|--:|--:|--:|--:|--:|--:|")
    for r in rows:
        w("| %s | %s | %s | %s | %s | %.3f | %s | %.3f |" % (
            r["id"], kib(r["peak_exact"]), kib(r["arena_lower_bound"]), kib(r["arena_no_reuse"]),
            kib(r["arena_greedy_by_size"]), ratio(r["arena_greedy_by_size"], r["arena_lower_bound"]),
            kib(r["arena_best"]), ratio(r["arena_best"], r["arena_lower_bound"])))
    w("")

    proven = sum(1 for r in rows if r["optimal"])
    w("## Summary")
    w("")
    if proven == len(rows):
        w("- All %d models are scheduled with a proof of optimality." % len(rows))
    else:
        w("- %d of %d models are scheduled with a proof of optimality; the others show their gap."
          % (proven, len(rows)))
    w("- mem-opt vs file order: geometric mean %.2fx, best %.2fx (%s)." % (
        geomean([ratio(r["peak_input"], r["peak_exact"]) for r in rows]),
        max(ratio(r["peak_input"], r["peak_exact"]) for r in rows),
        max(rows, key=lambda r: ratio(r["peak_input"], r["peak_exact"]))["id"]))
    serenity = [r for r in rows if r["family"] in ("DARTS V2", "SwiftNet-like", "RandWire") and
                ("cell" in r["note"] or r["id"].endswith(("-normal", "-reduction")))]
    w("- On the cells SERENITY reports on (DARTS V2 normal/reduction, SwiftNet-like, RandWire")
    w("  cells; %d models): geometric mean %.2fx below the file order." % (
        len(serenity), geomean([ratio(r["peak_input"], r["peak_exact"]) for r in serenity])))
    zhong = [r for r in rows if r["family"] in ("NASNet-A", "AmoebaNet-A", "DARTS V2", "RandWire", "HRNet")]
    reductions = [1 - r["peak_exact"] / r["peak_rpo"] for r in zhong]
    w("- On the families Zhong et al. report on (NASNet-A, AmoebaNet-A, DARTS, RandWire,")
    w("  HRNet; %d models): mean %.1f%% below reverse post-order (largest %.1f%%)." % (
        len(zhong), 100 * sum(reductions) / len(reductions), 100 * max(reductions)))
    times = sorted(r["exact_ms_median"] for r in rows)
    w("- Exact scheduling time: median %s per model, largest %s (%s)." % (
        fmt_ms(times[len(times) // 2]), fmt_ms(times[-1]),
        max(rows, key=lambda r: r["exact_ms_median"])["id"]))
    w("")

    w("## Published figures (different graphs, orientation only)")
    w("")
    w("These numbers are from the papers (see the project background), measured on their own")
    w("graphs, implementations and machines. They are not comparable row by row with the table")
    w("above; they show the order of magnitude the literature reports.")
    w("")
    w("| source | what | published |")
    w("|---|---|---|")
    for source, what, value in PUBLISHED:
        w("| %s | %s | %s |" % (source, what, value))
    w("")

    w("## Scaling: scheduling time against graph size")
    w("")
    w("Growing RandWire cells and networks and stacked-cell networks, up to 1000+ ops. Time limit")
    w("%d s per graph (the pass's default), median of %d runs (one when the limit is reached)."
      % (meta["scaling_limit_ms"] // 1000, meta["scaling_repeat"]))
    w("When the exact search stops at the limit, mem-opt keeps the best order found (never worse")
    w("than the file order or greedy) and reports the proven lower bound: *gap* is the distance")
    w("between the two. *best baseline* is the best of Kahn, RPO and greedy.")
    w("")
    w("![Exact scheduling time against graph size](benchmarks/scaling.svg)")
    w("")
    for series_id, title, _, _ in SCALING:
        series = [r for r in scaling if r["series"] == series_id]
        if not series:
            continue
        w("### " + title)
        w("")
        w("| size | ops | tensors | file order | best baseline | mem-opt | lower bound | proof | time | states |")
        w("|--:|--:|--:|--:|--:|--:|--:|---|--:|--:|")
        for r in series:
            name, peak = best_baseline(r)
            w("| %d | %d | %d | %s | %s (%s) | **%s** | %s | %s | %s%s | %d |" % (
                r["size"], r["ops"], r["tensors"], kib(r["peak_input"]), kib(peak),
                {"kahn": "Kahn", "rpo": "RPO", "greedy": "greedy"}[name], kib(r["peak_exact"]),
                kib(r["lower_bound"]), gap_text(r), fmt_ms(r["exact_ms_median"]),
                " (limit)" if r["limit_reached"] else "", r["states"]))
        proven_sizes = [r for r in series if r["optimal"]]
        stopped = [r for r in series if not r["optimal"]]
        if not stopped:
            w("")
            w("Every size up to %d ops is proven optimal; the largest took %s." % (
                series[-1]["ops"], fmt_ms(max(r["exact_ms_median"] for r in series))))
        else:
            first = stopped[0]
            gaps = [100.0 * (r["peak_exact"] - r["lower_bound"]) / r["peak_exact"] for r in stopped]
            gains = [100.0 * (1 - r["peak_exact"] / r["peak_input"]) for r in stopped]
            w("")
            if proven_sizes:
                w("Proven optimal up to %d ops (largest time %s); the first size not proven"
                  % (max(r["ops"] for r in proven_sizes),
                     fmt_ms(max(r["exact_ms_median"] for r in proven_sizes))))
                w("within the limit has %d ops. Where the" % first["ops"])
            else:
                w("No size is proven within the limit (the smallest has %d ops). Where the"
                  % first["ops"])
            w("search stops, the fallback's order is %.1f-%.1f%% below the file order, with a gap"
              % (min(gains), max(gains)))
            w("of %.1f-%.1f%% to the proven lower bound." % (min(gaps), max(gaps)))
        w("")

    w("## Reproduce")
    w("")
    w("```sh")
    w("./benchmarks/report.sh            # setup, build, measure, write docs/benchmarks*")
    w("REPORT_ARGS=--quick ./benchmarks/report.sh   # 1 run, 2 s limits, short series")
    w("python3 benchmarks/report.py --rerender      # rewrite the Markdown from benchmarks.json")
    w("```")
    w("")
    w("One model by hand (file order vs mem-opt, as in the SVGs):")
    w("")
    w("```sh")
    w("build/bin/mem-opt-zoo --model=darts-v2-cifar -o m.mlir")
    w("build/bin/mem-opt-bench --repeat=5 m.mlir")
    w("build/bin/mem-opt m.mlir --canonicalize --cse --memory-report=\"format=svg compare=exact output=m.svg\" -o /dev/null")
    w("```")
    w("")
    w("The machine is shared and noisy: times are medians and vary between runs; peaks,")
    w("bounds and proofs do not (up to which order a time limit cuts off).")
    # Keep the compile-time section of benchmarks/compile-time.py.
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
        begin = old.find("<!-- compile-time: begin")
        end = old.find("<!-- compile-time: end -->")
        if begin >= 0 and end > begin:
            w("")
            w(old[begin:end + len("<!-- compile-time: end -->")])
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
