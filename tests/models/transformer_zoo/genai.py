"""Decoders in the layout onnxruntime-genai's model builder writes for the CPU provider.

What the builder does and this file follows (src/python/py/models/builders/base.py):
- opset {"": 21, "com.microsoft": 1}, IR 10, producer "onnxruntime-genai"; every initializer in
  one external file `{model}.onnx.data` (size threshold 0).
- inputs input_ids [batch_size, sequence_length], attention_mask [batch_size,
  total_sequence_length] (int64), past_key_values.{i}.key for every layer then every
  .value [batch_size, kv_heads, past_sequence_length, kv_cache_dim]; outputs logits, then
  present.{i}.key, present.{i}.value likewise. Builders before March 2026 (most published
  models) interleave key and value per layer and give head_dim as a number: io_order.
  position_ids is an input only when rotary runs outside the attention op.
- GroupQueryAttention (fp32 CPU): one packed qkv_proj MatMul, rotary inside the op
  (do_rotary=1, cos/sin caches [context, head_dim/2] as initializers), seqlens_k =
  ReduceSum(attention_mask) - 1 as int32 and total_sequence_length = Shape(attention_mask)[1]
  as int32. The MultiHeadAttention form: q/k/v_proj, RotaryEmbedding on q and k with
  position_ids, and a 4D additive causal + padding mask as attention_bias.
- SimplifiedLayerNormalization first, then SkipSimplifiedLayerNormalization whose output 3
  (the residual sum) feeds the next one; the last one has a single output.
- SiLU MLP as Sigmoid + Mul, times up_proj; lm_head MatMul writes `logits`.
- int4/int8: every MatMul becomes MatMulNBits named `{node}_Q{bits}` reading `{weight}_Q{bits}`,
  `{weight}_scales` (and `{weight}_zero_points` when asymmetric), attributes K, N, bits,
  block_size, accuracy_level. The embedding stays a float Gather (op_types_to_quantize is
  MatMul only), so a tied model keeps two copies: the float table and lm_head's packed one.
  With Gather quantized as well, tied embeddings read lm_head's packed weight through
  Reshape + GatherBlockQuantized (uint8 data, bits=4): one copy; an untied table becomes its
  own GatherBlockQuantized `/model/embed_tokens/Gather_Q4` over an int4 (uint4 with zero points)
  tensor [vocab, hidden] quantized along hidden.
- fp32 tied embeddings: Gather over Transpose(lm_head.MatMul.weight).
- names: `/model/layers.{i}/attn/qkv_proj/MatMul`, outputs `{node}/output_{i}`, weights
  `model.layers.{i}.attn.qkv_proj.MatMul.weight`, constants `/model/constants/INT64/[1]`.
"""

import numpy as np

from .config import decoder_weights, rotary_caches
from .graph import GENAI, INT4, UINT4, Graph, float_min
from .quant import block_quantize, gather_block_quantize

F32, I64 = np.float32, np.int64


