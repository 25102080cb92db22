#!/usr/bin/python3
"""Writes the ExecuTorch weight_norm case as WebNN graphs:
weight_norm(Conv1d(1024, 1024, 128, padding=64, groups=16)) at length 499, as conv2d with H=1.

  weight_norm.webnn   computes the filter in the graph: g * v / ||v|| (reduceL2 over I, H, W)
  precomputed.webnn   the same convolution with the filter precomputed (float64, then f32)

Both share one weights file (weight_norm.safetensors). Usage: make_weight_norm.py OUT_DIR
"""
import json
import os
import struct
import sys

import numpy as np

C, K, GROUPS, PAD, LENGTH = 1024, 128, 16, 64, 499


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, array in tensors.items():
        data = np.ascontiguousarray(array, dtype=np.float32).tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    head = json.dumps(header).encode()
    head += b" " * (-len(head) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(head)))
        f.write(head)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)


def graph(name, consts, nodes):
    lines = [f'webnn_graph "{name}" v1 {{', "  inputs {", f"    x: f32[1, {C}, 1, {LENGTH}];",
             "  }", "  consts {"]
    lines += [f"    {n}: f32{s};" for n, s in consts]
    lines += ["  }", "  nodes {"] + [f"    {n}" for n in nodes] + ["  }", "  outputs {", "    y;",
                                                                 "  }", "}"]
    return "\n".join(lines) + "\n"


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(0)
    v = rng.standard_normal((C, C // GROUPS, 1, K)).astype(np.float32)
    g = rng.uniform(0.5, 2.0, (C, 1, 1, 1)).astype(np.float32)
    bias = rng.uniform(-0.1, 0.1, (C,)).astype(np.float32)
    v64 = v.astype(np.float64)
    w = (g * v64 / np.sqrt((v64 * v64).sum(axis=(1, 2, 3), keepdims=True))).astype(np.float32)
    write_safetensors(os.path.join(out, "weight_norm.safetensors"),
                      {"v": v, "g": g, "bias": bias, "w": w})
    conv = f"y = conv2d(x, w, padding=[0, 0, {PAD}, {PAD}], groups={GROUPS}, bias=bias);"
    vshape = f"[{C}, {C // GROUPS}, 1, {K}]"
    with open(os.path.join(out, "weight_norm.webnn"), "w") as f:
        f.write(graph("weight_norm_conv1d", [("v", vshape), ("g", f"[{C}, 1, 1, 1]"),
                                             ("bias", f"[{C}]")],
                      ["norm = reduceL2(v, axes=[1, 2, 3], keepDimensions=true);",
                       "unit = div(v, norm);", "w = mul(g, unit);", conv]))
    with open(os.path.join(out, "precomputed.webnn"), "w") as f:
        f.write(graph("precomputed_conv1d", [("w", vshape), ("bias", f"[{C}]")], [conv]))


if __name__ == "__main__":
    main()
