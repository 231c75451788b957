#!/usr/bin/env python3
# ===- peak-not-worse.py - The first schedule's peak is the smallest --------===#
#
# Part of the mem-opt project.
#
# ===------------------------------------------------------------------------===#
#
# Usage: peak-not-worse.py <first.mlir> <other.mlir>... Reads memopt.peak_bytes
# from each scheduled module; fails unless the first is at most every other.
#
# ===------------------------------------------------------------------------===#
import re
import sys


def peak(path):
    return int(re.search(r"memopt\.peak_bytes = (\d+)", open(path).read())
               .group(1))


first, others = peak(sys.argv[1]), [peak(path) for path in sys.argv[2:]]
print("peak %d, others %s" % (first, others))
sys.exit(0 if all(first <= other for other in others) else 1)
