"""Tracing a module to an ATen-level FX graph, with torch.export when the installed PyTorch
has it (2.1 and later), else make_fx with functionalization (Debian's 1.13).

Both paths return a `Traced`: the FX graph plus what each placeholder is (a forward input by
position, or a state_dict entry by key), so the converter never needs to know which tracer ran.
"""

import contextlib
import inspect
import os
from dataclasses import dataclass, field

import torch


@dataclass
class Traced:
    graph: "torch.fx.Graph"
    # placeholder node name -> ("input", index) or ("weight", state_dict key)
    roles: dict
    # get_attr target -> tensor (constants the tracer lifted, e.g. torch.tensor(...) in forward)
    attrs: dict = field(default_factory=dict)
    tracer: str = ""


_TORCH_DIR = os.path.dirname(torch.__file__)
_SKIP_DIRS = (_TORCH_DIR, os.path.dirname(os.path.dirname(__file__)), "functorch")


def source_line(node):
    """`file:line: code` of the user frame that produced `node`, or '' when unknown."""
    st = getattr(node, "stack_trace", None) or node.meta.get("stack_trace") or ""
    lines = [l for l in st.strip().splitlines() if l.strip()]
    # The innermost frame comes last in torch.export traces and first in ours; both list
    # `File "f", line N, in fn` followed by the code line.
    frames = []
    for i, l in enumerate(lines):
        s = l.strip()
        if s.startswith("File "):
            code = lines[i + 1].strip() if i + 1 < len(lines) else ""
            frames.append((s, code))
    if not frames:
        return ""
    user = [f for f in frames if not any(d in f[0] for d in _SKIP_DIRS if d)]
    s, code = (user or frames)[-1 if node.meta.get("_wnn_innermost_last") else 0]
    try:
        path = s.split('"')[1]
        line = s.split("line ")[1].split(",")[0]
        return f"{path}:{line}: {code}"
    except IndexError:
        return s


def _user_frame_finder(_self):
    """The innermost frame outside torch, functorch and wnn: the model's own source line."""
    frame = inspect.currentframe()
    while frame is not None:
        name = frame.f_code.co_filename
        generated = name.startswith("<")  # tracer-made wrappers such as "<string>"
        if not generated and not any(d and name.startswith(d) for d in _SKIP_DIRS):
            return frame
        frame = frame.f_back
    return None


@contextlib.contextmanager
def _without_fused_fast_paths():
    """nn.TransformerEncoderLayer and nn.MultiheadAttention switch to fused kernels
    (_transformer_encoder_layer_fwd, _native_multi_head_attention) in inference unless an
    argument "has a torch function". Traced tensors lose requires_grad, so make that check
    true while tracing: the trace then holds the plain ATen ops those modules compute."""
    saved = torch.overrides.has_torch_function
    torch.overrides.has_torch_function = lambda args: (
        len(args) > 1 and all(isinstance(a, torch.Tensor) for a in args))
    try:
        yield
    finally:
        torch.overrides.has_torch_function = saved


@contextlib.contextmanager
def _recording_stack_traces(tracer_cls):
    saved = (tracer_cls.record_stack_traces, tracer_cls.__dict__.get("_find_user_frame"))
    tracer_cls.record_stack_traces = True
    tracer_cls._find_user_frame = _user_frame_finder
    try:
        yield
    finally:
        tracer_cls.record_stack_traces = saved[0]
        if saved[1] is None:
            del tracer_cls._find_user_frame
        else:
            tracer_cls._find_user_frame = saved[1]


def _decompositions(keep):
    """ATen decompositions for ops the mapping table lacks; mapped ops stay whole."""
    import torch._decomp as decomp

    if hasattr(decomp, "core_aten_decompositions"):
        table = dict(decomp.core_aten_decompositions())
    else:
        table = dict(decomp.decomposition_table)
    return {op: fn for op, fn in table.items() if op not in keep and op.overloadpacket not in keep}


def trace(module, example_inputs, mapped_ops):
    if hasattr(torch, "export") and hasattr(torch.export, "export"):
        return _trace_with_torch_export(module, example_inputs, mapped_ops)
    return _trace_with_make_fx(module, example_inputs, mapped_ops)


def _trace_with_torch_export(module, example_inputs, mapped_ops):
    program = torch.export.export(module, tuple(example_inputs))
    program = program.run_decompositions(_decompositions(mapped_ops))
    sig = program.graph_signature
    roles = {}
    user_index = 0
    weights = {**sig.inputs_to_parameters, **sig.inputs_to_buffers}
    constants = getattr(sig, "inputs_to_lifted_tensor_constants", {})
    attrs = {}
    for node in program.graph.nodes:
        if node.op != "placeholder":
            continue
        node.meta["_wnn_innermost_last"] = True
        if node.name in weights:
            roles[node.name] = ("weight", weights[node.name])
        elif node.name in constants:
            roles[node.name] = ("constant", constants[node.name])
            attrs[constants[node.name]] = program.constants[constants[node.name]]
        else:
            roles[node.name] = ("input", user_index)
            user_index += 1
    for node in program.graph.nodes:
        node.meta["_wnn_innermost_last"] = True
    state = dict(program.state_dict)
    return Traced(program.graph, roles, {**attrs, **state}, "torch.export")


def _trace_with_make_fx(module, example_inputs, mapped_ops):
    import functorch
    from torch.fx.experimental.proxy_tensor import PythonKeyTracer, make_fx
    from torch.nn.utils.stateless import functional_call

    state = module.state_dict(keep_vars=True)
    keys = list(state.keys())
    n_weights = len(keys)

    def run(*flat):
        params = dict(zip(keys, flat[:n_weights]))
        return functional_call(module, params, tuple(flat[n_weights:]))

    # Weights traced as placeholders keep their state_dict keys, and parameter-only subgraphs
    # (weight_norm) stay graph ops. Float parameters keep requires_grad so modules see the
    # same autograd state as in eager mode (which keeps fused fast paths out of the trace).
    weights = []
    for k in keys:
        t = state[k].detach()
        if isinstance(state[k], torch.nn.Parameter) and t.is_floating_point():
            t = t.clone().requires_grad_(state[k].requires_grad)
        weights.append(t)
    with _recording_stack_traces(PythonKeyTracer), _without_fused_fast_paths():
        gm = make_fx(
            functorch.functionalize(run, remove="mutations"),
            decomposition_table=_decompositions(mapped_ops),
        )(*weights, *example_inputs)
    roles = {}
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    for i, node in enumerate(placeholders):
        roles[node.name] = ("weight", keys[i]) if i < n_weights else ("input", i - n_weights)
    attrs = {}
    for node in gm.graph.nodes:
        if node.op == "get_attr":
            attrs[node.target] = getattr(gm, node.target)
    return Traced(gm.graph, roles, attrs, "make_fx")
