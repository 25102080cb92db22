"""The wnn Python bindings: builder validation, load/save, Session names and dtypes."""

import os
import tempfile
import unittest

import numpy as np

import wnn


class GraphBuilderTest(unittest.TestCase):
    def test_validation_error_is_wnn_error_with_the_message(self):
        b = wnn.GraphBuilder()
        x = b.input("x", [2, 3])
        y = b.input("y", [4, 5])
        with self.assertRaises(wnn.Error) as cm:
            b.add("add", x, y)
        self.assertIn("[2, 3]", str(cm.exception))
        self.assertIn("[4, 5]", str(cm.exception))
        with self.assertRaises(wnn.Error) as cm:
            b.add("conv2d", x, y, paddding=[0, 0, 0, 0])
        self.assertIn("paddding", str(cm.exception))
        with self.assertRaises(wnn.Error) as cm:
            b.add("nosuchop", x)
        self.assertIn("nosuchop", str(cm.exception))
        # A failed add leaves nothing behind: the next add may use the generated name.
        z = b.add("relu", x)
        self.assertEqual(z.shape, (2, 3))

    def test_error_is_a_runtime_error_subclass(self):
        self.assertTrue(issubclass(wnn.Error, RuntimeError))

    def test_inferred_shapes_and_multiple_outputs(self):
        b = wnn.GraphBuilder()
        x = b.input("x", [1, 3, 28, 28])
        w = b.constant("w", np.ones((4, 3, 5, 5), np.float32))
        y = b.add("conv2d", x, w, padding=[1, 1, 1, 1])
        self.assertEqual(y.shape, (1, 4, 26, 26))
        parts = b.add("split", x, [1, 2], axis=1)
        self.assertEqual([p.shape for p in parts], [(1, 1, 28, 28), (1, 2, 28, 28)])
        axis0 = b.add("concat", [x, x], 0)
        self.assertEqual(axis0.shape, (2, 3, 28, 28))


