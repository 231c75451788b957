#!/usr/bin/env python3
#===- speed_not_slower.py - --optimize=speed against the default on QEMU --===#
#
# Part of the mem-opt project.
#
# Reads two outputs of firmware/run_model.py --icount over the same models
# and CPUs, the default's and --optimize=speed's, and fails unless every
# run passed (OK, outputs bit-exact against the host) and the exact count of
# the TCG plugin for --optimize=speed is at most the default's for every
# model and CPU of the default's output. Prints one line per pair and
# "checked N runs, M slower".
#
# Usage: speed_not_slower.py default.txt speed.txt
#
#===------------------------------------------------------------------------===#
import re
import sys

ICOUNT = re.compile(r"^ICOUNT (\S+) on \S+ (\S+): instructions=(\d+)")


def read(path):
    """Returns {(cpu, model): instructions} and the number of OK lines."""
    counts, ok = {}, 0
    with open(path) as f:
        for line in f:
            if line.startswith("FAIL"):
                sys.exit("%s: %s" % (path, line.strip()))
            if line.startswith("OK "):
                ok += 1
            m = ICOUNT.match(line)
            if m:
                counts[(m.group(1), m.group(2).rstrip(":"))] = int(m.group(3))
    return counts, ok


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: speed_not_slower.py default.txt speed.txt")
    default, default_ok = read(sys.argv[1])
    speed, speed_ok = read(sys.argv[2])
    if not default or default_ok != len(default) or speed_ok != len(speed):
        sys.exit("error: every run must print OK and one ICOUNT line")
    slower = 0
    for key in sorted(default):
        if key not in speed:
            sys.exit("error: no --optimize=speed count for %s on %s" %
                     (key[1], key[0]))
        verdict = "ok"
        if speed[key] > default[key]:
            verdict = "SLOWER"
            slower += 1
        print("%s %s: default %d speed %d %s" %
              (key[1], key[0], default[key], speed[key], verdict))
    print("checked %d runs, %d slower" % (len(default), slower))
    return 1 if slower else 0


if __name__ == "__main__":
    sys.exit(main())
