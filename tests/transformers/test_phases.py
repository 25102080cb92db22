"""`wnn convert --phase` on tiny decoders: one conversion writes the prefill and decode graphs
over ONE weights file holding one copy of the weights; both reload (`wnn check`) and, run by
wnn.Session in one process, equal ONNX Runtime on each phase's sidecar feed.

usage: WNN=build/wnn PYTHONPATH=build/python /usr/bin/python3 -m unittest test_phases
"""

import os
import subprocess
import tempfile
import unittest

import numpy as np
import onnx

from harness import excess, feed_arrays, generate, run_ort

WNN = os.environ.get("WNN", os.path.join(os.path.dirname(__file__), "..", "..", "build", "wnn"))


def phase_spec(onnx_path, feed):
    """NAME:DIM=V,... binding every symbolic input dim at the feed's shapes."""
    model = onnx.load(onnx_path, load_external_data=False)
    dims = {}
    for i in model.graph.input:
        shape = next(s["shape"] for s in feed["inputs"] if s["name"] == i.name)
        for d, v in zip(i.type.tensor_type.shape.dim, shape):
            if d.dim_param:
                dims[d.dim_param] = v
    return ",".join(f"{k}={v}" for k, v in sorted(dims.items()))


class Phases(unittest.TestCase):
    def check_model(self, name, atol, rtol):
        import wnn

        with tempfile.TemporaryDirectory() as tmp:
            sidecar = generate(name, tmp)
            model = os.path.join(tmp, name + ".onnx")
            out = os.path.join(tmp, "out")
            cmd = [WNN, "convert", model, "-o", out, "-q"]
            for phase, feed in sidecar["phases"].items():
                cmd += ["--phase", f"{phase}:{phase_spec(model, feed)}"]
            r = subprocess.run(cmd, capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(sorted(os.listdir(out)),
                             sorted([f"{name}.decode.webnn", f"{name}.prefill.webnn",
                                     f"{name}.safetensors"]))
            # One copy of the weights: the model's own bytes plus a header and the few folded
            # constants that differ per phase, far from two copies.
            weights = sum(sidecar["bytes"].values()) - os.path.getsize(model) \
                if sidecar["bytes"].get("data") else os.path.getsize(model)
            stored = os.path.getsize(os.path.join(out, name + ".safetensors"))
            self.assertLess(stored, 1.1 * weights)
            self.assertGreater(stored, 0.5 * weights)
            sessions = {}
            for phase, feed in sidecar["phases"].items():
                graph = os.path.join(out, f"{name}.{phase}.webnn")
                r = subprocess.run([WNN, "check", graph], capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assertIn(name + ".safetensors", r.stdout)
                sessions[phase] = wnn.Session(graph, backend="auto", threads=1)
            for phase, feed in sidecar["phases"].items():
                arrays = feed_arrays(feed)
                want = run_ort(model, arrays, tmp, phase)
                s = sessions[phase]
                got = s.run({k: v for k, v in arrays.items() if k in s.input_names})
                self.assertEqual(sorted(got), sorted(want), phase)
                for k in want:
                    self.assertEqual(got[k].shape, want[k].shape, (phase, k))
                    self.assertLessEqual(excess(got[k], want[k], atol, rtol), 0, (phase, k))
                    self.assertGreater(np.abs(want[k]).max(), 0, (phase, k))

    def test_genai_fp32(self):
        self.check_model("genai_tiny_fp32", 1e-5, 1e-4)

    def test_optimum_fp32(self):
        self.check_model("optimum_tiny_fp32", 1e-5, 1e-4)

    def test_genai_int4(self):
        self.check_model("genai_tiny_int4_b32_acc0", 1e-3, 1e-3)

    def test_phase_errors(self):
        with tempfile.TemporaryDirectory() as tmp:
            sidecar = generate("genai_tiny_fp32", tmp)
            model = os.path.join(tmp, "genai_tiny_fp32.onnx")
            spec = phase_spec(model, sidecar["phases"]["prefill"])
            for args, message in (
                    (["--phase", f"prefill:{spec}"], "two or more phases"),
                    (["--phase", f"a:{spec}", "--phase", f"a:{spec}"], "given twice"),
                    (["--phase", "a/b:sequence_length=1", "--phase", f"c:{spec}"], "must be"),
                    (["--phase", "prefill", "--phase", f"c:{spec}"], "NAME:DIM=V")):
                r = subprocess.run([WNN, "convert", model, "-o", os.path.join(tmp, "o")] + args,
                                   capture_output=True, text=True)
                self.assertNotEqual(r.returncode, 0, args)
                self.assertIn(message, r.stderr, args)
            self.assertFalse(os.path.exists(os.path.join(tmp, "o")))


if __name__ == "__main__":
    unittest.main()
