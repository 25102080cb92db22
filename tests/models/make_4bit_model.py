#!/usr/bin/env python3
"""Writes a small ONNX model whose conversion holds 4-bit constants: a com.microsoft MatMulNBits
(bits 4, K = 80 so the last block is padded, packed 4-bit zero points, a bias), which wnn
converts to uint4 constants that its weights writer stores packed (rustnn packed-4 layout). Used
by js/test/loader-models.test.mjs to check the loader on 4-bit data wnn itself wrote.

usage: make_4bit_model.py OUT.onnx
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def pack_rows(q):
    """[rows, count] 4-bit values, packed along each row, element 0 in the low nibble."""
    if q.shape[1] % 2:
        q = np.concatenate([q, np.zeros((q.shape[0], 1), q.dtype)], axis=1)
    return (q[:, 0::2] | (q[:, 1::2] << 4)).astype(np.uint8)


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(4)
    k, n, block = 80, 7, 32
    blocks = -(-k // block)
    q = rng.integers(0, 16, size=(n, blocks * block), dtype=np.uint8)
    zp = rng.integers(0, 16, size=(n, blocks), dtype=np.uint8)
    inits = {
        "B": pack_rows(q).reshape(n, blocks, block // 2),
        "scales": rng.uniform(0.01, 0.1, size=(n * blocks,)).astype(np.float32),
        "zp": pack_rows(zp).reshape(-1),
        "bias": rng.uniform(-1, 1, size=(n,)).astype(np.float32),
    }
    node = helper.make_node("MatMulNBits", ["A", "B", "scales", "zp", "", "bias"], ["Y"],
                            domain="com.microsoft", K=k, N=n, bits=4, block_size=block)
    graph = helper.make_graph(
        [node], "matmul_nbits_4bit",
        [helper.make_tensor_value_info("A", TensorProto.FLOAT, [5, k])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [5, n])],
        [numpy_helper.from_array(v, name) for name, v in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                     helper.make_opsetid("com.microsoft", 1)])
    onnx.save(model, out)


if __name__ == "__main__":
    main()
