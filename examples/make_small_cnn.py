#!/usr/bin/env python3
"""Writes examples/small_cnn.safetensors, the weights of examples/small_cnn.webnn.

Deterministic (numpy's PCG64 with a fixed seed), so rerunning gives the same bytes.
Run with /usr/bin/python3 (Debian's numpy)."""
import json
import os
import struct
import sys

import numpy as np

rng = np.random.Generator(np.random.PCG64(20261130))


def he(shape, fan_in):
    return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)


tensors = {
    "conv1.weight": he((8, 1, 5, 5), 25),
    "conv1.bias": (rng.standard_normal(8) * 0.1).astype(np.float32),
    "conv2.weight": he((16, 8, 3, 3), 72),
    "conv2.bias": (rng.standard_normal(16) * 0.1).astype(np.float32),
    "fc.weight": he((16, 10), 16),
    "fc.bias": (rng.standard_normal(10) * 0.1).astype(np.float32),
}

header = {}
blobs = []
offset = 0
for key in sorted(tensors):
    data = tensors[key].tobytes()
    header[key] = {"dtype": "F32", "shape": list(tensors[key].shape),
                   "data_offsets": [offset, offset + len(data)]}
    blobs.append(data)
    offset += len(data)
text = json.dumps(header, separators=(",", ":")).encode()
text += b" " * ((8 - len(text) % 8) % 8)
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "small_cnn.safetensors")
with open(out, "wb") as f:
    f.write(struct.pack("<Q", len(text)))
    f.write(text)
    for b in blobs:
        f.write(b)
print(out, file=sys.stderr)
