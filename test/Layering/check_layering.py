#!/usr/bin/env python3
# ===- check_layering.py - The tree's layers and file sizes ----------------===#
#
# Checks that every `#include "MemOpt/<Dir>/..."` in include/MemOpt/<Layer>
# and lib/<Layer> points at a layer that <Layer> may use (no include points
# upward: docs/Development.md, "Where each concern lives"), and that no
# source file under lib/ or tools/ grows past its line limit.
#
#   check_layering.py <source root>
#
# Prints one line per violation and exits 1 when there is any.
#
# ===-----------------------------------------------------------------------===#

import os
import re
import sys

# The layers bottom to top, each with the layers it may include besides
# itself. IR-free libraries (Support, Schedule, Arena) know no IR; the
# algorithm libraries and the cost model know no pass, conversion or target.
BASE = ["Support", "Schedule", "Arena", "Utils", "Dialect", "CostModel"]
ALLOWED = {
    "Support": [],
    "Schedule": ["Support"],
    "Arena": ["Support"],
    "Utils": ["Support"],
    "Dialect": ["Support", "Utils"],
    "CostModel": ["Support", "Schedule", "Utils", "Dialect"],
    "Analysis": BASE,
    "Report": ["Support", "Schedule", "Utils"],
    "Transforms": BASE + ["Analysis", "Report"],
    "Conversion": BASE + ["Analysis"],
    "Target": BASE + ["Analysis", "Conversion"],
    "Pipelines": BASE + ["Analysis", "Report", "Transforms", "Conversion",
                         "Target"],
    "Import": ["Support"],
    "Zoo": ["Support"],
    "InitAll": BASE + ["Analysis", "Report", "Transforms", "Conversion",
                       "Target", "Pipelines"],
    "Compiler": BASE + ["Analysis", "Report", "Transforms", "Conversion",
                        "Target", "Pipelines", "Import", "InitAll"],
}

# Line limits: every source file under lib/ and tools/, and the compile
# tool's main, which is a thin layer over lib/Compiler.
DEFAULT_LIMIT = 1000
LIMITS = {"tools/mem-opt-compile/mem-opt-compile.cpp": 300}
SOURCE_SUFFIXES = (".cpp", ".h", ".c", ".td")

INCLUDE = re.compile(r'^\s*#\s*include\s+"MemOpt/([A-Za-z]+)(\.h)?')


def layer_of(relative):
    """The layer a file belongs to, from its path, or None."""
    parts = relative.split(os.sep)
    if parts[0] == "include" and len(parts) > 2 and parts[1] == "MemOpt":
        parts = parts[2:]
    elif parts[0] == "lib" and len(parts) > 1:
        parts = parts[1:]
    else:
        return None
    name = parts[0]
    if name.endswith((".h", ".cpp")):
        name = os.path.splitext(name)[0]
    return name if name in ALLOWED else None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    problems = []
    for top in ("include", "lib", "tools"):
        for directory, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                path = os.path.join(directory, name)
                relative = os.path.relpath(path, root)
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    lines = f.readlines()
                if top != "include":
                    limit = LIMITS.get(relative, DEFAULT_LIMIT)
                    if len(lines) > limit:
                        problems.append("%s: %d lines, over the limit of %d"
                                        % (relative, len(lines), limit))
                layer = layer_of(relative)
                if layer is None:
                    continue
                for number, line in enumerate(lines, 1):
                    match = INCLUDE.match(line)
                    if not match:
                        continue
                    target = match.group(1)
                    if target == layer or target not in ALLOWED:
                        continue
                    if target not in ALLOWED[layer]:
                        problems.append(
                            "%s:%d: %s includes MemOpt/%s, which it may not "
                            "use" % (relative, number, layer, target))
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
