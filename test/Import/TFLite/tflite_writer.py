#!/usr/bin/python3
# ===- tflite_writer.py - Tiny TFLite flatbuffer writer for tests ---------=== #
#
# Part of the mem-opt project.
#
# ===----------------------------------------------------------------------=== #
#
# Writes one-subgraph TFLite models byte by byte, following the TFLite schema
# (lib/Import/tflite_schema.fbs lists the fields mem-opt reads), with no
# flatc, no generated code and no package beyond the standard library.
#
# The layout runs forwards: every table is written as its vtable, then the
# table (its soffset back to the vtable, then its inline fields), then the
# objects its offset fields point to, each patched into its field once
# written. uoffsets therefore always point forwards, as the format requires;
# scalars, vector lengths and elements are aligned to their size (buffer
# data to 16 bytes), so that flatbuffers' verifier accepts the file.
#
# Field slots used (schema order; a union takes two: its type, its value):
#   Model{version 0, operator_codes 1, subgraphs 2, description 3,
#         buffers 4}
#   SubGraph{tensors 0, inputs 1, outputs 2, operators 3, name 4}
#   Tensor{shape 0, type 1, buffer 2, name 3, quantization 4}
#   QuantizationParameters{min 0, max 1, scale 2, zero_point 3}
#   Operator{opcode_index 0, inputs 1, outputs 2, builtin_options_type 3,
#            builtin_options 4}
#   OperatorCode{deprecated_builtin_code 0, custom_code 1, version 2,
#                builtin_code 3}
#   Buffer{data 0}
#
# ===----------------------------------------------------------------------=== #

import struct

# TensorType values.
FLOAT32, INT32, INT8 = 0, 2, 9
# BuiltinOperator values.
ADD, AVERAGE_POOL_2D, MEAN = 0, 1, 40
# BuiltinOptions union values.
POOL2D_OPTIONS, ADD_OPTIONS, REDUCER_OPTIONS = 5, 11, 27
# Padding values.
SAME, VALID = 0, 1


class Scalar:
    """An inline table field: struct format and value."""

    def __init__(self, fmt, value):
        self.fmt, self.value = fmt, value


class Vector:
    """A vector of scalars (struct format per element)."""

    def __init__(self, fmt, values, align=None):
        self.fmt, self.values = fmt, list(values)
        self.align = align or struct.calcsize("<" + fmt)


class String:
    def __init__(self, text):
        self.data = text.encode()


class Table:
    """A table: fields[slot] is None (absent), a Scalar or an object."""

    def __init__(self, fields):
        self.fields = fields


class Tables:
    """A vector of tables."""

    def __init__(self, tables):
        self.tables = list(tables)


class Writer:
    def __init__(self):
        self.buf = bytearray()

    def pad(self, align, phase=0):
        while len(self.buf) % align != phase:
            self.buf.append(0)

    def put(self, fmt, value):
        self.buf += struct.pack("<" + fmt, value)

    def patch_offset(self, at, target):
        struct.pack_into("<I", self.buf, at, target - at)

    def object(self, obj):
        """Writes `obj` at the end and returns its position (for a vector or
        string: that of its length)."""
        if isinstance(obj, Table):
            return self.table(obj)
        if isinstance(obj, Vector):
            # The length is 4-aligned and directly precedes the elements.
            a = max(4, obj.align)
            self.pad(a, (a - 4) % a)
            at = len(self.buf)
            self.put("I", len(obj.values))
            for v in obj.values:
                self.put(obj.fmt, v)
            return at
        if isinstance(obj, String):
            self.pad(4)
            at = len(self.buf)
            self.put("I", len(obj.data))
            self.buf += obj.data + b"\0"
            return at
        if isinstance(obj, Tables):
            self.pad(4)
            at = len(self.buf)
            self.put("I", len(obj.tables))
            slots = []
            for _ in obj.tables:
                slots.append(len(self.buf))
                self.put("I", 0)
            for slot, t in zip(slots, obj.tables):
                self.patch_offset(slot, self.table(t))
            return at
        raise TypeError(obj)

    def table(self, t):
        n = len(t.fields)
        # The vtable: its size, the table's size, one u16 per slot.
        self.pad(2)
        vt = len(self.buf)
        self.buf += bytes(4 + 2 * n)
        self.pad(4)
        at = len(self.buf)
        self.put("i", at - vt)  # vtable = table - soffset
        offsets = {}
        children = []
        for slot, f in enumerate(t.fields):
            if f is None:
                continue
            if isinstance(f, Scalar):
                size = struct.calcsize("<" + f.fmt)
                self.pad(size)
                offsets[slot] = len(self.buf) - at
                self.put(f.fmt, f.value)
            else:
                self.pad(4)
                offsets[slot] = len(self.buf) - at
                children.append((len(self.buf), f))
                self.put("I", 0)
        struct.pack_into("<HH", self.buf, vt, 4 + 2 * n, len(self.buf) - at)
        for slot, off in offsets.items():
            struct.pack_into("<H", self.buf, vt + 4 + 2 * slot, off)
        for field_at, child in children:
            self.patch_offset(field_at, self.object(child))
        return at


