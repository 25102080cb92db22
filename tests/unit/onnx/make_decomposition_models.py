#!/usr/bin/python3
"""Writes tiny ONNX models for the decomposed converters (Einsum, TopK, inverse trig, BitShift,
Det, scatter reductions, GatherND batch_dims, RNN, LSTM peepholes, quantized ops), each with
non-default attributes, in the backend-test layout. Expected outputs come from plain numpy
loops written here, independently of wnn. Re-runnable: python3 make_decomposition_models.py OUT
"""
import sys

import numpy as np

import backend_case
from onnx import helper

rng = np.random.default_rng(11)


def write_case(out, name, nodes, inputs, outputs, inits=(), opset=18):
    backend_case.write_case(out, name, nodes, inputs, outputs, inits, opset)


def f32(a):
    return np.asarray(a, np.float32)


def inverse_trig(out):
    # Extremes: 0, -0, ±1, values next to ±1, tiny, and (atan only) huge and infinite inputs.
    unit = f32([0.0, -0.0, 1.0, -1.0, 0.99999994, -0.99999994, 0.5, -0.5, 0.7071068, 1e-30,
                -0.3, 0.41421357, 0.9, -0.97])
    wide = np.concatenate([unit, f32([2.4142137, -2.4142134, 3.0, -10.0, 1e6, -1e30, 3e38,
                                      np.inf, -np.inf])])
    for op, fn, x in (("Asin", np.arcsin, unit), ("Acos", np.arccos, unit),
                      ("Atan", np.arctan, wide)):
        y = f32(fn(x.astype(np.float64)))
        write_case(out, f"{op.lower()}_extremes", [helper.make_node(op, ["x"], ["y"])],
                   [("x", x)], [("y", y)])


def topk(out):
    # Ties (2.0 twice, -1 three times) must come out lower index first.
    x = f32([[3.0, -1.0, 2.0], [2.0, -1.0, 0.5], [-1.0, 7.0, 2.0], [0.0, -4.0, 2.0]])
    k = 3
    order = np.stack([np.argsort(x[:, j], kind="stable")[:k] for j in range(3)], axis=1)
    write_case(out, "topk_smallest_axis0",
               [helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=0, largest=0)],
               [("x", x), ("k", np.array([k], np.int64))],
               [("v", np.take_along_axis(x, order, 0)), ("i", order.astype(np.int64))])


    # A long axis (k rounds instead of n^2 ranks): ties, and a row of mostly -inf so the
    # later picks are -inf themselves and must still be distinct positions in index order.
    x = f32(rng.integers(-20, 20, (2, 5000)))
    x[1, :] = -np.inf
    x[1, 4000], x[1, 17] = 3.0, 3.0
    k = 5
    order = np.argsort(-x, axis=1, kind="stable")[:, :k]
    write_case(out, "topk_long_axis_ties_and_inf",
               [helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=-1)],
               [("x", x), ("k", np.array([k], np.int64))],
               [("v", np.take_along_axis(x, order, 1)), ("i", order.astype(np.int64))])


def einsum(out):
    a = f32(rng.standard_normal((2, 3, 4)))
    b = f32(rng.standard_normal((4, 5)))
    write_case(out, "einsum_ellipsis_matmul",
               [helper.make_node("Einsum", ["a", "b"], ["y"], equation="...ij,jk")],
               [("a", a), ("b", b)], [("y", f32(np.einsum("...ij,jk", a, b)))])
    # Size-1 ellipsis dims broadcast on both sides; m appears only in b and is summed away;
    # the output is transposed relative to the matmul's natural order.
    a = f32(rng.standard_normal((2, 1, 3, 4)))
    b = f32(rng.standard_normal((1, 5, 4, 2, 3)))
    write_case(out, "einsum_broadcast_batch_private_label",
               [helper.make_node("Einsum", ["a", "b"], ["y"], equation="...ij,...jkm->...ki")],
               [("a", a), ("b", b)], [("y", f32(np.einsum("...ij,...jkm->...ki", a, b)))])
    p, q, v = (f32(rng.standard_normal(s)) for s in ((2, 3), (3, 4), (4,)))
    write_case(out, "einsum_three_operands",
               [helper.make_node("Einsum", ["p", "q", "v"], ["y"], equation="ij,jk,k->i")],
               [("p", p), ("q", q), ("v", v)], [("y", f32(np.einsum("ij,jk,k->i", p, q, v)))])
    m = f32(rng.standard_normal((3, 3, 2)))
    write_case(out, "einsum_trace_then_outer",
               [helper.make_node("Einsum", ["m", "v"], ["y"], equation="iik,j->kj")],
               [("m", m), ("v", f32([1.5, -2.0]))],
               [("y", f32(np.einsum("iik,j->kj", m, f32([1.5, -2.0]))))])


