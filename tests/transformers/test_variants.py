"""Every tiny transformer-zoo variant through ONNX Runtime, against the numpy reference.

Run one: /usr/bin/python3 -m unittest test_variants.Variants.test_genai_tiny_fp32 (from
tests/transformers). For each variant and each phase of its sidecar (prefill with an empty past,
decode with a random past): the outputs ORT gives have the sidecar's names and shapes, are
finite and not constant; they match reference.py's forward pass; present = concat(past, new)
holds exactly on the past rows; and decoding one token after a prefill gives the logits and
cache that one prefill over all the tokens gives.
"""

import os
import shutil
import tempfile
import unittest

import numpy as np

from harness import VARIANTS, excess, feed_arrays, generate, run_ort
from reference import decoder_forward, encoder_forward

# ORT against the float64 reference: float32 rounding only. The reference follows ORT's
# arithmetic where it quantizes activations (accuracy_level 4, DynamicQuantizeLinear), so the
# quantized variants are held to the same tolerance.
TOLERANCE = (2e-5, 1e-4)


class Variants(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def check_outputs(self, sidecar, phase, got):
        feed = sidecar["phases"][phase]
        self.assertEqual(sorted(got), sorted(feed["outputs"]), phase)
        for name, shape in feed["outputs"].items():
            self.assertEqual(list(got[name].shape), shape, f"{phase} {name}")
            self.assertTrue(np.isfinite(got[name]).all(), f"{phase} {name} is not finite")
        main = got.get("logits", got.get("last_hidden_state"))
        # Not constant, and logits not saturated by badly scaled weights.
        self.assertGreater(main.std(), 0.1, phase)
        self.assertLess(np.abs(main).max(), 100, phase)

    def check_reference(self, path, sidecar, phase, feeds, got):
        forward = encoder_forward if sidecar["kind"] == "encoder" else decoder_forward
        want = forward(path, sidecar, feeds)
        atol, rtol = TOLERANCE
        for name, value in want.items():
            e = excess(got[name], value, atol, rtol)
            self.assertLessEqual(e, 0, f"{phase} {name}: ORT and the numpy reference differ "
                                 f"by {e} beyond atol {atol} rtol {rtol}")

    def check_cache(self, path, sidecar, feeds, got):
        """present = concat(past, new); decode after prefill = prefill over all the tokens."""
        for name in got:
            if name.startswith("present."):
                past = feeds[name.replace("present.", "past_key_values.")]
                np.testing.assert_array_equal(got[name][:, :, :past.shape[2]], past, name)
        prefill = feed_arrays(sidecar["phases"]["prefill"])
        s = prefill["input_ids"].shape[1]
        whole = run_ort(path, prefill, self.dir, "whole")
        head = {k: (v[:, :s - 1] if v.ndim == 2 else v) for k, v in prefill.items()}
        first = run_ort(path, head, self.dir, "head")
        step = {"input_ids": prefill["input_ids"][:, s - 1:], "attention_mask": prefill[
            "attention_mask"]}
        if "position_ids" in prefill:
            step["position_ids"] = prefill["position_ids"][:, s - 1:]
        for name in prefill:
            if name.startswith("past_key_values."):
                step[name] = first[name.replace("past_key_values.", "present.")]
        last = run_ort(path, step, self.dir, "step")
        atol, rtol = TOLERANCE
        for name, value in last.items():
            want = whole[name][:, -1:] if name == "logits" else whole[name]
            e = excess(value, want, atol, rtol)
            self.assertLessEqual(e, 0, f"{name}: decoding the last token after a prefill of "
                                 f"{s - 1} differs from one prefill of {s} by {e}")

    def check_variant(self, name):
        sidecar = generate(name, self.dir)
        path = os.path.join(self.dir, name + ".onnx")
        for phase, feed in sidecar["phases"].items():
            feeds = feed_arrays(feed)
            got = run_ort(path, feeds, self.dir, phase)
            self.check_outputs(sidecar, phase, got)
            self.check_reference(path, sidecar, phase, feeds, got)
            if phase == "decode":
                self.check_cache(path, sidecar, feeds, got)


def _add(name):
    setattr(Variants, f"test_{name}", lambda self: self.check_variant(name))


for _v in VARIANTS:
    if _v.size == "tiny":
        _add(_v.name)

if __name__ == "__main__":
    unittest.main()
