#!/usr/bin/python3
"""Writes a ~300 MB ONNX model (a stack of MatMul+Add layers with float32 weights in raw_data)
for bench/onnx_decode. Usage: make_big_onnx.py OUT.onnx [MEGABYTES]"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
megabytes = int(sys.argv[2]) if len(sys.argv) > 2 else 300
width = 1024
layers = max(1, megabytes * 1024 * 1024 // (width * width * 4))
rng = np.random.default_rng(0)
nodes, inits = [], []
prev = "x"
for i in range(layers):
    w = rng.standard_normal((width, width), dtype=np.float32)
    b = rng.standard_normal((width,), dtype=np.float32)
    inits += [numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(b, f"b{i}")]
    nodes += [helper.make_node("MatMul", [prev, f"w{i}"], [f"m{i}"]),
              helper.make_node("Add", [f"m{i}", f"b{i}"], [f"y{i}"])]
    prev = f"y{i}"
graph = helper.make_graph(nodes, "big", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, width])],
                          [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, width])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
with open(out, "wb") as f:
    f.write(model.SerializeToString())
