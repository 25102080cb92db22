"""Tests for fp16_converter.py: the file it writes has onnxconverter-common's keep_io_types shape.

Run: /usr/bin/python3 -m unittest discover -s tests/models -p 'test_fp16*.py'
The numbers are checked by validate_zoo.py --fp16 (ONNX Runtime against wnn); these tests check
the structure that idiom has and that wnn's importer must cope with.
"""

import os
import sys
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fp16_converter import convert  # noqa: E402


def small_model():
    rng = np.random.default_rng(7)
    w = numpy_helper.from_array(rng.standard_normal((4, 2, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(np.array([0.5, -0.25, 0, 3e-8], np.float32), "b")
    big = numpy_helper.from_array(np.array([2e5, -7.5, -3e5], np.float32), "big")
    scales = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales")
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="/conv/Conv", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name="/relu/Relu"),
        helper.make_node("Resize", ["r", "", "scales"], ["up"], name="/up/Resize", mode="linear"),
        helper.make_node("Constant", [], ["k"], name="/k/Constant",
                         value=numpy_helper.from_array(np.array(-1.5, np.float32))),
        helper.make_node("Max", ["up", "k"], ["m"], name="/max/Max"),
        helper.make_node("Cast", ["m"], ["y"], name="/cast/Cast", to=TensorProto.FLOAT),
        helper.make_node("Shape", ["x"], ["s"], name="/shape/Shape"),
    ]
    g = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 5, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 10, 10]),
         helper.make_tensor_value_info("s", TensorProto.INT64, [4])],
        [w, b, big, scales])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


class Fp16ConverterTest(unittest.TestCase):
    def setUp(self):
        self.model = convert(small_model())
        self.g = self.model.graph
        self.nodes = {n.name: n for n in self.g.node}
        self.inits = {t.name: t for t in self.g.initializer}

    def test_graph_inputs_and_outputs_stay_float32(self):
        self.assertEqual(self.g.input[0].type.tensor_type.elem_type, TensorProto.FLOAT)
        self.assertEqual(self.g.output[0].type.tensor_type.elem_type, TensorProto.FLOAT)
        self.assertEqual(self.g.output[1].type.tensor_type.elem_type, TensorProto.INT64)

    def test_casts_are_appended_after_the_original_nodes(self):
        names = [n.name for n in self.g.node]
        self.assertEqual(names[:7], ["/conv/Conv", "/relu/Relu", "/up/Resize", "/k/Constant",
                                     "/max/Max", "/cast/Cast", "/shape/Shape"])
        self.assertEqual(names[7:], ["graph_input_cast0", "graph_output_cast0",
                                     "/up/Resize_input_cast0", "/up/Resize_output_cast0",
                                     "/max/Max_input_cast0", "/max/Max_input_cast1",
                                     "/max/Max_output_cast0"])

    def test_file_is_not_topologically_sorted(self):
        conv = self.nodes["/conv/Conv"]
        self.assertEqual(conv.input[0], "graph_input_cast_0")
        producer = [i for i, n in enumerate(self.g.node) if "graph_input_cast_0" in n.output]
        self.assertEqual(producer, [7])
        # Every reader of x reads the cast, the integer-valued Shape too.
        self.assertEqual(self.nodes["/shape/Shape"].input[0], "graph_input_cast_0")
        with self.assertRaises(onnx.checker.ValidationError):
            onnx.checker.check_model(self.model)

    def test_io_casts(self):
        cin, cout = self.nodes["graph_input_cast0"], self.nodes["graph_output_cast0"]
        self.assertEqual((list(cin.input), list(cin.output), cin.attribute[0].i),
                         (["x"], ["graph_input_cast_0"], TensorProto.FLOAT16))
        self.assertEqual((list(cout.input), list(cout.output), cout.attribute[0].i),
                         (["graph_output_cast_0"], ["y"], TensorProto.FLOAT))
        # The body's last node writes the renamed output, and its Cast now targets float16.
        self.assertEqual(list(self.nodes["/cast/Cast"].output), ["graph_output_cast_0"])
        self.assertEqual(self.nodes["/cast/Cast"].attribute[0].i, TensorProto.FLOAT16)
        # The int64 output has no cast.
        self.assertEqual(list(self.nodes["/shape/Shape"].output), ["s"])

    def test_initializers_are_float16_with_the_converters_clipping(self):
        for name in ("w", "b", "big"):
            self.assertEqual(self.inits[name].data_type, TensorProto.FLOAT16, name)
        w = numpy_helper.to_array(self.inits["w"])
        w32 = numpy_helper.to_array(small_model().graph.initializer[0])
        np.testing.assert_array_equal(w, w32.astype(np.float16))
        # 3e-8 is below the 1e-7 floor; +-2e5 and -3e5 beyond the 1e4 ceiling.
        np.testing.assert_array_equal(numpy_helper.to_array(self.inits["b"]),
                                      np.array([0.5, -0.25, 0, 1e-7], np.float16))
        np.testing.assert_array_equal(numpy_helper.to_array(self.inits["big"]),
                                      np.array([1e4, -7.5, -1e4], np.float16))
        # Only the blocked Resize reads the scales: they stay float32.
        self.assertEqual(self.inits["scales"].data_type, TensorProto.FLOAT)
        k = self.nodes["/k/Constant"].attribute[0].t
        self.assertEqual(k.data_type, TensorProto.FLOAT16)

    def test_blocked_ops_compute_in_float32_between_casts(self):
        resize = self.nodes["/up/Resize"]
        self.assertEqual(list(resize.input), ["/up/Resize_input_cast_0", "", "scales"])
        self.assertEqual(list(resize.output), ["/up/Resize_output_cast_0"])
        c = self.nodes["/up/Resize_input_cast0"]
        self.assertEqual((list(c.input), c.attribute[0].i), (["r"], TensorProto.FLOAT))
        c = self.nodes["/up/Resize_output_cast0"]
        self.assertEqual((list(c.output), c.attribute[0].i), (["up"], TensorProto.FLOAT16))
        mx = self.nodes["/max/Max"]
        self.assertEqual(list(mx.input), ["/max/Max_input_cast_0", "/max/Max_input_cast_1"])

    def test_body_value_info_is_float16(self):
        types = {v.name: v.type.tensor_type.elem_type for v in self.g.value_info}
        for name in ("c", "r", "up", "m"):
            self.assertEqual(types[name], TensorProto.FLOAT16, name)


class Fp16ConverterBlockedOutputTest(unittest.TestCase):
    def test_blocked_op_writing_a_graph_output_is_cast_twice(self):
        # As the converter does: the body value graph_output_cast_0 is float16, so the Resize's
        # float32 result goes through float16 before the output cast restores float32.
        scales = numpy_helper.from_array(np.array([1, 1, 3, 3], np.float32), "scales")
        g = helper.make_graph(
            [helper.make_node("Resize", ["x", "", "scales"], ["y"], name="up", mode="nearest")],
            "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 2, 2])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 6, 6])], [scales])
        m = convert(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]))
        chain = [(n.name, list(n.input), list(n.output)) for n in m.graph.node]
        self.assertEqual(chain, [
            ("up", ["up_input_cast_0", "", "scales"], ["up_output_cast_0"]),
            ("graph_input_cast0", ["x"], ["graph_input_cast_0"]),
            ("graph_output_cast0", ["graph_output_cast_0"], ["y"]),
            ("up_input_cast0", ["graph_input_cast_0"], ["up_input_cast_0"]),
            ("up_output_cast0", ["up_output_cast_0"], ["graph_output_cast_0"]),
        ])


if __name__ == "__main__":
    unittest.main()
