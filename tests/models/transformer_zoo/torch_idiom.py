"""What torch.onnx.export writes for common modules, shared by the optimum and BERT graphs.

Node names follow the module path (`/model/layers.0/self_attn/q_proj/MatMul`), outputs are
`{node}_output_0`, transposed linear weights are anonymous `onnx::MatMul_{n}` initializers, and
view/reshape sizes are computed at run time from Shape, Gather, Unsqueeze and Concat.
"""

import numpy as np

from .graph import float_min

I64_MAX = np.iinfo(np.int64).max


class TorchOps:
    def __init__(self, g, first_anonymous=100):
        self.g, self.anonymous = g, first_anonymous

    def const(self, scope, value, dtype=np.int64):
        return self.g.torch_constant(scope, value, dtype)

    def linear(self, scope, x, weight, bias=None, bias_name=None):
        """nn.Linear: MatMul by `onnx::MatMul_{n}` [in, out], then Add(bias, product)."""
        g = self.g
        name = f"onnx::MatMul_{self.anonymous}"
        self.anonymous += 1
        y = g.node("MatMul", [x, g.init(name, weight)], f"{scope}/MatMul")
        if bias is None:
            return y
        return g.node("Add", [g.init(bias_name, bias), y], f"{scope}/Add")

    def dim(self, scope, x, axis):
        """x.size(axis) as a 1-element int64 tensor (Shape, Gather, Unsqueeze)."""
        shape = self.g.op("Shape", [x], scope)
        d = self.g.op("Gather", [shape, self.const(scope, axis)], scope, axis=0)
        return self.g.op("Unsqueeze", [d, self.const(scope, [0])], scope)

    def view(self, scope, x, dims):
        """x.view(*dims): each dim is an int or a 1-element tensor name from dim()."""
        parts = [self.const(scope, [d]) if isinstance(d, (int, np.integer)) else d for d in dims]
        shape = self.g.op("Concat", parts, scope, axis=0)
        return self.g.op("Reshape", [x, shape], scope)

    def split_heads(self, scope, x, batch, length, heads, head_dim, perm=(0, 2, 1, 3)):
        x = self.view(scope, x, [batch, length, heads, head_dim])
        return self.g.op("Transpose", [x], scope, perm=list(perm))

    def merge_heads(self, scope, x, batch, length, width):
        x = self.g.op("Transpose", [x], scope, perm=[0, 2, 1, 3])
        return self.view(scope, x, [batch, length, width])

    def layer_norm(self, scope, x, weight, bias, eps, weight_name, bias_name, opset):
        """nn.LayerNorm: LayerNormalization from opset 17, else torch's decomposition."""
        g = self.g
        weight, bias = g.init(weight_name, weight), g.init(bias_name, bias)
        if opset >= 17:
            return g.op("LayerNormalization", [x, weight, bias], scope, axis=-1, epsilon=eps)
        mean = g.op("ReduceMean", [x], scope, axes=[-1])
        centred = g.op("Sub", [x, mean], scope)
        square = g.op("Pow", [centred, self.const(scope, 2.0, np.float32)], scope)
        var = g.op("ReduceMean", [square], scope, axes=[-1])
        var = g.op("Add", [var, self.const(scope, eps, np.float32)], scope)
        std = g.op("Sqrt", [var], scope)
        normed = g.op("Div", [centred, std], scope)
        return g.op("Add", [g.op("Mul", [normed, weight], scope), bias], scope)

    def rms_norm(self, scope, x, weight, eps, weight_name):
        """Hugging Face's RMSNorm: x * rsqrt(mean(x^2) + eps) * weight (rsqrt as 1 / Sqrt)."""
        g = self.g
        square = g.op("Pow", [x, self.const(scope, 2.0, np.float32)], scope)
        mean = g.op("ReduceMean", [square], scope, axes=[-1])
        var = g.op("Add", [mean, self.const(scope, eps, np.float32)], scope)
        root = g.op("Sqrt", [var], scope)
        inverse = g.op("Div", [self.const(scope, 1.0, np.float32), root], scope)
        normed = g.op("Mul", [x, inverse], scope)
        return g.op("Mul", [g.init(weight_name, weight), normed], scope)

    def gelu_erf(self, scope, x):
        g = self.g
        y = g.op("Div", [x, self.const(scope, 1.4142135381698608, np.float32)], scope)
        y = g.op("Erf", [y], scope)
        y = g.op("Add", [y, self.const(scope, 1.0, np.float32)], scope)
        y = g.op("Mul", [x, y], scope)
        return g.op("Mul", [y, self.const(scope, 0.5, np.float32)], scope)

    def padding_bias(self, scope, mask):
        """BERT's extended mask: (1 - mask[:, None, None, :]) * float32 min."""
        g = self.g
        m = g.op("Unsqueeze", [mask, self.const(scope, [1])], scope)
        m = g.op("Unsqueeze", [m, self.const(scope, [2])], scope)
        m = g.op("Cast", [m], scope, to=1)
        m = g.op("Sub", [self.const(scope, 1.0, np.float32), m], scope)
        return g.op("Mul", [m, self.const(scope, float_min(), np.float32)], scope)