class SessionTest(unittest.TestCase):
    def _graph(self):
        b = wnn.GraphBuilder()
        b_in = b.input("b", [2, 3])
        a_in = b.input("a", [2, 3])
        w = b.constant("weight", np.array([[1.5, -2.0, 0.0]] * 2, np.float32))
        s = b.add("add", a_in, b_in, name="zsum")
        p = b.add("mul", s, w, name="prod")
        b.output(p)
        b.output(s)
        return b

    def test_names_in_graph_order_and_results(self):
        b = self._graph()
        sess = wnn.Session(b)
        self.assertEqual(sess.input_names, ["b", "a"])
        self.assertEqual(sess.output_names, ["prod", "zsum"])
        a = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
        bb = np.full((2, 3), -1.25, np.float32)
        out = sess.run({"a": a, "b": bb})
        self.assertEqual(list(out), ["prod", "zsum"])
        np.testing.assert_array_equal(out["zsum"], a + bb)
        np.testing.assert_array_equal(out["prod"], (a + bb) * np.array([1.5, -2.0, 0.0], np.float32))

    def test_missing_or_misshapen_input_is_wnn_error(self):
        sess = wnn.Session(self._graph())
        with self.assertRaises(wnn.Error):
            sess.run({"a": np.zeros((2, 3), np.float32)})
        with self.assertRaises(wnn.Error):
            sess.run({"a": np.zeros((3, 2), np.float32), "b": np.zeros((2, 3), np.float32)})

    def test_save_load_round_trip(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.webnn")
            wnn.save(self._graph().graph, path)
            self.assertTrue(os.path.exists(os.path.join(d, "m.safetensors")))
            g = wnn.load(path)
            self.assertEqual(g.input_names, ["b", "a"])
            self.assertEqual(g.output_names, ["prod", "zsum"])
            out = wnn.Session(path).run({"a": np.ones((2, 3), np.float32),
                                         "b": np.ones((2, 3), np.float32)})
            np.testing.assert_array_equal(out["prod"][0], [3.0, -4.0, 0.0])

    def test_graph_without_outputs_is_refused(self):
        b = wnn.GraphBuilder()
        b.add("relu", b.input("x", [2]), name="y")
        with tempfile.TemporaryDirectory() as d:
            for call in (lambda: wnn.Session(b),
                         lambda: wnn.save(b, os.path.join(d, "m.webnn"))):
                with self.assertRaises(wnn.Error) as cm:
                    call()
                self.assertIn("the graph has no outputs", str(cm.exception))
            self.assertFalse(os.path.exists(os.path.join(d, "m.webnn")))
            path = os.path.join(d, "none.webnn")
            with open(path, "w") as f:
                f.write('webnn_graph "g" v1 {\n  inputs { x: f32[2]; }\n  outputs { }\n}\n')
            with self.assertRaises(wnn.Error) as cm:
                wnn.load(path)
            self.assertIn("the graph has no outputs", str(cm.exception))

    def test_names_the_text_form_cannot_hold_are_mapped_on_save(self):
        b = wnn.GraphBuilder()
        x = b.input("input:0", [3])
        b.output(b.add("relu", x, name="/m/If/then//m/y"))
        self.assertEqual(b.text_name("conv1.weight"), "conv1.weight")
        mapped = b.text_name("input:0")
        self.assertTrue(mapped.startswith("input_0_"), mapped)
        self.assertEqual(b.text_name("input:0"), mapped)  # the same answer every time
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.webnn")
            wnn.save(b, path)
            g = wnn.load(path)
            self.assertTrue(g.input_names[0].startswith("input_0_"), g.input_names)
            self.assertTrue(g.output_names[0].startswith("/m/If/then/_m/y_"), g.output_names)
            out = wnn.Session(path).run({g.input_names[0]: np.array([-1, 0, 2], np.float32)})
            np.testing.assert_array_equal(out[g.output_names[0]], [0, 0, 2])
            # JSON keeps every name as it is.
            jpath = os.path.join(d, "m.json")
            wnn.save(b, jpath)
            self.assertEqual(wnn.load(jpath).input_names, ["input:0"])

    def test_float16_round_trip(self):
        b = wnn.GraphBuilder()
        x = b.input("x", [5], "float16")
        b.output(b.add("identity", x, name="y"))
        values = np.array([-65504.0, -0.0, 0.000061, 1.0009766, 3.14], np.float16)
        out = wnn.Session(b).run({"x": values})["y"]
        self.assertEqual(out.dtype, np.float16)
        np.testing.assert_array_equal(out.view(np.uint16), values.view(np.uint16))

    def test_cast_outputs_dtypes(self):
        b = wnn.GraphBuilder()
        x = b.input("x", [4])
        b.output(b.add("cast", x, "int64", name="i"))
        out = wnn.Session(b).run({"x": np.array([-2.0, 0.0, 1.0, 7.0], np.float32)})["i"]
        self.assertEqual(out.dtype, np.int64)
        np.testing.assert_array_equal(out, [-2, 0, 1, 7])


if __name__ == "__main__":
    unittest.main()


class XnnpackThreadsTest(unittest.TestCase):
    # Debian's torch links libXNNPACK and libpthreadpool itself. Imported first, it binds
    # XNNPACK to libpthreadpool before wnn's own pthreadpool functions (on the OpenMP team)
    # are loaded, so wnn must hand XNNPACK that library's pool (a 2-thread session hung on
    # wnn's). Each import order runs in a fresh interpreter, since imports happen once.
    SCRIPT = """
import sys
first = sys.argv[1]
if first == "torch":
    import torch
import numpy as np
import wnn
b = wnn.GraphBuilder()
x = b.input("x", [1, 16, 9, 7])
w = b.constant("w", (np.arange(16 * 16 * 9, dtype=np.float32).reshape(16, 16, 3, 3) % 7 - 3) / 8)
b.output(b.add("conv2d", x, w, padding=[1, 1, 1, 1], name="y"))
v = (np.arange(16 * 63, dtype=np.float32).reshape(1, 16, 9, 7) % 11 - 5) / 4
want = wnn.Session(b).run({"x": v})["y"]
got = wnn.Session(b, backend="xnnpack", threads=2).run({"x": v})["y"]
np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
print("ok")
"""

    def test_two_thread_xnnpack_session_with_either_import_order(self):
        import subprocess
        import sys
        for first in ("wnn", "torch"):
            with self.subTest(first=first):
                out = subprocess.run([sys.executable, "-c", self.SCRIPT, first],
                                     capture_output=True, text=True, timeout=120)
                self.assertEqual(out.returncode, 0, out.stderr)
                self.assertEqual(out.stdout.strip(), "ok")
