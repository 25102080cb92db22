"""Elementwise ATen ops: arithmetic (with PyTorch's type promotion of scalars), comparisons,
unary math and activations."""

import math

import torch

from ._context import ConversionError, wnn_dtype
from ._registry import maps


def _result_dtype(ctx, *args):
    """The wnn dtype PyTorch computes a binary op in."""
    metas = []
    for a in args:
        if isinstance(a, torch.fx.Node):
            metas.append(torch.empty((), dtype=ctx.dtype_of(a)))
        else:
            metas.append(a)
    if len(metas) == 1:
        return wnn_dtype(ctx.dtype_of(args[0]))
    return wnn_dtype(torch.result_type(*metas))


def _binary(ctx, op, a, b):
    if not isinstance(a, torch.fx.Node) and not isinstance(b, torch.fx.Node):
        raise ConversionError(f"{op} of two scalars")
    dtype = _result_dtype(ctx, a, b)
    out = ctx.add(op, ctx.tensor(a, dtype), ctx.tensor(b, dtype))
    want = ctx.out_dtype()
    return ctx.cast_to(out, wnn_dtype(want)) if want is not None else out


@maps("add.Tensor", "add.Scalar")
def convert_add(ctx, a, b, alpha=1):
    if alpha == 1:
        return _binary(ctx, "add", a, b)
    dtype = _result_dtype(ctx, a, b)
    return ctx.add("add", ctx.tensor(a, dtype), _scaled_op(ctx, b, alpha, dtype))


@maps("sub.Tensor", "sub.Scalar")
def convert_sub(ctx, a, b, alpha=1):
    if alpha == 1:
        return _binary(ctx, "sub", a, b)
    dtype = _result_dtype(ctx, a, b)
    return ctx.add("sub", ctx.tensor(a, dtype), _scaled_op(ctx, b, alpha, dtype))


def _scaled_op(ctx, b, alpha, dtype):
    return ctx.add("mul", ctx.tensor(b, dtype), ctx.scalar(alpha, dtype))


@maps("rsub.Scalar", "rsub.Tensor")
def convert_rsub(ctx, a, b, alpha=1):
    dtype = _result_dtype(ctx, a, b)
    scaled = ctx.tensor(a, dtype) if alpha == 1 else _scaled_op(ctx, a, alpha, dtype)
    return ctx.add("sub", ctx.tensor(b, dtype), scaled)


@maps("mul.Tensor", "mul.Scalar")
def convert_mul(ctx, a, b):
    return _binary(ctx, "mul", a, b)


@maps("div.Tensor", "div.Scalar")
def convert_div(ctx, a, b):
    # True division: integers are promoted to float first, as PyTorch does.
    want = wnn_dtype(ctx.out_dtype() or torch.float32)
    return ctx.add("div", ctx.tensor(a, want), ctx.tensor(b, want))


@maps("div.Tensor_mode", "div.Scalar_mode")
def convert_div_mode(ctx, a, b, rounding_mode=None):
    if rounding_mode is None:
        return convert_div(ctx, a, b)
    dtype = _result_dtype(ctx, a, b)
    fa, fb = ctx.tensor(a, "float32"), ctx.tensor(b, "float32")
    q = ctx.add("div", fa, fb)
    if rounding_mode == "floor":
        q = ctx.add("floor", q)
    else:  # trunc: toward zero
        q = ctx.add("mul", ctx.add("sign", q), ctx.add("floor", ctx.add("abs", q)))
    return ctx.cast_to(q, dtype)


@maps("pow.Tensor_Scalar", "pow.Tensor_Tensor", "pow.Scalar")
def convert_pow(ctx, a, b):
    if isinstance(b, (int, float)) and not isinstance(b, bool) and isinstance(a, torch.fx.Node):
        x = ctx.operand(a)
        if b == 2:
            return ctx.add("mul", x, x)
        if b == 0.5:
            return ctx.add("sqrt", x)
    return _binary(ctx, "pow", a, b)


@maps("maximum.default")
def convert_maximum(ctx, a, b):
    return _binary(ctx, "max", a, b)


@maps("minimum.default")
def convert_minimum(ctx, a, b):
    return _binary(ctx, "min", a, b)


def _compare(op):
    def convert(ctx, a, b):
        dtype = _result_dtype(ctx, a, b)
        return ctx.add(op, ctx.tensor(a, dtype), ctx.tensor(b, dtype))

    return convert


for _spec, _op in [
    ("eq", "equal"),
    ("ne", "notEqual"),
    ("lt", "lesser"),
    ("le", "lesserOrEqual"),
    ("gt", "greater"),
    ("ge", "greaterOrEqual"),
]:
    maps(f"{_spec}.Tensor", f"{_spec}.Scalar")(_compare(_op))


@maps("logical_not.default", "bitwise_not.default")
def convert_logical_not(ctx, x):
    return ctx.add("logicalNot", ctx.tensor(x, "uint8"))


@maps("logical_and.default", "bitwise_and.Tensor")
def convert_logical_and(ctx, a, b):
    return ctx.add("logicalAnd", ctx.tensor(a, "uint8"), ctx.tensor(b, "uint8"))