def bitshift(out):
    x = np.array([1, 0xFFFFFFFF, 12345678, 7], np.uint32)
    s = np.array([31, 4, 0, 29], np.uint32)
    for d, y in (("LEFT", x << s), ("RIGHT", x >> s)):
        write_case(out, f"bitshift_{d.lower()}_uint32",
                   [helper.make_node("BitShift", ["x", "s"], ["y"], direction=d)],
                   [("x", x), ("s", s)], [("y", y.astype(np.uint32))])


def det(out):
    x = f32(rng.standard_normal((2, 3, 3)))
    x[1] = f32([[2, -1, 0], [4, -2, 0], [1, 5, 3]])  # singular: exactly 0
    write_case(out, "det_batched_3x3", [helper.make_node("Det", ["x"], ["y"])], [("x", x)],
               [("y", f32(np.linalg.det(x.astype(np.float64))))])


def scatter(out):
    data = f32(rng.standard_normal((3, 4)))
    idx = np.array([[1, -3], [2, 2]], np.int64)  # -3 is 1 on an axis of 3; duplicates
    upd = f32([[5.0, -7.0], [0.25, 9.0]])
    for red, fn in (("max", max), ("mul", lambda a, b: a * b)):
        y = data.copy()
        for i in range(2):
            for j in range(2):
                t = idx[i, j] % 3
                y[t, j] = fn(y[t, j], upd[i, j])
        write_case(out, f"scatter_elements_{red}_axis0_partial",
                   [helper.make_node("ScatterElements", ["d", "i", "u"], ["y"], axis=0,
                                     reduction=red)],
                   [("d", data), ("i", idx), ("u", upd)], [("y", y)])
    data = f32(rng.standard_normal((2, 3, 2)))
    idx = np.array([[1, 2], [0, 0], [1, -1]], np.int64)
    upd = f32([[4.0, -4.0], [-9.0, 9.0], [1.0, -20.0]])
    y = data.copy()
    for n in range(3):
        y[idx[n, 0], idx[n, 1]] = np.minimum(y[idx[n, 0], idx[n, 1]], upd[n])
    write_case(out, "scatternd_min_duplicates",
               [helper.make_node("ScatterND", ["d", "i", "u"], ["y"], reduction="min")],
               [("d", data), ("i", idx), ("u", upd)], [("y", y)])


def gathernd(out):
    data = f32(rng.standard_normal((2, 3, 4)))
    idx = np.array([[[2, 1], [0, 3]], [[1, 0], [1, 1]]], np.int64)  # [2, 2, 2]
    y = np.stack([np.stack([data[b][tuple(idx[b, t])] for t in range(2)]) for b in range(2)])
    write_case(out, "gathernd_batch_dims1",
               [helper.make_node("GatherND", ["d", "i"], ["y"], batch_dims=1)],
               [("d", data), ("i", idx)], [("y", y)])


def rnn(out):
    # Reverse, ragged sequence_lens, LeakyRelu with alpha, clip, batch-major layout.
    S, B, I, H = 3, 2, 3, 4
    x = f32(rng.standard_normal((B, S, I)))
    w = f32(rng.standard_normal((1, H, I)))
    r = f32(rng.standard_normal((1, H, H)) * 0.5)
    b = f32(rng.standard_normal((1, 2 * H)))
    h0 = f32(rng.standard_normal((B, 1, H)))
    lens = np.array([2, 3], np.int32)
    alpha, clip = 0.3, 1.5
    y = np.zeros((B, S, 1, H), np.float32)
    hn = np.zeros((B, 1, H), np.float32)
    for bi in range(B):
        h = h0[bi, 0].astype(np.float64)
        for t in reversed(range(lens[bi])):
            pre = np.clip(w[0] @ x[bi, t] + r[0] @ h + b[0, :H] + b[0, H:], -clip, clip)
            h = np.where(pre > 0, pre, alpha * pre)
            y[bi, t, 0] = h
        hn[bi, 0] = h
    write_case(out, "rnn_reverse_ragged_leakyrelu_batch_major",
               [helper.make_node("RNN", ["x", "w", "r", "b", "lens", "h0"], ["y", "hn"],
                                 hidden_size=H, direction="reverse", layout=1, clip=clip,
                                 activations=["LeakyRelu"], activation_alpha=[alpha])],
               [("x", x), ("w", w), ("r", r), ("b", b), ("lens", lens), ("h0", h0)],
               [("y", y), ("hn", hn)])


