#!/usr/bin/python3
# ===- softmax_model.py - One-op SOFTMAX models and their reference ------=== #
#
# Part of the mem-opt project.
#
# ===----------------------------------------------------------------------=== #
#
# softmax_model.py write OUT.tflite --shape R,N --scale S --zero-point Z
#                  [--beta B] [--output i8|i16] [--output-zero-point Z]
#   Writes a TFLite model of one int8 SOFTMAX (output zero point -128 and
#   scale 1/256 for i8, -32768 and 1/65536 for i16, as TFLite requires,
#   unless --output-zero-point gives another to test the importer's check),
#   with a minimal FlatBuffers writer of its own (the tables and fields of
#   lib/Import/tflite_schema.fbs the model needs).
# softmax_model.py check MODEL.tflite IMPORTED.mlir MEM_OPT_RUN SEED DIR
#   Draws seeded int8 inputs spread over the whole range (so the softmax is
#   not saturated), runs the imported model with mem-opt-run and
#   tflite_reference.py's TFLite int8 softmax, writes DIR/in.bin and
#   DIR/expected.bin (the reference's output bytes), and prints the largest
#   difference and how many outputs lie strictly between the output's bounds.
#
# ===----------------------------------------------------------------------=== #

import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tflite_compare  # noqa: E402
import tflite_reference  # noqa: E402
import tflite_tensors  # noqa: E402


class Table:
    """A FlatBuffers table: fields (slot, format or None for an offset to a
    child object, value)."""
    def __init__(self, *fields):
        self.fields = [f for f in fields if f[2] is not None]


class Vector:
    """A vector of scalars (struct format `fmt`) or, with fmt None, of
    offsets to child objects."""
    def __init__(self, fmt, items):
        self.fmt, self.items = fmt, list(items)


def serialize(root, ident=b"TFL3"):
    """Lays the objects out front to back: every object before its children,
    so each offset points forward, as FlatBuffers' unsigned offsets need."""
    buf = bytearray(8)
    buf[4:8] = ident
    patches = []  # (position of an offset, child object)

    def align(n, extra=0):
        while (len(buf) + extra) % n:
            buf.append(0)

    def emit(obj):
        if isinstance(obj, (str, bytes)):
            data = obj.encode() if isinstance(obj, str) else obj
            align(4)
            pos = len(buf)
            buf.extend(struct.pack("<I", len(data)) + data + b"\0")
            return pos
        if isinstance(obj, Vector):
            size = struct.calcsize("<" + obj.fmt) if obj.fmt else 4
            align(max(size, 4), 4)
            pos = len(buf)
            buf.extend(struct.pack("<I", len(obj.items)))
            for item in obj.items:
                if obj.fmt:
                    buf.extend(struct.pack("<" + obj.fmt, item))
                else:
                    patches.append((len(buf), item))
                    buf.extend(b"\0\0\0\0")
            return pos
        # A table: its vtable, then the table (soffset, then the fields).
        layout, off = [], 4
        for slot, fmt, value in obj.fields:
            size = struct.calcsize("<" + fmt) if fmt else 4
            off = (off + size - 1) // size * size
            layout.append((slot, fmt, value, off))
            off += size
        nslots = max([f[0] for f in obj.fields], default=-1) + 1
        vt = [0] * nslots
        for slot, _, _, o in layout:
            vt[slot] = o
        align(2)
        vtable = struct.pack("<HH", 4 + 2 * nslots, off) + \
            b"".join(struct.pack("<H", v) for v in vt)
        align(4, len(vtable))
        vpos = len(buf)
        buf.extend(vtable)
        pos = len(buf)
        body = bytearray(off)
        body[0:4] = struct.pack("<i", pos - vpos)
        for slot, fmt, value, o in layout:
            if fmt:
                body[o:o + struct.calcsize("<" + fmt)] = struct.pack(
                    "<" + fmt, value)
            else:
                patches.append((pos + o, value))
        buf.extend(body)
        return pos

    buf[0:4] = struct.pack("<I", emit(root))
    while patches:
        at, child = patches.pop(0)
        buf[at:at + 4] = struct.pack("<I", emit(child) - at)
    return bytes(buf)


def softmax_model(shape, scale, zero_point, beta, out_type, out_zp=None):
    """The flatbuffer of one SOFTMAX, input 0 and output 1."""
    i16 = out_type == "i16"
    if out_zp is None:
        out_zp = -32768 if i16 else -128

    def tensor(name, ttype, s, z):
        quant = Table((2, None, Vector("f", [s])), (3, None, Vector("q", [z])))
        return Table((0, None, Vector("i", shape)), (1, "b", ttype),
                     (2, "I", 0), (3, None, name), (4, None, quant))

    sub = Table(
        (0, None, Vector(None, [
            tensor("logits", 9, scale, zero_point),
            tensor("probabilities", 7 if i16 else 9,
                   1.0 / 65536 if i16 else 1.0 / 256, out_zp)])),
        (1, None, Vector("i", [0])), (2, None, Vector("i", [1])),
        (3, None, Vector(None, [Table(
            (0, "I", 0), (1, None, Vector("i", [0])),
            (2, None, Vector("i", [1])), (3, "B", 9),
            (4, None, Table((0, "f", beta))))])))
    model = Table(
        (0, "I", 3),
        (1, None, Vector(None, [Table((0, "b", 25), (2, "i", 1),
                                      (3, "i", 25))])),
        (2, None, Vector(None, [sub])),
        (4, None, Vector(None, [Table()])))
    return serialize(model)


def main():
    if sys.argv[1] == "write":
        args = dict(zip(sys.argv[3::2], sys.argv[4::2]))
        shape = [int(d) for d in args["--shape"].split(",")]
        data = softmax_model(shape, float(args["--scale"]),
                             int(args["--zero-point"]),
                             float(args.get("--beta", "1.0")),
                             args.get("--output", "i8"),
                             int(args["--output-zero-point"])
                             if "--output-zero-point" in args else None)
        with open(sys.argv[2], "wb") as f:
            f.write(data)
        return 0
    tflite, imported, runner, seed, work = sys.argv[2:7]
    model = tflite_tensors.decode(tflite)
    ts = model["tensors"]
    tin, tout = ts[model["inputs"][0]], ts[model["outputs"][0]]
    rng = np.random.default_rng(int(seed))
    x = rng.integers(-128, 128, size=tin["shape"], dtype=np.int64)
    got = tflite_compare.run_imported(imported, [(tin, x)], [tout],
                                      runner)[0]
    ref, _ = tflite_reference.run(model, [x])
    ref = ref[0].reshape(got.shape)
    lo, hi = tflite_reference.RANGES[tout["type"]]
    dtype = "<i2" if tout["type"] == "i16" else "i1"
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "in.bin"), "wb") as f:
        f.write(x.astype("i1").tobytes())
    with open(os.path.join(work, "expected.bin"), "wb") as f:
        f.write(ref.astype(dtype).tobytes())
    inside = int(((ref > lo) & (ref < hi)).sum())
    print("softmax %s: %d outputs, %d strictly inside [%d, %d], "
          "max difference %d" % (os.path.basename(tflite), ref.size, inside,
                                 lo, hi, int(np.abs(got - ref).max())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
