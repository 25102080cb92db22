"""Writes one ONNX model with its data set in the backend-test layout (model.onnx +
test_data_set_0/{input,output}_N.pb), which `wnn onnx-test` and the gtest runners read. Shared
by the make_*_models.py generators."""
import os

import numpy as np
from onnx import helper, mapping, numpy_helper, save


def write_case(out, name, nodes, inputs, outputs, inits=(), opset=17):
    """inputs/outputs: [(name, ndarray)]; inits: [(name, ndarray)] initializers."""
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)

    def info(n, v):
        return helper.make_tensor_value_info(n, mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(v.dtype)],
                                             v.shape)

    graph = helper.make_graph(nodes, name, [info(n, v) for n, v in inputs],
                              [info(n, v) for n, v in outputs],
                              [numpy_helper.from_array(v, n) for n, v in inits])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    save(model, os.path.join(d, "model.onnx"))
    for kind, values in (("input", inputs), ("output", outputs)):
        for i, (n, v) in enumerate(values):
            with open(os.path.join(d, "test_data_set_0", f"{kind}_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(v, n).SerializeToString())
