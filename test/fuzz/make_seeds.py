#!/usr/bin/python3
# ===- make_seeds.py - Seed corpora for the importer fuzzers --------------=== #
#
# Part of the mem-opt project.
#
# ===----------------------------------------------------------------------=== #
#
# make_seeds.py tflite|onnx OUTDIR [MODEL...]
#
# Writes the seed corpus of one fuzzer into OUTDIR (emptied first): each
# MODEL, 16 truncations of it and 16 copies with one bit flipped, at
# deterministic positions. Models larger than 512 KiB are skipped (they slow
# each run more than they add). For ONNX, two small models built here with
# Debian's python3-onnx (conv/relu/add/pool/gemm, and a BatchNorm graph) are
# added to the given ones.
#
# ===----------------------------------------------------------------------=== #

import os
import random
import shutil
import sys


def onnx_models():
    try:
        import numpy as np
        import onnx
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        return []
    rng = np.random.default_rng(7)

    def init(name, shape):
        return numpy_helper.from_array(
            rng.standard_normal(shape).astype(np.float32), name)

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1",
                         pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], name="conv2",
                         pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["c2", "r1"], ["a"], name="add"),
        helper.make_node("MaxPool", ["a"], ["p"], name="pool",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("GlobalAveragePool", ["p"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "w3", "b3"], ["y"], name="fc",
                         transB=1),
    ]
    graph = helper.make_graph(
        nodes, "seed", [x], [y],
        [init("w1", [4, 3, 3, 3]), init("b1", [4]), init("w2", [4, 4, 3, 3]),
         init("w3", [10, 4]), init("b3", [10])])
    m1 = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])

    x2 = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 4])
    y2 = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 4, 4])
    nodes2 = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="conv",
                         pads=[0, 0, 0, 0]),
        helper.make_node("BatchNormalization", ["c", "s", "b", "m", "v"],
                         ["bn"], name="bn"),
        helper.make_node("Concat", ["bn", "bn"], ["cat"], name="cat", axis=1),
        helper.make_node("Conv", ["cat", "w2"], ["y"], name="conv2",
                         group=4),
    ]
    graph2 = helper.make_graph(
        nodes2, "seed2", [x2], [y2],
        [init("w", [4, 2, 1, 1]), init("s", [4]), init("b", [4]),
         init("m", [4]),
         numpy_helper.from_array(np.ones([4], np.float32), "v"),
         init("w2", [4, 2, 1, 1])])
    m2 = helper.make_model(graph2,
                           opset_imports=[helper.make_opsetid("", 17)])
    return [("seed_small.onnx", m1.SerializeToString()),
            ("seed_bn.onnx", m2.SerializeToString())]


def main():
    fmt, out, models = sys.argv[1], sys.argv[2], sys.argv[3:]
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    seeds = []
    for path in models:
        if os.path.isfile(path) and os.path.getsize(path) <= 512 * 1024:
            seeds.append((os.path.basename(path), open(path, "rb").read()))
    if fmt == "onnx":
        seeds += onnx_models()
    rnd = random.Random(1)
    for name, data in seeds:
        open(os.path.join(out, name), "wb").write(data)
        for i in range(16):
            n = rnd.randrange(len(data))
            open(os.path.join(out, "%s.trunc%d" % (name, n)), "wb").write(
                data[:n])
            flipped = bytearray(data)
            off = rnd.randrange(len(data))
            flipped[off] ^= 1 << rnd.randrange(8)
            open(os.path.join(out, "%s.flip%d" % (name, off)), "wb").write(
                bytes(flipped))
    print("%d seeds in %s" % (len(os.listdir(out)), out))


if __name__ == "__main__":
    main()