def lstm_peepholes(out):
    S, B, I, H = 2, 2, 3, 2
    x = f32(rng.standard_normal((S, B, I)))
    w = f32(rng.standard_normal((1, 4 * H, I)))
    r = f32(rng.standard_normal((1, 4 * H, H)))
    p = f32(rng.standard_normal((1, 3 * H)))  # i, o, f; o non-zero
    sig = lambda v: 1 / (1 + np.exp(-v))
    h = np.zeros((B, H)); c = np.zeros((B, H))
    ys = []
    for t in range(S):
        g = x[t] @ w[0].T + h @ r[0].T
        gi, go, gf, gc = np.split(g, 4, axis=1)
        i = sig(gi + p[0, :H] * c); f = sig(gf + p[0, 2 * H:] * c)
        c = f * c + i * np.tanh(gc)
        o = sig(go + p[0, H:2 * H] * c)
        h = o * np.tanh(c)
        ys.append(h)
    write_case(out, "lstm_runtime_peepholes",
               [helper.make_node("LSTM", ["x", "w", "r", "", "", "", "", "p"], ["y", "", "c"],
                                 hidden_size=H)],
               [("x", x), ("w", w), ("r", r), ("p", p)],
               [("y", f32(np.stack(ys)[:, None])), ("c", f32(c[None]))])


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


def recurrent_batch_major(out):
    # layout=1 through WebNN's lstm/gru: X [B,S,I], states [B,D,H], Y [B,S,D,H]; bidirectional
    # LSTM with bias and initial states, GRU with linear_before_reset=1 and an initial state.
    S, B, I, H, D = 3, 2, 3, 2, 2
    x = f32(rng.standard_normal((B, S, I)))
    w = f32(rng.standard_normal((D, 4 * H, I)))
    r = f32(rng.standard_normal((D, 4 * H, H)))
    b = f32(rng.standard_normal((D, 8 * H)))
    h0 = f32(rng.standard_normal((B, D, H)))
    c0 = f32(rng.standard_normal((B, D, H)))
    y = np.zeros((B, S, D, H)); yh = np.zeros((B, D, H)); yc = np.zeros((B, D, H))
    for d in range(D):
        h, c = h0[:, d].astype(np.float64), c0[:, d].astype(np.float64)
        for t in (range(S) if d == 0 else reversed(range(S))):
            g = x[:, t] @ w[d].T + h @ r[d].T + b[d, :4 * H] + b[d, 4 * H:]
            gi, go, gf, gc = np.split(g, 4, axis=1)
            c = sigmoid(gf) * c + sigmoid(gi) * np.tanh(gc)
            h = sigmoid(go) * np.tanh(c)
            y[:, t, d] = h
        yh[:, d], yc[:, d] = h, c
    write_case(out, "lstm_bidirectional_batch_major",
               [helper.make_node("LSTM", ["x", "w", "r", "b", "", "h0", "c0"], ["y", "yh", "yc"],
                                 hidden_size=H, direction="bidirectional", layout=1)],
               [("x", x), ("w", w), ("r", r), ("b", b), ("h0", h0), ("c0", c0)],
               [("y", f32(y)), ("yh", f32(yh)), ("yc", f32(yc))])
    w = f32(rng.standard_normal((1, 3 * H, I)))
    r = f32(rng.standard_normal((1, 3 * H, H)))
    b = f32(rng.standard_normal((1, 6 * H)))
    h = h0[:, :1].astype(np.float64)[:, 0]
    y = np.zeros((B, S, 1, H))
    for t in range(S):
        xz, xr, xh = np.split(x[:, t] @ w[0].T + b[0, :3 * H], 3, axis=1)
        hz, hr, hh = np.split(h @ r[0].T + b[0, 3 * H:], 3, axis=1)
        z, rr = sigmoid(xz + hz), sigmoid(xr + hr)
        n = np.tanh(xh + rr * hh)  # linear_before_reset=1: reset after the recurrent matmul
        h = (1 - z) * n + z * h
        y[:, t, 0] = h
    write_case(out, "gru_linear_before_reset_batch_major",
               [helper.make_node("GRU", ["x", "w", "r", "b", "", "h0"], ["y", "yh"],
                                 hidden_size=H, layout=1, linear_before_reset=1)],
               [("x", x), ("w", w), ("r", r), ("b", b), ("h0", f32(h0[:, :1]))],
               [("y", f32(y)), ("yh", f32(h[:, None]))])


