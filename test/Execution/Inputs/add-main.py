#!/usr/bin/env python3
"""Appends a host `main` to a lowered model module for mlir-runner.

usage: add-main.py MODEL.mlir MAIN.mlir

MAIN.mlir holds functions without a `module` wrapper. They are inserted at the
end of MODEL.mlir's top-level module. In MAIN.mlir, `@ARENA_SIZE@` becomes the
model's `memplan.arena_size` (the script fails if MAIN uses it and the model
has none) and `@ARENA_GUARDED@` that size plus 128 (64 guard bytes on each
side).
"""

import re
import sys


def main():
    model_path, main_path = sys.argv[1:3]
    model = open(model_path).read()
    harness = open(main_path).read()
    if "@ARENA_SIZE@" in harness:
        sizes = set(re.findall(r"memplan\.arena_size = (\d+)", model))
        if len(sizes) != 1:
            sys.exit(f"expected one memplan.arena_size in {model_path}, found {sorted(sizes)}")
        size = int(sizes.pop())
        harness = harness.replace("@ARENA_SIZE@", str(size))
        harness = harness.replace("@ARENA_GUARDED@", str(size + 128))
    end = model.rstrip().rfind("}")
    if not re.search(r"^module\b", model, re.M) or end < 0:
        sys.exit(f"{model_path} has no top-level module")
    sys.stdout.write(model[:end] + harness + "}\n")


if __name__ == "__main__":
    main()
