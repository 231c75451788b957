#!/usr/bin/python3
# ===- tflite_sweep.py - Truncation and bit-flip sweep of mem-opt-import --=== #
#
# Part of the mem-opt project.
#
# ===----------------------------------------------------------------------=== #
#
# Runs TOOL on deterministic damaged copies of each MODEL: truncated every 197
# bytes, and with one bit flipped every 179 bytes (bit = offset mod 8). Every
# run must exit 0 (the damage hit data the importer accepts, e.g. a weight) or
# 1 with an "error:" line; a signal or any other status is a crash.
#
# ===----------------------------------------------------------------------=== #

import os
import subprocess
import sys
import tempfile


def run(tool, data, tmp):
    with open(tmp, "wb") as f:
        f.write(data)
    p = subprocess.run([tool, tmp, "-o", os.devnull], capture_output=True,
                       text=True, errors="replace")
    if p.returncode == 0 or (p.returncode == 1 and "error:" in p.stderr):
        return None
    return "exit %d: %s" % (p.returncode, p.stderr[-400:])


def main():
    tool, models = sys.argv[1], sys.argv[2:]
    runs = 0
    failures = []
    with tempfile.TemporaryDirectory() as d:
        tmp = os.path.join(d, "damaged.tflite")
        for path in models:
            data = open(path, "rb").read()
            cases = [("truncate %d" % n, data[:n])
                     for n in range(0, len(data), 197)]
            for off in range(0, len(data), 179):
                flipped = bytearray(data)
                flipped[off] ^= 1 << (off % 8)
                cases.append(("flip %d" % off, bytes(flipped)))
            for name, damaged in cases:
                runs += 1
                err = run(tool, damaged, tmp)
                if err:
                    failures.append("%s %s: %s" % (path, name, err))
    for f in failures:
        print("CRASH", f)
    if failures:
        return 1
    print("no crash in %d runs" % runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
