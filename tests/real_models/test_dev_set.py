"""The dev set's feeds (tests/real_models/dev_set.py), which `make real-models-test` and
`make bench-ort` both read: the fills of the dev set's README, pinning, and wnn's arguments."""
import os
import pathlib
import sys
import tempfile
import unittest

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import dev_set  # noqa: E402

# One input of every kind: a free dim and a ':' name, an integer scalar to pin, an integer
# tensor with the same const fill (not pinned: not a scalar), a seeded one and an iota.
MODEL = {
    "name": "mixed",
    "inputs": [
        {"name": "audio:0", "dtype": "float32", "shape": [None, 3]},
        {"name": "sr", "dtype": "int64", "shape": []},
        {"name": "lens", "dtype": "int64", "shape": [2]},
        {"name": "noise", "dtype": "float16", "shape": [4]},
        {"name": "ids", "dtype": "int32", "shape": [5]},
    ],
    "test_feed": {
        "audio:0": {"shape": [2, 3], "fill": "unit"},
        "sr": {"shape": [], "fill": "const:8000"},
        "lens": {"shape": [2], "fill": "const:-3"},
        "noise": {"shape": [4], "fill": "rand"},
        "ids": {"shape": [5], "fill": "iota:3"},
    },
}


class DevSetFeed(unittest.TestCase):
    def test_values_follow_the_readme_fills(self):
        feed = {name: (values, pinned) for name, values, pinned in dev_set.feed(MODEL)}
        audio, pinned = feed["audio:0"]
        self.assertFalse(pinned)
        self.assertEqual(audio.dtype, np.float32)
        self.assertEqual(audio.shape, (2, 3))
        # input number 0: 0.5 + 0.5 sin(0.01 i)
        np.testing.assert_allclose(audio.ravel(), 0.5 + 0.5 * np.sin(0.01 * np.arange(6)),
                                   rtol=1e-6)
        lens, pinned = feed["lens"]
        self.assertFalse(pinned)  # an integer const that is not a scalar is fed
        self.assertEqual(lens.tolist(), [-3, -3])
        noise, _ = feed["noise"]
        self.assertEqual(noise.dtype, np.float16)
        want = np.random.default_rng(1234 + 3).uniform(-1.0, 1.0, 4).astype(np.float16)
        np.testing.assert_array_equal(noise, want)
        ids, _ = feed["ids"]
        self.assertEqual(ids.dtype, np.int32)
        self.assertEqual(ids.tolist(), [0, 1, 2, 0, 1])
        sr, pinned = feed["sr"]
        self.assertTrue(pinned)
        self.assertEqual(sr.shape, ())
        self.assertEqual(int(sr), 8000)

    def test_wnn_arguments_pin_the_scalar_and_write_the_rest(self):
        with tempfile.TemporaryDirectory() as tmp:
            args = dev_set.feed_args(MODEL, tmp)
            self.assertEqual(args[args.index("--pin-input") + 1], "sr=8000")
            given = [args[i + 1] for i, a in enumerate(args) if a == "--input"]
            self.assertEqual([g.split("=", 1)[0] for g in given],
                             ["audio:0", "lens", "noise", "ids"])
            # Files are numbered by input position, the pinned one leaving a gap.
            self.assertEqual(given[1], f"lens={tmp}/input2.npy")
            np.testing.assert_array_equal(np.load(f"{tmp}/input4.npy"), [0, 1, 2, 0, 1])
            written = {p.name for p in pathlib.Path(tmp).iterdir()}
            self.assertEqual(written, {"input0.npy", "input2.npy", "input3.npy", "input4.npy"})

    def test_a_missing_feed_is_an_error(self):
        model = dict(MODEL, test_feed={k: v for k, v in MODEL["test_feed"].items()
                                       if k != "noise"})
        with self.assertRaisesRegex(SystemExit, "no test_feed for \\['noise'\\]"):
            dev_set.feed(model)

    def test_an_unknown_fill_is_an_error(self):
        model = dict(MODEL, test_feed=dict(MODEL["test_feed"],
                                           ids={"shape": [5], "fill": "ramp"}))
        with self.assertRaisesRegex(SystemExit, "unknown fill 'ramp'"):
            dev_set.feed(model)


class DevSetFolder(unittest.TestCase):
    def setUp(self):
        self.saved = os.environ.get("WNN_SHARED_MODELS")

    def tearDown(self):
        if self.saved is None:
            os.environ.pop("WNN_SHARED_MODELS", None)
        else:
            os.environ["WNN_SHARED_MODELS"] = self.saved

    def test_the_environment_names_the_folder(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["WNN_SHARED_MODELS"] = tmp
            self.assertIsNone(dev_set.find_shared_models())  # no dev-models.json yet
            self.assertIn(f"WNN_SHARED_MODELS={tmp} holds no dev-models.json",
                          dev_set.not_found_message())
            pathlib.Path(tmp, "dev-models.json").write_text('{"models": [{"name": "m"}]}')
            self.assertEqual(dev_set.find_shared_models(), pathlib.Path(tmp))
            self.assertEqual(dev_set.load_manifest(pathlib.Path(tmp)), [{"name": "m"}])


if __name__ == "__main__":
    unittest.main()
