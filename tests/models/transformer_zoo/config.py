"""What each generated model is: sizes, layout and quantization, and its seeded weights."""

import zlib
from dataclasses import dataclass, field
from typing import Optional

import numpy as np


@dataclass(frozen=True)
class NBits:
    """MatMulNBits settings (the model builder's int4/int8 options)."""
    bits: int = 4
    block_size: int = 32
    symmetric: bool = True  # no zero-point input
    accuracy_level: int = 4  # the builder's CPU default


@dataclass(frozen=True)
class Decoder:
    """A Llama-style decoder (RMSNorm, rotary, SiLU gate/up MLP)."""
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    intermediate: int
    vocab: int
    context: int = 128  # max_position_embeddings: the length of the cos/sin caches
    rope_theta: float = 10000.0
    rms_eps: float = 1e-6
    tied: bool = False  # tie_word_embeddings (the builder's shared_embeddings)
    attention: str = "gqa"  # gqa: GroupQueryAttention do_rotary; mha: RotaryEmbedding + MHA
    nbits: Optional[NBits] = None
    # The builder's graph inputs: "grouped" (since 2026: every past key, then every value, the
    # last dim the symbol kv_cache_dim) or "interleaved" (before: key and value per layer,
    # head_dim a number), the form of most published models.
    io_order: str = "grouped"
    # int4 with Gather quantized too: tied, GatherBlockQuantized reads lm_head's packed copy;
    # untied, the table is its own int4 GatherBlockQuantized.
    quantize_gather: bool = False
    # Rotary embedding: rotate pairs of adjacent elements instead of halves (GQA's
    # rotary_interleaved, RotaryEmbedding's interleaved), and rotate only the first rotary_dim
    # elements of each head (0: all of it; phi's partial_rotary_factor, MHA only).
    rotary_interleaved: bool = False
    rotary_dim: int = 0

    @property
    def head_dim(self):
        return self.hidden // self.heads

    @property
    def rotated(self):
        return self.rotary_dim or self.head_dim

    def params(self):
        h, q, kv, i = self.hidden, self.hidden, self.kv_heads * self.head_dim, self.intermediate
        per_layer = h * (q + 2 * kv) + q * h + 3 * h * i + 2 * h
        embeddings = self.vocab * h * (1 if self.tied else 2)
        return self.layers * per_layer + embeddings + h


@dataclass(frozen=True)
class Encoder:
    """A BERT encoder as transformers.js ships it (post-LN, erf GELU, token types)."""
    layers: int
    hidden: int
    heads: int
    intermediate: int
    vocab: int
    positions: int = 512
    type_vocab: int = 2
    ln_eps: float = 1e-12
    opset: int = 14  # 14: LayerNorm decomposed as torch exports it below opset 17
    quantized: Optional[str] = None  # None, "int8" or "uint8": quantize_dynamic's weight type

    @property
    def head_dim(self):
        return self.hidden // self.heads

    def params(self):
        h, i = self.hidden, self.intermediate
        per_layer = 4 * h * h + 4 * h + 2 * h * i + i + h + 4 * h
        return self.layers * per_layer + (self.vocab + self.positions + self.type_vocab) * h + 2 * h


@dataclass(frozen=True)
class Variant:
    name: str
    kind: str  # decoder-genai, decoder-optimum or encoder
    spec: object
    size: str  # tiny (unit tests) or bench
    about: str
    prefill: int = 5  # the prefill feed's sequence length
    past: int = 7  # the decode feed's past length
    extra: dict = field(default_factory=dict)


def seed_of(name):
    # crc32 rather than hash(): Python salts str hashes per process.
    return zlib.crc32(name.encode())


class Weights:
    """Seeded, well-scaled float32 weights: the same numbers for the same name and shapes.

    Projections are N(0, 1/fan_in) so activations keep unit scale; norm scales are near 1
    but not 1; biases are small and non-zero.
    """

    def __init__(self, name):
        self.rng = np.random.default_rng(seed_of(name))

    def normal(self, shape, std):
        return (self.rng.standard_normal(shape, dtype=np.float32) * np.float32(std))

    def linear(self, fan_in, fan_out, gain=1.0):
        return self.normal((fan_in, fan_out), gain / np.sqrt(fan_in))

    def norm(self, n):
        return (self.rng.random(n, dtype=np.float32) * 0.4 + 0.8).astype(np.float32)

    def bias(self, n):
        return self.normal((n,), 0.05)


def decoder_weights(name, c):
    """Hugging Face Llama's parameters, linear weights stored [in, out] (W transposed)."""
    w = Weights(name)
    kv = c.kv_heads * c.head_dim
    # A tied table doubles as the head, so it is scaled like one (unit-scale logits).
    embed_std = 1 / np.sqrt(c.hidden) if c.tied else 1.0
    out = {"embed": w.normal((c.vocab, c.hidden), embed_std), "layers": []}
    for _ in range(c.layers):
        out["layers"].append({
            "input_norm": w.norm(c.hidden),
            "q": w.linear(c.hidden, c.hidden),
            "k": w.linear(c.hidden, kv),
            "v": w.linear(c.hidden, kv),
            "o": w.linear(c.hidden, c.hidden, 0.5),
            "post_norm": w.norm(c.hidden),
            "gate": w.linear(c.hidden, c.intermediate),
            "up": w.linear(c.hidden, c.intermediate),
            "down": w.linear(c.intermediate, c.hidden, 0.5),
        })
    out["final_norm"] = w.norm(c.hidden)
    out["lm_head"] = out["embed"].T if c.tied else w.linear(c.hidden, c.vocab)
    return out


def rotary_caches(c):
    """cos/sin [context, rotary dim / 2] as the builder computes them (no scaling)."""
    inv_freq = 1.0 / (c.rope_theta ** (np.arange(0, c.rotated, 2, dtype=np.int64) / c.rotated))
    t = np.arange(c.context, dtype=np.int64).astype(np.float32)
    freqs = np.outer(t, inv_freq.astype(np.float32)).astype(np.float32)
    return np.cos(freqs).astype(np.float32), np.sin(freqs).astype(np.float32)
