"""Reductions, shape and data movement, gathers, factories and casts. Target shapes come from
the traced output (so -1 and symbolic sizes are already resolved by PyTorch)."""

import numpy as np
import torch

from ._context import ConversionError, axes, axis, wnn_dtype
from ._registry import maps

_INT64_MAX = 2**63 - 1


def _reduce(op):
    def convert(ctx, x, dim=None, keepdim=False, dtype=None):
        v = ctx.operand(x)
        if dtype is not None:
            v = ctx.cast_to(v, wnn_dtype(dtype))
        return ctx.add(op, v, axes=axes(dim, len(v.shape)), keepDimensions=bool(keepdim))

    return convert


maps("mean.dim", "mean.default")(_reduce("reduceMean"))
maps("sum.dim_IntList", "sum.default")(_reduce("reduceSum"))
maps("amax.default")(_reduce("reduceMax"))
maps("amin.default")(_reduce("reduceMin"))
maps("prod.dim_int")(_reduce("reduceProduct"))


@maps("var.correction", "var.dim", "std.correction", "std.dim")
def convert_var(ctx, x, dim=None, unbiased=None, keepdim=False, correction=None):
    # var.dim passes `unbiased` positionally; var.correction passes `correction` by keyword.
    target = str(ctx.node.target)
    if "correction" in target and correction is None:
        correction = 1 if unbiased is None else unbiased
    elif correction is None:
        correction = 1 if unbiased in (None, True) else 0
    v = ctx.operand(x)
    ax = axes(dim, len(v.shape))
    n = int(np.prod([v.shape[a] for a in ax]))
    mean = ctx.add("reduceMean", v, axes=ax, keepDimensions=True)
    d = ctx.add("sub", v, mean)
    ss = ctx.add("reduceSum", ctx.add("mul", d, d), axes=ax, keepDimensions=bool(keepdim))
    out = ctx.add("div", ss, ctx.scalar(float(max(n - correction, 0)), v.dtype))
    return ctx.add("sqrt", out) if target.startswith("aten.std") else out


@maps("argmax.default", "argmin.default")
def convert_argmax(ctx, x, dim=None, keepdim=False):
    v = ctx.operand(x)
    op = "argMax" if "argmax" in str(ctx.node.target) else "argMin"
    if dim is None:
        flat = ctx.reshape(v, [int(np.prod(v.shape))])
        out = ctx.add(op, flat, 0, outputDataType="int64")
        return ctx.reshape(out, [1] * len(v.shape)) if keepdim else out
    return ctx.add(op, v, axis(dim, len(v.shape)), keepDimensions=bool(keepdim),
                   outputDataType="int64")


@maps("max.dim", "min.dim")
def convert_max_dim(ctx, x, dim, keepdim=False):
    v = ctx.operand(x)
    a = axis(dim, len(v.shape))
    is_max = str(ctx.node.target).startswith("aten.max")
    values = ctx.add("reduceMax" if is_max else "reduceMin", v, axes=[a], keepDimensions=bool(keepdim))
    indices = ctx.add("argMax" if is_max else "argMin", v, a, keepDimensions=bool(keepdim),
                      outputDataType="int64")
    return (values, indices)


@maps("max.default", "min.default")
def convert_max_all(ctx, x):
    op = "reduceMax" if str(ctx.node.target).startswith("aten.max") else "reduceMin"
    return ctx.add(op, ctx.operand(x))


@maps("view.default", "_unsafe_view.default", "reshape.default", "_reshape_alias.default",
      "view_copy.default", "flatten.using_ints", "unflatten.int", "squeeze.default", "squeeze.dim",
      "squeeze.dims", "unsqueeze.default", "unsqueeze_copy.default", "squeeze_copy.dim",
      "expand_as.default", "view_as.default", "reshape_as.default")
def convert_reshape(ctx, x, *args, **kwargs):
    return ctx.reshape(ctx.operand(x), ctx.out_shape())


@maps("permute.default", "permute_copy.default")
def convert_permute(ctx, x, dims):
    v = ctx.operand(x)
    return ctx.add("transpose", v, permutation=[axis(d, len(v.shape)) for d in dims])


@maps("transpose.int", "transpose_copy.int")
def convert_transpose(ctx, x, dim0, dim1):
    v = ctx.operand(x)
    r = len(v.shape)
    perm = list(range(r))
    a, b = axis(dim0, r), axis(dim1, r)
    perm[a], perm[b] = perm[b], perm[a]
    return ctx.add("transpose", v, permutation=perm)


@maps("t.default", "numpy_T.default")
def convert_t(ctx, x):
    v = ctx.operand(x)
    if len(v.shape) < 2:
        return v
    return ctx.add("transpose", v, permutation=[1, 0])


