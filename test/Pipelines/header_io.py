#!/usr/bin/python3
# ===- header_io.py - Check a header's inputs and outputs against a model -=== #
#
# Part of the mem-opt project.
#
# ===----------------------------------------------------------------------=== #
#
# Checks what mem-opt-compile's C header says about a TFLite model's inputs
# and outputs against the model file itself, decoded by the test's own
# flatbuffer reader (test/Import/TFLite/tflite_tensors.py, nothing shared
# with mem-opt's importer):
#
#   header_io.py MODEL.tflite HEADER.h NAME [--cc CC]
#
# For each graph input and output i, the header must define NAME_IN<i>_...
# (NAME_OUT<i>_...) with the file's C type, element count, rank, shape and
# bytes, and, exactly when the tensor is quantized per tensor (one scale),
# NAME_IN<i>_SCALE and NAME_IN<i>_ZERO_POINT. The macros are read through a
# C compiler: a small program includes the header, stores every value in a
# variable of its type and prints the bits, so the scale must read back in C
# as the file's float32, bit for bit. Prints one line per tensor and a
# summary; exit status 1 on any mismatch.
#
# ===----------------------------------------------------------------------=== #

import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "Import", "TFLite"))
import tflite_tensors  # noqa: E402

C_TYPES = {"f32": "float", "f16": "_Float16", "f64": "double",
           "i8": "int8_t", "ui8": "uint8_t", "i16": "int16_t",
           "i32": "int32_t", "i64": "int64_t", "i1": "uint8_t"}


def expected(model):
    """(macro prefix suffix, tensor) for every graph input and output."""
    for kind, indices in (("IN", model["inputs"]), ("OUT", model["outputs"])):
        for i, t in enumerate(indices):
            yield "%s%d" % (kind, i), model["tensors"][t]


def quantized(tensor):
    return (not tensor["type"].startswith("f") and len(tensor["scale"]) == 1)


def c_program(header, name, tensors):
    """A C program that prints every macro's value, one `key value` a line.
    A macro the header lacks prints `key absent`."""
    lines = ["#include <stdio.h>", "#include <stdint.h>", "#include <string.h>",
             '#include "%s"' % header, "int main(void) {"]
    for key, tensor in tensors:
        p = "%s_%s" % (name, key)
        lines.append("#ifdef %s_TYPE" % p)
        # The type macro must name the file's element type: a pointer to it
        # converts to a pointer to the expected type without a cast only if
        # they are the same type (-Werror below).
        lines.append("  { %s_TYPE v = 0; %s *check = &v; (void)check; "
                     'printf("%s_TYPE ok\\n"); }'
                     % (p, C_TYPES[tensor["type"]], key))
        lines.append("#endif")
        for macro in ("BYTES", "ELEMENTS", "RANK", "ZERO_POINT"):
            lines.append("#ifdef %s_%s" % (p, macro))
            lines.append('  printf("%s_%s %%lld\\n", (long long)(%s_%s));'
                         % (key, macro, p, macro))
            lines.append("#else")
            lines.append('  printf("%s_%s absent\\n");' % (key, macro))
            lines.append("#endif")
        lines.append("#ifdef %s_SHAPE" % p)
        lines.append("  { const long long s[] = %s_SHAPE; unsigned i;" % p)
        lines.append('    printf("%s_SHAPE");' % key)
        lines.append("    for (i = 0; i < sizeof(s) / sizeof(s[0]); ++i)")
        lines.append('      printf(" %lld", s[i]);')
        lines.append('    printf("\\n"); }')
        lines.append("#else")
        lines.append('  printf("%s_SHAPE absent\\n");' % key)
        lines.append("#endif")
        lines.append("#ifdef %s_SCALE" % p)
        lines.append("  { float f = %s_SCALE; uint32_t u; memcpy(&u, &f, 4);"
                     % p)
        lines.append('    printf("%s_SCALE %%08x\\n", (unsigned)u); }' % key)
        lines.append("#else")
        lines.append('  printf("%s_SCALE absent\\n");' % key)
        lines.append("#endif")
    lines += ["  return 0;", "}"]
    return "\n".join(lines) + "\n"


def main():
    args = sys.argv[1:]
    cc = "cc"
    if "--cc" in args:
        at = args.index("--cc")
        cc = args[at + 1]
        del args[at:at + 2]
    model_path, header, name = args
    model = tflite_tensors.decode(model_path)
    tensors = list(expected(model))
    with tempfile.TemporaryDirectory() as work:
        source = os.path.join(work, "check.c")
        binary = os.path.join(work, "check")
        with open(source, "w") as f:
            f.write(c_program(os.path.abspath(header), name, tensors))
        subprocess.run([cc, "-std=c11", "-Wall", "-Werror", source, "-o",
                        binary], check=True)
        out = subprocess.run([binary], check=True, capture_output=True,
                             text=True).stdout
    got = dict(line.split(" ", 1) for line in out.splitlines())
    bad = 0
    nquant = 0
    for key, t in tensors:
        n = 1
        for d in t["shape"]:
            n *= d
        want = {"%s_TYPE" % key: "ok",
                "%s_BYTES" % key: str(t["bytes"]),
                "%s_ELEMENTS" % key: str(n),
                "%s_RANK" % key: str(len(t["shape"])),
                "%s_SHAPE" % key: " ".join(str(d) for d in t["shape"])}
        if quantized(t):
            nquant += 1
            bits = struct.unpack("<I", struct.pack("<f", t["scale"][0]))[0]
            want["%s_SCALE" % key] = "%08x" % bits
            want["%s_ZERO_POINT" % key] = str(
                t["zero_point"][0] if t["zero_point"] else 0)
        else:
            want["%s_SCALE" % key] = "absent"
            want["%s_ZERO_POINT" % key] = "absent"
        for k, v in want.items():
            if got.get(k) != v:
                print("%s: header %s, file %s" % (k, got.get(k), v))
                bad += 1
        print("%s %s %s %s scale %s zero point %s" % (
            key, t["name"], t["type"], "x".join(map(str, t["shape"])),
            repr(t["scale"][0]) if quantized(t) else "-",
            want["%s_ZERO_POINT" % key] if quantized(t) else "-"))
    print("checked %d inputs and outputs (%d quantized), %d mismatches"
          % (len(tensors), nquant, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
