#!/usr/bin/env python3
"""Writes examples/tiny_classifier.onnx, the ONNX model `make demo` converts and validates.

A small image classifier (conv, batch norm, ReLU, max pool, a depthwise conv, global average pool,
Gemm) on 1x3x32x32 inputs with a free batch dimension, exported by Debian's PyTorch at opset 17.
Weights are seeded, and batch-norm statistics are set to non-trivial values so the folded
graph is exercised. Run with /usr/bin/python3; rerunning gives the same file."""
import os

import torch
from torch import nn

torch.manual_seed(20261130)


class TinyClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 32, 3, padding=1, groups=32), nn.BatchNorm2d(32), nn.ReLU6(),
            nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.classifier = nn.Linear(64, 10)

    def forward(self, x):
        return self.classifier(self.features(x))


model = TinyClassifier().eval()
with torch.no_grad():
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.weight.uniform_(0.8, 1.2)
            m.bias.normal_(0, 0.1)
            m.running_mean.normal_(0, 0.1)
            m.running_var.uniform_(0.5, 1.5)

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiny_classifier.onnx")
torch.onnx.export(model, torch.zeros(1, 3, 32, 32), out, opset_version=17,
                  input_names=["image"], output_names=["logits"],
                  dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}},
                  do_constant_folding=True)
print(f"wrote {out} ({os.path.getsize(out)} bytes)")
