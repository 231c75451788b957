#!/usr/bin/python3
# ===- tflite_tensors.py - Independent TFLite tensor decoder --------------=== #
#
# Part of the mem-opt project.
#
# ===----------------------------------------------------------------------=== #
#
# Reads a .tflite file with a hand-written flatbuffer walker (no generated
# code, no flatc, nothing shared with mem-opt's C++ importer) and prints, for
# the first subgraph, the operators and every tensor's name, type, shape and
# byte size. With --check FILE.mlir it compares the file's tensors against
# the imported TOSA module: each tensor that an op produces or the function
# takes (matched by its `loc("name")`) must have the same shape, up to
# dimensions of size 1 (the importer leaves out a reshape that only adds
# or drops them: [1, 16] may be held as [1, 1, 1, 16]), and element byte
# size. Exit status 1 on any mismatch. With --mutate it writes damaged
# or altered copies of a model for the error tests.
#
# Field slots (TFLite schema order): Model{version, operator_codes,
# subgraphs, description, buffers}, SubGraph{tensors, inputs, outputs,
# operators, name}, Tensor{shape, type, buffer, name, quantization},
# Operator{opcode_index, inputs, outputs}, OperatorCode{deprecated_builtin_code,
# custom_code, version, builtin_code}, Buffer{data}.
#
# ===----------------------------------------------------------------------=== #

import re
import struct
import sys

# TensorType value -> (name, bytes per element).
TYPES = {0: ("f32", 4), 1: ("f16", 2), 2: ("i32", 4), 3: ("ui8", 1),
         4: ("i64", 8), 6: ("i1", 1), 7: ("i16", 2), 9: ("i8", 1),
         10: ("f64", 8)}
# A few BuiltinOperator names, for the listing.
OPS = {0: "ADD", 1: "AVERAGE_POOL_2D", 2: "CONCATENATION", 3: "CONV_2D",
       4: "DEPTHWISE_CONV_2D", 6: "DEQUANTIZE", 9: "FULLY_CONNECTED",
       14: "LOGISTIC", 17: "MAX_POOL_2D", 18: "MUL", 19: "RELU",
       21: "RELU6", 22: "RESHAPE", 25: "SOFTMAX", 28: "TANH", 34: "PAD",
       27: "SVDF", 39: "TRANSPOSE", 40: "MEAN", 43: "SQUEEZE", 60: "PADV2",
       114: "QUANTIZE"}


class Buf:
    """Little-endian reads with bounds checks."""

    def __init__(self, data):
        self.d = data

    def u8(self, p):
        return self.d[p]

    def i32(self, p):
        return struct.unpack_from("<i", self.d, p)[0]

    def u32(self, p):
        return struct.unpack_from("<I", self.d, p)[0]

    def u16(self, p):
        return struct.unpack_from("<H", self.d, p)[0]


class Table:
    def __init__(self, buf, pos):
        self.b = buf
        self.pos = pos
        self.vt = pos - buf.i32(pos)
        self.vtsize = buf.u16(self.vt)

    def field(self, slot):
        """Absolute position of field `slot`, or None when absent."""
        o = 4 + 2 * slot
        if o + 2 > self.vtsize:
            return None
        off = self.b.u16(self.vt + o)
        return self.pos + off if off else None

    def scalar(self, slot, fmt, default=0):
        p = self.field(slot)
        return default if p is None else struct.unpack_from(
            "<" + fmt, self.b.d, p)[0]

    def _vec(self, slot):
        p = self.field(slot)
        if p is None:
            return None, 0
        start = p + self.b.u32(p)
        return start + 4, self.b.u32(start)

    def vector(self, slot, fmt):
        start, n = self._vec(slot)
        if start is None:
            return []
        size = struct.calcsize("<" + fmt)
        return [struct.unpack_from("<" + fmt, self.b.d, start + i * size)[0]
                for i in range(n)]

    def tables(self, slot):
        start, n = self._vec(slot)
        if start is None:
            return []
        return [Table(self.b, start + 4 * i + self.b.u32(start + 4 * i))
                for i in range(n)]

    def table(self, slot):
        p = self.field(slot)
        return None if p is None else Table(self.b, p + self.b.u32(p))

    def string(self, slot):
        start, n = self._vec(slot)
        return "" if start is None else self.b.d[start:start + n].decode()


