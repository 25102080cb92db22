"""ONNX conversion and validation over the C++ core (`wnn convert` and `wnn validate`).

`convert_onnx` imports a model into a `wnn.Graph` (and writes `.webnn` + `.safetensors` when
given a directory); `validate` runs the converted graph and ONNX Runtime on the same inputs
and returns the report `wnn validate --report` writes, as a dict (docs/validation.md).
"""

import os
import tempfile

import numpy as np

from . import _wnn


def _pins(pin_inputs):
    """Splits pin_inputs into value texts ("3", "1,2,3") and exact arrays."""
    texts, arrays = {}, {}
    for name, value in (pin_inputs or {}).items():
        if isinstance(value, np.ndarray):
            arrays[name] = value
        elif isinstance(value, (list, tuple)):
            texts[name] = ",".join(str(v) for v in value)
        elif isinstance(value, (bool, np.bool_)):
            texts[name] = str(int(value))
        elif isinstance(value, (int, float, str, np.integer, np.floating)):
            texts[name] = str(value)
        else:
            raise _wnn.Error(f"pin_inputs[{name!r}]: expected a number, a list of numbers, a "
                             f"string or a numpy array, got {type(value).__name__}")
    return texts, arrays


def _dims(override_dims):
    return {str(k): int(v) for k, v in (override_dims or {}).items()}


def convert_onnx(path, out_dir=None, *, override_dims=None, pin_inputs=None,
                 zero_missing_weights=False):
    """Imports the ONNX model at `path`.

    Returns a dict: `graph` (a wnn.Graph with its weights bound, runnable by wnn.Session),
    `graph_path`/`weights_path` (the files written to `out_dir` as <stem>.webnn and
    <stem>.safetensors; None without `out_dir`), `inputs`/`outputs` ((ONNX name, operand
    name) pairs in model order), `pinned` (ONNX input names made constants), `warnings` and
    `nodes_in`. `override_dims` binds free dimensions by name ({"batch": 1}) or one axis of
    one input, named or not ({"x:1": 16}, the keys of `wnn convert --override-dim`);
    `pin_inputs` turns inputs into constants ({"shape": [1, 3]} or a numpy array). Raises wnn.Error (every
    unsupported node is listed in one message)."""
    texts, arrays = _pins(pin_inputs)
    return _wnn._convert_onnx(os.fspath(path), None if out_dir is None else os.fspath(out_dir),
                              _dims(override_dims), texts, arrays, bool(zero_missing_weights))


def validate(path, *, inputs=None, override_dims=None, pin_inputs=None, atol=None, rtol=None,
             backend="auto", threads=1, out_dir=None, report=None, noise_floor="auto",
             per_node=False, per_node_memory_mb=None):
    """Converts the ONNX model at `path`, runs it with wnn and with ONNX Runtime on the same
    inputs, and compares every output.

    Returns the report as a dict: `status` ("pass" or "fail"), `stage` (None on pass, else
    "conversion", "runtime", "reference" or "numerical"), `message`, `inputs`, `outputs`
    (per output: `pass`, `atol`, `rtol`, `max_abs`, `mean_abs`, `rmse`, `max_normalized`,
    `failing`, `cosine`, `noise_floor`, `within_noise_floor`, ...), `noise_floor`,
    `per_node`, `unsupported`, `timings_ms`, `exit_code` and `warnings`. A model's failure is
    reported, never raised; wnn.Error is raised for bad arguments. `inputs` ({name: ndarray})
    replaces generated inputs; `report` also writes the JSON file; `out_dir` keeps the
    converted files. `noise_floor` ("auto", "always" or "off") and `per_node` (compare every
    intermediate value; `per_node_memory_mb` bounds the tensors held at once) are
    `wnn validate`'s --noise-floor, --per-node and --per-node-memory (docs/validation.md)."""
    with tempfile.TemporaryDirectory(prefix="wnn-validate-") as tmp:
        files = []
        for i, (name, value) in enumerate((inputs or {}).items()):
            file = os.path.join(tmp, f"input_{i}.npy")
            np.save(file, np.ascontiguousarray(value))
            files.append((str(name), file))
        texts, arrays = _pins(pin_inputs)
        return _wnn._validate(
            os.fspath(path), files, _dims(override_dims), texts, arrays,
            None if atol is None else float(atol), None if rtol is None else float(rtol),
            str(backend), int(threads), None if out_dir is None else os.fspath(out_dir),
            None if report is None else os.fspath(report), bool(per_node),
            None if per_node_memory_mb is None else int(per_node_memory_mb), str(noise_floor))
