#!/usr/bin/python3
"""Writes the tiny ONNX models that tools/ort-reference/test.js runs through ONNX Runtime.

Usage: /usr/bin/python3 make_test_models.py OUTDIR

Built with Debian's python3-onnx (onnx.helper) so the tests need no network and no torch.
Every model is small enough that test.js computes the expected outputs by hand.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# ONNX Runtime 1.30 reads any IR version Debian's onnx 1.12 writes; pin both so the files are
# the same bytes on every run.
IR_VERSION = 8
OPSET = 13


def save(graph, path, **kwargs):
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="wnn-test"
    )
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    onnx.save_model(model, path, **kwargs)


def float_add_mul(outdir):
    """z = x + y and w = x * y on float32 [2, 3]: two outputs whose order test.js checks."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 3])
    w = helper.make_tensor_value_info("w", TensorProto.FLOAT, [2, 3])
    nodes = [
        # Listing w's producer first keeps graph output order distinct from node order.
        helper.make_node("Mul", ["x", "y"], ["w"], name="mul"),
        helper.make_node("Add", ["x", "y"], ["z"], name="add"),
    ]
    save(helper.make_graph(nodes, "float_add_mul", [x, y], [z, w]), f"{outdir}/float_add_mul.onnx")


def int64_and_bool(outdir):
    """sum = a + b (int64) and gt = a > b (bool) on [4]."""
    a = helper.make_tensor_value_info("a", TensorProto.INT64, [4])
    b = helper.make_tensor_value_info("b", TensorProto.INT64, [4])
    s = helper.make_tensor_value_info("sum", TensorProto.INT64, [4])
    gt = helper.make_tensor_value_info("gt", TensorProto.BOOL, [4])
    nodes = [
        helper.make_node("Add", ["a", "b"], ["sum"]),
        helper.make_node("Greater", ["a", "b"], ["gt"]),
    ]
    save(helper.make_graph(nodes, "int64_and_bool", [a, b], [s, gt]), f"{outdir}/int64_and_bool.onnx")


def float16_cast(outdir):
    """h = Cast(x, float16) and back = Cast(h16_in, float) + 0: float16 out and in."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [5])
    h_in = helper.make_tensor_value_info("h_in", TensorProto.FLOAT16, [5])
    h = helper.make_tensor_value_info("h", TensorProto.FLOAT16, [5])
    back = helper.make_tensor_value_info("back", TensorProto.FLOAT, [5])
    nodes = [
        helper.make_node("Cast", ["x"], ["h"], to=TensorProto.FLOAT16),
        helper.make_node("Cast", ["h_in"], ["back"], to=TensorProto.FLOAT),
    ]
    save(helper.make_graph(nodes, "float16_cast", [x, h_in], [h, back]), f"{outdir}/float16_cast.onnx")


def identity_dtypes(outdir):
    """One Identity per remaining safetensors dtype, so each round-trips through ORT."""
    types = {
        "i8": TensorProto.INT8,
        "u8": TensorProto.UINT8,
        "i32": TensorProto.INT32,
        "u32": TensorProto.UINT32,
        "u64": TensorProto.UINT64,
        "f64": TensorProto.DOUBLE,
    }
    inputs, outputs, nodes = [], [], []
    for name, t in types.items():
        inputs.append(helper.make_tensor_value_info(f"{name}_in", t, [3]))
        outputs.append(helper.make_tensor_value_info(f"{name}_out", t, [3]))
        nodes.append(helper.make_node("Identity", [f"{name}_in"], [f"{name}_out"]))
    save(helper.make_graph(nodes, "identity_dtypes", inputs, outputs), f"{outdir}/identity_dtypes.onnx")


def dynamic_add(outdir):
    """Add over two symbolic dims: feeding [3] and [4] fails inside ORT at run time."""
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, ["n"])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, ["m"])
    c = helper.make_tensor_value_info("c", TensorProto.FLOAT, ["k"])
    nodes = [helper.make_node("Add", ["a", "b"], ["c"], name="broadcast_add")]
    save(helper.make_graph(nodes, "dynamic_add", [a, b], [c]), f"{outdir}/dynamic_add.onnx")


def external_weights(outdir):
    """y = x + bias where bias lives in an external data file beside the model."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    bias = numpy_helper.from_array(np.array([0.5, -1.0, 0.0, 300.0], np.float32), "bias")
    nodes = [helper.make_node("Add", ["x", "bias"], ["y"])]
    graph = helper.make_graph(nodes, "external_weights", [x], [y], initializer=[bias])
    save(
        graph,
        f"{outdir}/external_weights.onnx",
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location="external_weights.bin",
        size_threshold=0,
    )


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_test_models.py OUTDIR")
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    for make in (float_add_mul, int64_and_bool, float16_cast, identity_dtypes, dynamic_add,
                 external_weights):
        make(outdir)


if __name__ == "__main__":
    main()