# Builtin option tables: union value -> [(field, slot, format, default)].
OPTIONS = {
    1: [("padding", 0, "b", 0), ("stride_w", 1, "i", 0),
        ("stride_h", 2, "i", 0), ("act", 3, "b", 0),
        ("dilation_w", 4, "i", 1), ("dilation_h", 5, "i", 1)],
    2: [("padding", 0, "b", 0), ("stride_w", 1, "i", 0),
        ("stride_h", 2, "i", 0), ("depth_multiplier", 3, "i", 0),
        ("act", 4, "b", 0), ("dilation_w", 5, "i", 1),
        ("dilation_h", 6, "i", 1)],
    5: [("padding", 0, "b", 0), ("stride_w", 1, "i", 0),
        ("stride_h", 2, "i", 0), ("filter_w", 3, "i", 0),
        ("filter_h", 4, "i", 0), ("act", 5, "b", 0)],
    6: [("rank", 0, "i", 0), ("act", 1, "b", 0)],
    8: [("act", 0, "b", 0), ("weights_format", 1, "b", 0),
        ("keep_num_dims", 2, "B", 0)],
    9: [("beta", 0, "f", 0.0)],
    10: [("axis", 0, "i", 0), ("act", 1, "b", 0)],
    11: [("act", 0, "b", 0)],
    21: [("act", 0, "b", 0)],
    27: [("keep_dims", 0, "B", 0)],
}


def options(op):
    """The operator's builtin options as a dict (empty if none known)."""
    kind = op.scalar(3, "B")
    table = op.table(4)
    if table is None or kind not in OPTIONS:
        return {}
    return {name: table.scalar(slot, fmt, default)
            for name, slot, fmt, default in OPTIONS[kind]}


