#!/usr/bin/python3
"""Small ONNX models for the validate-models tests, written at test time with onnx.helper.

Usage: /usr/bin/python3 tests/sweep/make_sweep_models.py OUTDIR

  mlp.onnx          MatMul + Add + Relu, weights inside the file
  mlp_crashme.onnx  the same graph under a name the test fault switch matches
  external.onnx     the same graph with its weights in external.onnx.data (a sidecar)
  custom.onnx       a node of an unknown domain (com.example::Frobnicate): never converts
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def mlp(name):
    rng = np.random.default_rng(7)
    w = numpy_helper.from_array(rng.standard_normal((5, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(np.array([-0.5, 0.0, 1.25], np.float32), "b")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 5])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3])
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"]),
             helper.make_node("Add", ["h", "b"], ["z"]),
             helper.make_node("Relu", ["z"], ["y"])]
    graph = helper.make_graph(nodes, name, [x], [y], [w, b])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def custom():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    node = helper.make_node("Frobnicate", ["x"], ["y"], domain="com.example")
    graph = helper.make_graph([node], "custom", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid("com.example", 1)])


def main(out):
    os.makedirs(out, exist_ok=True)
    onnx.save(mlp("mlp"), os.path.join(out, "mlp.onnx"))
    onnx.save(mlp("mlp"), os.path.join(out, "mlp_crashme.onnx"))
    m = mlp("external")
    onnx.save_model(m, os.path.join(out, "external.onnx"), save_as_external_data=True,
                    all_tensors_to_one_file=True, location="external.onnx.data",
                    size_threshold=0)
    onnx.save(custom(), os.path.join(out, "custom.onnx"))


if __name__ == "__main__":
    main(sys.argv[1])
