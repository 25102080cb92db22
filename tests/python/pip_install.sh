#!/usr/bin/env bash
# `pip install --no-build-isolation python/` with Debian's pip and setuptools, into a scratch
# target, reusing the test build's CMake tree (WNN_BUILD_DIR) so nothing is compiled twice.
# The installed package must import from outside the source tree, build a graph, save and
# reload it, run it and export a PyTorch module.
set -euo pipefail
src="$1"
build="$2"
target="$(mktemp -d)"
trap 'rm -rf "$target"' EXIT
WNN_BUILD_DIR="$build" /usr/bin/python3 -m pip install --quiet --root-user-action=ignore --no-build-isolation --no-deps \
  --no-index --target "$target" "$src/python"
test -f "$target"/wnn/_wnn*.so
cd "$target"
PYTHONPATH="$target" /usr/bin/python3 - "$target" <<'PY'
import os, sys
import numpy as np
import torch
import wnn
import wnn.torch

target = sys.argv[1]
assert os.path.dirname(wnn.__file__) == os.path.join(target, "wnn"), wnn.__file__

b = wnn.GraphBuilder()
x = b.input("x", [2, 3])
w = b.constant("w", np.array([[1.5, -2.0, 0.0]] * 2, np.float32))
b.output(b.add("mul", b.add("relu", x, name="r"), w, name="y"))
wnn.save(b, os.path.join(target, "g.webnn"))
sess = wnn.Session(os.path.join(target, "g.webnn"))
xv = np.array([[-1, 2, 3], [4, -5, 0.5]], np.float32)
got = sess.run({"x": xv})["y"]
np.testing.assert_array_equal(got, np.maximum(xv, 0) * np.array([1.5, -2.0, 0.0], np.float32))

torch.manual_seed(3)
m = torch.nn.Sequential(torch.nn.Linear(5, 3), torch.nn.Tanh()).eval()
inp = torch.randn(2, 5)
wnn.torch.export(m, (inp,), os.path.join(target, "m"))
s2 = wnn.Session(os.path.join(target, "m.webnn"))
out = s2.run({s2.input_names[0]: inp.numpy()})[s2.output_names[0]]
np.testing.assert_allclose(out, m(inp).detach().numpy(), rtol=1e-4, atol=1e-5)
try:
    wnn.Session(os.path.join(target, "missing.webnn"))
    raise SystemExit("a missing file did not raise wnn.Error")
except wnn.Error as e:
    assert "missing.webnn" in str(e), str(e)
print("pip-installed wnn: import, save/load/run and torch export all work")
PY