def decode(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[4:8] == b"TFL3", "not a TFLite file"
    b = Buf(data)
    model = Table(b, b.u32(0))
    codes = []
    for oc in model.tables(1):
        code = max(oc.scalar(0, "b"), oc.scalar(3, "i"))
        codes.append(code)
    buffers = [buf.vector(0, "B") for buf in model.tables(4)]
    sg = model.tables(2)[0]
    tensors = []
    for t in sg.tables(0):
        tname, size = TYPES[t.scalar(1, "b")]
        shape = t.vector(0, "i")
        n = 1
        for d in shape:
            n *= d
        # Unnamed tensors are called tensor_<index> (mem-opt's convention).
        name = t.string(3) or "tensor_%d" % len(tensors)
        bi = t.scalar(2, "I")
        q = t.table(4)
        scale = q.vector(2, "f") if q else []
        zero = q.vector(3, "q") if q else []
        tensors.append({"name": name, "type": tname, "shape": shape,
                        "bytes": n * size, "buffer": bi,
                        "data": bytes(buffers[bi]) if bi < len(buffers)
                        else b"",
                        "variable": bool(t.scalar(5, "B")),
                        "scale": scale, "zero_point": zero})
    ops = []
    for op in sg.tables(3):
        ops.append({"op": OPS.get(codes[op.scalar(0, "I")],
                                  str(codes[op.scalar(0, "I")])),
                    "inputs": op.vector(1, "i"), "outputs": op.vector(2, "i"),
                    "options": options(op)})
    return {"tensors": tensors, "ops": ops, "inputs": sg.vector(1, "i"),
            "outputs": sg.vector(2, "i")}


def location_names(text):
    """Maps each location alias to the names of the tensors the op holds:
    `#loc3 = loc("name")`, a name with a child (the layer),
    `loc("name"(#loc7))`, a weight mark around a name,
    `loc(fused<"memopt.weight">[#loc2])`, that with the layer,
    `loc(fused[#loc12, #loc11])`, and an op that also holds a view of its
    result, the importer's `loc(fused[#loc4, #loc9])` of two names. A layer
    (`loc(fused<{...}>[...])`) names no tensor."""
    raw = dict(re.findall(r'^(#loc\d*) = (loc\(.*\))$', text, re.M))
    names = {}
    for key, value in raw.items():
        m = re.match(r'loc\("([^"]*)"', value)
        if m:
            names[key] = [m.group(1)]
    # Fused locations name what their parts name; aliases may refer to later
    # ones, so resolve twice.
    for _ in range(2):
        for key, value in raw.items():
            m = re.match(r'loc\(fused(?:<"memopt.weight">)?\[(.*)\]\)$', value)
            if not m or key in names:
                continue
            found = []
            for part in re.findall(r'#loc\d*|"[^"]*"', m.group(1)):
                found += [part[1:-1]] if part.startswith('"') else \
                    names.get(part, [])
            if found:
                names[key] = found
    return names


def mlir_tensors(path):
    """Maps loc name -> (shape, element type) of the last non-constant op
    carrying that exact name, and of the function arguments."""
    text = open(path).read()
    locs = location_names(text)
    found = {}
    typ = r"tensor<([0-9x]*)x?(f32|f16|i32|i8|ui8|i16|i64|i1)>"
    for line in text.splitlines():
        # Constants (weights, zero points, shapes) are not activations.
        if "tosa.const" in line:
            continue
        m = re.search(r'loc\((#loc\d*|"[^"]*")\)\s*$', line)
        if not m or "->" not in line and ":" not in line:
            continue
        key = m.group(1)
        held = [key[1:-1]] if key.startswith('"') else locs.get(key)
        if not held:
            continue
        # The result type is the last tensor type before the loc.
        types = re.findall(typ, line[:m.start()])
        if not types:
            continue
        dims, elt = types[-1]
        shape = [int(x) for x in dims.split("x") if x] if dims else []
        # The op that defines a tensor is the last one carrying its name;
        # earlier ones are helpers (accumulators, rescales).
        for name in held:
            found[name] = (shape, elt)
    # Function arguments: %arg0: tensor<...> {attributes}? loc("name")
    for m in re.finditer(r'%arg\d+: ' + typ +
                         r'(?: \{[^}]*\})? loc\((#loc\d*|"[^"]*")\)', text):
        dims, elt, key = m.groups()
        held = [key[1:-1]] if key.startswith('"') else locs.get(key, [])
        shape = [int(x) for x in dims.split("x") if x] if dims else []
        for name in held:
            found.setdefault(name, (shape, elt))
    return found


def mutate(path, kind, args, out):
    """Writes a damaged copy of `path` to `out`, for the error tests:
    truncate N | flip OFFSET BIT | opcode CODE (every operator code becomes
    builtin CODE) | dynamic TENSOR (its first dimension becomes -1) |
    badinput INDEX (operator 0's first input becomes tensor INDEX) |
    graphinput INDEX (the graph's first input becomes tensor INDEX) |
    type CODE TENSOR... (each TENSOR's type becomes TensorType CODE; the
    field must be present, as it is for any type but FLOAT32)."""
    data = bytearray(open(path, "rb").read())
    b = Buf(bytes(data))
    model = Table(b, b.u32(0))
    if kind == "truncate":
        data = data[:int(args[0])]
    elif kind == "flip":
        data[int(args[0])] ^= 1 << int(args[1])
    elif kind == "opcode":
        for oc in model.tables(1):
            for slot, fmt in ((0, "<b"), (3, "<i")):
                p = oc.field(slot)
                if p is not None:
                    struct.pack_into(fmt, data, p, min(int(args[0]), 127)
                                     if slot == 0 else int(args[0]))
    elif kind == "dynamic":
        t = model.tables(2)[0].tables(0)[int(args[0])]
        start, n = t._vec(0)
        assert n > 0
        struct.pack_into("<i", data, start, -1)
    elif kind == "badinput":
        op = model.tables(2)[0].tables(3)[0]
        start, n = op._vec(1)
        struct.pack_into("<i", data, start, int(args[0]))
    elif kind == "graphinput":
        start, n = model.tables(2)[0]._vec(1)
        assert n > 0
        struct.pack_into("<i", data, start, int(args[0]))
    elif kind == "type":
        tensors = model.tables(2)[0].tables(0)
        for index in args[1:]:
            p = tensors[int(index)].field(1)
            assert p is not None, "tensor %s has no type field" % index
            data[p] = int(args[0])
    else:
        raise SystemExit("unknown mutation " + kind)
    open(out, "wb").write(bytes(data))
    return 0


PACK = {"f32": "f", "f16": "e", "i32": "i", "i8": "b", "ui8": "B",
        "i16": "h", "i64": "q"}


def mlir_constants(path):
    """Maps loc name -> raw little-endian bytes of every `tosa.const` whose
    location is a plain name (the importer's weights)."""
    text = open(path).read()
    locs = location_names(text)
    consts = {}
    pat = re.compile(r'"tosa.const"\(\) <\{values = dense<(.*)> : '
                     r'tensor<([0-9x]*?)x?(f32|f16|i32|i8|i16|i64)>\}> .*'
                     r'loc\((#loc\d*|"[^"]*")\)\s*$')
    for line in text.splitlines():
        m = pat.search(line)
        if not m:
            continue
        payload, dims, elt, key = m.groups()
        name = key[1:-1] if key.startswith('"') else locs.get(key, [None])[0]
        count = 1
        for d in dims.split("x") if dims else []:
            count *= int(d)
        if payload.startswith('"0x'):
            raw = bytes.fromhex(payload[3:-1])
        else:
            nums = re.findall(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan)",
                              payload)
            if len(nums) == 1:
                nums = nums * count
            conv = float if elt.startswith("f") else int
            raw = struct.pack("<%d%s" % (len(nums), PACK[elt]),
                              *[conv(x) for x in nums])
        consts.setdefault(name, []).append(raw)
    return consts


