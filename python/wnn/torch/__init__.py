"""Export PyTorch modules to WebNN (`.webnn` + `.safetensors`) through ATen IR.

    wnn.torch.export(module, example_inputs, "out/model")

traces with torch.export (PyTorch 2.1+) or make_fx with functionalization (older, such as
Debian's 1.13), converts every ATen node through one mapping table (`MAPPING`), and writes
`model.webnn` and `model.safetensors` with parameters and buffers under their state_dict keys.
Every unsupported node is reported at once, each with the source line that produced it.
"""

import inspect

import numpy as np
import torch

import wnn

from . import _dynamic, _ops_elementwise, _ops_nn, _ops_shape  # noqa: F401  (fill MAPPING)
from ._context import GETITEM, ConversionError, Context, meta_of, wnn_dtype
from ._registry import MAPPING, is_random
from ._trace import source_line, trace

__all__ = ["export", "to_graph", "ExportError", "MAPPING", "mapped_op_names"]


class ExportError(wnn.Error):
    """Raised with every problem found in one pass; `.problems` lists (op, source, reason)."""

    def __init__(self, problems):
        self.problems = problems
        lines = [f"{len(problems)} node(s) cannot be exported to WebNN:"]
        for op, where, why in problems:
            lines.append(f"  {op}: {why}" + (f"\n    at {where}" if where else ""))
        super().__init__("\n".join(lines))


def mapped_op_names():
    """Every ATen overload the mapping table covers, as 'aten::name.overload', sorted."""
    return sorted({_op_name(op) for op in MAPPING})


def _op_name(target):
    name = getattr(target, "name", None)
    if callable(name):
        name = name()
    return str(name or target).replace("aten::", "aten.")


