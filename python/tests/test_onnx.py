"""wnn.convert_onnx and wnn.validate on a small ONNX model built with onnx.helper at test time:
Relu(x @ W + B) * s, with a free batch dimension and a scale input to pin."""

import json
import os
import tempfile
import unittest
from unittest import mock

import numpy as np

import wnn

try:
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError:  # pragma: no cover
    onnx = None

RNG = np.random.default_rng(7)
W = RNG.standard_normal((5, 4)).astype(np.float32)
B = np.array([0.5, -1.25, 0.0, 2.0], np.float32)


def write_model(path, op="Relu"):
    nodes = [
        helper.make_node("MatMul", ["x", "W"], ["xw"]),
        helper.make_node("Add", ["xw", "B"], ["pre"]),
        helper.make_node(op, ["pre"], ["act"]),
        helper.make_node("Mul", ["act", "s"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 5]),
         helper.make_tensor_value_info("s", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])],
        [numpy_helper.from_array(W, "W"), numpy_helper.from_array(B, "B")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)


def expected(x, s):
    return np.maximum(x @ W + B, 0) * s


class ModelInTempDir(unittest.TestCase):
    """The model written to a fresh directory per test."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.model = os.path.join(self.tmp.name, "mlp.onnx")
        write_model(self.model)


@unittest.skipIf(onnx is None, "python3-onnx is not installed")
class ConvertOnnxTest(ModelInTempDir):

    def test_converted_graph_runs_like_numpy(self):
        r = wnn.convert_onnx(self.model, override_dims={"batch": 3})
        self.assertIsNone(r["graph_path"])
        self.assertEqual([i[0] for i in r["inputs"]], ["x", "s"])
        self.assertEqual([o[0] for o in r["outputs"]], ["y"])
        s = wnn.Session(r["graph"], backend="ref")
        x = RNG.standard_normal((3, 5)).astype(np.float32)
        scale = np.array([-0.75], np.float32)
        out = s.run({"x": x, "s": scale})
        np.testing.assert_allclose(out[r["outputs"][0][1]], expected(x, scale), rtol=1e-5,
                                   atol=1e-6)

    def test_axis_key_sets_one_axis_of_one_input(self):
        # "x:0" is axis 0 of input x (the key form of --override-dim INPUT:AXIS=V); it wins
        # over the dim's name, and a fixed axis must agree.
        r = wnn.convert_onnx(self.model, override_dims={"x:0": 3, "batch": 7})
        x = RNG.standard_normal((3, 5)).astype(np.float32)
        scale = np.array([1.25], np.float32)
        out = wnn.Session(r["graph"], backend="ref").run({"x": x, "s": scale})
        np.testing.assert_allclose(out[r["outputs"][0][1]], expected(x, scale), rtol=1e-5,
                                   atol=1e-6)
        with self.assertRaisesRegex(wnn.Error, "axis 1 of 'x' is fixed at 5"):
            wnn.convert_onnx(self.model, override_dims={"x:0": 3, "x:1": 4})

    def test_pinned_input_and_files_in_out_dir(self):
        out_dir = os.path.join(self.tmp.name, "out")
        r = wnn.convert_onnx(self.model, out_dir, override_dims={"batch": 2},
                             pin_inputs={"s": 0.5})
        self.assertEqual(r["pinned"], ["s"])
        self.assertEqual([i[0] for i in r["inputs"]], ["x"])
        self.assertEqual(r["graph_path"], os.path.join(out_dir, "mlp.webnn"))
        self.assertTrue(os.path.exists(r["weights_path"]))
        s = wnn.Session(r["graph_path"])
        self.assertEqual(s.input_names, [r["inputs"][0][1]])
        x = np.array([[1, -2, 0, 3.5, -1], [0, 0, 0, 0, 0]], np.float32)
        out = s.run({r["inputs"][0][1]: x})[r["outputs"][0][1]]
        np.testing.assert_allclose(out, expected(x, 0.5), rtol=1e-5, atol=1e-6)
        # The batch-free row gives relu(B) * 0.5: B has a negative and a zero entry.
        np.testing.assert_allclose(out[1], [0.25, 0, 0, 1.0])

    def test_pin_as_array(self):
        r = wnn.convert_onnx(self.model, override_dims={"batch": 1},
                             pin_inputs={"s": np.array([2.0], np.float32)})
        x = np.full((1, 5), -0.5, np.float32)
        out = wnn.Session(r["graph"]).run({r["inputs"][0][1]: x})[r["outputs"][0][1]]
        np.testing.assert_allclose(out, expected(x, 2.0), rtol=1e-5, atol=1e-6)

    def test_unsupported_op_is_a_wnn_error_naming_it(self):
        write_model(self.model, op="NoSuchOperator")
        with self.assertRaises(wnn.Error) as cm:
            wnn.convert_onnx(self.model)
        self.assertIn("NoSuchOperator", str(cm.exception))

    def test_missing_file_and_bad_pin_raise(self):
        with self.assertRaises(wnn.Error) as cm:
            wnn.convert_onnx(os.path.join(self.tmp.name, "absent.onnx"))
        self.assertIn("absent.onnx", str(cm.exception))
        with self.assertRaises(wnn.Error) as cm:
            wnn.convert_onnx(self.model, pin_inputs={"s": object()})
        self.assertIn("pin_inputs['s']", str(cm.exception))


@unittest.skipIf(onnx is None, "python3-onnx is not installed")
class ValidateTest(ModelInTempDir):
    def setUp(self):
        super().setUp()
        self.inputs = {"x": RNG.standard_normal((2, 5)).astype(np.float32),
                       "s": np.array([1.5], np.float32)}

    def skip_without_ort(self, report):
        if report["stage"] == "reference" and "onnxruntime" in (report["message"] or ""):
            self.skipTest("ONNX Runtime reference unavailable: " + report["message"])

    def test_validate_passes_with_metrics_and_report_file(self):
        path = os.path.join(self.tmp.name, "report.json")
        r = wnn.validate(self.model, inputs=self.inputs, backend="ref", report=path)
        self.skip_without_ort(r)
        self.assertEqual(r["status"], "pass", r["message"])
        self.assertIsNone(r["stage"])
        self.assertEqual(r["exit_code"], 0)
        [out] = r["outputs"]
        self.assertEqual(out["name"], "y")
        self.assertEqual(out["shape"], [2, 4])
        self.assertTrue(out["pass"])
        self.assertLessEqual(out["max_abs"], 1e-5)
        self.assertEqual(out["failing"], 0)
        self.assertEqual([i["name"] for i in r["inputs"]], ["x", "s"])
        with open(path) as f:
            self.assertEqual(json.load(f)["status"], "pass")

    def test_perturbed_weights_fail_numerically_with_metrics(self):
        with mock.patch.dict(os.environ, {"WNN_VALIDATE_TEST_FAULT": "scale-weights"}):
            r = wnn.validate(self.model, inputs=self.inputs, backend="ref")
        self.skip_without_ort(r)
        self.assertEqual(r["status"], "fail")
        self.assertEqual(r["stage"], "numerical")
        self.assertEqual(r["exit_code"], 1)
        [out] = r["outputs"]
        self.assertFalse(out["pass"])
        self.assertGreater(out["failing"], 0)
        self.assertGreater(out["max_abs"], 1e-3)
        self.assertGreater(out["max_normalized"], 1.0)

    def test_loose_tolerance_accepts_the_perturbation(self):
        # W scaled by 1.25 changes |y| by at most a quarter of |x @ W| * s: within rtol 1.
        with mock.patch.dict(os.environ, {"WNN_VALIDATE_TEST_FAULT": "scale-weights"}):
            r = wnn.validate(self.model, inputs=self.inputs, backend="ref", atol=50.0, rtol=1.0)
        self.skip_without_ort(r)
        self.assertEqual(r["status"], "pass", r["message"])
        self.assertEqual(r["outputs"][0]["atol"], 50.0)

    def test_per_node_names_the_first_divergent_node(self):
        # scale-weights changes W, the first weights constant: the MatMul diverges first and
        # everything after it follows.
        with mock.patch.dict(os.environ, {"WNN_VALIDATE_TEST_FAULT": "scale-weights"}):
            r = wnn.validate(self.model, inputs=self.inputs, backend="ref", per_node=True,
                             per_node_memory_mb=1)
        self.skip_without_ort(r)
        self.assertEqual(r["stage"], "numerical")
        p = r["per_node"]
        self.assertEqual(p["compared"], 4)
        self.assertEqual([n["value"] for n in p["nodes"]], ["xw", "pre", "act", "y"])
        self.assertEqual(p["first_divergent"]["value"], "xw")
        self.assertEqual(p["first_divergent"]["op_type"], "MatMul")
        self.assertEqual([n["pass"] for n in p["nodes"]], [False, False, False, False])
        ok = wnn.validate(self.model, inputs=self.inputs, backend="ref", per_node=True)
        self.assertEqual(ok["status"], "pass", ok["message"])
        self.assertIsNone(ok["per_node"]["first_divergent"])
        self.assertEqual([n["pass"] for n in ok["per_node"]["nodes"]], [True] * 4)
        self.assertIsNone(wnn.validate(self.model, inputs=self.inputs, backend="ref")["per_node"])

    def test_noise_floor_always_is_measured_and_reported(self):
        r = wnn.validate(self.model, inputs=self.inputs, backend="ref", noise_floor="always")
        self.skip_without_ort(r)
        self.assertEqual(r["status"], "pass", r["message"])
        self.assertTrue(r["noise_floor"]["measured"])
        self.assertEqual(r["noise_floor"]["mode"], "always")
        self.assertEqual(len(r["outputs"][0]["noise_floor"]["per_run"]), 2)
        self.assertFalse(r["outputs"][0]["within_noise_floor"])
        off = wnn.validate(self.model, inputs=self.inputs, backend="ref", noise_floor="off")
        self.assertFalse(off["noise_floor"]["measured"])
        with self.assertRaises(wnn.Error) as cm:
            wnn.validate(self.model, noise_floor="sometimes")
        self.assertIn("noise_floor", str(cm.exception))

    def test_conversion_failure_is_reported_not_raised(self):
        write_model(self.model, op="NoSuchOperator")
        r = wnn.validate(self.model, override_dims={"batch": 1})
        self.assertEqual(r["status"], "fail")
        self.assertEqual(r["stage"], "conversion")
        self.assertEqual(r["exit_code"], 2)
        self.assertEqual([u["op_type"] for u in r["unsupported"]], ["NoSuchOperator"])

    def test_bad_tolerance_raises(self):
        with self.assertRaises(wnn.Error) as cm:
            wnn.validate(self.model, atol=-1)
        self.assertIn("atol", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
