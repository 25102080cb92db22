"""fp32 decoders with a KV cache in optimum's export layout (torch.onnx.export, opset 14).

Inputs input_ids, attention_mask [batch_size, past_sequence_length + sequence_length],
position_ids, then past_key_values.{i}.key, past_key_values.{i}.value per layer
[batch_size, kv_heads, past_sequence_length, head_dim]; outputs logits, then present.{i}.key,
present.{i}.value. Everything is a standard ONNX op, as Hugging Face's eager Llama exports:
- RMSNorm as Pow, ReduceMean, Add, Sqrt, Div(1, .), Mul, Mul(weight);
- rotary: inv_freq @ position_ids, Concat(freqs, freqs), Cos, Sin; rotate_half as Slice, Neg,
  Concat; q * cos + rotate_half(q) * sin;
- present = Concat(past, new) along the sequence axis; repeat_kv as Unsqueeze, Expand, Reshape;
- the causal mask as HF builds it: float32 min where a key lies after the query's cache
  position (Range, Greater, Cast, Mul), then min where attention_mask is 0 (Add, Equal, Where);
- scores divided by sqrt(head_dim), Softmax, SiLU as Sigmoid + Mul.
"""

import numpy as np

from .config import decoder_weights
from .graph import TORCH, Graph, float_min
from .torch_idiom import I64_MAX, TorchOps

F32, I64 = np.float32, np.int64


def build(name, c):
    g = Graph("main_graph", TORCH)
    t = TorchOps(g, first_anonymous=3000)
    w = decoder_weights(name, c)
    total = "past_sequence_length + sequence_length"
    g.input("input_ids", I64, ["batch_size", "sequence_length"])
    g.input("attention_mask", I64, ["batch_size", total])
    g.input("position_ids", I64, ["batch_size", "sequence_length"])
    for i in range(c.layers):
        for kind in ("key", "value"):
            g.input(f"past_key_values.{i}.{kind}", F32,
                    ["batch_size", c.kv_heads, "past_sequence_length", c.head_dim])
    g.output("logits", F32, ["batch_size", "sequence_length", c.vocab])
    for i in range(c.layers):
        for kind in ("key", "value"):
            g.output(f"present.{i}.{kind}", F32, ["batch_size", c.kv_heads, total, c.head_dim])

    x = g.node("Gather", [g.init("model.embed_tokens.weight", w["embed"]), "input_ids"],
               "/model/embed_tokens/Gather")
    scope = "/model"
    batch, length = t.dim(scope, "input_ids", 0), t.dim(scope, "input_ids", 1)
    mask = causal_mask(g, t, scope, length)

    rope = "/model/rotary_emb"
    inv_freq = 1.0 / (c.rope_theta ** (np.arange(0, c.head_dim, 2, dtype=np.int64) / c.head_dim))
    inv = t.const(rope, inv_freq.astype(F32).reshape(1, -1, 1), F32)
    pos = g.op("Cast", [g.op("Unsqueeze", ["position_ids", t.const(rope, [1])], rope)], rope, to=1)
    # torch writes expand(B, -1, 1) with the -1 as 1: Expand broadcasts it.
    inv = g.op("Expand", [inv, g.op("Concat", [batch, t.const(rope, [1]), t.const(rope, [1])],
                                    rope, axis=0)], rope)
    freqs = g.op("Transpose", [g.op("MatMul", [inv, pos], rope)], rope, perm=[0, 2, 1])
    emb = g.op("Concat", [freqs, freqs], rope, axis=-1)
    cos = g.op("Unsqueeze", [g.op("Cos", [emb], rope), t.const(rope, [1])], rope)
    sin = g.op("Unsqueeze", [g.op("Sin", [emb], rope), t.const(rope, [1])], rope)

    for i, lw in enumerate(w["layers"]):
        base = f"/model/layers.{i}"
        h = t.rms_norm(f"{base}/input_layernorm", x, lw["input_norm"], c.rms_eps,
                       f"model.layers.{i}.input_layernorm.weight")
        att = f"{base}/self_attn"
        q = t.split_heads(att, t.linear(f"{att}/q_proj", h, lw["q"]), batch, length, c.heads,
                          c.head_dim)
        k = t.split_heads(att, t.linear(f"{att}/k_proj", h, lw["k"]), batch, length, c.kv_heads,
                          c.head_dim)
        v = t.split_heads(att, t.linear(f"{att}/v_proj", h, lw["v"]), batch, length, c.kv_heads,
                          c.head_dim)
        q, k = rotate(g, t, att, q, cos, sin, c.head_dim), rotate(g, t, att, k, cos, sin, c.head_dim)
        k = g.node("Concat", [f"past_key_values.{i}.key", k], g.unique(att, "Concat"),
                   [f"present.{i}.key"], axis=-2)
        v = g.node("Concat", [f"past_key_values.{i}.value", v], g.unique(att, "Concat"),
                   [f"present.{i}.value"], axis=-2)
        k, v = repeat_kv(g, t, att, k, c), repeat_kv(g, t, att, v, c)
        kt = g.op("Transpose", [k], att, perm=[0, 1, 3, 2])
        scores = g.op("Div", [g.op("MatMul", [q, kt], att),
                              t.const(att, np.sqrt(c.head_dim), F32)], att)
        probs = g.op("Softmax", [g.op("Add", [scores, mask], att)], att, axis=-1)
        ctx = t.merge_heads(att, g.op("MatMul", [probs, v], att), batch, length, c.hidden)
        x = g.op("Add", [x, t.linear(f"{att}/o_proj", ctx, lw["o"])], base)
        h = t.rms_norm(f"{base}/post_attention_layernorm", x, lw["post_norm"], c.rms_eps,
                       f"model.layers.{i}.post_attention_layernorm.weight")
        mlp = f"{base}/mlp"
        gate = t.linear(f"{mlp}/gate_proj", h, lw["gate"])
        act = g.op("Mul", [gate, g.op("Sigmoid", [gate], f"{mlp}/act_fn")], f"{mlp}/act_fn")
        prod = g.op("Mul", [act, t.linear(f"{mlp}/up_proj", h, lw["up"])], mlp)
        x = g.op("Add", [x, t.linear(f"{mlp}/down_proj", prod, lw["down"])], base)
    x = t.rms_norm("/model/norm", x, w["final_norm"], c.rms_eps, "model.norm.weight")
    g.node("MatMul", [x, g.init("onnx::MatMul_lm_head", w["lm_head"])], "/lm_head/MatMul",
           ["logits"])
    return g.model({"": 14}, 8, "pytorch", "2.1.0")


