"""Weight quantization as ONNX Runtime's tools leave it.

MatMulNBits (ORT's MatMulNBitsQuantizer, the model builder's int4/int8 pass): the float weight
W [K, N] is cut along K into blocks of `block_size`; the last block is zero-padded. Per block:
- symmetric (the builder's default): scale = v / -2^(bits-1) where v is the element of largest
  magnitude (sign kept), q = clip(round(w / scale) + 2^(bits-1), 0, 2^bits - 1), no zero-point
  input (the op's default zero point is 2^(bits-1));
- asymmetric: the range [min(w, 0), max(w, 0)] maps onto [0, 2^bits - 1],
  zero_point = round(-min / scale), q = clip(round(w / scale) + zero_point).
B is uint8 [N, k_blocks, block_size * bits / 8] with 4-bit values low nibble first, scales are
float32 [N * k_blocks], zero points uint8 [N * ceil(k_blocks * bits / 8)] packed like B per row.

quantize_dynamic (QOperator, IntegerOps): one per-tensor scale and zero point per weight;
int8 weights symmetric (zero point 0, scale = max|w| / 127), uint8 weights asymmetric over
[min(w, 0), max(w, 0)] with scale = range / 255.
"""

import numpy as np


def pack_low_first(values, bits):
    """Packs unsigned values (last axis) into bytes, low-order bits first."""
    values = values.astype(np.uint8)
    if bits == 8:
        return values
    per_byte = 8 // bits
    pad = -values.shape[-1] % per_byte
    if pad:
        values = np.concatenate([values, np.zeros(values.shape[:-1] + (pad,), np.uint8)], -1)
    grouped = values.reshape(values.shape[:-1] + (-1, per_byte))
    packed = np.zeros(grouped.shape[:-1], np.uint8)
    for i in range(per_byte):
        packed |= (grouped[..., i] << (bits * i)).astype(np.uint8)
    return packed


def block_quantize(weight, bits, block_size, symmetric):
    """Returns (B, scales, zero_points or None) for MatMulNBits from float W [K, N]."""
    k, n = weight.shape
    k_blocks = -(-k // block_size)
    padded = np.zeros((k_blocks * block_size, n), np.float32)
    padded[:k] = weight
    blocks = padded.T.reshape(n, k_blocks, block_size).astype(np.float64)
    levels = 2**bits - 1
    if symmetric:
        lo, hi = blocks.min(-1), blocks.max(-1)
        extreme = np.where(np.abs(hi) > np.abs(lo), hi, lo)
        scale = extreme / -(2 ** (bits - 1))
        zero = np.full(scale.shape, 2 ** (bits - 1), np.float64)
    else:
        lo, hi = np.minimum(blocks.min(-1), 0), np.maximum(blocks.max(-1), 0)
        scale = (hi - lo) / levels
        safe = np.where(scale == 0, 1, scale)
        zero = np.clip(np.round(-lo / safe), 0, levels)
    safe = np.where(scale == 0, 1, scale)[..., None]
    q = np.clip(np.round(blocks / safe) + zero[..., None], 0, levels).astype(np.uint8)
    b = pack_low_first(q, bits)  # [N, k_blocks, blob]
    scales = scale.astype(np.float32).reshape(-1)
    if symmetric:
        return b, scales, None
    zero_points = pack_low_first(zero.astype(np.uint8), bits).reshape(-1)
    return b, scales, zero_points


def gather_block_quantize(table, block_size, symmetric):
    """MatMulNBitsQuantizer's int4 Gather: (data bytes, scales, zero-point bytes or None).

    The table [V, H] is quantized per row in blocks of H; data is int4 (symmetric, the extreme
    maps to -8) or uint4 with uint4 zero points [V, k_blocks], two values per byte, low nibble
    first in row-major order; scales are float32 [V, k_blocks].
    """
    v, h = table.shape
    k_blocks = -(-h // block_size)
    padded = np.zeros((v, k_blocks * block_size), np.float64)
    padded[:, :h] = table
    blocks = padded.reshape(v, k_blocks, block_size)
    if symmetric:
        lo, hi = blocks.min(-1), blocks.max(-1)
        scale = np.where(np.abs(hi) > np.abs(lo), hi, lo) / -8.0
        safe = np.where(scale == 0, 1, scale)[..., None]
        q = np.clip(np.round(blocks / safe), -8, 7).astype(np.int64)
        zero_points = None
    else:
        lo, hi = np.minimum(blocks.min(-1), 0), np.maximum(blocks.max(-1), 0)
        scale = (hi - lo) / 15.0
        safe = np.where(scale == 0, 1, scale)
        zero = np.clip(np.round(-lo / safe), 0, 15).astype(np.int64)
        q = np.clip(np.round(blocks / safe[..., None]) + zero[..., None], 0, 15).astype(np.int64)
        zero_points = pack_low_first((zero & 0xF).reshape(-1), 4).tobytes()
    data = pack_low_first((q.reshape(v, -1)[:, :h] & 0xF).reshape(-1), 4).tobytes()
    return data, scale.astype(np.float32), zero_points


def dynamic_weight_quantize(weight, dtype):
    """quantize_dynamic's per-tensor weight quantization: (q, scale, zero_point) as 0-d/arrays."""
    w = weight.astype(np.float64)
    lo, hi = min(w.min(), 0.0), max(w.max(), 0.0)
    if dtype == np.int8:
        absmax = max(abs(lo), abs(hi))
        scale = absmax / 127.0 if absmax > 0 else 1.0
        zero = 0
        q = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
    else:
        scale = (hi - lo) / 255.0 if hi > lo else 1.0
        zero = int(np.clip(np.round(-lo / scale), 0, 255))
        q = np.clip(np.round(w / scale) + zero, 0, 255).astype(np.uint8)
    return q, np.array(scale, np.float32), np.array(zero, dtype)
