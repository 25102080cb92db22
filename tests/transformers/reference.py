"""Numpy forward passes of the generated transformers, written from the papers' and the
operator docs' definitions, independent of the generator.

The weights are read back from the written ONNX file (initializers found through the node
that consumes them, by the node names the exporters use) and packed weights are unpacked here,
so a wrong byte in the file shows as a difference from ONNX Runtime.
"""

import math

import numpy as np
import onnx
from onnx import numpy_helper


class ModelFile:
    def __init__(self, path):
        self.model = onnx.load(path)  # external data resolved beside the file
        g = self.model.graph
        # int4/uint4 tensors (numpy has no such dtype) are kept as their packed bytes.
        self.inits = {t.name: (np.frombuffer(t.raw_data, np.uint8) if t.data_type in (21, 22)
                               else numpy_helper.to_array(t)) for t in g.initializer}
        self.types = {t.name: t.data_type for t in g.initializer}
        self.nodes = {n.name: n for n in g.node}

    def node(self, *names):
        for name in names:
            if name in self.nodes:
                return self.nodes[name]
        raise KeyError(f"none of {names} in the model")

    def attr(self, node, name, default=None):
        for a in node.attribute:
            if a.name == name:
                return onnx.helper.get_attribute_value(a)
        return default

    def constant(self, name):
        if name in self.inits:
            return self.inits[name]
        for n in self.model.graph.node:
            if n.op_type == "Constant" and n.output[0] == name:
                return numpy_helper.to_array(self.attr(n, "value"))
        raise KeyError(name)


def unpack_nbits(packed, bits, count):
    """uint8 [..., bytes] -> values [..., count], low-order bits first in each byte."""
    if bits == 8:
        return packed[..., :count].astype(np.int64)
    mask = (1 << bits) - 1
    parts = [(packed.astype(np.int64) >> shift) & mask for shift in range(0, 8, bits)]
    return np.stack(parts, axis=-1).reshape(packed.shape[:-1] + (-1,))[..., :count]