class GenaiDecoder:
    def __init__(self, name, c):
        self.c, self.g = c, Graph("main_graph", GENAI)
        self.w = decoder_weights(name, c)
        self.kv_heads = c.kv_heads if c.attention == "gqa" else c.heads
        assert c.attention == "gqa" or c.kv_heads == c.heads, \
            "the MultiHeadAttention form is written without repeat_kv: kv_heads == heads"

    def const(self, value, dtype="INT64"):
        return self.g.genai_constant(dtype, value)

    # --- pieces ----------------------------------------------------------------------------

    def linear(self, node, x, weight, output=None):
        """MatMul (fp32) or MatMulNBits (quantized) of x by a [K, N] weight."""
        g, q = self.g, self.c.nbits
        weight_name = node[1:].replace("/", ".") + ".weight"
        out = [output] if output else 1
        if q is None:
            return g.node("MatMul", [x, g.init(weight_name, weight)], node, out)
        k, n = weight.shape
        b, scales, zero_points = block_quantize(weight, q.bits, q.block_size, q.symmetric)
        if node == "/lm_head/MatMul" and self.c.tied and self.c.quantize_gather:
            # GatherBlockQuantized wants scales of data's rank; MatMulNBits takes [N, k_blocks].
            scales = scales.reshape(n, -1)
        inputs = [x, g.init(f"{weight_name}_Q{q.bits}", b), g.init(f"{weight_name}_scales", scales)]
        if zero_points is not None:
            inputs.append(g.init(f"{weight_name}_zero_points", zero_points))
        # The quantizer keeps the MatMul's output name and renames the node.
        outputs = [output or g.output_name(node, 0)]
        return g.node("MatMulNBits", inputs, f"{node}_Q{q.bits}", outputs, domain="com.microsoft",
                      K=k, N=n, bits=q.bits, block_size=q.block_size,
                      accuracy_level=q.accuracy_level)

    def io(self):
        g, c = self.g, self.c
        grouped = c.io_order == "grouped"
        last = "kv_cache_dim" if grouped else c.head_dim
        kv_in = ["batch_size", self.kv_heads, "past_sequence_length", last]
        kv_out = ["batch_size", self.kv_heads, "total_sequence_length", last]
        g.input("input_ids", I64, ["batch_size", "sequence_length"])
        g.input("attention_mask", I64, ["batch_size", "total_sequence_length"])
        if c.attention == "mha":
            g.input("position_ids", I64, ["batch_size", "sequence_length"])
        for i, kind in self.cache_order():
            g.input(f"past_key_values.{i}.{kind}", F32, kv_in)
        g.output("logits", F32, ["batch_size", "sequence_length", c.vocab])
        for i, kind in self.cache_order():
            g.output(f"present.{i}.{kind}", F32, kv_out)

    def cache_order(self):
        layers, kinds = range(self.c.layers), ("key", "value")
        if self.c.io_order == "grouped":
            return [(i, k) for k in kinds for i in layers]
        return [(i, k) for i in layers for k in kinds]

    def gqa_mask_inputs(self):
        g, base = self.g, "/model/attn_mask_reformat/attn_mask_subgraph"
        total = g.node("ReduceSum", ["attention_mask", self.const([1])], f"{base}/ReduceSum",
                       keepdims=0)
        sub = g.node("Sub", [total, self.const([1])], f"{base}/Sub")
        seqlens_k = g.node("Cast", [sub], f"{base}/Sub/Cast", to=6)  # int32
        shape = g.node("Shape", ["attention_mask"], f"{base}/Shape")
        length = g.node("Gather", [shape, self.const(1)], f"{base}/Gather", axis=0)
        total_length = g.node("Cast", [length], f"{base}/Gather/Cast", to=6)
        return seqlens_k, total_length

    def mha_mask(self):
        """attention_bias [B, N, S, T]: 0 where allowed, float32 min where causal or padding.

        Key j is visible to query i (absolute position T - S + i) when j <= T - S + i.
        """
        g, base = self.g, "/model/attn_mask_reformat"
        ids, mask = f"{base}/input_ids_subgraph", f"{base}/attn_mask_subgraph"
        s_shape = g.node("Shape", ["input_ids"], f"{ids}/Shape_2")
        s = g.node("Gather", [s_shape, self.const(1)], f"{ids}/Gather_2", axis=0)
        t_shape = g.node("Shape", ["attention_mask"], f"{mask}/Shape_2")
        t = g.node("Gather", [t_shape, self.const(1)], f"{mask}/Gather_2", axis=0)
        past = g.node("Sub", [t, s], f"{ids}/Sub")
        rows = g.node("Range", [self.const(0), s, self.const(1)], f"{ids}/Range")
        rows = g.node("Add", [rows, past], f"{ids}/Add_2")
        rows = g.node("Unsqueeze", [rows, self.const([1])], f"{ids}/Unsqueeze_8")
        cols = g.node("Range", [self.const(0), t, self.const(1)], f"{ids}/Range_1")
        future = g.node("Less", [rows, cols], f"{ids}/Less")
        causal = g.node("Where", [future, self.const(float_min(), "FLOAT"), self.const(0.0, "FLOAT")],
                        f"{ids}/Where_2")
        m = g.node("Unsqueeze", ["attention_mask", self.const([1, 2])], f"{mask}/Unsqueeze_3")
        m = g.node("Cast", [m], f"{mask}/Cast_1", to=1)
        m = g.node("Sub", [self.const(1.0, "FLOAT"), m], f"{mask}/Sub")
        padded = g.node("Cast", [m], f"{mask}/Cast_2", to=9)  # bool
        padding = g.node("Where", [padded, self.const(float_min(), "FLOAT"), m], f"{mask}/Where_2")
        bias = g.node("Add", [padding, causal], f"{base}/Add")
        return g.node("Tile", [bias, self.const([1, self.c.heads, 1, 1])], f"{base}/Tile")

    def norm(self, layer, location, root, skip, weight, last=False):
        g, eps = self.g, self.c.rms_eps
        base = f"/model/layers.{layer}/{location}_layernorm"
        weight = g.init(f"model.layers.{layer}.{location}_layernorm.weight", weight)
        out0 = f"{base}/output_0"
        if skip is None:
            g.node("SimplifiedLayerNormalization", [root, weight], f"{base}/LayerNorm", [out0],
                   epsilon=eps, axis=-1, stash_type=1)
            return out0, root
        if last:
            g.node("SkipSimplifiedLayerNormalization", [root, skip, weight],
                   f"{base}/SkipLayerNorm", [out0], domain="com.microsoft", epsilon=eps)
            return out0, None
        out3 = f"{base}/output_3"
        g.node("SkipSimplifiedLayerNormalization", [root, skip, weight], f"{base}/SkipLayerNorm",
               [out0, "", "", out3], domain="com.microsoft", epsilon=eps)
        return out0, out3

    def attention(self, i, x, lw, mask, caches):
        g, c = self.g, self.c
        base = f"/model/layers.{i}/attn"
        past = [f"past_key_values.{i}.key", f"past_key_values.{i}.value"]
        present = [f"present.{i}.key", f"present.{i}.value"]
        scale = float(1 / np.sqrt(c.head_dim))
        if c.attention == "gqa":
            qkv = self.linear(f"{base}/qkv_proj/MatMul", x,
                              np.concatenate([lw["q"], lw["k"], lw["v"]], axis=1))
            seqlens_k, total = mask
            out = g.node("GroupQueryAttention",
                         [qkv, "", "", past[0], past[1], seqlens_k, total, caches[0], caches[1],
                          "", "", ""],
                         f"{base}/GroupQueryAttention", [f"{base}/GroupQueryAttention/output_0"] +
                         present, domain="com.microsoft", num_heads=c.heads,
                         kv_num_heads=c.kv_heads, scale=scale, local_window_size=-1,
                         softcap=0.0, do_rotary=1,
                         rotary_interleaved=int(c.rotary_interleaved))[0]
        else:
            q = self.linear(f"{base}/q_proj/MatMul", x, lw["q"])
            k = self.linear(f"{base}/k_proj/MatMul", x, lw["k"])
            v = self.linear(f"{base}/v_proj/MatMul", x, lw["v"])
            rotated = []
            for which, value in (("q", q), ("k", k)):
                rotated.append(g.node("RotaryEmbedding", [value, "position_ids", *caches],
                                      f"{base}/{which}_rotary/RotaryEmbedding",
                                      domain="com.microsoft",
                                      interleaved=int(c.rotary_interleaved),
                                      num_heads=c.heads if c.rotary_dim else 0,
                                      rotary_embedding_dim=c.rotary_dim))
            out = g.node("MultiHeadAttention", [rotated[0], rotated[1], v, "", "", mask, *past],
                         f"{base}/MultiHeadAttention",
                         [f"{base}/MultiHeadAttention/output_0"] + present,
                         domain="com.microsoft", num_heads=c.heads, scale=scale,
                         unidirectional=0)[0]
        return self.linear(f"{base}/o_proj/MatMul", out, lw["o"])

    def mlp(self, i, x, lw):
        g, base = self.g, f"/model/layers.{i}/mlp"
        gate = self.linear(f"{base}/gate_proj/MatMul", x, lw["gate"])
        up = self.linear(f"{base}/up_proj/MatMul", x, lw["up"])
        sig = g.node("Sigmoid", [gate], f"{base}/act_fn/Sigmoid")
        act = g.node("Mul", [gate, sig], f"{base}/act_fn/Mul")
        prod = g.node("Mul", [act, up], f"{base}/Mul")
        return self.linear(f"{base}/down_proj/MatMul", prod, lw["down"])

    def embedding(self):
        g, c, base = self.g, self.c, "/model/embed_tokens"
        if c.tied and c.nbits is not None and c.quantize_gather:
            q = c.nbits
            assert q.symmetric, "the builder shares packed embeddings only for symmetric weights"
            flat = g.node("Reshape", [f"lm_head.MatMul.weight_Q{q.bits}",
                                      self.const([c.vocab, c.hidden * q.bits // 8])],
                          f"{base}/Reshape")
            return g.node("GatherBlockQuantized", [flat, "input_ids", "lm_head.MatMul.weight_scales"],
                          f"{base}/GatherBlockQuantized", domain="com.microsoft", bits=q.bits,
                          block_size=q.block_size, gather_axis=0, quantize_axis=1)
        if c.quantize_gather:
            # MatMulNBitsQuantizer with Gather in op_types: int4 table, its own copy.
            q = c.nbits
            assert q.bits == 4, "the quantizer's Gather path is 4-bit only"
            data, scales, zero_points = gather_block_quantize(self.w["embed"], q.block_size,
                                                              q.symmetric)
            weight = "model.embed_tokens.weight"
            inputs = [g.init_raw(f"{weight}_Q4", INT4 if q.symmetric else UINT4,
                                 [c.vocab, c.hidden], data), "input_ids",
                      g.init(f"{weight}_scales", scales)]
            if zero_points is not None:
                inputs.append(g.init_raw(f"{weight}_zero_points", UINT4, list(scales.shape),
                                         zero_points))
            return g.node("GatherBlockQuantized", inputs, f"{base}/Gather_Q4",
                          [g.output_name(f"{base}/Gather", 0)], domain="com.microsoft",
                          gather_axis=0, quantize_axis=1, block_size=q.block_size)
        if c.tied and c.nbits is None:
            table = g.node("Transpose", ["lm_head.MatMul.weight"], f"{base}/Transpose", perm=[1, 0])
        else:
            table = g.init("model.embed_tokens.weight", self.w["embed"])
        return g.node("Gather", [table, "input_ids"], f"{base}/Gather")

    def build(self):
        g, c, w = self.g, self.c, self.w
        self.io()
        mask = self.gqa_mask_inputs() if c.attention == "gqa" else self.mha_mask()
        # The head goes first so a tied embedding can read its weight.
        h = self.embedding()
        cos, sin = rotary_caches(c)
        caches = (g.init("cos_cache", cos), g.init("sin_cache", sin))
        root, skip = h, None
        for i, lw in enumerate(w["layers"]):
            x, root = self.norm(i, "input", root, skip, lw["input_norm"])
            skip = self.attention(i, x, lw, mask, caches)
            x, root = self.norm(i, "post_attention", root, skip, lw["post_norm"])
            skip = self.mlp(i, x, lw)
        x, _ = self.norm(c.layers, "final_norm", root, skip, w["final_norm"], last=True)
        self.linear("/lm_head/MatMul", x, w["lm_head"], output="logits")
        return g.model({"": 21, "com.microsoft": 1}, 10, "onnxruntime-genai")


def build(name, c):
    return GenaiDecoder(name, c).build()
