"""wnn: WebNN graphs for Python.

Build graphs with `GraphBuilder` (validated as each node is added), read and write
`.webnn` + `.safetensors` with `load`/`save`, and run them with `Session`. PyTorch modules
export through `wnn.torch.export`. Every failure inside wnn raises `wnn.Error`.
"""

from ._wnn import Error, Graph, GraphBuilder, Operand, Session, load, ops, save

__all__ = ["Error", "Graph", "GraphBuilder", "Operand", "Session", "load", "ops", "save"]
