#!/usr/bin/python3
"""Writes tiny ONNX models for the importer tests, in the backend-test layout
(OUT/<case>/model.onnx + test_data_set_0/input_N.pb, output_N.pb). Expected outputs are
computed here with plain numpy, independently of wnn. Re-runnable: python3 make_import_models.py OUT
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

rng = np.random.default_rng(7)


def write_case(out, name, nodes, inputs, outputs, inits=(), opset=17, extra_opsets=()):
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    g_inputs = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype)
                                              if hasattr(helper, "np_dtype_to_tensor_dtype")
                                              else TensorProto.FLOAT, v.shape)
                for n, v in inputs]
    g_outputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, v.shape) for n, v in outputs]
    graph = helper.make_graph(nodes, name, g_inputs, g_outputs,
                              [numpy_helper.from_array(v, n) for n, v in inits])
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d_, v) for d_, v in extra_opsets]
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 8
    save(model, os.path.join(d, "model.onnx"))
    for i, (n, v) in enumerate(inputs):
        t = numpy_helper.from_array(v, n)
        open(os.path.join(d, "test_data_set_0", f"input_{i}.pb"), "wb").write(t.SerializeToString())
    for i, (n, v) in enumerate(outputs):
        t = numpy_helper.from_array(v.astype(np.float32), n)
        open(os.path.join(d, "test_data_set_0", f"output_{i}.pb"), "wb").write(t.SerializeToString())


def conv2d_ref(x, w, b, pads, strides):
    # pads in ONNX order [b_h, b_w, e_h, e_w]
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    n, c, h, wd = xp.shape
    m, _, kh, kw = w.shape
    oh = (h - kh) // strides[0] + 1
    ow = (wd - kw) // strides[1] + 1
    y = np.zeros((n, m, oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * strides[0]:i * strides[0] + kh, j * strides[1]:j * strides[1] + kw]
            y[:, :, i, j] = np.tensordot(patch, w, axes=([1, 2, 3], [1, 2, 3]))
    return (y + b.reshape(1, -1, 1, 1)).astype(np.float32)


def main(out):
    # Conv with asymmetric pads: ONNX [b_h, b_w, e_h, e_w] must reach WebNN as
    # [b_h, e_h, b_w, e_w]; a swap changes the output shape and values.
    x = rng.standard_normal((1, 2, 5, 4)).astype(np.float32)
    w = rng.standard_normal((3, 2, 3, 2)).astype(np.float32)
    b = np.array([0.5, -1.25, 0.0], np.float32)
    pads, strides = [2, 0, 1, 1], [2, 1]
    write_case(out, "conv_asymmetric_pads",
               [helper.make_node("Conv", ["x", "w", "b"], ["y"], pads=pads, strides=strides)],
               [("x", x)], [("y", conv2d_ref(x, w, b, pads, strides))], [("w", w), ("b", b)])

    # Gemm alpha=0 must drop A*B entirely (0 is not "absent"); beta=0.5, transB=1.
    a = rng.standard_normal((2, 3)).astype(np.float32)
    bm = rng.standard_normal((4, 3)).astype(np.float32)
    c = np.array([[1.0, -2.0, 3.0, -4.0]], np.float32)
    write_case(out, "gemm_alpha_zero",
               [helper.make_node("Gemm", ["a", "b", "c"], ["y"], alpha=0.0, beta=0.5, transB=1)],
               [("a", a)], [("y", np.broadcast_to(0.5 * c, (2, 4)).copy())], [("b", bm), ("c", c)])

    # Gemm with the defaults (alpha=beta=1, no transposes) and no C.
    bm2 = rng.standard_normal((3, 5)).astype(np.float32)
    write_case(out, "gemm_defaults", [helper.make_node("Gemm", ["a", "b"], ["y"])],
               [("a", a)], [("y", a @ bm2)], [("b", bm2)])

    # LayerNormalization over axis=1 of a rank-3 input with epsilon=0 (not the default 1e-5).
    x3 = rng.standard_normal((2, 3, 4)).astype(np.float32) * 3
    scale = rng.standard_normal((3, 4)).astype(np.float32)
    bias = rng.standard_normal((3, 4)).astype(np.float32)
    mean = x3.mean(axis=(1, 2), keepdims=True)
    var = x3.var(axis=(1, 2), keepdims=True)
    ln = (x3 - mean) / np.sqrt(var) * scale + bias
    write_case(out, "layernorm_axis1_epsilon0",
               [helper.make_node("LayerNormalization", ["x", "s", "b"], ["y"], axis=1,
                                 epsilon=0.0)],
               [("x", x3)], [("y", ln)], [("s", scale), ("b", bias)])

    # BatchNormalization with epsilon=0.
    x4 = rng.standard_normal((2, 3, 2, 2)).astype(np.float32)
    s = np.array([1.5, -0.5, 2.0], np.float32)
    bb = np.array([0.1, 0.2, -0.3], np.float32)
    m = np.array([0.5, -1.0, 0.25], np.float32)
    v = np.array([0.25, 4.0, 1.0], np.float32)
    bn = (x4 - m.reshape(1, 3, 1, 1)) / np.sqrt(v.reshape(1, 3, 1, 1)) * s.reshape(1, 3, 1, 1) \
        + bb.reshape(1, 3, 1, 1)
    write_case(out, "batchnorm_epsilon0",
               [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"],
                                 epsilon=0.0)],
               [("x", x4)], [("y", bn)], [("s", s), ("b", bb), ("m", m), ("v", v)])

    # MaxPool with SAME_UPPER on an odd size and stride 2: the extra pad goes at the end.
    x5 = rng.standard_normal((1, 1, 5, 5)).astype(np.float32)
    xp = np.pad(x5, ((0, 0), (0, 0), (0, 1), (0, 1)), constant_values=-np.inf)
    mp = np.array([[xp[0, 0, i:i + 2, j:j + 2].max() for j in range(0, 5, 2)]
                   for i in range(0, 5, 2)], np.float32).reshape(1, 1, 3, 3)
    write_case(out, "maxpool_same_upper",
               [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2],
                                 auto_pad="SAME_UPPER")],
               [("x", x5)], [("y", mp)])

    # Softmax at opset 11 coerces to 2-D at axis=1: the normalisation spans dims 1 and 2.
    x6 = rng.standard_normal((2, 3, 4)).astype(np.float32)
    flat = x6.reshape(2, 12)
    e = np.exp(flat - flat.max(axis=1, keepdims=True))
    sm = (e / e.sum(axis=1, keepdims=True)).reshape(2, 3, 4)
    write_case(out, "softmax_opset11_coerced",
               [helper.make_node("Softmax", ["x"], ["y"], axis=1)], [("x", x6)], [("y", sm)],
               opset=11)

    # Softmax at opset 13 with axis=0: normalises over dim 0 only.
    e0 = np.exp(x6 - x6.max(axis=0, keepdims=True))
    write_case(out, "softmax_opset13_axis0",
               [helper.make_node("Softmax", ["x"], ["y"], axis=0)], [("x", x6)],
               [("y", e0 / e0.sum(axis=0, keepdims=True))], opset=13)

    # com.microsoft SkipLayerNormalization: LN(input + skip + bias) over the last axis, with
    # epsilon=0.01 and output 3 the sum; and FastGelu with a bias (tanh approximation).
    xa = rng.standard_normal((2, 3, 4)).astype(np.float32)
    sk = rng.standard_normal((2, 3, 4)).astype(np.float32)
    gamma = rng.standard_normal(4).astype(np.float32)
    beta = rng.standard_normal(4).astype(np.float32)
    bias4 = np.array([0.5, -0.25, 0.0, 1.0], np.float32)
    total = xa + sk + bias4
    mu = total.mean(axis=-1, keepdims=True)
    var4 = total.var(axis=-1, keepdims=True)
    sln = (total - mu) / np.sqrt(var4 + 0.01) * gamma + beta
    write_case(out, "ms_skip_layer_norm",
               [helper.make_node("SkipLayerNormalization", ["x", "s", "g", "b", "bias"],
                                 ["y", "", "", "sum"], domain="com.microsoft", epsilon=0.01)],
               [("x", xa), ("s", sk)], [("y", sln), ("sum", total)],
               [("g", gamma), ("b", beta), ("bias", bias4)],
               extra_opsets=[("com.microsoft", 1)])
    z = xa + bias4
    fg = 0.5 * z * (1 + np.tanh(np.sqrt(2 / np.pi) * (z + 0.044715 * z ** 3)))
    write_case(out, "ms_fast_gelu_bias",
               [helper.make_node("FastGelu", ["x", "bias"], ["y"], domain="com.microsoft")],
               [("x", xa)], [("y", fg)], [("bias", bias4)], extra_opsets=[("com.microsoft", 1)])


if __name__ == "__main__":
    main(sys.argv[1])
