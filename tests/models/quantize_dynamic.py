"""Rewrites a float ONNX model into onnxruntime.quantization.quantize_dynamic's idiom, for the
test zoo (Debian has no onnxruntime Python package; this is wnn's own code, following the
structure and names ORT's IntegerOps quantizer emits).

  Conv    -> DynamicQuantizeLinear(x) + ConvInteger(x_q, W_q, x_zp, W_zp) + Cast(float)
             + Mul(x_scale * W_scale) + Add(Reshape(bias))
  MatMul  -> DynamicQuantizeLinear(a) + MatMulInteger(a_q, B_q, a_zp, B_zp) + Cast(float)
             + Mul(a_scale * B_scale); a MatMul of two activations quantizes both.

Each activation is quantized once (`<name>_QuantizeLinear` with outputs `<name>_quantized`,
`<name>_scale`, `<name>_zero_point`); weights become initializers `<W>_quantized`, `<W>_scale`
and `<W>_zero_point`: uint8 asymmetric over [min(W, 0), max(W, 0)], or int8 symmetric with
zero point 0; MatMul weights per column when per_channel. ORT names the scale products
`<node>_quant_scales_mul:0`; with colon_free (the zoo's default for now) the suffix is `_0`,
since a `.webnn` graph does not yet reload a name holding ':' (the isnet-quint8 dev model shows
the real names).
"""

import numpy as np
from onnx import TensorProto, helper, numpy_helper


def quantize_weight(w, dtype, per_channel_axis=None):
    """Returns (quantized, scale, zero_point) of a float weight."""
    axis_shape = [1] * w.ndim
    if per_channel_axis is None:
        lo, hi = np.minimum(w.min(), 0.0), np.maximum(w.max(), 0.0)
    else:
        others = tuple(a for a in range(w.ndim) if a != per_channel_axis)
        lo, hi = np.minimum(w.min(axis=others), 0.0), np.maximum(w.max(axis=others), 0.0)
        axis_shape[per_channel_axis] = -1
    if dtype == np.uint8:
        scale = ((hi - lo) / 255.0).astype(np.float32)
        scale = np.where(scale == 0, np.float32(1), scale)
        zero = np.clip(np.rint(-lo / scale), 0, 255).astype(np.uint8)
        q = np.clip(np.rint(w / scale.reshape(axis_shape)) + zero.reshape(axis_shape), 0, 255)
    else:
        absmax = np.maximum(np.abs(lo), np.abs(hi))
        scale = (absmax / 127.0).astype(np.float32)
        scale = np.where(scale == 0, np.float32(1), scale)
        zero = np.zeros(np.shape(scale), np.int8)
        q = np.clip(np.rint(w / scale.reshape(axis_shape)), -127, 127)
    return q.astype(dtype), np.asarray(scale, np.float32), np.asarray(zero, dtype)


def quantize_dynamic(model, weight_type=np.uint8, per_channel=False, colon_free=True):
    """Returns `model` with every Conv of constant weight and every MatMul rewritten."""
    suffix = "_0" if colon_free else ":0"
    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    new_nodes, new_inits, quantized = [], [], {}

    def activation(name):
        if name not in quantized:
            q, s, z = name + "_quantized", name + "_scale", name + "_zero_point"
            new_nodes.append(helper.make_node("DynamicQuantizeLinear", [name], [q, s, z],
                                              name + "_QuantizeLinear"))
            quantized[name] = (q, s, z)
        return quantized[name]

    def weight(name, axis):
        names = (name + "_quantized", name + "_scale", name + "_zero_point")
        if name not in quantized:
            w = numpy_helper.to_array(inits[name]).astype(np.float32)
            for array, n in zip(quantize_weight(w, weight_type, axis), names):
                new_inits.append(numpy_helper.from_array(array, n))
            quantized[name] = names
        return names

    for node in graph.node:
        is_conv = node.op_type == "Conv" and node.input[1] in inits
        is_matmul = node.op_type == "MatMul"
        if not (is_conv or is_matmul):
            new_nodes.append(node)
            continue
        xq, xs, xz = activation(node.input[0])
        if is_conv:
            # Per tensor: ORT's ConvInteger refuses a per-channel weight zero point.
            wq, ws, wz = weight(node.input[1], None)
        elif node.input[1] in inits:
            wq, ws, wz = weight(node.input[1], 1 if per_channel else None)
        else:
            wq, ws, wz = activation(node.input[1])
        base = node.name + "_quant"
        acc = node.output[0] + "_output_quantized"
        kind = "ConvInteger" if is_conv else "MatMulInteger"
        integer = helper.make_node(kind, [xq, wq, xz, wz], [acc], base)
        if is_conv:
            integer.attribute.extend(node.attribute)
        cast_out = acc + "_cast_output"
        scales = base + "_scales_mul"
        has_bias = is_conv and len(node.input) > 2 and node.input[2]
        scaled = node.output[0] + "quant_scaled_output" if has_bias else node.output[0]
        new_nodes += [
            integer,
            helper.make_node("Cast", [acc], [cast_out], acc + "_cast", to=TensorProto.FLOAT),
            helper.make_node("Mul", [xs, ws], [scales + suffix], scales),
            helper.make_node("Mul", [cast_out, scales + suffix], [scaled],
                             base + "_output_scale_mul"),
        ]
        if has_bias:
            out = node.output[0]
            rank = len(inits[node.input[1]].dims)
            shape = np.ones(rank, np.int64)
            shape[1] = -1
            new_inits.append(numpy_helper.from_array(shape, out + "_bias_reshape_shape"))
            new_nodes += [
                helper.make_node("Reshape", [node.input[2], out + "_bias_reshape_shape"],
                                 [out + "_bias_reshape_output"]),
                helper.make_node("Add", [scaled, out + "_bias_reshape_output"], [out],
                                 out + "_bias_add"),
            ]
    used = {i for n in new_nodes for i in n.input}
    kept = [t for t in graph.initializer if t.name in used]
    del graph.node[:]
    graph.node.extend(new_nodes)
    del graph.initializer[:]
    graph.initializer.extend(kept + [t for t in new_inits if t.name in used])
    model.producer_name, model.producer_version = "onnx.quantize", "0.1.0"
    return model
