"""Neural-network ATen ops: convolution, matrix products (never a rank > 2 gemm),
normalization, softmax, pooling, padding, resampling and attention."""

import math

import torch

from ._context import ConversionError, axis
from ._registry import maps


def _pair(v, n=2):
    v = list(v) if isinstance(v, (list, tuple)) else [v]
    return v * n if len(v) == 1 else v


@maps("convolution.default", "_convolution.default")
def convert_convolution(ctx, x, weight, bias, stride, padding, dilation, transposed,
                        output_padding, groups, *rest):
    v, w = ctx.operand(x), ctx.operand(weight)
    spatial = len(v.shape) - 2
    if spatial not in (1, 2):
        raise ConversionError(f"{spatial}-d convolution (WebNN has 2-d only)")
    if spatial == 1:
        # A 1-d convolution is a 2-d one over a height of 1.
        v = ctx.reshape(v, [v.shape[0], v.shape[1], 1, v.shape[2]])
        w = ctx.reshape(w, [w.shape[0], w.shape[1], 1, w.shape[2]])
        stride, padding, dilation = [1, stride[0]], [0, padding[0]], [1, dilation[0]]
        output_padding = [0, output_padding[0]] if output_padding else [0, 0]
    stride, padding, dilation = _pair(stride), _pair(padding), _pair(dilation)
    options = dict(
        padding=[padding[0], padding[0], padding[1], padding[1]],
        strides=stride,
        dilations=dilation,
        groups=int(groups),
    )
    if bias is not None:
        options["bias"] = ctx.operand(bias)
    if transposed:
        out = ctx.add("convTranspose2d", v, w, outputPadding=_pair(output_padding), **options)
    else:
        out = ctx.add("conv2d", v, w, **options)
    return ctx.reshape(out, ctx.out_shape()) if spatial == 1 else out


def _matmul(ctx, a, b):
    """matmul with PyTorch's 1-d rules: a vector is lifted to a matrix and the dim dropped."""
    if len(a.shape) == 1:
        a = ctx.reshape(a, [1, a.shape[0]])
    if len(b.shape) == 1:
        b = ctx.reshape(b, [b.shape[0], 1])
    out = ctx.add("matmul", a, b)
    return ctx.reshape(out, ctx.out_shape())


@maps("mm.default", "bmm.default", "matmul.default")
def convert_matmul(ctx, a, b):
    return _matmul(ctx, ctx.operand(a), ctx.operand(b))


@maps("addmm.default")
def convert_addmm(ctx, bias, a, b, beta=1, alpha=1):
    # Both operands are rank 2 here, which is all WebNN's gemm takes.
    return ctx.add("gemm", ctx.operand(a), ctx.operand(b), c=ctx.operand(bias),
                   alpha=float(alpha), beta=float(beta))


@maps("baddbmm.default")
def convert_baddbmm(ctx, bias, a, b, beta=1, alpha=1):
    p = ctx.add("matmul", ctx.operand(a), ctx.operand(b))
    dt = p.dtype
    if alpha != 1:
        p = ctx.add("mul", p, ctx.scalar(alpha, dt))
    if beta == 0:
        return p
    c = ctx.operand(bias)
    if beta != 1:
        c = ctx.add("mul", c, ctx.scalar(beta, dt))
    return ctx.add("add", p, c)


@maps("linear.default")
def convert_linear(ctx, x, weight, bias=None):
    v, w = ctx.operand(x), ctx.operand(weight)
    if len(v.shape) == 2:
        options = {"c": ctx.operand(bias)} if bias is not None else {}
        return ctx.add("gemm", v, w, bTranspose=True, **options)
    out = ctx.add("matmul", v, ctx.add("transpose", w, permutation=[1, 0]))
    return ctx.add("add", out, ctx.operand(bias)) if bias is not None else out


def _batch_norm(ctx, x, weight, bias, mean, var, eps):
    options = {"axis": 1, "epsilon": float(eps)}
    if weight is not None:
        options["scale"] = ctx.operand(weight)
    if bias is not None:
        options["bias"] = ctx.operand(bias)
    return ctx.add("batchNormalization", ctx.operand(x), ctx.operand(mean), ctx.operand(var),
                   **options)


@maps("native_batch_norm.default", "_native_batch_norm_legit.default")
def convert_native_batch_norm(ctx, x, weight, bias, mean, var, training, momentum, eps):
    if training or mean is None:
        raise ConversionError("batch norm with batch statistics (training mode): call .eval()")
    return (_batch_norm(ctx, x, weight, bias, mean, var, eps), None, None)


