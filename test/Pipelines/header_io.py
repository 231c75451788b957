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
# NAME_IN<i>_SCALE and NAME_IN<i>_ZERO_POINT. A variable tensor (a state,
# in tensor index order) is no input or output: NAME_STATE<i>_... describe
# it likewise, NAME_STATE_BYTES is their total, and name_reset_state() must
# set every byte of each one (at NAME_STATE<i>_OFFSET) as TFLite Micro's
# ResetVariableTensors does, and nothing after the buffer; NAME_NUM_INPUTS,
# NAME_NUM_OUTPUTS and NAME_NUM_STATES count them. The macros are read through a
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
    """(macro prefix suffix, tensor) for every graph input and output, and
    every variable tensor (a state, STATE<i>) in tensor index order."""
    for kind, indices in (("IN", model["inputs"]), ("OUT", model["outputs"])):
        for i, t in enumerate(indices):
            yield "%s%d" % (kind, i), model["tensors"][t]
    states = [t for t in model["tensors"] if t["variable"]]
    for i, t in enumerate(states):
        yield "STATE%d" % i, t


def reset_byte(tensor):
    """The byte TFLite Micro's ResetVariableTensors fills a variable tensor
    with: an int8 one's zero point (the real value 0), else 0."""
    if tensor["type"] == "i8" and tensor["zero_point"]:
        return tensor["zero_point"][0]
    return 0


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
    for macro in ("NUM_INPUTS", "NUM_OUTPUTS", "NUM_STATES", "STATE_BYTES"):
        lines.append("#ifdef %s_%s" % (name, macro))
        lines.append('  printf("%s %%lld\\n", (long long)(%s_%s));'
                     % (macro, name, macro))
        lines.append("#else")
        lines.append('  printf("%s absent\\n");' % macro)
        lines.append("#endif")
    # The reset function, on a buffer one byte longer and filled with 0x5a:
    # each state's bytes must all be its reset byte, the byte after the
    # buffer untouched.
    states = [key for key, _ in tensors if key.startswith("STATE")]
    if states:
        lines.append("#ifdef %s_STATE_BYTES" % name)
        lines.append("  { static signed char st[%s_STATE_BYTES + 1];" % name)
        lines.append("    memset(st, 0x5a, sizeof st);")
        lines.append("    %s_reset_state(st);" % name.lower())
        lines.append('    printf("STATE_END %%d\\n", st[%s_STATE_BYTES]);'
                     % name)
        for key in states:
            p = "%s_%s" % (name, key)
            lines.append("    { const signed char *q = st + %s_OFFSET; "
                         "long long i, same = 1;" % p)
            lines.append("      for (i = 1; i < %s_BYTES; ++i) same &= "
                         "q[i] == q[0];" % p)
            lines.append('      if (same) printf("%s_RESET %%d\\n", q[0]); '
                         'else printf("%s_RESET mixed\\n"); }' % (key, key))
        lines.append("  }")
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
            nquant += not key.startswith("STATE")
            bits = struct.unpack("<I", struct.pack("<f", t["scale"][0]))[0]
            want["%s_SCALE" % key] = "%08x" % bits
            want["%s_ZERO_POINT" % key] = str(
                t["zero_point"][0] if t["zero_point"] else 0)
        else:
            want["%s_SCALE" % key] = "absent"
            want["%s_ZERO_POINT" % key] = "absent"
        if key.startswith("STATE"):
            want["%s_RESET" % key] = str(reset_byte(t))
        for k, v in want.items():
            if got.get(k) != v:
                print("%s: header %s, file %s" % (k, got.get(k), v))
                bad += 1
        print("%s %s %s %s scale %s zero point %s" % (
            key, t["name"], t["type"], "x".join(map(str, t["shape"])),
            repr(t["scale"][0]) if quantized(t) else "-",
            want["%s_ZERO_POINT" % key] if quantized(t) else "-"))
    # The counts; the states of a model with variable tensors (every one
    # int8 in the shared models, so packed without padding) and the byte
    # after them.
    states = [t for key, t in tensors if key.startswith("STATE")]
    want = {"NUM_INPUTS": str(len(model["inputs"])),
            "NUM_OUTPUTS": str(len(model["outputs"])),
            "NUM_STATES": str(len(states)) if states else "absent",
            "STATE_BYTES": str(sum(t["bytes"] for t in states))
            if states else "absent"}
    if states:
        want["STATE_END"] = str(0x5a)
    for k, v in want.items():
        if got.get(k) != v:
            print("%s: header %s, file %s" % (k, got.get(k), v))
            bad += 1
    print("checked %d inputs and outputs (%d quantized), %d mismatches"
          % (len(tensors) - len(states), nquant, bad))
    if states:
        print("checked %d states (%d bytes), reset to %s" % (
            len(states), sum(t["bytes"] for t in states),
            " ".join(str(reset_byte(t)) for t in states)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
