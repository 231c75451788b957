#!/usr/bin/python3
#===- make-fixtures.py - Small hand-made ONNX files for the lit tests ------===#
#
# Writes the committed fixtures of test/Import/ONNX next to this script. Run
# with Debian's Python (python3-onnx); the output is deterministic.
#
#   conv-bn.onnx          Conv (1x2x2x2 weight 0..7, bias 1) + BatchNorm
#                         (gamma 4, beta 1, mean 0.5, var 3, eps 1: scale 2)
#                         + Relu + Transpose/Reshape/Flatten + Gemm
#   unsupported-op.onnx   Conv followed by an LRN node
#   dynamic-dim.onnx      an input whose batch dimension is 'batch'
#   undefined-input.onnx  a Relu reading a value nothing defines
#   grouped-conv.onnx     a Conv with group = 2 over 4 channels
#   bad-raw-data.onnx     conv-bn.onnx with the weight's raw_data cut short
#                         (what a flipped length byte produces)
#
#===------------------------------------------------------------------------===#
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def tensor(name, array):
    return numpy_helper.from_array(np.asarray(array, dtype=np.float32), name)


def save(graph, name):
    model = helper.make_model(graph, producer_name="mem-opt-fixtures",
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(model.SerializeToString())
    return model


def conv_bn():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])
    inits = [
        tensor("w", np.arange(8).reshape(1, 2, 2, 2)),
        tensor("b", [1.0]),
        tensor("gamma", [4.0]), tensor("beta", [1.0]),
        tensor("mean", [0.5]), tensor("var", [3.0]),
        tensor("fc_w", np.arange(12).reshape(3, 4) * 0.25),
        tensor("fc_b", [0.5, -0.5, 1.0]),
        numpy_helper.from_array(np.array([1, 4], dtype=np.int64), "shape"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv",
                         kernel_shape=[2, 2]),
        helper.make_node("BatchNormalization",
                         ["c", "gamma", "beta", "mean", "var"], ["n"],
                         name="bn", epsilon=1.0),
        helper.make_node("Relu", ["n"], ["r"], name="relu"),
        helper.make_node("Reshape", ["r", "shape"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["y"], name="fc",
                         transB=1),
    ]
    return helper.make_graph(nodes, "conv_bn", [x], [y], inits)


def main():
    model = save(conv_bn(), "conv-bn.onnx")

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 2, 2])
    w = tensor("w", np.ones((1, 2, 2, 2)))
    save(helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["c"], name="conv"),
         helper.make_node("LRN", ["c"], ["y"], name="norm", size=3)],
        "unsupported", [x], [y], [w]), "unsupported-op.onnx")

    xd = helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["batch", 2, 3, 3])
    yd = helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       ["batch", 2, 3, 3])
    save(helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")],
        "dynamic", [xd], [yd]), "dynamic-dim.onnx")

    graph = helper.make_graph(
        [helper.make_node("Relu", ["ghost"], ["y"], name="relu")],
        "undefined", [x], [helper.make_tensor_value_info(
            "y", TensorProto.FLOAT, [1, 2, 3, 3])])
    model_u = helper.make_model(graph,
                                opset_imports=[helper.make_opsetid("", 13)])
    model_u.ir_version = 8
    with open(os.path.join(HERE, "undefined-input.onnx"), "wb") as f:
        f.write(model_u.SerializeToString())  # the checker would reject it

    x4 = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 3, 3])
    y4 = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 3, 3])
    save(helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="grouped",
                          group=2, kernel_shape=[1, 1])],
        "grouped", [x4], [y4], [tensor("w", np.ones((4, 2, 1, 1)))]),
        "grouped-conv.onnx")

    bad = onnx.ModelProto()
    bad.CopyFrom(model)
    bad.graph.initializer[0].raw_data = bad.graph.initializer[0].raw_data[:28]
    with open(os.path.join(HERE, "bad-raw-data.onnx"), "wb") as f:
        f.write(bad.SerializeToString())


if __name__ == "__main__":
    main()