def dequantize_matmul_nbits(b, scales, zero_points, k, n, bits, block_size):
    """MatMulNBits' weight as float [K, N]: (q - zero_point) * scale per block along K."""
    k_blocks = -(-k // block_size)
    q = unpack_nbits(b.reshape(n, k_blocks, -1), bits, block_size)  # [N, k_blocks, block]
    if zero_points is None:
        zero = np.full((n, k_blocks), 2 ** (bits - 1), np.int64)
    elif zero_points.dtype == np.uint8:
        zero = unpack_nbits(zero_points.reshape(n, -1), bits, k_blocks)
    else:
        zero = zero_points.reshape(n, k_blocks)
    w = (q - zero[..., None]) * scales.reshape(n, k_blocks)[..., None].astype(np.float64)
    return w.reshape(n, k_blocks * block_size)[:, :k].T


class Weight:
    """A MatMul's [K, N] weight; `x @ weight` multiplies as the node does.

    accuracy_level 4 (MatMulNBits): ONNX Runtime quantizes each row of A per block of K to
    int8, symmetric, scale = max|a| / 127, rounded to nearest, then multiplies exactly.
    """

    __array_ufunc__ = None  # so that `ndarray @ Weight` calls __rmatmul__

    def __init__(self, w, a_block=None):
        self.w, self.a_block = w, a_block

    def columns(self, begin, end):
        return Weight(self.w[:, begin:end], self.a_block)

    def __rmatmul__(self, x):
        if self.a_block is None:
            return x @ self.w
        k, b = x.shape[-1], self.a_block
        blocks = -(-k // b)
        padded = np.zeros(x.shape[:-1] + (blocks * b,))
        padded[..., :k] = x
        padded = padded.reshape(x.shape[:-1] + (blocks, b))
        scale = np.abs(padded).max(-1, keepdims=True) / 127
        scale = np.where(scale == 0, 1, scale)
        quantized = (np.round(padded / scale) * scale).reshape(x.shape[:-1] + (blocks * b,))
        return quantized[..., :k] @ self.w


def linear_weight(f, node_name):
    """The Weight a MatMul or MatMulNBits node (named as the MatMul was) multiplies by."""
    for suffix in ("", "_Q4", "_Q8", "_Q2"):
        if node_name + suffix in f.nodes:
            node = f.nodes[node_name + suffix]
            break
    else:
        raise KeyError(node_name)
    if node.op_type == "MatMul":
        return Weight(f.inits[node.input[1]].astype(np.float64))
    k, n, block = f.attr(node, "K"), f.attr(node, "N"), f.attr(node, "block_size")
    zp = f.inits[node.input[3]] if len(node.input) > 3 and node.input[3] else None
    w = dequantize_matmul_nbits(f.inits[node.input[1]], f.inits[node.input[2]], zp, k, n,
                                f.attr(node, "bits", 4), block)
    return Weight(w, block if f.attr(node, "accuracy_level", 0) == 4 else None)


def rms_norm(x, w, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def softmax(x):
    x = x - x.max(-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(-1, keepdims=True)


def rotary(x, positions, theta, dims=None, interleaved=False):
    """Rotates the first `dims` (default all) of the last axis of [B, H, S, D] by the rotary
    embedding, pairing halves (x[i], x[i + dims / 2]) or, interleaved, adjacent elements
    (x[2i], x[2i + 1]); the other columns pass unchanged."""
    d = dims or x.shape[-1]
    inv_freq = 1.0 / theta ** (np.arange(0, d, 2) / d)
    angles = positions[:, None, :, None] * inv_freq  # [B, 1, S, d/2]
    cos, sin = np.cos(angles), np.sin(angles)
    r, rest = x[..., :d], x[..., d:]
    if interleaved:
        x1, x2 = r[..., 0::2], r[..., 1::2]
        y = np.stack([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1).reshape(r.shape)
    else:
        x1, x2 = r[..., : d // 2], r[..., d // 2:]
        y = np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)
    return np.concatenate([y, rest], axis=-1)


def attention(q, k, v, mask, past_length, scale):
    """Causal attention of q [B, H, S, D] over k, v [B, KV, T, D]; mask [B, T] (1 = keep)."""
    heads, kv_heads = q.shape[1], k.shape[1]
    group = heads // kv_heads
    k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    s, t = q.shape[2], k.shape[2]
    scores = q @ k.transpose(0, 1, 3, 2) * scale
    visible = np.arange(t)[None, :] <= (past_length + np.arange(s))[:, None]  # [S, T]
    visible = visible[None, None] & (mask[:, None, None, :] != 0)
    scores = np.where(visible, scores, -np.inf)
    return softmax(scores) @ v


def split(x, heads):
    b, s, width = x.shape
    return x.reshape(b, s, heads, width // heads).transpose(0, 2, 1, 3)


def merge(x):
    b, h, s, d = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, s, h * d)


class DecoderNames:
    """Where a decoder's pieces live in a file, by exporter."""

    def __init__(self, f, kind, sizes, quant):
        self.f, self.kind, self.sizes, self.quant = f, kind, sizes, quant

    def embedding(self):
        f, s = self.f, self.sizes
        if self.kind == "decoder-optimum":
            return f.inits[f.node("/model/embed_tokens/Gather").input[0]].astype(np.float64)
        if "/model/embed_tokens/GatherBlockQuantized" in f.nodes:
            node = f.nodes["/model/embed_tokens/GatherBlockQuantized"]
            reshape = f.nodes["/model/embed_tokens/Reshape"]
            packed = f.inits[reshape.input[0]].reshape(s["vocab"], -1)
            bits, block = f.attr(node, "bits"), f.attr(node, "block_size")
            q = unpack_nbits(packed, bits, s["hidden"])
            scales = f.inits[node.input[2]].reshape(s["vocab"], -1).astype(np.float64)
            blocks = np.arange(s["hidden"]) // block
            return (q - 2 ** (bits - 1)) * scales[:, blocks]
        if "/model/embed_tokens/Gather_Q4" in f.nodes:
            # int4 (two's complement, zero point 0) or uint4 with zero points, per row blocks.
            node = f.nodes["/model/embed_tokens/Gather_Q4"]
            v, h, block = s["vocab"], s["hidden"], f.attr(node, "block_size")
            q = unpack_nbits(f.inits[node.input[0]], 4, 2 * f.inits[node.input[0]].size)
            q = q.reshape(v, h)
            if f.types[node.input[0]] == 22:
                q = np.where(q >= 8, q - 16, q)
            scales = f.inits[node.input[2]].astype(np.float64)
            blocks = np.arange(h) // block
            zero = 0
            if len(node.input) > 3:
                zp = unpack_nbits(f.inits[node.input[3]], 4, scales.size).reshape(scales.shape)
                zero = zp[:, blocks]
            return (q - zero) * scales[:, blocks]
        gather = f.nodes["/model/embed_tokens/Gather"]
        if "/model/embed_tokens/Transpose" in f.nodes:
            return f.inits[f.nodes["/model/embed_tokens/Transpose"].input[0]].T.astype(np.float64)
        return f.inits[gather.input[0]].astype(np.float64)

    def norm_weight(self, layer, which):
        f = self.f
        if self.kind == "decoder-optimum":
            scope = {"input": f"/model/layers.{layer}/input_layernorm",
                     "post_attention": f"/model/layers.{layer}/post_attention_layernorm",
                     "final_norm": "/model/norm"}[which]
            return f.inits[f.node(f"{scope}/Mul_1").input[0]]
        return f.inits[f"model.layers.{layer}.{which}_layernorm.weight"]

    def projections(self, layer):
        f, s = self.f, self.sizes
        if self.kind == "decoder-optimum":
            base = f"/model/layers.{layer}/self_attn"
            return [linear_weight(f, f"{base}/{p}_proj/MatMul") for p in "qkv"]
        base = f"/model/layers.{layer}/attn"
        if any(n.startswith(f"{base}/qkv_proj/MatMul") for n in f.nodes):
            w = linear_weight(f, f"{base}/qkv_proj/MatMul")
            q = s["heads"] * s["head_dim"]
            kv = s["kv_heads"] * s["head_dim"]
            return w.columns(0, q), w.columns(q, q + kv), w.columns(q + kv, q + 2 * kv)
        return [linear_weight(f, f"{base}/{p}_proj/MatMul") for p in "qkv"]

    def linear(self, layer, which):
        attn = "self_attn" if self.kind == "decoder-optimum" else "attn"
        path = {"o": f"{attn}/o_proj", "gate": "mlp/gate_proj", "up": "mlp/up_proj",
                "down": "mlp/down_proj"}[which]
        return linear_weight(self.f, f"/model/layers.{layer}/{path}/MatMul")

    def lm_head(self):
        return linear_weight(self.f, "/lm_head/MatMul")


def decoder_forward(path, sidecar, feeds):
    """logits and present.{i}.key/value of a decoder for one feed (float64)."""
    s = sidecar["sizes"]
    names = DecoderNames(ModelFile(path), sidecar["kind"], s, sidecar["quantization"])
    ids, mask = feeds["input_ids"], feeds["attention_mask"]
    past_length = feeds["past_key_values.0.key"].shape[2]
    positions = past_length + np.arange(ids.shape[1])[None].repeat(ids.shape[0], 0)
    if "position_ids" in feeds:
        positions = feeds["position_ids"]
    x = names.embedding()[ids]
    layout = sidecar.get("rotary", {})
    rope = {"dims": layout.get("dims"), "interleaved": layout.get("interleaved", False)}
    out = {}
    for i in range(s["layers"]):
        h = rms_norm(x, names.norm_weight(i, "input"), s["rms_eps"])
        wq, wk, wv = names.projections(i)
        q = rotary(split(h @ wq, s["heads"]), positions, s["rope_theta"], **rope)
        k = rotary(split(h @ wk, s["kv_heads"]), positions, s["rope_theta"], **rope)
        v = split(h @ wv, s["kv_heads"])
        k = np.concatenate([feeds[f"past_key_values.{i}.key"], k], axis=2)
        v = np.concatenate([feeds[f"past_key_values.{i}.value"], v], axis=2)
        out[f"present.{i}.key"], out[f"present.{i}.value"] = k, v
        a = attention(q, k, v, mask, past_length, 1 / math.sqrt(s["head_dim"]))
        x = x + merge(a) @ names.linear(i, "o")
        h = rms_norm(x, names.norm_weight(i, "post_attention"), s["rms_eps"])
        gate = h @ names.linear(i, "gate")
        x = x + (gate / (1 + np.exp(-gate)) * (h @ names.linear(i, "up"))) @ names.linear(i, "down")
    x = rms_norm(x, names.norm_weight(s["layers"], "final_norm"), s["rms_eps"])
    out["logits"] = x @ names.lm_head()
    return out


def dynamic_quantize(x):
    """DynamicQuantizeLinear: uint8 over [min(x, 0), max(x, 0)], rounding half to even."""
    x = x.astype(np.float32)
    lo, hi = min(float(x.min()), 0.0), max(float(x.max()), 0.0)
    scale = np.float32((hi - lo) / 255) if hi > lo else np.float32(1)
    zero = np.clip(np.round(np.float32(-lo) / scale), 0, 255)
    q = np.clip(np.round(x / scale) + zero, 0, 255)
    return q.astype(np.int64), scale, int(zero)


class EncoderWeights:
    def __init__(self, f):
        self.f = f

    def table(self, gather_name):
        node = self.f.node(gather_name)
        data = self.f.inits[node.input[0]]
        if data.dtype == np.float32:
            return data.astype(np.float64)
        dq = self.f.node(f"{node.output[0][:-len('_quantized')]}_DequantizeLinear")
        return ((data.astype(np.int64) - self.f.inits[dq.input[2]].astype(np.int64))
                * self.f.inits[dq.input[1]].astype(np.float64))

    def linear(self, x, scope):
        """x @ W + b for the torch-named linear at `scope` (float or MatMulInteger form)."""
        f = self.f
        add = f.node(f"{scope}/Add")
        bias = f.inits[add.input[0]].astype(np.float64)
        if f"{scope}/MatMul" in f.nodes:
            return x @ f.inits[f.nodes[f"{scope}/MatMul"].input[1]] + bias
        mmi = f.node(f"{scope}/MatMul_quant")
        wq = f.inits[mmi.input[1]].astype(np.int64) - f.inits[mmi.input[3]].astype(np.int64)
        w_scale = f.inits[mmi.input[1][:-len("_quantized")] + "_scale"]
        xq, x_scale, x_zero = dynamic_quantize(x)
        acc = ((xq - x_zero) @ wq).astype(np.float32)
        return (acc * (x_scale * w_scale)).astype(np.float64) + bias

    def ln(self, scope, x, eps):
        f = self.f
        if f"{scope}/LayerNormalization" in f.nodes:
            node = f.nodes[f"{scope}/LayerNormalization"]
            w, b = f.inits[node.input[1]], f.inits[node.input[2]]
        else:
            w = f.inits[f.node(f"{scope}/Mul").input[1]]
            b = f.inits[f.node(f"{scope}/Add_1").input[1]]
        return layer_norm(x, w, b, eps)


def encoder_forward(path, sidecar, feeds, eps=1e-12):
    s = sidecar["sizes"]
    w = EncoderWeights(ModelFile(path))
    ids, mask, types = feeds["input_ids"], feeds["attention_mask"], feeds["token_type_ids"]
    x = (w.table("/embeddings/word_embeddings/Gather")[ids]
         + w.table("/embeddings/token_type_embeddings/Gather")[types]
         + w.table("/embeddings/position_embeddings/Gather")[np.arange(ids.shape[1])][None])
    x = w.ln("/embeddings/LayerNorm", x, eps)
    erf = np.vectorize(math.erf)
    for i in range(s["layers"]):
        base = f"/encoder/layer.{i}"
        q, k, v = (split(w.linear(x, f"{base}/attention/self/{p}"), s["heads"])
                   for p in ("query", "key", "value"))
        scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(s["head_dim"])
        scores = scores + (1.0 - mask[:, None, None, :]) * np.finfo(np.float32).min
        a = merge(softmax(scores) @ v)
        x = w.ln(f"{base}/attention/output/LayerNorm",
                 w.linear(a, f"{base}/attention/output/dense") + x, eps)
        h = w.linear(x, f"{base}/intermediate/dense")
        h = h * 0.5 * (1 + erf(h / math.sqrt(2)))
        x = w.ln(f"{base}/output/LayerNorm", w.linear(h, f"{base}/output/dense") + x, eps)
    return {"last_hidden_state": x}