@maps("_native_batch_norm_legit_no_training.default")
def convert_batch_norm_no_training(ctx, x, weight, bias, mean, var, momentum, eps):
    return (_batch_norm(ctx, x, weight, bias, mean, var, eps), None, None)


@maps("native_layer_norm.default")
def convert_native_layer_norm(ctx, x, normalized_shape, weight, bias, eps):
    v = ctx.operand(x)
    r = len(v.shape)
    options = {"axes": list(range(r - len(normalized_shape), r)), "epsilon": float(eps)}
    if weight is not None:
        options["scale"] = ctx.operand(weight)
    if bias is not None:
        options["bias"] = ctx.operand(bias)
    return (ctx.add("layerNormalization", v, **options), None, None)


@maps("native_group_norm.default")
def convert_native_group_norm(ctx, x, weight, bias, n, c, hw, group, eps):
    v = ctx.operand(x)
    shape = list(v.shape)
    grouped = ctx.reshape(v, [shape[0], int(group), (shape[1] // int(group)) * int(hw)])
    normed = ctx.add("layerNormalization", grouped, axes=[2], epsilon=float(eps))
    out = ctx.reshape(normed, shape)
    per_channel = [shape[1]] + [1] * (len(shape) - 2)
    if weight is not None:
        out = ctx.add("mul", out, ctx.reshape(ctx.operand(weight), per_channel))
    if bias is not None:
        out = ctx.add("add", out, ctx.reshape(ctx.operand(bias), per_channel))
    return (out, None, None)


@maps("_softmax.default", "softmax.int")
def convert_softmax(ctx, x, dim, *rest):
    v = ctx.operand(x)
    return ctx.add("softmax", v, axis(dim, len(v.shape)))


@maps("_log_softmax.default", "log_softmax.int")
def convert_log_softmax(ctx, x, dim, *rest):
    v = ctx.operand(x)
    a = axis(dim, len(v.shape))
    return ctx.add("sub", v, ctx.add("reduceLogSumExp", v, axes=[a], keepDimensions=True))


def _pool_rounding(in_size, k, s, p, d, ceil_mode):
    """PyTorch's pooled size, and the WebNN rounding mode that gives it."""
    span = in_size + 2 * p - d * (k - 1) - 1
    floor_out = span // s + 1
    if not ceil_mode:
        return "floor"
    out = -(-span // s) + 1
    if (out - 1) * s >= in_size + p:  # the last window must start inside the input
        out -= 1
    return "floor" if out == floor_out else "ceil"


def _pool_options(shape, kernel, stride, padding, dilation, ceil_mode):
    kernel = _pair(kernel)
    stride = _pair(stride) if stride else kernel
    padding, dilation = _pair(padding), _pair(dilation)
    modes = {_pool_rounding(shape[2 + i], kernel[i], stride[i], padding[i], dilation[i],
                            ceil_mode) for i in range(2)}
    return dict(windowDimensions=kernel, strides=stride, dilations=dilation,
                padding=[padding[0], padding[0], padding[1], padding[1]],
                outputShapeRounding="ceil" if "ceil" in modes else "floor")


@maps("max_pool2d_with_indices.default", "max_pool2d.default")
def convert_max_pool2d(ctx, x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    v = ctx.operand(x)
    out = ctx.add("maxPool2d", v, **_pool_options(v.shape, kernel_size, stride, padding, dilation,
                                                   ceil_mode))
    # The indices output is left unconverted: using it is an error, not a silent zero.
    return (out, None) if "indices" in str(ctx.node.target) else out


@maps("avg_pool2d.default")
def convert_avg_pool2d(ctx, x, kernel_size, stride=(), padding=0, ceil_mode=False,
                       count_include_pad=True, divisor_override=None):
    if divisor_override is not None:
        raise ConversionError("avg_pool2d divisor_override")
    v = ctx.operand(x)
    padding = _pair(padding)
    if count_include_pad and any(padding):
        # Zeros counted in the average: pad explicitly, then pool without padding.
        v = ctx.add("pad", v, [0, 0, padding[0], padding[1]], [0, 0, padding[0], padding[1]])
        padding = [0, 0]
    options = _pool_options(v.shape, kernel_size, stride, padding, 1, ceil_mode)
    del options["dilations"]
    return ctx.add("averagePool2d", v, **options)


@maps("_adaptive_avg_pool2d.default", "adaptive_avg_pool2d.default")
def convert_adaptive_avg_pool2d(ctx, x, output_size):
    v = ctx.operand(x)
    h, w = v.shape[2], v.shape[3]
    oh, ow = _pair(output_size)
    oh, ow = oh or h, ow or w
    if (oh, ow) == (1, 1):
        return ctx.add("reduceMean", v, axes=[2, 3], keepDimensions=True)
    if h % oh or w % ow:
        raise ConversionError(f"adaptive_avg_pool2d from {h}x{w} to {oh}x{ow} (not a divisor)")
    return ctx.add("averagePool2d", v, windowDimensions=[h // oh, w // ow],
                   strides=[h // oh, w // ow])


def _pad(ctx, x, pad, mode, value=0.0):
    v = ctx.operand(x)
    r = len(v.shape)
    begin, end = [0] * r, [0] * r
    for i in range(len(pad) // 2):
        begin[r - 1 - i], end[r - 1 - i] = int(pad[2 * i]), int(pad[2 * i + 1])
    if any(p < 0 for p in begin + end):
        raise ConversionError(f"negative padding {list(pad)}")
    options = {"mode": mode}
    if mode == "constant":
        options["value"] = value
    return ctx.add("pad", v, begin, end, **options)


@maps("constant_pad_nd.default")
def convert_constant_pad_nd(ctx, x, pad, value=0):
    return _pad(ctx, x, pad, "constant", value)


@maps("reflection_pad1d.default", "reflection_pad2d.default", "reflection_pad3d.default")
def convert_reflection_pad(ctx, x, pad):
    return _pad(ctx, x, pad, "reflection")


@maps("replication_pad1d.default", "replication_pad2d.default", "replication_pad3d.default")
def convert_replication_pad(ctx, x, pad):
    return _pad(ctx, x, pad, "edge")


@maps("upsample_nearest2d.vec", "upsample_nearest2d.default")
def convert_upsample_nearest2d(ctx, x, *args):
    return ctx.add("resample2d", ctx.operand(x), mode="nearest-neighbor",
                   sizes=ctx.out_shape()[2:], axes=[2, 3])


@maps("upsample_bilinear2d.vec", "upsample_bilinear2d.default")
def convert_upsample_bilinear2d(ctx, x, output_size, align_corners, *args):
    if align_corners:
        raise ConversionError("bilinear upsampling with align_corners=True")
    return ctx.add("resample2d", ctx.operand(x), mode="linear", sizes=ctx.out_shape()[2:],
                   axes=[2, 3])


@maps("scaled_dot_product_attention.default", "_scaled_dot_product_attention_math.default")
def convert_sdpa(ctx, q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, *rest, scale=None,
                 **kwargs):
    if dropout_p:
        raise ConversionError("attention dropout is random: not supported")
    qo, ko, vo = ctx.operand(q), ctx.operand(k), ctx.operand(v)
    r = len(ko.shape)
    dt = qo.dtype
    s = scale if scale is not None else 1.0 / math.sqrt(qo.shape[-1])
    perm = list(range(r - 2)) + [r - 1, r - 2]
    scores = ctx.add("matmul", qo, ctx.add("transpose", ko, permutation=perm))
    scores = ctx.add("mul", scores, ctx.scalar(s, dt))
    L, S = qo.shape[-2], ko.shape[-2]
    neg_inf = float("-inf")
    if is_causal:
        ones = ctx.scalar(1, "uint8", [L, S])
        keep = ctx.add("triangular", ones, upper=False, diagonal=0)
        scores = ctx.add("where", keep, scores, ctx.scalar(neg_inf, dt))
    if attn_mask is not None:
        if ctx.dtype_of(attn_mask) == torch.bool:
            scores = ctx.add("where", ctx.tensor(attn_mask, "uint8"), scores,
                             ctx.scalar(neg_inf, dt))
        else:
            scores = ctx.add("add", scores, ctx.tensor(attn_mask, dt))
    probs = ctx.add("softmax", scores, len(qo.shape) - 1)
    return ctx.add("matmul", probs, vo)


@maps("_weight_norm_interface.default", "_weight_norm.default")
def convert_weight_norm(ctx, v, g, dim=0):
    """w = g * v / ||v|| over every dim but `dim`. Parameter-only: kept as graph ops, which the
    runtime folds into one weight."""
    vo, go = ctx.operand(v), ctx.operand(g)
    r = len(vo.shape)
    d = axis(dim, r) if dim != -1 or r == 0 else r - 1
    norm = ctx.add("reduceL2", vo, axes=[a for a in range(r) if a != d], keepDimensions=True)
    w = ctx.add("mul", vo, ctx.add("div", go, norm))
    return (w, norm) if "interface" in str(ctx.node.target) else w