def quantized(out):
    a = np.array([[200, 3, 0, 255], [17, 128, 90, 1]], np.uint8)
    b = np.array([[1, 250, 3], [40, 0, 77], [128, 9, 200], [255, 31, 64]], np.uint8)
    sa, za, sb, sy, zy = f32(0.02), np.uint8(120), f32([0.01, 0.05, 0.003]), f32(0.7), np.uint8(9)
    zb = np.array([100, 0, 128], np.uint8)
    acc = (a.astype(np.int64) - za) @ (b.astype(np.int64) - zb)
    mult = (sa * sb / sy).astype(np.float32)
    y = np.clip(np.round(acc.astype(np.float32) * mult) + zy, 0, 255).astype(np.uint8)
    write_case(out, "qlinearmatmul_per_column",
               [helper.make_node("QLinearMatMul", ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"],
                                 ["y"])],
               [("a", a), ("sa", sa), ("za", za), ("b", b), ("sb", sb), ("zb", zb), ("sy", sy),
                ("zy", zy)], [("y", y)])


def bitwise(out):
    a = np.array([-128, -1, 0, 77, 127, -86], np.int8)
    b = np.array([127, -2, -1, -77, 3, 85], np.int8)
    for op, fn in (("And", np.bitwise_and), ("Or", np.bitwise_or), ("Xor", np.bitwise_xor)):
        write_case(out, f"bitwise_{op.lower()}_int8",
                   [helper.make_node(f"Bitwise{op}", ["a", "b"], ["y"])],
                   [("a", a), ("b", b)], [("y", fn(a, b))])
    u = np.array([0, 1, 0xFFFFFFFF, 0x80000000, 12345], np.uint32)
    write_case(out, "bitwise_not_uint32", [helper.make_node("BitwiseNot", ["u"], ["y"])],
               [("u", u)], [("y", np.invert(u))])
    write_case(out, "bitwise_not_int8", [helper.make_node("BitwiseNot", ["a"], ["y"])],
               [("a", a)], [("y", np.invert(a))])


def crop_and_norm(out):
    x = f32(rng.standard_normal((2, 5, 4)))
    # axis 1: 5 -> 2 crops from 1; axis 2: 4 -> 7 pads 1 before, 2 after.
    y = np.pad(x[:, 1:3, :], ((0, 0), (0, 0), (1, 2)))
    write_case(out, "center_crop_pad_axes",
               [helper.make_node("CenterCropPad", ["x", "s"], ["y"], axes=[-2, 2])],
               [("x", x), ("s", np.array([2, 7], np.int64))], [("y", y)])
    scale = f32(rng.standard_normal((5, 4)))
    eps = 0.25
    ms = np.mean(x.astype(np.float64) ** 2, axis=(1, 2), keepdims=True)
    write_case(out, "rms_normalization_axis1_epsilon",
               [helper.make_node("RMSNormalization", ["x", "g"], ["y"], axis=1, epsilon=eps)],
               [("x", x), ("g", scale)], [("y", f32(x / np.sqrt(ms + eps) * scale))], opset=23)


def main(out):
    for make in (inverse_trig, topk, einsum, bitshift, det, scatter, gathernd, rnn,
                 lstm_peepholes, recurrent_batch_major, quantized, bitwise, crop_and_norm):
        make(out)


if __name__ == "__main__":
    main(sys.argv[1])
