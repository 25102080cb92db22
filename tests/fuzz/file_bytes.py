"""Byte builders for the file formats wnn reads, shared by the fuzz seed corpus
(make_corpus.py) and the bad-input corpus (tests/bad_inputs/make_bad_inputs.py).

Each builder returns the bytes of a file, so callers can write them as they are or break them
(truncate, flip bits, splice in hostile headers) before writing.
"""

import io
import json
import struct

import numpy as np


def safetensors(tensors, metadata=None, header=None, pad_to=8):
    """tensors: list of (key, dtype name, shape, raw bytes). `header` replaces the JSON header
    text when given (for hostile headers); the data section is still the tensors' bytes."""
    head, blobs, offset = {}, [], 0
    if metadata is not None:
        head["__metadata__"] = metadata
    for key, dtype, shape, raw in tensors:
        head[key] = {"dtype": dtype, "shape": list(shape),
                     "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = header if header is not None else json.dumps(head, separators=(",", ":"))
    text = text.encode() if isinstance(text, str) else text
    text += b" " * ((-len(text)) % pad_to)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def npy(array=None, version=(1, 0), header=None, data=b""):
    """numpy's own writer for a normal file; with `header`, that dict text and raw `data`."""
    if header is None:
        buf = io.BytesIO()
        np.lib.format.write_array(buf, np.asarray(array), version=version)
        return buf.getvalue()
    text = header.encode() if isinstance(header, str) else header
    length_format = "<H" if version[0] == 1 else "<I"
    return b"\x93NUMPY" + bytes(version) + struct.pack(length_format, len(text)) + text + data


def legacy_weights(tensors):
    """tensors: list of (key, dataType, shape, raw). Returns (weights bytes, manifest text)."""
    data = bytearray(b"WGWT" + struct.pack("<I", 1))
    entries = {}
    for key, dtype, shape, raw in tensors:
        entries[key] = {"dataType": dtype, "shape": list(shape), "byteOffset": len(data),
                        "byteLength": len(raw)}
        data += raw
    manifest = {"format": "wg-weights-manifest", "version": 1, "endianness": "little",
                "tensors": entries}
    return bytes(data), json.dumps(manifest, indent=1)


def onnx_model(nodes, inputs, outputs, initializers=(), opset=17, ir_version=8):
    """A serialized ModelProto built with python3-onnx's helpers."""
    from onnx import helper
    graph = helper.make_graph(list(nodes), "g", list(inputs), list(outputs),
                              initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = ir_version
    return model.SerializeToString()
