#!/usr/bin/python3
"""Writes alternating.webnn: 8 blocks of conv2d (oneDNN, OpenMP threads) followed by floor
(XNNPACK only, pthreadpool threads), so `--backend auto` hands work back and forth between
the two libraries' thread pools on every block. Usage: make_alternating.py OUT_DIR"""
import os
import sys

import numpy as np

from make_weight_norm import write_safetensors

C, HW, BLOCKS = 64, 56, 8


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(1)
    tensors = {f"w{i}": (rng.standard_normal((C, C, 3, 3)) * 0.05).astype(np.float32)
               for i in range(BLOCKS)}
    write_safetensors(os.path.join(out, "alternating.safetensors"), tensors)
    nodes, prev = [], "x"
    for i in range(BLOCKS):
        nodes.append(f"c{i} = conv2d({prev}, w{i}, padding=[1, 1, 1, 1]);")
        nodes.append(f"f{i} = floor(c{i});")
        prev = f"f{i}"
    consts = "\n".join(f"    w{i}: f32[{C}, {C}, 3, 3];" for i in range(BLOCKS))
    body = "\n".join("    " + n for n in nodes)
    with open(os.path.join(out, "alternating.webnn"), "w") as f:
        f.write(f'webnn_graph "alternating" v1 {{\n  inputs {{\n    x: f32[1, {C}, {HW}, {HW}];\n'
                f"  }}\n  consts {{\n{consts}\n  }}\n  nodes {{\n{body}\n  }}\n"
                f"  outputs {{\n    {prev};\n  }}\n}}\n")


if __name__ == "__main__":
    main()
