#!/usr/bin/env python3
# ===- count_calls.py - Instructions and cycles of any firmware's calls ---=== #
#
# Part of the mem-opt project.
#
# ===--------------------------------------------------------------------=== #
#
# Runs a firmware ELF that measures calls with measuredCall() (icount.h) on
# QEMU's board of the given CPU with icount-plugin.c, and prints, for every
# measured call in order, its exact instructions and the estimated cycles of
# the CPU's cycle model (cortex-m4, cortex-m7; docs/CortexM.md, "Cycles per
# inference"):
#
#   CALL <name> instructions=<n> cycles=<c> systick=<ticks>
#
# (`cycles=-` on a CPU without a model), and with --functions a line
# `CALL-FN <name> <function> <instructions> <cycles>` per function. The
# name is measuredCall's; a SysTick interrupt during a call is not counted.
# Any firmware works, mem-opt's or another engine's, as long as it links
# icount.c and runs under semihosting; its standard output is printed
# after the counts with --echo. Exit status 1 when QEMU fails or the calls
# and the plugin's windows do not match.
#
# Usage: count_calls.py fw.elf --cpu cortex-m4 [--work DIR] [--timeout S]
#                       [--functions] [--echo]
# ===--------------------------------------------------------------------=== #

import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_model import (BOARDS, CYCLE_MODELS, build_plugin,  # noqa: E402
                       icount_args, read_cycles, read_windows)


def main():
    ap = argparse.ArgumentParser(
        description="Instructions and estimated cycles of every measuredCall() "
        "of a firmware ELF on QEMU (docs/CortexM.md, \"Cycles per inference\")")
    ap.add_argument("elf")
    ap.add_argument("--cpu", required=True, choices=sorted(BOARDS))
    ap.add_argument("--work", help="scratch directory (default: temporary)")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--functions", action="store_true",
                    help="also print every function's counts per call")
    ap.add_argument("--echo", action="store_true",
                    help="print the firmware's standard output too")
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or tmp
        os.makedirs(work, exist_ok=True)
        board = BOARDS[args.cpu][0]
        plugin = build_plugin(here, work)
        elf = os.path.abspath(args.elf)
        if not os.path.isfile(elf):
            print("FAIL no firmware at %s" % args.elf)
            return 1
        try:
            qemu_icount = icount_args(plugin, elf, work,
                                      CYCLE_MODELS.get(args.cpu))
        except KeyError:
            print("FAIL %s has no icountBegin/icountEnd: it must link "
                  "icount.c and measure calls with measuredCall()" %
                  args.elf)
            return 1
        res = subprocess.run(
            ["timeout", str(args.timeout), "qemu-system-arm", "-M", board,
             "-nographic", "-semihosting", "-monitor", "none", "-serial",
             "none", "-kernel", elf] + qemu_icount,
            capture_output=True, text=True, cwd=work)
        if args.echo:
            sys.stdout.write(res.stdout)
        if res.returncode != 0:
            print("FAIL %s on %s: exit %d (124: timeout)\n%s%s" % (
                args.cpu, board, res.returncode, res.stdout, res.stderr))
            return 1
        path = os.path.join(work, "icount.txt")
        windows = read_windows(path)
        cycles = read_cycles(path)
        calls = re.findall(r"^ICOUNT (\S+) systick=(\d+)", res.stdout, re.M)
        if len(calls) != len(windows):
            print("FAIL %d measured calls printed, %d windows counted" %
                  (len(calls), len(windows)))
            return 1
        for k, ((name, ticks), (total, fns)) in enumerate(zip(calls,
                                                              windows)):
            handler = fns.get("sysTickHandler", 0)
            c = "-"
            if cycles:
                c = cycles[k][0] - cycles[k][1].get("sysTickHandler", 0)
            print("CALL %s instructions=%d cycles=%s systick=%s" % (
                name, total - handler, c, ticks))
            if args.functions:
                for fn, count in sorted(fns.items(), key=lambda i: -i[1]):
                    print("CALL-FN %s %s %d %s" % (
                        name, fn, count,
                        cycles[k][1].get(fn, 0) if cycles else "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
