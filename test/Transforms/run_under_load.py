#!/usr/bin/env python3
"""Run a command while busy loops keep the other cores busy.

  run_under_load.py OUT COMMAND [ARG...]

Starts one busy-looping process per core (at least one), runs COMMAND with
its stdout and stderr written to OUT, stops the loops, and exits with
COMMAND's status. Used by tests that check that the output does not depend
on the machine's load.
"""
import os
import subprocess
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, command = sys.argv[1], sys.argv[2:]
    busy = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in range(max(1, os.cpu_count() or 1))
    ]
    try:
        with open(out, "wb") as sink:
            status = subprocess.call(command, stdout=sink,
                                     stderr=subprocess.STDOUT)
    finally:
        for loop in busy:
            loop.kill()
        for loop in busy:
            loop.wait()
    sys.exit(status)


if __name__ == "__main__":
    main()