@maps("expand.default", "broadcast_to.default", "expand_copy.default")
def convert_expand(ctx, x, *args, **kwargs):
    v = ctx.operand(x)
    shape = ctx.out_shape()
    if list(v.shape) == shape:
        return v
    return ctx.add("expand", v, shape)


@maps("alias.default", "clone.default", "detach.default", "lift_fresh_copy.default",
      "contiguous.default", "lift_fresh.default", "dropout.default", "feature_dropout.default")
def convert_identity(ctx, x, *args, **kwargs):
    target = str(ctx.node.target)
    if "dropout" in target and (len(args) < 2 or args[1]):
        raise ConversionError("dropout in training mode is random: not supported (call .eval())")
    return ctx.operand(x)


@maps("cat.default", "concat.default")
def convert_cat(ctx, tensors, dim=0):
    dtype = wnn_dtype(ctx.out_dtype()) if ctx.out_dtype() is not None else None
    ops = [ctx.tensor(t, dtype) for t in tensors]
    # PyTorch lets empty 1-d tensors join anything; WebNN needs equal ranks.
    ops = [o for o in ops if not (len(o.shape) == 1 and o.shape[0] == 0)] or ops
    return ctx.add("concat", ops, axis(dim, len(ops[0].shape)))


@maps("stack.default")
def convert_stack(ctx, tensors, dim=0):
    ops = [ctx.operand(t) for t in tensors]
    r = len(ops[0].shape) + 1
    a = axis(dim, r)
    expanded = [ctx.reshape(o, list(o.shape[:a]) + [1] + list(o.shape[a:])) for o in ops]
    return ctx.add("concat", expanded, a)


def _split(ctx, x, sizes, dim):
    v = ctx.operand(x)
    a = axis(dim, len(v.shape))
    if len(sizes) == 1:
        return (v,)
    return tuple(ctx.add("split", v, [int(s) for s in sizes], axis=a))


@maps("split.Tensor", "split_copy.Tensor", "unsafe_split.Tensor")
def convert_split(ctx, x, split_size, dim=0):
    v = ctx.operand(x)
    n = v.shape[axis(dim, len(v.shape))]
    sizes = [min(split_size, n - i) for i in range(0, n, split_size)] if split_size else [n]
    return _split(ctx, x, sizes, dim)


@maps("split_with_sizes.default", "split_with_sizes_copy.default",
      "unsafe_split_with_sizes.default")
def convert_split_with_sizes(ctx, x, split_sizes, dim=0):
    return _split(ctx, x, list(split_sizes), dim)


