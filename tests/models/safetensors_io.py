"""A tiny safetensors reader and writer over numpy, for the model zoo's inputs and outputs.

Debian ships no safetensors Python package. The format: an 8-byte little-endian header length,
a JSON header mapping each name to {dtype, shape, data_offsets} (offsets relative to the data
section), then the raw little-endian tensor data.
"""

import json
import os
import struct

import numpy as np

_DTYPES = {
    "F64": np.float64,
    "F32": np.float32,
    "F16": np.float16,
    "I64": np.int64,
    "U64": np.uint64,
    "I32": np.int32,
    "U32": np.uint32,
    "I16": np.int16,
    "U16": np.uint16,
    "I8": np.int8,
    "U8": np.uint8,
    "BOOL": np.bool_,
}
_NAMES = {np.dtype(t): name for name, t in _DTYPES.items()}


def write_safetensors(path, tensors):
    """Writes `tensors` (a dict or list of (name, array) pairs) in the given order.

    The header is space-padded so the data starts 8-byte aligned. The file is written to a
    temporary name beside `path` and renamed, so no reader sees half a file.
    """
    items = list(tensors.items()) if isinstance(tensors, dict) else list(tensors)
    header, blobs, offset = {}, [], 0
    for name, array in items:
        # Not np.ascontiguousarray: it turns a 0-d array into shape [1].
        array = np.asarray(array)
        if not array.flags.c_contiguous:
            array = array.copy(order="C")
        dtype = _NAMES.get(array.dtype)
        if dtype is None:
            raise ValueError(f"tensor '{name}': dtype {array.dtype} has no safetensors name")
        blob = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    temporary = os.path.join(os.path.dirname(path) or ".", f".{os.path.basename(path)}.{os.getpid()}.tmp")
    with open(temporary, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)


def read_safetensors(path):
    """Reads every tensor of `path` into a dict name -> numpy array, in header order."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ValueError(f"{path}: {len(data)} bytes, shorter than the 8-byte header length")
    (length,) = struct.unpack_from("<Q", data)
    if length > len(data) - 8:
        raise ValueError(f"{path}: header length {length} runs past the end of the file")
    header = json.loads(data[8:8 + length])
    body = memoryview(data)[8 + length:]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(entry["dtype"])
        if dtype is None:
            raise ValueError(f"{path}: tensor '{name}' has unsupported dtype {entry['dtype']}")
        begin, end = entry["data_offsets"]
        shape = tuple(entry["shape"])
        expected = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        if end - begin != expected or end > len(body):
            raise ValueError(f"{path}: tensor '{name}' spans [{begin}, {end}) but "
                             f"{entry['dtype']} {list(shape)} needs {expected} bytes")
        tensors[name] = np.frombuffer(body[begin:end], dtype=np.dtype(dtype).newbyteorder("<")) \
            .reshape(shape).copy()
    return tensors