def tensor(name, shape, ttype, scale=None, zero_point=None, buffer=0):
    quant = None
    if scale is not None:
        quant = Table([None, None, Vector("f", [scale]),
                       Vector("q", [zero_point or 0])])
    return Table([Vector("i", shape), Scalar("b", ttype),
                  Scalar("I", buffer), String(name), quant])


def model(op, options_type, options, tensors, inputs, outputs, buffers):
    """A model of one operator `op` reading `inputs` and writing `outputs`
    (tensor indices); `buffers` are the data of buffers 1.. (buffer 0 is the
    empty one activations use)."""
    code = Table([Scalar("b", op), None, Scalar("i", 1), Scalar("i", op)])
    operator = Table([Scalar("I", 0), Vector("i", inputs),
                      Vector("i", outputs), Scalar("B", options_type),
                      options])
    subgraph = Table([Tables(tensors), Vector("i", inputs_of(tensors,
                                                             inputs)),
                      Vector("i", outputs), Tables([operator]),
                      String("main")])
    bufs = [Table([])] + [Table([Vector("B", data, align=16)])
                          for data in buffers]
    root = Table([Scalar("I", 3), Tables([code]), Tables([subgraph]),
                  String("mem-opt test model"), Tables(bufs)])
    w = Writer()
    w.put("I", 0)
    w.buf += b"TFL3"
    w.patch_offset(0, w.table(root))
    return bytes(w.buf)


def inputs_of(tensors, inputs):
    """The graph inputs: the operator inputs without a data buffer."""
    return [i for i in inputs if tensors[i].fields[2].value == 0]


def average_pool(shape, kernel, stride, padding, scale, zero_point,
                 out_shape, act=0):
    """AVERAGE_POOL_2D of an int8 [N, H, W, C] input; the output keeps the
    input's quantization, as TFLite requires."""
    options = Table([Scalar("b", padding), Scalar("i", stride[1]),
                     Scalar("i", stride[0]), Scalar("i", kernel[1]),
                     Scalar("i", kernel[0]), Scalar("b", act)])
    tensors = [tensor("input", shape, INT8, scale, zero_point),
               tensor("output", out_shape, INT8, scale, zero_point)]
    return model(AVERAGE_POOL_2D, POOL2D_OPTIONS, options, tensors, [0], [1],
                 [])


def add(shape, a, b, out, act=0):
    """int8 ADD of two [shape] inputs; a, b, out are (scale, zero point)."""
    options = Table([Scalar("b", act)])
    tensors = [tensor("a", shape, INT8, *a), tensor("b", shape, INT8, *b),
               tensor("sum", shape, INT8, *out)]
    return model(ADD, ADD_OPTIONS, options, tensors, [0, 1], [2], [])


def mean(shape, axes, keep_dims, q_in, q_out, out_shape):
    """int8 MEAN of an input of `shape` over constant `axes`."""
    options = Table([Scalar("B", 1 if keep_dims else 0)])
    axis_data = b"".join(struct.pack("<i", a) for a in axes)
    tensors = [tensor("input", shape, INT8, *q_in),
               tensor("axes", [len(axes)], INT32, buffer=1),
               tensor("mean", out_shape, INT8, *q_out)]
    return model(MEAN, REDUCER_OPTIONS, options, tensors, [0, 1], [2],
                 [axis_data])
