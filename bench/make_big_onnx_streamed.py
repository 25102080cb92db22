#!/usr/bin/python3
"""Writes a big float32 ONNX model (a stack of MatMul+Add layers, 1024 wide) without holding it
in memory: the protobuf is written field by field, one layer's weights at a time, so a 1 GB
model needs a few MB of RAM. Usage: make_big_onnx_streamed.py OUT.onnx MEGABYTES [--external]
With --external the weights go to OUT.onnx.data (data_location EXTERNAL); otherwise they are
raw_data inside the .onnx."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper

WIDTH = 1024


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(number, wire_type):
    return varint((number << 3) | wire_type)


def tensor_header(name, dims):
    # A TensorProto with everything but its data (make_tensor insists on values).
    t = TensorProto()
    t.name = name
    t.data_type = TensorProto.FLOAT
    t.dims.extend(dims)
    return t


def layer_weights(rng, i):
    # Mixed signs and magnitudes; float32 generated directly (no float64 detour).
    w = rng.random((WIDTH, WIDTH), dtype=np.float32) * 2 - 1
    b = rng.random((WIDTH,), dtype=np.float32) - 0.5
    return [(f"w{i}", w), (f"b{i}", b)]


def main():
    out, megabytes = sys.argv[1], int(sys.argv[2])
    external = "--external" in sys.argv[3:]
    layers = max(1, megabytes * 1024 * 1024 // (WIDTH * WIDTH * 4))
    nodes, prev = [], "x"
    for i in range(layers):
        nodes += [helper.make_node("MatMul", [prev, f"w{i}"], [f"m{i}"]),
                  helper.make_node("Add", [f"m{i}", f"b{i}"], [f"y{i}"])]
        prev = f"y{i}"
    shapes = []
    for i in range(layers):
        shapes += [(f"w{i}", [WIDTH, WIDTH]), (f"b{i}", [WIDTH])]
    graph = helper.make_graph(
        nodes, "big", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, WIDTH])],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, WIDTH])])
    rng = np.random.default_rng(0)
    if external:
        data_path = out + ".data"
        offset = 0
        with open(data_path, "wb") as data:
            for i in range(layers):
                for name, v in layer_weights(rng, i):
                    t = tensor_header(name, v.shape)
                    t.data_location = TensorProto.EXTERNAL
                    for k, val in (("location", os.path.basename(data_path)),
                                   ("offset", str(offset)), ("length", str(v.nbytes))):
                        e = t.external_data.add()
                        e.key, e.value = k, val
                    graph.initializer.append(t)
                    data.write(v.tobytes())
                    offset += v.nbytes
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        with open(out, "wb") as f:
            f.write(model.SerializeToString())
        return
    # raw_data: ModelProto without its graph, then the graph field whose length counts the
    # initializers still to be streamed.
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    graph_bytes = model.graph.SerializeToString()
    model.ClearField("graph")
    heads = []
    for name, dims in shapes:
        meta = tensor_header(name, dims).SerializeToString()
        nbytes = 4 * int(np.prod(dims))
        raw_head = field(9, 2) + varint(nbytes)
        heads.append(field(5, 2) + varint(len(meta) + len(raw_head) + nbytes) + meta + raw_head)
    total = len(graph_bytes) + sum(len(h) + 4 * int(np.prod(d)) for h, (_, d) in zip(heads, shapes))
    with open(out, "wb") as f:
        f.write(model.SerializeToString())
        f.write(field(7, 2) + varint(total))
        f.write(graph_bytes)
        k = 0
        for i in range(layers):
            for _, v in layer_weights(rng, i):
                f.write(heads[k])
                f.write(v.tobytes())
                k += 1


if __name__ == "__main__":
    main()
