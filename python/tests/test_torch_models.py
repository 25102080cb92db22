"""Whole models exported by wnn.torch and run by wnn's runtime, against eager PyTorch.

Random initialisation made non-trivial (see randomize), eval mode. The small CNNs and
sequence models run by default; convnext_tiny, vit_b_16 and swin_t take minutes on the
reference kernels and run only with WNN_HEAVY_MODELS=1 (`make python-models-test`).
Tolerances: rtol 1e-4, atol 1e-5 unless listed in LOOSE: deep float32 stacks whose summation
order differs from PyTorch's compare at rtol 1e-3 and atol 1e-5 + 1e-5 * max|eager| (a
logit that cancels to near zero after sums in the hundreds keeps only absolute precision);
docs/python.md records this.
"""

import os
import sys
import unittest

import torch
import torch.nn as nn

from _export_check import assert_matches, randomize

HEAVY = os.environ.get("WNN_HEAVY_MODELS") == "1"
LOOSE = {"efficientnet_b0", "convnext_tiny", "vit_b_16", "swin_t", "mobilenet_v3_small",
         "mobilenet_v2", "resnet18", "shufflenet_v2_x0_5", "squeezenet1_1"}


def _vision(name, size):
    import torchvision

    def build():
        return randomize(getattr(torchvision.models, name)(), seed=1), [torch.randn(1, 3, size, size)]

    return build


class TransformerStack(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=24, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2)

    def forward(self, src):
        return self.encoder(src)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(12, 3, batch_first=True)

    def forward(self, q, kv):
        out, weights = self.mha(q, kv, kv)
        return out, weights


class Recurrent(nn.Module):
    def __init__(self, cell):
        super().__init__()
        self.rnn = cell(5, 7, num_layers=2, batch_first=True)

    def forward(self, x):
        return self.rnn(x)[0]


class WeightNormConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.utils.weight_norm(nn.Conv1d(8, 8, 9, padding=4, groups=2))

    def forward(self, x):
        return self.conv(x)


MODELS = {
    "resnet18": _vision("resnet18", 64),
    "mobilenet_v2": _vision("mobilenet_v2", 64),
    "mobilenet_v3_small": _vision("mobilenet_v3_small", 64),
    "efficientnet_b0": _vision("efficientnet_b0", 64),
    "squeezenet1_1": _vision("squeezenet1_1", 64),
    "shufflenet_v2_x0_5": _vision("shufflenet_v2_x0_5", 64),
    "transformer_encoder": lambda: (randomize(TransformerStack()), [torch.randn(2, 5, 16)]),
    "multihead_attention": lambda: (randomize(Attention()), [torch.randn(2, 4, 12),
                                                               torch.randn(2, 6, 12)]),
    "lstm_stack": lambda: (randomize(Recurrent(nn.LSTM)), [torch.randn(2, 6, 5)]),
    "gru_stack": lambda: (randomize(Recurrent(nn.GRU)), [torch.randn(2, 6, 5)]),
    "weight_norm_conv1d": lambda: (randomize(WeightNormConv()), [torch.randn(1, 8, 31)]),
}
HEAVY_MODELS = {
    "convnext_tiny": _vision("convnext_tiny", 64),
    "vit_b_16": _vision("vit_b_16", 224),
    "swin_t": _vision("swin_t", 64),
}


class TorchModelTest(unittest.TestCase):
    pass


def _make(name, build):
    def test(self):
        module, inputs = build()
        tol = (1e-3, 1e-5, 1e-5) if name in LOOSE else (1e-4, 1e-5)
        # Export with autograd on, as users do (no torch.no_grad around export).
        with torch.enable_grad():
            err = assert_matches(self, module, inputs, *tol)
        print(f"  {name}: max abs error {err:.3g}", file=sys.stderr)

    return test


for _name, _build in MODELS.items():
    setattr(TorchModelTest, f"test_{_name}", _make(_name, _build))
for _name, _build in HEAVY_MODELS.items():
    setattr(TorchModelTest, f"test_{_name}",
            unittest.skipUnless(HEAVY, "set WNN_HEAVY_MODELS=1")(_make(_name, _build)))


class WeightNormPartitionTest(unittest.TestCase):
    @unittest.skipUnless(os.environ.get("WNN_BINARY"), "needs the wnn binary (set by CTest)")
    def test_weight_norm_conv_folds_and_lands_in_one_xnnpack_region(self):
        import json
        import subprocess
        import tempfile

        import wnn.torch

        module, inputs = MODELS["weight_norm_conv1d"]()
        with tempfile.TemporaryDirectory() as d:
            graph, _ = wnn.torch.export(module, inputs, os.path.join(d, "wn"))
            out = subprocess.run([os.environ["WNN_BINARY"], "partition", graph, "--backend",
                                  "xnnpack", "--json"], check=True, capture_output=True, text=True)
        p = json.loads(out.stdout)
        # The weight_norm parameter subgraph (norm, div, mul) is folded away ...
        self.assertGreater(p["folded_nodes"], 0)
        # ... so the convolution has a constant filter and runs in exactly one XNNPACK region.
        self.assertEqual(len(p["regions"]), 1)
        self.assertEqual(p["regions"][0]["delegate"], "xnnpack")
        self.assertIn("conv2d", p["regions"][0]["ops"])
        self.assertFalse([r for r in p["reference"] if r["op"].startswith("conv")])


class ExporterDiscussionGraphsTest(unittest.TestCase):
    def test_5x5_conv_padding_1_on_28x28_gives_26x26(self):
        import wnn.torch

        conv = randomize(nn.Conv2d(1, 2, 5, padding=1))
        g = wnn.torch.to_graph(conv, (torch.randn(1, 1, 28, 28),)).graph
        self.assertEqual(g.outputs[0]["shape"], [1, 2, 26, 26])
        assert_matches(self, conv, [torch.randn(1, 1, 28, 28)])

    def test_concat_of_two_2x3x4x5_on_axis_0(self):
        import wnn.torch

        class Cat(nn.Module):
            def forward(self, a, b):
                return torch.cat([a, b], dim=0)

        ins = (torch.randn(2, 3, 4, 5), torch.randn(2, 3, 4, 5))
        g = wnn.torch.to_graph(Cat(), ins).graph
        self.assertEqual(g.input_names, ["a", "b"])
        self.assertEqual(g.outputs[0]["shape"], [4, 3, 4, 5])
        self.assertIn("concat([a, b], axis=0)", g.to_text())
        assert_matches(self, Cat(), ins)


if __name__ == "__main__":
    unittest.main()
