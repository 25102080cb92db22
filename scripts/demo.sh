#!/usr/bin/env bash
# The README's main job: convert a bundled ONNX model to WebNN, prove the converted model
# computes what ONNX Runtime computes on the original, and show the report; then run the
# converted pair and read its outputs back with NumPy.
set -euo pipefail
build="${1:-build}"
wnn="$build/wnn"
model=examples/tiny_classifier.onnx
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

echo "== wnn convert $model -o <tmp>"
"$wnn" convert "$model" -o "$out"
echo
echo "== wnn validate $model --report <tmp>/report.json"
# Converts again, writes the pair, reloads it from disk, runs it, runs the original model in
# ONNX Runtime (tools/ort-reference) on the same inputs and compares every output.
"$wnn" validate "$model" --report "$out/report.json"
echo
echo "== the JSON report"
cat "$out/report.json"
echo
echo "== wnn info $out/tiny_classifier.webnn"
"$wnn" info "$out/tiny_classifier.webnn"
echo
echo "== wnn run $out/tiny_classifier.webnn --random-inputs --output-dir <tmp>/outputs"
"$wnn" run "$out/tiny_classifier.webnn" --random-inputs --output-dir "$out/outputs"
echo
echo "== NumPy reads the outputs back"
/usr/bin/python3 - "$out/outputs" <<'PY'
import sys, glob, numpy as np
for f in sorted(glob.glob(sys.argv[1] + "/*.npy")):
    a = np.load(f)
    print(f"{f.rsplit('/', 1)[1]}: {a.dtype}{list(a.shape)} sum={a.sum():.6f} argmax={a.argmax()}")
PY
echo
echo "== WPT conformance on the reference kernels"
if [ -d ../shared/wpt/conformance ]; then
  "$wnn" conformance ../shared/wpt/conformance | tail -n 1
else
  echo "(../shared/wpt/conformance not found beside the checkout; skipped)"
fi
