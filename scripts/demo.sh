#!/usr/bin/env bash
# The README's main job: check the bundled model, run it, and read its outputs back with
# NumPy. (Once ONNX conversion lands this converts a bundled ONNX model and validates it
# against ONNX Runtime.)
set -euo pipefail
build="${1:-build}"
wnn="$build/wnn"
model=examples/small_cnn.webnn
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

echo "== wnn check $model"
"$wnn" check "$model"
echo
echo "== wnn info $model"
"$wnn" info "$model"
echo
echo "== wnn run $model --random-inputs --output-dir <tmp>"
"$wnn" run "$model" --random-inputs --output-dir "$out"
echo
echo "== NumPy reads the outputs back"
/usr/bin/python3 - "$out" <<'PY'
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
