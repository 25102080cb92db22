"""The NAME.json sidecar: what a model is and how to feed it, and the feeds themselves.

A feed lists every graph input with its shape, dtype and fill:
- `ids`: integers uniform in [0, vocab) from NumPy default_rng(seed);
- `ones`; `zeros`;
- `pad_tail:N`: ones with the last N positions 0;
- `segments`: token types, 0 for the first half of the sequence and 1 for the rest;
- `range:START`: START, START + 1, ... along the last axis (position ids);
- `normal:STD`: N(0, STD^2) float32 from default_rng(seed) (a random past KV cache).
The prefill feed has past length 0 (past inputs [batch, kv_heads, 0, head_dim]); the decode feed
has one new token after a past of P positions, the mask covering P + 1.
"""

import numpy as np

from .config import seed_of

BATCH = 1


def fill(spec):
    shape, fill = tuple(spec["shape"]), spec["fill"]
    dtype = np.dtype(spec["dtype"])
    if fill == "ids":
        rng = np.random.default_rng(spec["seed"])
        return rng.integers(0, spec["vocab"], shape).astype(dtype)
    if fill in ("ones", "zeros"):
        return (np.ones if fill == "ones" else np.zeros)(shape, dtype)
    if fill.startswith("pad_tail:"):
        out = np.ones(shape, dtype)
        out[..., shape[-1] - int(fill.split(":")[1]):] = 0
        return out
    if fill == "segments":
        out = np.zeros(shape, dtype)
        out[..., shape[-1] // 2:] = 1
        return out
    if fill.startswith("range:"):
        start = int(fill.split(":")[1])
        return np.broadcast_to(np.arange(start, start + shape[-1], dtype=dtype), shape).copy()
    if fill.startswith("normal:"):
        rng = np.random.default_rng(spec["seed"])
        return (rng.standard_normal(shape) * float(fill.split(":")[1])).astype(dtype)
    raise ValueError(f"unknown fill {fill}")


def feed_arrays(feed):
    return {spec["name"]: fill(spec) for spec in feed["inputs"]}


def _spec(name, dtype, shape, fill, **extra):
    return {"name": name, "dtype": dtype, "shape": list(shape), "fill": fill, **extra}


def decoder_feed(v, phase, kv_heads, with_positions, interleaved):
    c = v.spec
    new, past = (v.prefill, 0) if phase == "prefill" else (1, v.past)
    seed = seed_of(f"{v.name}/{phase}")
    inputs = [
        _spec("input_ids", "int64", (BATCH, new), "ids", vocab=c.vocab, seed=seed),
        _spec("attention_mask", "int64", (BATCH, past + new), "ones"),
    ]
    if with_positions:
        inputs.append(_spec("position_ids", "int64", (BATCH, new), f"range:{past}"))
    kv = []
    for i in range(c.layers):
        for kind in ("key", "value"):
            fill_kind = "zeros" if past == 0 else "normal:1.0"
            kv.append(_spec(f"past_key_values.{i}.{kind}", "float32",
                            (BATCH, kv_heads, past, c.head_dim), fill_kind,
                            seed=seed_of(f"{v.name}/{phase}/{i}/{kind}")))
    if not interleaved:  # the model builder lists every key, then every value
        kv = kv[0::2] + kv[1::2]
    outputs = {"logits": [BATCH, new, c.vocab]}
    for i in range(c.layers):
        for kind in ("key", "value"):
            outputs[f"present.{i}.{kind}"] = [BATCH, kv_heads, past + new, c.head_dim]
    return {"sequence_length": new, "past_length": past, "inputs": inputs + kv,
            "outputs": outputs}


def encoder_feed(v):
    c, s = v.spec, v.prefill
    seed = seed_of(f"{v.name}/prefill")
    return {"sequence_length": s, "past_length": 0, "inputs": [
        _spec("input_ids", "int64", (BATCH, s), "ids", vocab=c.vocab, seed=seed),
        _spec("attention_mask", "int64", (BATCH, s), "pad_tail:1"),
        _spec("token_type_ids", "int64", (BATCH, s), "segments"),
    ], "outputs": {"last_hidden_state": [BATCH, s, c.hidden]}}


def describe(v, model, files, onnx_bytes, data_bytes):
    c = v.spec
    out = {"name": v.name, "kind": v.kind, "about": v.about, "size": v.size,
           "producer": model.producer_name,
           "opsets": {o.domain or "ai.onnx": o.version for o in model.opset_import},
           "ir_version": model.ir_version, "files": files,
           "bytes": {"onnx": onnx_bytes, "data": data_bytes}, "params": c.params()}
    if v.kind == "encoder":
        out["sizes"] = {"layers": c.layers, "hidden": c.hidden, "heads": c.heads,
                        "head_dim": c.head_dim, "intermediate": c.intermediate, "vocab": c.vocab,
                        "positions": c.positions}
        out["quantization"] = ({"method": "quantize_dynamic", "weights": c.quantized,
                                "activations": "uint8", "per_channel": False}
                               if c.quantized else None)
        out["phases"] = {"prefill": encoder_feed(v)}
        return out
    genai = v.kind == "decoder-genai"
    kv_heads = c.kv_heads if c.attention == "gqa" or not genai else c.heads
    out["sizes"] = {"layers": c.layers, "hidden": c.hidden, "heads": c.heads,
                    "kv_heads": kv_heads, "head_dim": c.head_dim,
                    "intermediate": c.intermediate, "vocab": c.vocab, "context": c.context,
                    "rope_theta": c.rope_theta, "rms_eps": c.rms_eps}
    out["rotary"] = {"dims": c.rotated, "interleaved": c.rotary_interleaved}
    out["attention"] = ("GroupQueryAttention" if c.attention == "gqa" else
                        "RotaryEmbedding+MultiHeadAttention") if genai else "MatMul+Softmax"
    out["tied_embeddings"] = c.tied
    q = c.nbits if genai else None
    out["quantization"] = None if q is None else {
        "method": "MatMulNBits", "bits": q.bits, "block_size": q.block_size,
        "accuracy_level": q.accuracy_level, "zero_points": not q.symmetric,
        "gather": "GatherBlockQuantized" if c.quantize_gather else "float"}
    positions = not genai or c.attention == "mha"
    interleaved = not genai or c.io_order == "interleaved"
    out["io_order"] = "interleaved" if interleaved else "grouped"
    out["phases"] = {p: decoder_feed(v, p, kv_heads, positions, interleaved)
                     for p in ("prefill", "decode")}
    return out
