"""wnn.torch.export with dynamic_dims: dyn(name, max) inputs, the shape-polymorphism check
(a module that bakes the size into the graph is refused, naming the op and its source line) and
Session runs at sizes below the max."""

import os
import tempfile
import unittest

import numpy as np
import torch

import wnn
import wnn.torch


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(6, 7)
        self.l2 = torch.nn.Linear(7, 3)

    def forward(self, x):
        return self.l2(torch.relu(self.l1(x)))


class Gated(torch.nn.Module):
    """Two inputs sharing the batch dim, a reduction over the feature dim."""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(5, 5)

    def forward(self, x, gate):
        return (self.proj(x) * torch.sigmoid(gate)).sum(dim=1, keepdim=True) - x.mean(1, True)


class ConvNet(torch.nn.Module):
    """Convolution, batch norm with non-trivial statistics and a global mean: no size literal."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1, stride=2)
        self.bn = torch.nn.BatchNorm2d(4)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x))).mean(dim=(2, 3))


class BakedReshape(torch.nn.Module):
    def forward(self, x):
        return x.reshape(x.shape[0], 2, 3).sum(1)  # the traced batch size becomes a literal


class BatchZeros(torch.nn.Module):
    def forward(self, x):
        return x + torch.zeros(x.shape[0], 6)  # a fill shaped by the batch size


def randomize(module, seed):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * 0.7 - 0.1)
    return module.eval()


class DynamicExportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "m")

    def tearDown(self):
        self.tmp.cleanup()

    def test_linear_relu_stack_runs_at_every_batch_up_to_the_max(self):
        m = randomize(Mlp(), 1)
        graph_path, _ = wnn.torch.export(m, (torch.randn(3, 6),), self.path,
                                         dynamic_dims={"x": {0: ("batch", 8)}})
        with open(graph_path) as f:
            self.assertIn('dyn("batch", 8)', f.read())
        [info] = wnn.load(graph_path).inputs
        self.assertEqual(info["shape"], [8, 6])
        self.assertEqual(info["dynamic_dims"], [("batch", 8), None])
        s = wnn.Session(graph_path, backend="ref")
        for batch in (8, 1, 5, 3):
            x = torch.randn(batch, 6) * 2 - 0.5
            out = s.run({"x": x.numpy()})["output"]
            self.assertEqual(out.shape, (batch, 3))
            np.testing.assert_allclose(out, m(x).detach().numpy(), rtol=1e-4, atol=1e-5)
        with self.assertRaises(wnn.Error) as cm:
            s.run({"x": np.zeros((9, 6), np.float32)})
        self.assertIn("'batch'", str(cm.exception))
        self.assertIn("[1, 8]", str(cm.exception))

    def test_inputs_sharing_a_dim_and_a_negative_dim_index(self):
        m = randomize(Gated(), 2)
        wnn.torch.export(m, (torch.randn(4, 5), torch.randn(4, 5)), self.path,
                         dynamic_dims={0: {0: ("n", 6)}, "gate": {-2: ("n", 6)}})
        s = wnn.Session(self.path + ".webnn", backend="ref")
        self.assertEqual([i["dynamic_dims"][0] for i in s.graph.inputs], [("n", 6), ("n", 6)])
        x, gate = torch.randn(2, 5) - 0.3, torch.randn(2, 5) * 3
        out = s.run({"x": x.numpy(), "gate": gate.numpy()})["output"]
        np.testing.assert_allclose(out, m(x, gate).detach().numpy(), rtol=1e-4, atol=1e-5)
        with self.assertRaises(wnn.Error) as cm:
            s.run({"x": x.numpy(), "gate": np.zeros((3, 5), np.float32)})
        self.assertIn("dynamic dim 'n'", str(cm.exception))

    def test_conv_net_with_dynamic_batch_and_height(self):
        m = randomize(ConvNet(), 4)
        with torch.no_grad():
            m.bn.running_mean.uniform_(-1, 1)
            m.bn.running_var.uniform_(0.5, 2)
        wnn.torch.export(m, (torch.randn(2, 3, 9, 7),), self.path,
                         dynamic_dims={"x": {0: ("batch", 4), 2: ("height", 11)}})
        s = wnn.Session(self.path + ".webnn", backend="ref")
        for shape in ((1, 3, 11, 7), (3, 3, 5, 7), (4, 3, 8, 7)):
            x = torch.randn(shape) * 1.5 - 0.2
            np.testing.assert_allclose(s.run({"x": x.numpy()})["output"], m(x).detach().numpy(),
                                       rtol=1e-4, atol=1e-5)

    def test_linear_on_rank_3_flattens_to_a_literal_and_is_refused(self):
        # make_fx decomposes linear on [B, T, F] into view([B*T, F]) -> addmm -> view.
        with self.assertRaises(wnn.Error) as cm:
            wnn.torch.export(Mlp(), (torch.randn(2, 4, 6),), self.path,
                             dynamic_dims={"x": {1: ("seq", 6)}})
        self.assertIn("[12, 6]", str(cm.exception))

    def test_reshape_baking_the_size_is_refused_with_op_and_source_line(self):
        with self.assertRaises(wnn.Error) as cm:
            wnn.torch.export(BakedReshape(), (torch.randn(4, 6),), self.path,
                             dynamic_dims={"x": {0: ("batch", 4)}})
        message = str(cm.exception)
        self.assertRegex(message, "reshape|view")  # aten._reshape_alias on 1.13, view on 2.x
        self.assertIn("[4, 2, 3]", message)
        self.assertIn("[3, 2, 3]", message)
        self.assertIn("test_torch_dynamic.py", message)
        self.assertFalse(os.path.exists(self.path + ".webnn"))

    def test_fill_shaped_by_the_batch_is_refused(self):
        with self.assertRaises(wnn.Error) as cm:
            wnn.torch.export(BatchZeros(), (torch.randn(2, 6),), self.path,
                             dynamic_dims={"x": {0: ("batch", 2)}})
        self.assertIn("zeros", str(cm.exception))
        self.assertIn("test_torch_dynamic.py", str(cm.exception))

    def test_bad_specs_name_the_problem(self):
        m = Mlp()
        cases = [({"y": {0: ("b", 4)}}, "no input named 'y'"),
                 ({"x": {2: ("b", 4)}}, "rank 2"),
                 ({"x": {0: ("b", 0)}}, "max >= 1"),
                 ({"x": {0: 4}}, "(name, max)"),
                 ({3: {0: ("b", 4)}}, "position 3")]
        for spec, text in cases:
            with self.assertRaises(wnn.Error) as cm:
                wnn.torch.export(m, (torch.randn(2, 6),), self.path, dynamic_dims=spec)
            self.assertIn(text, str(cm.exception))

    def test_static_export_is_unchanged(self):
        m = randomize(Mlp(), 3)
        wnn.torch.export(m, (torch.randn(3, 6),), self.path)
        [info] = wnn.load(self.path + ".webnn").inputs
        self.assertEqual(info["dynamic_dims"], [None, None])
        s = wnn.Session(self.path + ".webnn", backend="ref")
        with self.assertRaises(wnn.Error):
            s.run({"x": np.zeros((2, 6), np.float32)})


if __name__ == "__main__":
    unittest.main()
