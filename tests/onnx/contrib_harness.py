"""The harness of the com.microsoft contrib operator tests: wnn convert + wnn run against ORT.

Each case builds a small model with onnx.helper and random non-trivial weights, runs it through
tools/ort-reference/run.js (ONNX Runtime, the ground truth) and through `wnn convert` and
`wnn run`, and compares every output. Nothing ORT computes is checked in.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zlib

import numpy as np
from onnx import helper, mapping, numpy_helper, save

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "models"))
from safetensors_io import read_safetensors, write_safetensors  # noqa: E402

RUN_JS = os.path.join(ROOT, "tools", "ort-reference", "run.js")
WNN = os.environ.get("WNN", os.path.join(ROOT, "build", "wnn"))
FLOAT_TOL = (1e-5, 1e-4)
# float16 models: both runtimes round intermediates to half precision at different points.
F16_TOL = (5e-3, 5e-3)


def onnx_type(array):
    return mapping.NP_TYPE_TO_TENSOR_TYPE[array.dtype]  # onnx 1.12 (Debian 12)


def pack_rows(q, bits):
    """Packs unsigned values [rows, count] along each row: 4-bit low nibble first, 8-bit bytes."""
    if bits == 8:
        return q.astype(np.uint8)
    if q.shape[1] % 2:
        q = np.concatenate([q, np.zeros((q.shape[0], 1), q.dtype)], axis=1)
    return (q[:, 0::2] | (q[:, 1::2] << 4)).astype(np.uint8)


class ContribCase:
    """One model: nodes over named inputs (fed at run time) and initializers.

    `out_dtype` is one dtype for every output or a {name: dtype} dict. With `exact` every
    output must equal the reference bit for bit (integer outputs always must).
    """

    def __init__(self, nodes, inputs, initializers, outputs, tol=FLOAT_TOL, out_dtype=np.float32,
                 exact=False):
        self.nodes, self.inputs, self.inits = nodes, inputs, initializers
        self.outputs, self.tol, self.exact, self.out_dtype = outputs, tol, exact, out_dtype

    def dtype_of(self, name):
        return np.dtype(self.out_dtype[name] if isinstance(self.out_dtype, dict) else self.out_dtype)

    def model(self):
        graph = helper.make_graph(
            self.nodes, "contrib",
            [helper.make_tensor_value_info(k, onnx_type(v), v.shape) for k, v in self.inputs.items()],
            [helper.make_tensor_value_info(name, mapping.NP_TYPE_TO_TENSOR_TYPE[self.dtype_of(name)],
                                           None) for name in self.outputs],
            [numpy_helper.from_array(v, k) for k, v in self.inits.items()])
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                       helper.make_opsetid("com.microsoft", 1)])


class ContribTestBase(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        # Seeded by the test's name: the same data on every run.
        self.rng = np.random.default_rng(zlib.crc32(self.id().encode()))

    def tearDown(self):
        shutil.rmtree(self.dir)

    def rand(self, *shape, scale=1.0):
        return (self.rng.standard_normal(shape) * scale).astype(np.float32)

    def write_model(self, case, name="model"):
        path = os.path.join(self.dir, name + ".onnx")
        save(case.model(), path)
        return path

    def convert(self, model, pins=()):
        out = os.path.join(self.dir, "converted")
        args = [WNN, "convert", model, "-o", out]
        for name, value in pins:
            args += ["--pin-input", f"{name}={value}"]
        return subprocess.run(args, capture_output=True, text=True), out

    def run_ort(self, case):
        """ONNX Runtime's outputs of the case (the ground truth)."""
        model = self.write_model(case)
        feeds = os.path.join(self.dir, "in.safetensors")
        write_safetensors(feeds, case.inputs)
        ref_path = os.path.join(self.dir, "ref.safetensors")
        r = subprocess.run(["node", RUN_JS, "--model", model, "--inputs", feeds,
                            "--outputs", ref_path], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return read_safetensors(ref_path)

    def run_wnn(self, case, pins=()):
        """Converts and runs the case with wnn; returns ({name: output}, conversion directory).

        `pins` are (input, scalar) pairs frozen at conversion (--pin-input).
        """
        model = self.write_model(case)
        r, out = self.convert(model, pins)
        self.assertEqual(r.returncode, 0, r.stderr)
        args = [WNN, "run", os.path.join(out, "model.webnn"), "--output-dir",
                os.path.join(self.dir, "out"), "-q"]
        pinned = {name for name, _ in pins}
        for name, value in case.inputs.items():
            if name in pinned:
                continue
            np.save(os.path.join(self.dir, name + ".npy"), value)
            args += ["--input", f"{name}={os.path.join(self.dir, name + '.npy')}"]
        r = subprocess.run(args, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return {name: np.load(os.path.join(self.dir, "out", name + ".npy"))
                for name in case.outputs}, out

    def compare(self, case, got, ref):
        atol, rtol = case.tol
        for name in case.outputs:
            want = ref[name]
            self.assertEqual(got[name].shape, want.shape, name)
            if case.exact or want.dtype.kind in "iub":
                self.assertEqual(got[name].dtype, want.dtype, name)
                bad = got[name] != want
                self.assertFalse(bad.any(), f"{name}: {bad.sum()} of {bad.size} elements differ, "
                                 f"first at {np.argwhere(bad)[0] if bad.any() else None}: "
                                 f"{got[name][bad][:5]} for {want[bad][:5]}")
                continue
            self.assertGreater(np.abs(want).max(), 1e-3, f"{name}: a trivial reference")
            err = np.abs(got[name].astype(np.float64) - want) - (atol + rtol * np.abs(want))
            self.assertLessEqual(err.max(), 0, f"{name}: worst excess {err.max()} at "
                                 f"{np.unravel_index(err.argmax(), err.shape)}")

    def check(self, case, pins=()):
        """Converts and runs the case with wnn and ORT and compares every output; returns the
        conversion directory. ORT still gets pinned inputs as inputs."""
        ref = self.run_ort(case)
        got, out = self.run_wnn(case, pins)
        self.compare(case, got, ref)
        return out

    def expect_unsupported(self, case, *words):
        r, _ = self.convert(self.write_model(case))
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        for w in words:
            self.assertIn(w, r.stderr)