@maps("chunk.default")
def convert_chunk(ctx, x, chunks, dim=0):
    v = ctx.operand(x)
    n = v.shape[axis(dim, len(v.shape))]
    size = -(-n // chunks)
    return convert_split(ctx, x, size, dim)


@maps("unbind.int", "unbind_copy.int")
def convert_unbind(ctx, x, dim=0):
    v = ctx.operand(x)
    a = axis(dim, len(v.shape))
    parts = _split(ctx, x, [1] * v.shape[a], a)
    shape = list(v.shape[:a]) + list(v.shape[a + 1:])
    return tuple(ctx.reshape(p, shape) for p in parts)


@maps("slice.Tensor", "slice_copy.Tensor")
def convert_slice(ctx, x, dim=0, start=None, end=None, step=1):
    v = ctx.operand(x)
    r = len(v.shape)
    a = axis(dim, r)
    n = v.shape[a]
    start = 0 if start is None else int(start)
    end = n if end is None or end >= _INT64_MAX else int(end)
    start = min(max(start + n if start < 0 else start, 0), n)
    end = min(max(end + n if end < 0 else end, start), n)
    if start == 0 and end == n and step == 1:
        return v
    starts = [0] * r
    sizes = list(v.shape)
    strides = [1] * r
    starts[a] = start
    # WebNN sizes are the extents read from the input (the output has ceil(size / stride)),
    # not end indices.
    sizes[a] = end - start
    strides[a] = int(step)
    return ctx.add("slice", v, starts, sizes, strides=strides)


@maps("select.int", "select_copy.int")
def convert_select(ctx, x, dim, index):
    v = ctx.operand(x)
    a = axis(dim, len(v.shape))
    i = int(index) + (v.shape[a] if index < 0 else 0)
    sl = convert_slice(ctx, x, a, i, i + 1, 1)
    return ctx.reshape(sl, list(v.shape[:a]) + list(v.shape[a + 1:]))


@maps("index_select.default")
def convert_index_select(ctx, x, dim, index):
    v = ctx.operand(x)
    return ctx.add("gather", v, ctx.operand(index), axis=axis(dim, len(v.shape)))


@maps("embedding.default")
def convert_embedding(ctx, weight, indices, *args):
    return ctx.add("gather", ctx.operand(weight), ctx.operand(indices), axis=0)


@maps("index.Tensor")
def convert_index(ctx, x, indices):
    given = [(i, t) for i, t in enumerate(indices) if t is not None]
    if len(given) != 1:
        raise ConversionError("indexing with more than one index tensor")
    k, idx = given[0]
    if ctx.dtype_of(idx) == torch.bool:
        raise ConversionError("boolean mask indexing has a data-dependent shape")
    return ctx.add("gather", ctx.operand(x), ctx.operand(idx), axis=k)


@maps("roll.default")
def convert_roll(ctx, x, shifts, dims=()):
    v = ctx.operand(x)
    if not dims:
        raise ConversionError("roll without dims")
    for s, d in zip(shifts, dims):
        a = axis(d, len(v.shape))
        n = v.shape[a]
        s = int(s) % n
        if s == 0:
            continue
        r = len(v.shape)
        tail = ctx.add("slice", v, [n - s if i == a else 0 for i in range(r)],
                       [s if i == a else v.shape[i] for i in range(r)])
        head = ctx.add("slice", v, [0] * r, [n - s if i == a else v.shape[i] for i in range(r)])
        v = ctx.add("concat", [tail, head], a)
    return v


def _fill_constant(ctx, value):
    dtype = ctx.out_dtype() or torch.float32
    wd = wnn_dtype(dtype)
    if dtype == torch.bool:
        value = int(bool(value))
    elif not dtype.is_floating_point:
        value = int(value)
    else:
        value = float(value)
    return ctx.scalar(value, wd, ctx.out_shape())


@maps("full.default", "full_like.default", "new_full.default")
def convert_full(ctx, *args, **kwargs):
    target = str(ctx.node.target)
    if target.startswith("aten.full_like"):
        value = args[1]
    elif target.startswith("aten.new_full"):
        value = args[2]
    else:
        value = args[1]
    return _fill_constant(ctx, value)


@maps("zeros.default", "zeros_like.default", "new_zeros.default", "empty.memory_format",
      "empty_like.default", "new_empty.default")
def convert_zeros(ctx, *args, **kwargs):
    return _fill_constant(ctx, 0)


@maps("ones.default", "ones_like.default", "new_ones.default")
def convert_ones(ctx, *args, **kwargs):
    return _fill_constant(ctx, 1)


@maps("scalar_tensor.default")
def convert_scalar_tensor(ctx, value, **kwargs):
    return _fill_constant(ctx, value)


@maps("arange.default", "arange.start", "arange.start_step")
def convert_arange(ctx, *args, **kwargs):
    nums = [a for a in args if isinstance(a, (int, float))]
    start, end, step = (0, nums[0], 1) if len(nums) == 1 else (nums + [1])[:3]
    dtype = ctx.out_dtype() or torch.int64
    values = torch.arange(start, end, step, dtype=dtype)
    if dtype == torch.bool:
        raise ConversionError("arange of bool")
    return ctx.constant(values.numpy(), "arange")


@maps("_to_copy.default", "to.dtype", "_to_copy", "type_as.default")
def convert_to_copy(ctx, x, *args, **kwargs):
    want = ctx.out_dtype()
    v = ctx.operand(x)
    return ctx.cast_to(v, wnn_dtype(want)) if want is not None else v


@maps("as_strided.default", "as_strided_copy.default")
def convert_as_strided(ctx, x, size, stride, storage_offset=None):
    """Only the restrides that are reshapes: contiguous strides over the dims larger than 1
    (tracers emit these for memory-format changes of tensors with unit dims)."""
    v = ctx.operand(x)
    size = [int(s) for s in size]
    expected = 1
    ok = not storage_offset and int(np.prod(size)) == int(np.prod(v.shape))
    for s, st in reversed(list(zip(size, stride))):
        if s != 1:
            ok = ok and st == expected
            expected *= s
    if not ok:
        raise ConversionError(f"as_strided with size {size} and stride {list(stride)}")
    return ctx.reshape(v, size)


@maps("fill.Scalar", "fill.Tensor")
def convert_fill(ctx, x, value):
    """x's shape and dtype, every element `value` (a number or a 0-d tensor)."""
    if not isinstance(value, torch.fx.Node):
        return _fill_constant(ctx, value)
    dtype = wnn_dtype(ctx.out_dtype()) if ctx.out_dtype() is not None else ctx.operand(x).dtype
    v = ctx.reshape(ctx.tensor(value, dtype), [1] * len(ctx.out_shape()))
    return ctx.add("expand", v, ctx.out_shape())
