"""A small ONNX graph writer shared by the three model families.

It names values the way each exporter does (onnxruntime-genai: `{node}/output_{i}`;
torch.onnx.export: `{node}_output_{i}`), keeps initializers in insertion order so the bytes
are the same for the same arguments, and saves with or without external data.
"""

import os

import numpy as np
from onnx import TensorProto, helper, mapping, numpy_helper, save_model

GENAI = "genai"
# TensorProto's 4-bit types (ONNX 1.16, IR 10); the onnx package here predates them.
UINT4, INT4 = 21, 22
TORCH = "torch"


def tensor_type(dtype):
    return mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dtype)]


class Graph:
    def __init__(self, name, style):
        self.name, self.style = name, style
        self.nodes, self.initializers, self.inputs, self.outputs = [], [], [], []
        self.node_names = set()
        self.constants = {}
        self.counters = {}

    # --- values ----------------------------------------------------------------------------

    def input(self, name, dtype, shape):
        self.inputs.append(helper.make_tensor_value_info(name, tensor_type(dtype), shape))
        return name

    def output(self, name, dtype, shape):
        self.outputs.append(helper.make_tensor_value_info(name, tensor_type(dtype), shape))
        return name

    def init(self, name, array):
        """Adds an initializer (a numpy array kept as is) and returns its name."""
        array = np.ascontiguousarray(array)
        self.initializers.append(numpy_helper.from_array(array, name))
        return name

    def init_raw(self, name, data_type, dims, raw):
        """An initializer of a type numpy lacks (int4, uint4) from its packed bytes."""
        t = TensorProto(name=name, data_type=data_type, raw_data=raw)
        t.dims.extend(dims)
        self.initializers.append(t)
        return name

    def output_name(self, node_name, index):
        sep = "/" if self.style == GENAI else "_"
        return f"{node_name}{sep}output_{index}"

    # --- nodes -----------------------------------------------------------------------------

    def node(self, op, inputs, name, outputs=1, domain="", **attrs):
        """Adds a node; `outputs` is a count (named after the node) or a list of names.

        Returns the output name when there is one output, else the list.
        """
        assert name not in self.node_names, f"node name {name} used twice"
        self.node_names.add(name)
        if isinstance(outputs, int):
            outputs = [self.output_name(name, i) for i in range(outputs)]
        self.nodes.append(helper.make_node(op, list(inputs), list(outputs), name=name,
                                           domain=domain or None, **attrs))
        return outputs[0] if len(outputs) == 1 else outputs

    def unique(self, scope, op):
        """torch.onnx.export's node names: `{scope}/{Op}`, then `{scope}/{Op}_1`, ..."""
        key = f"{scope}/{op}"
        n = self.counters.get(key, 0)
        self.counters[key] = n + 1
        return key if n == 0 else f"{key}_{n}"

    def op(self, op, inputs, scope, outputs=1, domain="", **attrs):
        """A node named in torch.onnx.export's scheme under `scope`."""
        return self.node(op, inputs, self.unique(scope, op), outputs, domain, **attrs)

    def genai_constant(self, dtype, value):
        """The model builder's shared constants: `/model/constants/{DTYPE}/{value}`.

        The value is written as the builder prints it: a Python scalar or a list.
        """
        np_dtype = {"INT64": np.int64, "INT32": np.int32, "FLOAT": np.float32}[dtype]
        name = f"/model/constants/{dtype}/{value}"
        if name not in self.constants:
            array = np.array(value, dtype=np_dtype)
            node_name = name.replace("constants", "constant_nodes")
            self.node("Constant", [], node_name, outputs=[name],
                      value=numpy_helper.from_array(array, name))
            self.constants[name] = name
        return name

    def torch_constant(self, scope, value, dtype=np.int64):
        """A Constant node as torch.onnx.export writes one (`{scope}/Constant_N`)."""
        array = np.array(value, dtype=dtype)
        return self.op("Constant", [], scope, value=numpy_helper.from_array(array))

    # --- the model -------------------------------------------------------------------------

    def sorted_nodes(self):
        """Nodes in a topological order (ONNX requires it; the model builder sorts too)."""
        produced = {i.name for i in self.inputs} | {t.name for t in self.initializers} | {""}
        pending, ordered = list(self.nodes), []
        while pending:
            rest = []
            for n in pending:
                if all(i in produced for i in n.input):
                    ordered.append(n)
                    produced.update(n.output)
                else:
                    rest.append(n)
            if len(rest) == len(pending):
                missing = sorted({i for n in rest for i in n.input if i not in produced})
                raise ValueError(f"{self.name}: values never produced: {missing[:5]}")
            pending = rest
        return ordered

    def model(self, opsets, ir_version, producer, producer_version=""):
        graph = helper.make_graph(self.sorted_nodes(), self.name, self.inputs, self.outputs,
                                  self.initializers)
        model = helper.make_model(
            graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets.items()],
            producer_name=producer, producer_version=producer_version)
        model.ir_version = ir_version
        return model


def save(model, path, external):
    """Writes `model`; with `external` every initializer goes to `{file}.data` beside it.

    The model builder saves this way whatever the size (size threshold 0, one data file named
    after the model); optimum and transformers.js write one file below protobuf's 2 GB limit.
    The .onnx is written under a temporary name and renamed last, so once it exists its data
    file is complete.
    """
    directory, base = os.path.dirname(path) or ".", os.path.basename(path)
    temporary = os.path.join(directory, f".{base}.{os.getpid()}.tmp")
    if external:
        data = os.path.join(directory, base + ".data")
        if os.path.exists(data):
            os.remove(data)  # save_model appends to an existing data file
        save_model(model, temporary, save_as_external_data=True, all_tensors_to_one_file=True,
                   location=base + ".data", size_threshold=0)
    else:
        save_model(model, temporary)
    os.replace(temporary, path)


def float_min(dtype=np.float32):
    return float(np.finfo(dtype).min)


__all__ = ["GENAI", "INT4", "UINT4", "TORCH", "Graph", "TensorProto", "float_min", "save", "tensor_type"]