def _input_names(module, n):
    try:
        params = [p for p in inspect.signature(module.forward).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    names = [p.name for p in params[:n]]
    return names + [f"input_{i}" for i in range(len(names), n)]


def _flatten_outputs(value):
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            out.extend(_flatten_outputs(v))
        return out
    return [value]


def _numpy(t):
    t = t.detach().cpu().contiguous()
    if t.dtype == torch.bool:
        t = t.to(torch.uint8)
    return t.numpy()


def to_graph(module, example_inputs, *, dynamic_dims=None):
    """Traces and converts `module`; returns the wnn.GraphBuilder holding the graph.

    `dynamic_dims` ({input name or position: {dim: (name, max)}}) makes those input dims
    bounded dynamic dims, dyn(name, max): the module is traced at the max, and again at another
    size to prove the graph does not depend on it (see _dynamic.py)."""
    example_inputs = tuple(example_inputs)
    names = _input_names(module, len(example_inputs))
    if not dynamic_dims:
        return _convert_traced(module, example_inputs, names, None)[0]
    spec = _dynamic.normalize(dynamic_dims, names, example_inputs)
    at_max = _dynamic.resize(example_inputs, spec, lambda name, m: m)
    other = _dynamic.resize(example_inputs, spec, lambda name, m: _dynamic.check_size(m))
    sizes = ", ".join(sorted({f"{b[0]}={b[1]} and {_dynamic.check_size(b[1])}"
                              for dims in spec for b in dims if b}))
    builder, traced = _convert_traced(module, at_max, names, spec)
    other_builder, other_traced = _convert_traced(module, other, names, None)
    _dynamic.compare_traces(traced, other_traced, f"traced at {sizes}")
    _dynamic.compare_graphs(builder.graph.to_text(), other_builder.graph.to_text(),
                            f"traced at {sizes}")
    return builder


def _convert_traced(module, example_inputs, names, dynamic_spec):
    """Traces at the example shapes and converts; returns (builder, traced)."""
    traced = trace(module, example_inputs, set(MAPPING))
    builder = wnn.GraphBuilder()
    ctx = Context(builder)
    ctx.traced = traced
    problems = []
    failed = set()

    # Dead nodes (unused batch-norm statistics, views of nothing) are not exported.
    traced.graph.eliminate_dead_code()
    for node in traced.graph.nodes:
        ctx.node = node
        where = source_line(node)
        try:
            if node.op == "placeholder":
                role, what = traced.roles[node.name]
                if role == "input":
                    t = example_inputs[what]
                    dyn = dynamic_spec[what] if dynamic_spec else None
                    ctx.values[node] = builder.input(names[what], list(t.shape), wnn_dtype(t.dtype),
                                                     dynamic_dims=dyn if dyn and any(dyn) else None)
                elif node.users:  # weights the forward never reads are not stored
                    ctx.values[node] = _weight(ctx, module, traced, what)
            elif node.op == "get_attr":
                ctx.values[node] = ctx.constant(_numpy(traced.attrs[node.target]), "tensor_constant")
            elif node.op in ("call_function", "output"):
                if any(isinstance(a, torch.fx.Node) and a in failed for a in _node_args(node)):
                    failed.add(node)  # already reported at its cause
                    continue
                if node.op == "output":
                    _outputs(ctx, node)
                else:
                    ctx.values[node] = _convert(ctx, node)
        except ConversionError as e:
            failed.add(node)
            problems.append((_op_name(node.target), where, str(e)))
        except wnn.Error as e:
            failed.add(node)
            problems.append((_op_name(node.target), where, f"wnn rejected the node: {e}"))
        except Exception as e:  # a converter bug: still reported with the rest, never hidden
            failed.add(node)
            problems.append((_op_name(node.target), where,
                             f"internal error in the converter: {type(e).__name__}: {e}"))
    if problems:
        raise ExportError(problems)
    return builder, traced


def _node_args(node):
    out = []
    torch.fx.node.map_arg((node.args, node.kwargs), lambda n: out.append(n))
    return out


def _weight(ctx, module, traced, key):
    tensor = traced.attrs.get(key)
    if tensor is None:
        tensor = module.state_dict()[key]
    # The weight keeps its state_dict key in the .safetensors file; the operand name must be a
    # .webnn token (keys of nn.Sequential children start with a digit: "0.weight").
    name = ctx.b.text_name(key)
    return ctx.b.constant(name, _numpy(tensor), key=key)


def _convert(ctx, node):
    target = node.target
    if target is GETITEM:
        value = ctx.values[node.args[0]][node.args[1]]
        if value is None:
            raise ConversionError(f"output {node.args[1]} of {node.args[0].name} is not converted")
        return value
    if is_random(target) and target not in MAPPING:
        raise ConversionError("random op: its value changes on every call, so it is not "
                              "exported (and never folded into a constant)")
    fn = MAPPING.get(target)
    if fn is None:
        value = _static_value(ctx, node)
        if value is None:
            raise ConversionError("no WebNN mapping for this ATen op")
        # Input- and weight-independent (Swin's shifted-window mask built by slice
        # assignments): the traced value is the constant.
        return ctx.constant(_numpy(value), node.name)
    args = torch.fx.node.map_arg(node.args, lambda n: n)
    result = fn(ctx, *args, **dict(node.kwargs))
    _check_shape(ctx, node, result)
    return result


_SHAPE_ONLY_FILLS = {"new_zeros": 0, "new_ones": 1, "new_empty": 0, "zeros_like": 0,
                     "ones_like": 1, "empty_like": 0, "new_full": None, "full_like": None}


def _static_value(ctx, node):
    """The value of a node that depends on no input and no weight (factories and ops on them),
    computed with PyTorch; None for anything else. Random ops are never static."""
    static = ctx.__dict__.setdefault("static", {})
    if node in static:
        return static[node]
    value = None
    name = _op_name(node.target).split(".")[1] if node.op == "call_function" else ""
    if name in _SHAPE_ONLY_FILLS and meta_of(node) is not None:
        # new_zeros(x, ...) and friends read only x's traced shape, never its values.
        m = meta_of(node)
        fill = _SHAPE_ONLY_FILLS[name]
        fill = node.args[2 if name == "new_full" else 1] if fill is None else fill
        value = torch.full([int(d) for d in m.shape], fill, dtype=m.dtype)
    elif node.op == "get_attr":
        value = ctx.traced.attrs.get(node.target)
    elif node.op == "call_function" and not is_random(node.target) and node.target is not GETITEM:
        deps = _node_args(node)
        dep_values = [_static_value(ctx, d) for d in deps]
        if all(v is not None for v in dep_values):
            lookup = dict(zip(deps, dep_values))
            args = torch.fx.node.map_arg(node.args, lambda n: lookup[n])
            kwargs = torch.fx.node.map_arg(dict(node.kwargs), lambda n: lookup[n])
            out = node.target(*args, **kwargs)
            value = out if isinstance(out, torch.Tensor) else None
    static[node] = value
    return value


def _check_shape(ctx, node, result):
    """The converted shape must equal the traced one: catches mapping bugs at their node."""
    m = meta_of(node)
    if isinstance(result, wnn.Operand) and m is not None and hasattr(m, "shape"):
        if list(result.shape) != [int(d) for d in m.shape]:
            raise ConversionError(f"converted shape {list(result.shape)} differs from the traced "
                                  f"shape {list(m.shape)}")


def _outputs(ctx, node):
    outs = _flatten_outputs(node.args[0])
    single = len(outs) == 1
    for i, o in enumerate(outs):
        if not isinstance(o, torch.fx.Node):
            raise ConversionError(f"output {i} is not a tensor")
        op = ctx.operand(o)
        name = "output" if single else f"output_{i}"
        # An identity names the output even when it is an input or a weight itself.
        ctx.b.output(ctx.add("identity", op, name=name))


def export(module, example_inputs, path, *, dynamic_dims=None):
    """Writes `path`.webnn and `path`.safetensors (a trailing .webnn in `path` is accepted).
    Returns the two paths."""
    builder = to_graph(module, example_inputs, dynamic_dims=dynamic_dims)
    base = str(path)
    if base.endswith(".webnn"):
        base = base[: -len(".webnn")]
    graph_path, weights_path = base + ".webnn", base + ".safetensors"
    wnn.save(builder.graph, graph_path, weights_path)
    return graph_path, weights_path
