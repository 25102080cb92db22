#!/usr/bin/python3
"""Checks that passes/canonicalize turns PyTorch's opset 13 LayerNorm (written out as
ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add) into layerNormalization on a real
export: after `wnn partition` the opset 13 graph runs the same ops as the opset 17 export (which
has the LayerNormalization op), in one oneDNN region with nothing on the reference kernels.

usage: /usr/bin/python3 check_canonical_forms.py WNN ZOO_DIR
Exports transformer_encoder and transformer_encoder_opset13 into ZOO_DIR when missing.
"""
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
PAIR = ("transformer_encoder", "transformer_encoder_opset13")


def partition(wnn, onnx_path, out_dir):
    subprocess.run([wnn, "convert", onnx_path, "-o", out_dir], check=True, capture_output=True)
    stem = os.path.splitext(os.path.basename(onnx_path))[0]
    p = subprocess.run([wnn, "partition", os.path.join(out_dir, stem + ".webnn"), "--json",
                        "--backend", "onednn"], check=True, capture_output=True, text=True)
    return json.loads(p.stdout)


def ops(plan):
    c = Counter()
    for r in plan["regions"]:
        c.update(r["ops"])
    c.update(n["op"] for n in plan["reference"])
    return c


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    wnn, zoo = argv
    os.makedirs(zoo, exist_ok=True)
    missing = [m for m in PAIR if not os.path.exists(os.path.join(zoo, m + ".onnx"))]
    if missing:
        subprocess.run([sys.executable, os.path.join(HERE, "make_models.py"), zoo, "--only",
                        ",".join(missing)], check=True)
    failures = []
    with tempfile.TemporaryDirectory() as d:
        plan17, plan13 = (partition(wnn, os.path.join(zoo, m + ".onnx"), os.path.join(d, m))
                          for m in PAIR)

    def expect(cond, what):
        if not cond:
            failures.append(what)

    # Three encoder layers, two LayerNorms each.
    expect(plan13.get("patterns", {}).get("normalization") == 6,
           f"normalization patterns replaced: {plan13.get('patterns')}")
    expect(len(plan13["regions"]) == 1 and plan13["reference_nodes"] == 0,
           f"{len(plan13['regions'])} regions, {plan13['reference_nodes']} on the reference "
           f"kernels: {plan13['reference']}")
    expect(ops(plan13) == ops(plan17), f"opset 13 ops {dict(ops(plan13))}\n"
           f"opset 17 ops {dict(ops(plan17))}")
    expect(ops(plan13)["layerNormalization"] == 6, f"ops {dict(ops(plan13))}")
    for f in failures:
        print("FAILED: " + f)
    print("canonical forms: " + ("ok" if not failures else f"{len(failures)} check(s) failed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
