#!/usr/bin/env python3
"""Runs a corpus of .mlir files through mem-opt's passes as hostile input.

Every file under CORPUS (recursively) is split at `// -----` lines, as
`mlir-opt --split-input-file` does. Each chunk goes through

  mem-opt --memory-report, --memory-schedule, --partition-concat,
  --cortex-m-pipeline, and mem-opt-compile,

each with a timeout. A run is classified as
  success      exit code 0;
  clean-error  non-zero exit, no signal, and at least one `error:` line;
  no-diagnostic non-zero exit, no signal, but no `error:` line (an unclear
               failure: counted apart, and it fails the sweep);
  crash        a signal, an abort, a sanitizer report, LLVM's
               'PLEASE submit a bug report' or a stack dump;
  hang         the timeout was reached.
A clean error is also checked for a location: `file:line:col: error:`
(or `<model>:<node>: error:`) is located, `loc(unknown)`/`error:` alone is
not.

The exit status is 1 if any run crashed, hung or failed without a
diagnostic. docs/Robustness.md reports the upstream TOSA corpus with it:

  benchmarks/robustness-sweep.py /path/to/corpus --bin build/bin

Only the Python standard library is used; nothing is downloaded.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time

SPLIT = re.compile(r"^// -----\s*$", re.M)
CRASH_MARKS = ("PLEASE submit a bug report", "Stack dump:",
               "AddressSanitizer", "UndefinedBehaviorSanitizer",
               "LeakSanitizer", "Assertion `", "LLVM ERROR:",
               "terminate called", "UNREACHABLE executed")
LOCATED = re.compile(r"^([^\n]+?:\d+:\d+|[^\s:]+:[^\s:]+): error:", re.M)
ERROR = re.compile(r"(^|: )error:", re.M)

TOOLS = [
    ("memory-report", ["mem-opt", "--memory-report", "-o", "/dev/null"]),
    ("memory-schedule", ["mem-opt", "--memory-schedule", "-o", "/dev/null"]),
    ("partition-concat", ["mem-opt", "--partition-concat", "-o",
                          "/dev/null"]),
    ("cortex-m-pipeline", ["mem-opt", "--cortex-m-pipeline", "-o",
                           "/dev/null"]),
    ("mem-opt-compile", ["mem-opt-compile", "--quiet", "-o", "{obj}"]),
]


def split_chunks(text):
    """The chunks of one file, as `--split-input-file` makes them."""
    return SPLIT.split(text)


def classify(returncode, stderr, timed_out):
    if timed_out:
        return "hang"
    if returncode < 0 or any(m in stderr for m in CRASH_MARKS):
        return "crash"
    if returncode == 0:
        return "success"
    if ERROR.search(stderr):
        return "clean-error"
    return "no-diagnostic"


def first_error(stderr):
    for line in stderr.splitlines():
        if ERROR.search(line):
            return line.strip()
    return ""


def run_one(job):
    bindir, tool, argv, chunk_path, timeout, workdir = job
    obj = os.path.join(workdir, os.path.basename(chunk_path) + ".o")
    cmd = [os.path.join(bindir, argv[0])] + [chunk_path] + [
        a.replace("{obj}", obj) for a in argv[1:]]
    timed_out = False
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=timeout,
                              cwd=workdir)
        rc, err = proc.returncode, proc.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        timed_out = True
        rc = None
        err = (e.stderr or b"").decode("utf-8", "replace")
    seconds = time.monotonic() - start
    # Only the run that writes the object removes it: a run of another tool
    # on the same chunk may be in flight at the same time.
    if any("{obj}" in a for a in argv) and os.path.exists(obj):
        os.remove(obj)
    kind = classify(rc if rc is not None else 0, err, timed_out)
    error = first_error(err)
    return {
        "chunk": chunk_path,
        "tool": tool,
        "result": kind,
        "exit": rc,
        "located": bool(LOCATED.search(err)) if kind == "clean-error"
        else None,
        "error": error,
        "seconds": round(seconds, 2),
        "stderr_tail": err[-2000:] if kind in ("crash", "hang",
                                               "no-diagnostic") else "",
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", help="directory of .mlir files")
    ap.add_argument("--bin", default="build/bin",
                    help="directory of mem-opt and mem-opt-compile "
                    "(default: build/bin)")
    ap.add_argument("--timeout", type=float, default=60,
                    help="seconds per run; a run that takes longer is a "
                    "hang (default: 60)")
    ap.add_argument("--jobs", type=int, default=2,
                    help="runs at once (default: 2)")
    ap.add_argument("--json", help="write every run's result to this file")
    ap.add_argument("--tools", default=",".join(t for t, _ in TOOLS),
                    help="comma-separated subset of the tools "
                    "(default: all)")
    args = ap.parse_args()

    bindir = os.path.abspath(args.bin)
    wanted = set(args.tools.split(","))
    files = sorted(
        os.path.join(d, f) for d, _, fs in os.walk(args.corpus) for f in fs
        if f.endswith(".mlir"))
    if not files:
        sys.exit(f"error: no .mlir files under {args.corpus}")

    with tempfile.TemporaryDirectory(prefix="robustness-") as workdir:
        jobs, nchunks = [], 0
        for path in files:
            rel = os.path.relpath(path, args.corpus)
            with open(path, encoding="utf-8", errors="replace") as f:
                chunks = split_chunks(f.read())
            for i, chunk in enumerate(chunks):
                name = rel.replace(os.sep, "__")[:-len(".mlir")]
                chunk_path = os.path.join(workdir, f"{name}.{i}.mlir")
                with open(chunk_path, "w", encoding="utf-8") as out:
                    out.write(chunk)
                nchunks += 1
                for tool, argv in TOOLS:
                    if tool in wanted:
                        jobs.append((bindir, tool, argv, chunk_path,
                                     args.timeout, workdir))
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(run_one, jobs))

    for r in results:
        r["chunk"] = os.path.basename(r["chunk"])
    results.sort(key=lambda r: (r["chunk"], r["tool"]))
    counts = collections.Counter(r["result"] for r in results)
    per_tool = collections.defaultdict(collections.Counter)
    for r in results:
        per_tool[r["tool"]][r["result"]] += 1
    unlocated = [r for r in results
                 if r["result"] == "clean-error" and not r["located"]]

    kinds = ["success", "clean-error", "no-diagnostic", "crash", "hang"]
    print(f"files: {len(files)}  chunks: {nchunks}  runs: {len(results)}")
    print("| tool | " + " | ".join(kinds) + " |")
    print("|---|" + "---:|" * len(kinds))
    for tool, _ in TOOLS:
        if tool in per_tool:
            print(f"| {tool} | " +
                  " | ".join(str(per_tool[tool][k]) for k in kinds) + " |")
    print("| all | " + " | ".join(str(counts[k]) for k in kinds) + " |")
    print(f"clean errors without a location: {len(unlocated)}")
    slowest = max(results, key=lambda r: r["seconds"])
    print(f"slowest run: {slowest['seconds']} s ({slowest['tool']} "
          f"{slowest['chunk']}; timeout {args.timeout:g} s)")
    for r in results:
        if r["result"] in ("crash", "hang", "no-diagnostic"):
            print(f"{r['result'].upper()}: {r['tool']} {r['chunk']}")
            print("  " + r["stderr_tail"].strip().replace("\n", "\n  ")[-800:])
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"files": files, "chunks": nchunks,
                       "counts": dict(counts), "runs": results}, f,
                      indent=1)
    bad = counts["crash"] + counts["hang"] + counts["no-diagnostic"]
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
