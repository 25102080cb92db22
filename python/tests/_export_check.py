"""Shared helper: export a module with wnn.torch, run it through the wnn runtime from the saved
files, and compare with eager PyTorch on the same inputs."""

import os
import tempfile

import numpy as np
import torch

import wnn
import wnn.torch


def flatten(v):
    if isinstance(v, (list, tuple)):
        return [x for item in v for x in flatten(item)]
    return [v]


def export_and_run(module, inputs, reference=None):
    """Returns (wnn outputs, eager outputs, session) as lists of numpy arrays. `reference`, when
    given, computes the eager outputs in place of the module (same arguments)."""
    inputs = tuple(inputs)
    with tempfile.TemporaryDirectory() as d:
        graph_path, _ = wnn.torch.export(module, inputs, os.path.join(d, "model"))
        session = wnn.Session(graph_path)
        feeds = {n: t.numpy() for n, t in zip(session.input_names, inputs)}
        got = session.run(feeds)
    with torch.no_grad():
        want = [w.detach().numpy() for w in flatten((reference or module)(*inputs))]
    return [got[n] for n in session.output_names], want, session


def assert_matches(test, module, inputs, rtol=1e-4, atol=1e-5, atol_of_scale=0.0,
                   reference=None):
    """Asserts |wnn - eager| <= atol + rtol * |eager| everywhere; returns the max abs error.
    atol_of_scale adds that fraction of max|eager| to atol, for deep stacks whose outputs
    cancel to near zero after large intermediate sums."""
    got, want, _ = export_and_run(module, inputs, reference)
    test.assertEqual(len(got), len(want))
    worst = 0.0
    for g, w in zip(got, want):
        test.assertEqual(tuple(g.shape), tuple(w.shape))
        if w.dtype == np.bool_:
            w = w.astype(np.uint8)
        if not np.issubdtype(w.dtype, np.floating):
            np.testing.assert_array_equal(g, w)
            continue
        g64, w64 = g.astype(np.float64), w.astype(np.float64)
        scale = float(np.max(np.abs(w64))) if w64.size else 0.0
        np.testing.assert_allclose(g64, w64, rtol=rtol, atol=atol + atol_of_scale * scale)
        if g.size:
            worst = max(worst, float(np.max(np.abs(g64 - w64))))
    return worst


class Fn(torch.nn.Module):
    """A module around a function, with optional parameters the function receives as `m`."""

    def __init__(self, fn, **params):
        super().__init__()
        self.fn = fn
        for k, v in params.items():
            if isinstance(v, torch.nn.Module):
                setattr(self, k, v)
            else:
                self.register_parameter(k, torch.nn.Parameter(v))

    def forward(self, *xs):
        return self.fn(self, *xs)


def randomize(module, seed=0):
    """Non-trivial weights and batch-norm statistics, so unit scales and zero biases cannot
    hide a dropped operand."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in module.named_parameters():
            if p.dim() > 1:  # scaled by fan-in so deep stacks stay in range
                fan_in = max(1, p[0].numel())
                p.copy_(torch.randn(p.shape, generator=g) / fan_in**0.5)
            else:  # norm scales away from 1, biases away from 0
                base = 1.0 if name.endswith("weight") else 0.0
                p.copy_(base + 0.3 * torch.randn(p.shape, generator=g))
        for m in module.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and m.running_mean is not None:
                m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=g) * 0.2)
                m.running_var.copy_(torch.rand(m.running_var.shape, generator=g) + 0.5)
    return module.eval()
