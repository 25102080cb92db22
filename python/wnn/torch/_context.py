"""The conversion context the mapping functions share: operands of converted FX nodes, dtype
and shape lookups, and helpers that turn Python scalars into constants of a tensor's dtype."""

import operator

import numpy as np
import torch

import wnn

DTYPES = {
    torch.float32: "float32",
    torch.float16: "float16",
    torch.int64: "int64",
    torch.int32: "int32",
    torch.int8: "int8",
    torch.uint8: "uint8",
    torch.bool: "uint8",
}


class ConversionError(Exception):
    """A mapped op met arguments wnn cannot express; reported with the node's source line."""


def wnn_dtype(torch_dtype):
    if torch_dtype not in DTYPES:
        raise ConversionError(f"data type {torch_dtype} has no WebNN equivalent")
    return DTYPES[torch_dtype]


def meta_of(node):
    """The traced tensor (or its TensorMetadata) of an FX node, or None."""
    if not hasattr(node, "meta"):
        return None
    for key in ("val", "tensor_meta"):
        if key in node.meta and node.meta[key] is not None:
            return node.meta[key]
    return None


class Context:
    def __init__(self, builder):
        self.b = builder
        self.values = {}
        self.node = None

    # --- values -------------------------------------------------------------------------
    def is_tensor(self, arg):
        return isinstance(arg, torch.fx.Node) and isinstance(self.values.get(arg), wnn.Operand)

    def operand(self, arg):
        if not isinstance(arg, torch.fx.Node):
            raise ConversionError(f"expected a tensor, got {arg!r}")
        v = self.values[arg]
        if not isinstance(v, wnn.Operand):
            raise ConversionError(f"{arg.name} is not a tensor")
        return v

    def dtype_of(self, arg):
        """The torch dtype of a node's tensor, or the Python type of a scalar."""
        if isinstance(arg, torch.fx.Node):
            m = meta_of(arg)
            if m is not None and hasattr(m, "dtype"):
                return m.dtype
            return _TORCH_OF_WNN[self.operand(arg).dtype]
        return type(arg)

    def out_dtype(self):
        m = meta_of(self.node)
        if m is not None and hasattr(m, "dtype"):
            return m.dtype
        return None

    def out_shape(self):
        m = meta_of(self.node)
        if m is None or not hasattr(m, "shape"):
            raise ConversionError("the traced output shape is unknown")
        return [int(d) for d in m.shape]

    def shape(self, arg):
        return list(self.operand(arg).shape)

    def rank(self, arg):
        return len(self.operand(arg).shape)

    # --- building -----------------------------------------------------------------------
    def add(self, op, *args, **options):
        return self.b.add(op, *args, **options)

    def scalar(self, value, dtype, shape=()):
        """An inline constant of `dtype` (a wnn dtype name) filled with `value`."""
        return self.b.scalar(self.b.unique_name("scalar"), value, dtype, list(shape))

    def constant(self, array, base="const"):
        """A derived constant (arange, a folded mask): inline when small, else stored."""
        array = np.require(array, requirements="C")  # keeps rank 0, unlike ascontiguousarray
        return self.b.constant(self.b.unique_name(base), array, inline=array.nbytes <= 4096)

    def tensor(self, arg, dtype=None):
        """`arg` as an operand of wnn dtype `dtype`: scalars become constants of that dtype
        (a scalar takes the tensor's dtype, never a default int32 or float32), and tensors of
        another dtype are cast."""
        if isinstance(arg, torch.fx.Node):
            op = self.operand(arg)
            if dtype is not None and op.dtype != dtype:
                op = self.add("cast", op, dtype)
            return op
        if isinstance(arg, (bool, int, float)):
            if dtype is None:
                dtype = "float32" if isinstance(arg, float) else "int64"
            return self.scalar(arg, dtype)
        raise ConversionError(f"expected a tensor or a number, got {arg!r}")

    def cast_to(self, op, dtype):
        return op if op.dtype == dtype else self.add("cast", op, dtype)

    def reshape(self, op, shape):
        if list(op.shape) == list(shape):
            return op
        return self.add("reshape", op, [int(d) for d in shape])


def axis(dim, rank):
    d = int(dim)
    if d < 0:
        d += rank
    if not 0 <= d < max(rank, 1):
        raise ConversionError(f"dimension {dim} is out of range for rank {rank}")
    return d


def axes(dims, rank):
    if dims is None:
        return list(range(rank))
    if isinstance(dims, int):
        dims = [dims]
    return sorted({axis(d, rank) for d in dims}) if len(dims) else list(range(rank))


_TORCH_OF_WNN = {v: k for k, v in DTYPES.items() if k is not torch.bool}

GETITEM = operator.getitem