def causal_mask(g, t, scope, length):
    """[B, 1, S, T]: 0 where key j <= the query's cache position (T - S + i) and unmasked."""
    full = t.dim(scope, "attention_mask", 1)
    total = g.op("Squeeze", [full, t.const(scope, [0])], scope)
    past = g.op("Sub", [total, g.op("Squeeze", [length, t.const(scope, [0])], scope)], scope)
    cache_position = g.op("Range", [past, total, t.const(scope, 1)], scope)
    cols = g.op("Range", [t.const(scope, 0), total, t.const(scope, 1)], scope)
    rows = g.op("Reshape", [cache_position, t.const(scope, [-1, 1])], scope)
    after = g.op("Cast", [g.op("Greater", [cols, rows], scope)], scope, to=1)
    causal = g.op("Mul", [t.const(scope, float_min(), F32), after], scope)
    causal = g.op("Unsqueeze", [causal, t.const(scope, [0, 1])], scope)
    m = g.op("Unsqueeze", ["attention_mask", t.const(scope, [1, 2])], scope)
    padding = g.op("Add", [causal, g.op("Cast", [m], scope, to=1)], scope)
    padded = g.op("Equal", [padding, t.const(scope, 0.0, F32)], scope)
    return g.op("Where", [padded, t.const(scope, float_min(), F32), causal], scope)


def rotate(g, t, scope, x, cos, sin, head_dim):
    half = head_dim // 2
    x1 = g.op("Slice", [x, t.const(scope, [0]), t.const(scope, [half]), t.const(scope, [3]),
                        t.const(scope, [1])], scope)
    x2 = g.op("Slice", [x, t.const(scope, [half]), t.const(scope, [I64_MAX]),
                        t.const(scope, [3]), t.const(scope, [1])], scope)
    rotated = g.op("Concat", [g.op("Neg", [x2], scope), x1], scope, axis=-1)
    return g.op("Add", [g.op("Mul", [x, cos], scope), g.op("Mul", [rotated, sin], scope)], scope)


def repeat_kv(g, t, scope, x, c):
    """hidden[:, :, None].expand(B, kv, n_rep, T, D).reshape(B, kv * n_rep, T, D)."""
    n_rep = c.heads // c.kv_heads
    if n_rep == 1:
        return x
    b, tl = t.dim(scope, x, 0), t.dim(scope, x, 2)
    y = g.op("Unsqueeze", [x, t.const(scope, [2])], scope)
    shape = g.op("Concat", [b, t.const(scope, [c.kv_heads]), t.const(scope, [n_rep]), tl,
                            t.const(scope, [c.head_dim])], scope, axis=0)
    y = g.op("Expand", [y, shape], scope)
    return t.view(scope, y, [b, c.heads, tl, c.head_dim])
