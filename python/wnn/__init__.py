"""wnn: WebNN graphs for Python.

Build graphs with `GraphBuilder` (validated as each node is added), read and write
`.webnn` + `.safetensors` with `load`/`save`, and run them with `Session`. ONNX models convert
with `convert_onnx` and check against ONNX Runtime with `validate`; PyTorch modules export
through `wnn.torch.export`. Every failure inside wnn raises `wnn.Error`.
"""

from ._wnn import Error, Graph, GraphBuilder, Operand, Session, load, ops, save
from ._onnx import convert_onnx, validate

__all__ = ["Error", "Graph", "GraphBuilder", "Operand", "Session", "convert_onnx", "load", "ops",
           "save", "validate"]
