#!/usr/bin/env bash
# `wnn run` writes one .npy per output that NumPy reads back with the shape and dtype wnn
# printed, and the bundled classifier's softmax output sums to 1.
set -euo pipefail
wnn="$1"
src="$2"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$wnn" run "$src/examples/small_cnn.webnn" --random-inputs --seed 7 --output-dir "$out" --json \
  > "$out/report.json"
/usr/bin/python3 - "$out" <<'PY'
import json, sys
import numpy as np
out = sys.argv[1]
report = json.load(open(out + "/report.json"))
assert len(report["outputs"]) == 1, report
for o in report["outputs"]:
    a = np.load(o["file"])
    assert list(a.shape) == o["shape"], (a.shape, o["shape"])
    assert a.dtype == np.dtype(o["dtype"]), (a.dtype, o["dtype"])
    assert abs(float(a.min()) - o["min"]) < 1e-6 and abs(float(a.max()) - o["max"]) < 1e-6
    assert abs(float(a.sum()) - 1.0) < 1e-5, a.sum()
    assert (a > 0).all()
print("ok")
PY
# The same seed gives the same bytes; another seed gives other values.
"$wnn" run "$src/examples/small_cnn.webnn" --random-inputs --seed 7 --output-dir "$out/again" -q
cmp "$out/probs.npy" "$out/again/probs.npy"
"$wnn" run "$src/examples/small_cnn.webnn" --random-inputs --seed 8 --output-dir "$out/other" -q
! cmp -s "$out/probs.npy" "$out/other/probs.npy"
# A missing input is an error that says how to give it.
if "$wnn" run "$src/examples/small_cnn.webnn" 2> "$out/err"; then exit 1; fi
grep -q "input 'x' (float32\[1, 1, 28, 28\]) needs --input x=FILE.npy, or pass --random-inputs" "$out/err"
# An output named like a path lands inside the directory, under its percent-encoded name.
cat > "$out/path_named.webnn" <<'G'
webnn_graph "path_named" v1 {
  inputs { x: f32[3]; }
  nodes { /up/y = relu(x); }
  outputs { /up/y; }
}
G
"$wnn" run "$out/path_named.webnn" --random-inputs --output-dir "$out/named" -q
test -f "$out/named/%2Fup%2Fy.npy"
test ! -e /up/y.npy
