"""Sums the allocated sections of `llvm-readelf -S --wide` output read from
stdin by kind: code (AX), constant data (A without W or X), data and bss (AW),
and the ARM unwind index (type ARM_EXIDX, which the linker merges).
Prints `code=N constant=N data=N bss=N exidx=N` in decimal."""
import re
import sys

sizes = {"code": 0, "constant": 0, "data": 0, "bss": 0, "exidx": 0}
for line in sys.stdin:
    m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+[0-9a-f]+\s+"
                 r"([0-9a-f]+)\s+[0-9a-f]+\s+([A-Za-z]*)\s", line)
    if not m or "A" not in m.group(4):
        continue
    size, flags = int(m.group(3), 16), m.group(4)
    if m.group(2) == "ARM_EXIDX":
        sizes["exidx"] += size
    elif "X" in flags:
        sizes["code"] += size
    elif "W" not in flags:
        sizes["constant"] += size
    elif m.group(2) == "NOBITS":
        sizes["bss"] += size
    else:
        sizes["data"] += size
print(" ".join("%s=%d" % kv for kv in sizes.items()))
