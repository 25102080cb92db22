"""The models of wnn's test zoo: how to build each one and what it is fed.

make_models.py exports them. Each entry names a torchvision architecture (built with no
weights: there is no network) or a small torch.nn model for an operator family torchvision
lacks: attention, recurrent layers, a weight-normalised grouped Conv1d.
"""

from dataclasses import dataclass
from typing import Callable, Tuple

import torch
import torchvision.models as tvm
import torchvision.models.segmentation as tvs

IMAGE = (("input", (1, 3, 224, 224)),)


@dataclass(frozen=True)
class ModelSpec:
    name: str
    source: str
    build: Callable[[], torch.nn.Module]
    inputs: Tuple[Tuple[str, Tuple[int, ...]], ...] = IMAGE
    outputs: Tuple[str, ...] = ("output",)
    # True when the exported graph differs between opset 13 and 17 (LayerNormalization is an
    # op from 17 on; HardSwish from 14), so both variants are worth testing.
    opset_sensitive: bool = False
    # True for models built on nn.MultiheadAttention or nn.TransformerEncoder: exporting with
    # autograd recording keeps them off their fused inference fast path, which the exporter
    # cannot trace. Other models export without it, which is several times faster.
    export_with_grad: bool = False
    # "uint8" or "int8-per-channel": the export is then rewritten into onnxruntime's
    # quantize_dynamic idiom (quantize_dynamic.py) with weights of that type.
    quantize: str = ""


class SegmentationOutput(torch.nn.Module):
    """Returns the 'out' tensor of torchvision's segmentation dict output."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


class Attention(torch.nn.Module):
    """Cross-attention: a query sequence attends to a longer key/value sequence."""

    def __init__(self):
        super().__init__()
        self.attention = torch.nn.MultiheadAttention(128, 4, batch_first=True)

    def forward(self, query, key, value):
        return self.attention(query, key, value, need_weights=True)


class RecurrentStack(torch.nn.Module):
    """Two recurrent layers: a bidirectional one feeding a unidirectional one."""

    def __init__(self, cell):
        super().__init__()
        self.first = cell(48, 64, batch_first=True, bidirectional=True)
        self.second = cell(128, 96, batch_first=True)

    def forward(self, x):
        y, _ = self.first(x)
        y, state = self.second(y)
        hidden = state[0] if isinstance(state, tuple) else state
        return y, hidden


def transformer_encoder():
    layer = torch.nn.TransformerEncoderLayer(
        d_model=192, nhead=6, dim_feedforward=512, dropout=0.1, activation="gelu",
        batch_first=True)
    return torch.nn.TransformerEncoder(layer, num_layers=3, enable_nested_tensor=False)


def weight_norm_conv1d():
    # The positional convolution of wav2vec2/HuBERT: weight = g * v / ||v|| over 128 taps.
    return torch.nn.utils.weight_norm(torch.nn.Conv1d(1024, 1024, 128, padding=64, groups=16))


def torchvision_model(name, **flags):
    return ModelSpec(name, f"torchvision.models.{name}", lambda: getattr(tvm, name)(weights=None),
                     **flags)


def segmentation_model(name):
    return ModelSpec(
        name, f"torchvision.models.segmentation.{name}",
        lambda: SegmentationOutput(getattr(tvs, name)(weights=None, weights_backbone=None)),
        opset_sensitive=True)  # MobileNetV3's HardSwish


class LinearMix(torch.nn.Module):
    """Linear layers and activation-by-activation products with only ReLU and a power-of-two
    scale between them: float ops whose bits ONNX Runtime and wnn agree on, so a dynamically
    quantized export can match exactly (a softmax, layer norm or erf between two quantizations
    differs in the last bit, which moves the next quantization's roundings)."""

    def __init__(self):
        super().__init__()
        self.q, self.k, self.v = (torch.nn.Linear(192, 96) for _ in range(3))
        self.hidden = torch.nn.Linear(96, 384)
        self.out = torch.nn.Linear(384, 10)

    def forward(self, x):
        scores = torch.relu(self.q(x) @ self.k(x).transpose(1, 2) / 8)
        h = torch.relu(self.hidden(torch.relu(scores @ self.v(x))))
        return self.out(h)


def quantized(spec, weights):
    return ModelSpec(f"{spec.name}_qdyn_{weights.split('-')[0]}",
                     f"{spec.source}, quantize_dynamic idiom ({weights} weights)", spec.build,
                     spec.inputs, spec.outputs, False, spec.export_with_grad, weights)


MODELS = [
    torchvision_model("resnet18"),
    torchvision_model("mobilenet_v2"),
    torchvision_model("mobilenet_v3_small", opset_sensitive=True),
    torchvision_model("efficientnet_b0"),
    torchvision_model("squeezenet1_1"),
    torchvision_model("shufflenet_v2_x0_5"),
    torchvision_model("regnet_x_400mf"),
    torchvision_model("densenet121"),
    torchvision_model("convnext_tiny", opset_sensitive=True),
    ModelSpec("googlenet", "torchvision.models.googlenet",
              lambda: tvm.googlenet(weights=None, aux_logits=False, init_weights=True)),
    torchvision_model("mnasnet0_5"),
    torchvision_model("vit_b_16", opset_sensitive=True, export_with_grad=True),
    torchvision_model("swin_t", opset_sensitive=True),
    segmentation_model("deeplabv3_mobilenet_v3_large"),
    segmentation_model("lraspp_mobilenet_v3_large"),
    ModelSpec("transformer_encoder", "torch.nn.TransformerEncoder (3 layers, d_model 192, gelu)",
              transformer_encoder, inputs=(("input", (1, 50, 192)),), opset_sensitive=True,
              export_with_grad=True),
    ModelSpec("multihead_attention", "torch.nn.MultiheadAttention (128, 4 heads, cross)",
              Attention, inputs=(("query", (1, 10, 128)), ("key", (1, 17, 128)),
                                 ("value", (1, 17, 128))),
              outputs=("output", "attention_weights"), export_with_grad=True),
    ModelSpec("lstm", "torch.nn.LSTM stack (bidirectional 64, then 96)",
              lambda: RecurrentStack(torch.nn.LSTM), inputs=(("input", (1, 23, 48)),),
              outputs=("output", "hidden")),
    ModelSpec("gru", "torch.nn.GRU stack (bidirectional 64, then 96)",
              lambda: RecurrentStack(torch.nn.GRU), inputs=(("input", (1, 23, 48)),),
              outputs=("output", "hidden")),
    ModelSpec("weight_norm_conv1d",
              "torch.nn.utils.weight_norm(Conv1d(1024, 1024, 128, padding=64, groups=16))",
              weight_norm_conv1d, inputs=(("input", (1, 1024, 499)),)),
    quantized(torchvision_model("squeezenet1_1"), "uint8"),
    quantized(torchvision_model("resnet18"), "uint8"),
    quantized(ModelSpec("linear_mix", "Linear layers and q @ k^T, scores @ v with ReLU", LinearMix,
                        inputs=(("input", (1, 50, 192)),)), "int8-per-channel"),
]