@maps("logical_or.default", "bitwise_or.Tensor")
def convert_logical_or(ctx, a, b):
    return ctx.add("logicalOr", ctx.tensor(a, "uint8"), ctx.tensor(b, "uint8"))


def _unary(op):
    def convert(ctx, x):
        return ctx.add(op, ctx.operand(x))

    return convert


for _spec, _op in [
    ("relu", "relu"),
    ("sigmoid", "sigmoid"),
    ("tanh", "tanh"),
    ("sqrt", "sqrt"),
    ("exp", "exp"),
    ("log", "log"),
    ("erf", "erf"),
    ("abs", "abs"),
    ("neg", "neg"),
    ("reciprocal", "reciprocal"),
    ("sin", "sin"),
    ("cos", "cos"),
    ("floor", "floor"),
    ("ceil", "ceil"),
    ("sign", "sign"),
    ("hardswish", "hardSwish"),
    ("round", "roundEven"),
]:
    maps(f"{_spec}.default")(_unary(_op))


@maps("rsqrt.default")
def convert_rsqrt(ctx, x):
    return ctx.add("reciprocal", ctx.add("sqrt", ctx.operand(x)))


@maps("silu.default")
def convert_silu(ctx, x):
    v = ctx.operand(x)
    return ctx.add("mul", v, ctx.add("sigmoid", v))


@maps("gelu.default")
def convert_gelu(ctx, x, approximate="none"):
    v = ctx.operand(x)
    if approximate == "none":
        return ctx.add("gelu", v)
    if approximate != "tanh":
        raise ConversionError(f"gelu approximate={approximate!r}")
    # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    dt = v.dtype
    cube = ctx.add("mul", ctx.add("mul", v, v), v)
    inner = ctx.add("add", v, ctx.add("mul", cube, ctx.scalar(0.044715, dt)))
    t = ctx.add("tanh", ctx.add("mul", inner, ctx.scalar(math.sqrt(2.0 / math.pi), dt)))
    return ctx.add("mul", ctx.add("mul", v, ctx.scalar(0.5, dt)), ctx.add("add", t, ctx.scalar(1.0, dt)))


@maps("hardsigmoid.default")
def convert_hardsigmoid(ctx, x):
    # PyTorch: relu6(x + 3) / 6
    return ctx.add("hardSigmoid", ctx.operand(x), alpha=1.0 / 6.0, beta=0.5)


@maps("leaky_relu.default")
def convert_leaky_relu(ctx, x, negative_slope=0.01):
    return ctx.add("leakyRelu", ctx.operand(x), alpha=float(negative_slope))


@maps("elu.default")
def convert_elu(ctx, x, alpha=1.0, scale=1.0, input_scale=1.0):
    v = ctx.operand(x)
    if input_scale != 1:
        v = ctx.add("mul", v, ctx.scalar(input_scale, v.dtype))
    y = ctx.add("elu", v, alpha=float(alpha))
    if scale != 1:
        y = ctx.add("mul", y, ctx.scalar(scale, v.dtype))
    return y


@maps("softplus.default")
def convert_softplus(ctx, x, beta=1, threshold=20):
    # PyTorch reverts to the identity where beta * x > threshold.
    v = ctx.operand(x)
    bx = v if beta == 1 else ctx.add("mul", v, ctx.scalar(beta, v.dtype))
    sp = ctx.add("softplus", bx)
    if beta != 1:
        sp = ctx.add("div", sp, ctx.scalar(beta, v.dtype))
    big = ctx.add("greater", bx, ctx.scalar(threshold, v.dtype))
    return ctx.add("where", big, v, sp)


@maps("clamp.default", "clip.default", "hardtanh.default")
def convert_clamp(ctx, x, min=None, max=None):
    options = {}
    if min is not None:
        options["minValue"] = min
    if max is not None:
        options["maxValue"] = max
    return ctx.add("clamp", ctx.operand(x), **options)


@maps("clamp.Tensor")
def convert_clamp_tensor(ctx, x, min=None, max=None):
    dtype = ctx.operand(x).dtype
    y = ctx.operand(x)
    if min is not None:
        y = ctx.add("max", y, ctx.tensor(min, dtype))
    if max is not None:
        y = ctx.add("min", y, ctx.tensor(max, dtype))
    return y


@maps("clamp_min.default")
def convert_clamp_min(ctx, x, min):
    return convert_clamp(ctx, x, min=min)


@maps("clamp_max.default")
def convert_clamp_max(ctx, x, max):
    return convert_clamp(ctx, x, max=max)


@maps("relu6.default")
def convert_relu6(ctx, x):
    return convert_clamp(ctx, x, 0.0, 6.0)


@maps("where.self", "where.ScalarOther", "where.ScalarSelf", "where.Scalar")
def convert_where(ctx, cond, a, b):
    dtype = wnn_dtype(ctx.out_dtype()) if ctx.out_dtype() is not None else _result_dtype(ctx, a, b)
    return ctx.add("where", ctx.tensor(cond, "uint8"), ctx.tensor(a, dtype), ctx.tensor(b, dtype))


@maps("masked_fill.Scalar", "masked_fill.Tensor")
def convert_masked_fill(ctx, x, mask, value):
    v = ctx.operand(x)
    return ctx.add("where", ctx.tensor(mask, "uint8"), ctx.tensor(value, v.dtype), v)
