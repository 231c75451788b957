#!/usr/bin/env python3
# ===- budget_check.py - Checks what an SRAM budget chose -------------------===#
#
# Part of the mem-opt project.
#
# ===------------------------------------------------------------------------===#
#
# Checks a `mem-opt-compile --sram=N` compile against independent runs of
# `mem-opt --cortex-m-pipeline=... stop-after=plan` with the candidates'
# explicit `patches=` values (another tool, the plan read from the IR,
# under the compile's state budget of the exact scheduler):
#
#   chosen:  the chosen candidate fits the budget; its SRAM is the header's
#            _ARENA_SIZE (plus the caller's I/O) and _PREDICTED_PEAK, the
#            report's SRAM, and the SRAM mem-opt plans for it; its MACs are
#            at most --max-extra-macs percent over the unpatched compile's;
#            every cheaper candidate the compile planned, and the cheapest
#            --sample ones it skipped by their lower bound, need more than the
#            budget when mem-opt plans them.
#   failed:  the error names a configuration and its SRAM; mem-opt plans it
#            to exactly that SRAM, which is over the budget.
#
# Prints "OK ..." lines; exits 1 with "FAIL ..." on the first mismatch.
#
# ===------------------------------------------------------------------------===#

import argparse
import json
import re
import subprocess
import sys


def fail(message):
    print("FAIL " + message)
    sys.exit(1)


def plan(args, patches):
    """Returns the SRAM mem-opt plans for the model with `patches`."""
    options = "stop-after=plan io=%s patches=%s schedule-max-states=%d" % (
        args.io, patches, args.schedule_max_states)
    out = subprocess.run(
        [args.mem_opt, args.model, "--cortex-m-pipeline=" + options],
        capture_output=True, text=True, check=True).stdout
    arenas = re.findall(r"memplan.arena_size = (\d+)", out)
    if len(arenas) != 1:
        fail("mem-opt planned %d arenas for patches=%s" % (len(arenas),
                                                           patches))
    return int(arenas[0]) + args.caller_io


def header_define(header, suffix):
    match = re.search(r"#define \w+_%s (\d+)" % suffix, header)
    if not match:
        fail("the header has no _%s" % suffix)
    return int(match.group(1))


def check_chosen(args):
    with open(args.report) as f:
        report = json.load(f)
    with open(args.off_report) as f:
        off = json.load(f)
    budget = args.budget
    candidates = report["candidates"]
    listed = candidates["list"]
    chosen = [c for c in listed if c["chosen"]]
    if len(chosen) != 1 or candidates["chosen"] != chosen[0]["patches"]:
        fail("not exactly one chosen candidate")
    chosen = chosen[0]
    function = report["functions"][0]
    with open(args.header) as f:
        header = f.read()
    arena = header_define(header, "ARENA_SIZE")
    predicted = header_define(header, "PREDICTED_PEAK")
    sram = arena + args.caller_io
    if not (sram == predicted == function["sram_bytes"] ==
            chosen["sram_bytes"]):
        fail("one number: header arena %d + caller I/O %d, predicted %d, "
             "report %s, candidate %s" % (arena, args.caller_io, predicted,
                                          function["sram_bytes"],
                                          chosen["sram_bytes"]))
    if sram > budget:
        fail("the chosen SRAM %d exceeds the budget %d" % (sram, budget))
    planned = plan(args, chosen["patches"])
    if planned != sram:
        fail("mem-opt plans patches=%s to %d bytes, the compile to %d" %
             (chosen["patches"], planned, sram))
    base = off["functions"][0]["macs"]
    extra = 100.0 * (function["macs"] - base) / base
    if extra > args.max_extra_macs:
        fail("%.2f%% extra MACs, over %g%%" % (extra, args.max_extra_macs))
    print("OK chosen patches=%s: SRAM %d <= %d bytes, %+.1f%% MACs" %
          (chosen["patches"], sram, budget, extra))
    cheaper = [c for c in listed if c["cost"] < chosen["cost"]]
    skipped = [c for c in cheaper if c["status"] == "bound over the budget"]
    checked = [c for c in cheaper if c["status"] == "over the budget"]
    checked += skipped[:args.sample]
    for candidate in checked:
        planned = plan(args, candidate["patches"])
        if planned <= budget:
            fail("cheaper patches=%s fits: %d bytes" % (candidate["patches"],
                                                       planned))
        if candidate["sram_bytes"] is not None and \
                candidate["sram_bytes"] != planned:
            fail("patches=%s: report %d, mem-opt %d" %
                 (candidate["patches"], candidate["sram_bytes"], planned))
        if candidate["lower_bound_bytes"] > planned:
            fail("patches=%s: bound %d over its SRAM %d" %
                 (candidate["patches"], candidate["lower_bound_bytes"],
                  planned))
    print("OK %d cheaper candidates do not fit (%d checked by mem-opt)" %
          (len(cheaper), len(checked)))


def check_failed(args):
    with open(args.error) as f:
        error = f.read()
    match = re.search(r"no configuration fits the SRAM budget of (\d+) bytes: "
                      r"needs at least (\d+) bytes with patches=(\S+)", error)
    if not match:
        fail("no 'needs at least' error: " + error)
    budget, needs, patches = int(match.group(1)), int(match.group(2)), \
        match.group(3)
    if budget != args.budget or needs <= budget:
        fail("error for budget %d needs %d" % (budget, needs))
    planned = plan(args, patches)
    if planned != needs:
        fail("mem-opt plans patches=%s to %d bytes, the error says %d" %
             (patches, planned, needs))
    print("OK the smallest SRAM reached, %d bytes with patches=%s, is "
          "planned by mem-opt" % (needs, patches))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mem-opt", required=True)
    parser.add_argument("--model", required=True, help="the TOSA .mlir")
    parser.add_argument("--budget", type=int, required=True)
    parser.add_argument("--io", default="arena")
    parser.add_argument("--caller-io", type=int, default=0,
                        help="bytes of the caller's inputs and outputs")
    parser.add_argument("--report", help="--report=json of the compile")
    parser.add_argument("--off-report",
                        help="--report=json of the --patches=off compile")
    parser.add_argument("--header", help="the compile's header")
    parser.add_argument("--max-extra-macs", type=float, default=10.0)
    parser.add_argument("--sample", type=int, default=3)
    parser.add_argument("--schedule-max-states", type=int, default=250000,
                        help="the compile's state budget (mem-opt-compile's "
                        "default; mem-opt's pipeline has its own)")
    parser.add_argument("--error", help="stderr of a compile that failed")
    args = parser.parse_args()
    if args.error:
        check_failed(args)
    else:
        check_chosen(args)


if __name__ == "__main__":
    main()
