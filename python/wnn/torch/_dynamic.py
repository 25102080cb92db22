"""Bounded dynamic input dims for the exporter: `dynamic_dims={"x": {0: ("batch", 8)}}`.

The graph is traced at the maximum size and written with `dyn("batch", 8)` on those dims. A
second trace at another size must give the same graph apart from the input shapes: an op that
bakes the traced size into the graph (a reshape to a literal shape, a zeros([8, ...]) fill, a
folded constant whose shape follows the input) would be wrong at any other size, so it is
reported with its source line instead of being exported.
"""

import torch

import wnn

from ._trace import source_line


def normalize(dynamic_dims, names, example_inputs):
    """{input name or position: {dim: (name, max)}} -> one list per input, of None or
    (name, max) per dim. Every error names the input and dim."""
    spec = [[None] * t.dim() for t in example_inputs]
    maxima = {}
    for key, dims in dynamic_dims.items():
        if isinstance(key, int) and not isinstance(key, bool):
            if not 0 <= key < len(names):
                raise wnn.Error(f"dynamic_dims: input position {key} is out of range "
                                f"(the module takes {len(names)} inputs)")
            index = key
        elif key in names:
            index = names.index(key)
        else:
            raise wnn.Error(f"dynamic_dims: no input named {key!r} (inputs: {', '.join(names)})")
        rank = example_inputs[index].dim()
        for dim, bound in dict(dims).items():
            where = f"dynamic_dims[{key!r}][{dim!r}]"
            if not isinstance(dim, int) or not -rank <= dim < rank:
                raise wnn.Error(f"{where}: input {names[index]!r} has rank {rank}")
            if (not isinstance(bound, (tuple, list)) or len(bound) != 2
                    or not isinstance(bound[0], str) or not isinstance(bound[1], int)
                    or bound[1] < 1):
                raise wnn.Error(f"{where}: expected (name, max) with max >= 1, got {bound!r}")
            name, maximum = bound
            if maxima.setdefault(name, maximum) != maximum:
                raise wnn.Error(f"{where}: dynamic dim {name!r} has max {maximum} here but "
                                f"{maxima[name]} elsewhere")
            spec[index][dim % rank] = (name, maximum)
    return spec


def resize(example_inputs, spec, size_of):
    """The inputs with each dynamic dim resized to size_of(name, max): the example's entries
    repeated cyclically, so integer inputs (token ids, indices) stay valid values."""
    out = []
    for t, dims in zip(example_inputs, spec):
        for d, bound in enumerate(dims):
            if bound is not None:
                size = size_of(*bound)
                t = t.index_select(d, torch.arange(size) % t.shape[d])
        out.append(t)
    return out


def check_size(maximum):
    """The size of the second trace: another size that is neither the max nor 1 (where
    broadcasting may specialise the trace), below the max when there is room."""
    return maximum - 1 if maximum >= 3 else maximum + 1


def _normalized(value):
    return torch.fx.node.map_aggregate(
        value, lambda v: ("node", v.name) if isinstance(v, torch.fx.Node) else v)


def compare_traces(traced_max, traced_other, describe):
    """Raises wnn.Error naming the first node whose op or literal arguments differ between the
    two traces; `describe` says which sizes were traced."""
    a = list(traced_max.graph.nodes)
    b = list(traced_other.graph.nodes)
    for na, nb in zip(a, b):
        same = (na.op == nb.op and na.target == nb.target
                and _normalized(na.args) == _normalized(nb.args)
                and _normalized(dict(na.kwargs)) == _normalized(dict(nb.kwargs)))
        if not same:
            _raise(na, f"{_target(na)} depends on the size of a dynamic dim: traced as "
                   f"{_call(na)} and as {_call(nb)} ({describe})")
    if len(a) != len(b):
        first = a[min(len(a), len(b)) - 1] if a else None
        _raise(first, f"the traced graphs have {len(a)} and {len(b)} nodes ({describe}): "
               "the module's structure depends on the size of a dynamic dim")


def compare_graphs(text_max, text_other, describe):
    """The exported WebNN graphs (canonical text) must match outside the inputs block: a
    converter that computed a literal from a traced shape is caught here."""
    la, lb = _body(text_max), _body(text_other)
    for x, y in zip(la, lb):
        if x != y:
            raise wnn.Error("dynamic_dims: the exported graph depends on the size of a dynamic "
                            f"dim ({describe}):\n  {x.strip()}\n  vs {y.strip()}")
    if len(la) != len(lb):
        raise wnn.Error(f"dynamic_dims: the exported graphs differ in length ({describe})")


def _body(text):
    """Every line but the header (v2 when dynamic) and the inputs block (whose shapes differ
    by design)."""
    lines, skipping = [], False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("webnn_graph"):
            continue
        if stripped.startswith("inputs"):
            skipping = not stripped.endswith("}")  # a one-line block ends where it starts
            continue
        if skipping:
            if stripped.startswith("}"):
                skipping = False
            continue
        lines.append(line)
    return lines


def _target(node):
    name = getattr(node.target, "__name__", None) or str(node.target)
    return f"{node.op} {name}" if node.op != "call_function" else str(node.target)


class _Ref:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "%" + self.name


def _call(node):
    args = torch.fx.node.map_aggregate(
        node.args, lambda v: _Ref(v.name) if isinstance(v, torch.fx.Node) else v)
    return "(" + ", ".join(repr(a) for a in args) + ")"


def _raise(node, message):
    where = source_line(node) if node is not None else None
    raise wnn.Error("dynamic_dims: " + message + (f"\n    at {where}" if where else ""))
