#!/usr/bin/env bash
# ONNX names the .webnn text form cannot hold (tf2onnx's `input:0`, PyTorch's If-branch
# `/m/If/then//m/x`, a JSON string as an output name) convert to a file wnn reads back, and
# `wnn validate` still takes inputs and compares outputs by their ONNX names.
set -euo pipefail
wnn="$1"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
/usr/bin/python3 - "$out" <<'PY'
import sys
import numpy as np
from onnx import TensorProto, helper, numpy_helper, save
out = sys.argv[1]
x = helper.make_tensor_value_info("input:0", TensorProto.FLOAT, [2, 3])
y = helper.make_tensor_value_info('{"name": "y"}', TensorProto.FLOAT, [2, 3])
z = helper.make_tensor_value_info("Identity:0", TensorProto.FLOAT, [2, 3])
w = numpy_helper.from_array(np.array([0.5, -1.25, 3.0], np.float32), "w:0")
nodes = [
    helper.make_node("Mul", ["input:0", "w:0"], ["/m/If/then//m/mul"]),
    helper.make_node("Relu", ["/m/If/then//m/mul"], ['{"name": "y"}']),
    helper.make_node("Neg", ["/m/If/then//m/mul"], ["Identity:0"]),
]
graph = helper.make_graph(nodes, "g", [x], [y, z], initializer=[w])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
save(model, out + "/names.onnx")
np.save(out + "/x.npy", np.array([[1, -2, 0.5], [-3, 4, 0]], np.float32))
PY
"$wnn" convert "$out/names.onnx" -o "$out/conv" > "$out/convert.log" 2>&1
# The written text reloads: every name is one token of the grammar.
"$wnn" check "$out/conv/names.webnn"
! grep -q 'input:0\|//m\|"name"' "$out/conv/names.webnn"
grep -q 'input_0_[0-9a-f]\{8\}: f32\[2, 3\]' "$out/conv/names.webnn"
# Inputs are given and outputs (and, with --per-node, every node's value) compared by their
# ONNX names.
"$wnn" validate "$out/names.onnx" --input "input:0=$out/x.npy" --per-node --json \
  > "$out/report.json"
/usr/bin/python3 - "$out/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "pass", r
assert [i["name"] for i in r["inputs"]] == ["input:0"], r["inputs"]
assert "x.npy" in str(r["inputs"][0]["source"]), r["inputs"]
names = sorted(o["name"] for o in r["outputs"])
assert names == sorted(['{"name": "y"}', "Identity:0"]), names
print("ok")
PY