def main():
    if sys.argv[1] == "--mutate":
        # --mutate IN KIND ARGS... OUT
        return mutate(sys.argv[2], sys.argv[3], sys.argv[4:-1], sys.argv[-1])
    model = decode(sys.argv[1])
    if len(sys.argv) == 2:
        for i, t in enumerate(model["tensors"]):
            print(i, {k: v for k, v in t.items() if k != "data"})
        for i, o in enumerate(model["ops"]):
            print("op", i, o)
        print("inputs", model["inputs"], "outputs", model["outputs"])
        return 0
    assert sys.argv[2] == "--check"
    found = mlir_tensors(sys.argv[3])
    sizes = {"f32": 4, "f16": 2, "i32": 4, "i8": 1, "ui8": 1, "i16": 2,
             "i64": 8, "i1": 1}
    # Activations: graph inputs and every op output.
    # Variable tensors (recurrent state) become function arguments too.
    act = set(model["inputs"])
    for o in model["ops"]:
        act.update(o["outputs"])
        act.update(i for i in o["inputs"]
                   if i >= 0 and model["tensors"][i]["variable"])
    bad = 0
    total = 0
    for i in sorted(act):
        t = model["tensors"][i]
        if t["name"] not in found:
            print("missing tensor %d '%s' in the imported module"
                  % (i, t["name"]))
            bad += 1
            continue
        shape, elt = found[t["name"]]
        n = sizes[elt]
        for d in shape:
            n *= d
        squeezed = [d for d in shape if d != 1]
        if squeezed != [d for d in t["shape"] if d != 1] or n != t["bytes"]:
            print("tensor %d '%s': file %s %s (%d bytes), imported %s %s "
                  "(%d bytes)" % (i, t["name"], t["shape"], t["type"],
                                  t["bytes"], shape, elt, n))
            bad += 1
        total += t["bytes"]
    # Weights: every tensor with data that the module uses as a constant must
    # hold exactly the file's bytes.
    consts = mlir_constants(sys.argv[3])
    nconst = 0
    for i, t in enumerate(model["tensors"]):
        if not t["data"] or t["name"] not in consts:
            continue
        nconst += 1
        if any(raw != t["data"] for raw in consts[t["name"]]):
            print("constant %d '%s' differs from the file's %d bytes"
                  % (i, t["name"], len(t["data"])))
            bad += 1
    print("checked %d activation tensors (%d bytes), %d constants, "
          "%d mismatches" % (len(act), total, nconst, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
