"""What the transformer-zoo tests share: writing a variant, running ONNX Runtime, tolerances."""

import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODELS = os.path.join(ROOT, "tests", "models")
sys.path.insert(0, MODELS)

from make_transformers import write  # noqa: E402
from safetensors_io import read_safetensors, write_safetensors  # noqa: E402
from transformer_zoo.catalog import BY_NAME, VARIANTS  # noqa: E402
from transformer_zoo.sidecar import feed_arrays  # noqa: E402

RUN_JS = os.path.join(ROOT, "tools", "ort-reference", "run.js")


def generate(name, outdir):
    """Writes variant `name` into outdir; returns its sidecar as read back from NAME.json."""
    write(BY_NAME[name], outdir)
    with open(os.path.join(outdir, name + ".json")) as f:
        return json.load(f)


def run_ort(model, feeds, workdir, tag="run"):
    """ONNX Runtime's outputs (a dict of arrays) for feeds (a dict of arrays)."""
    inputs = os.path.join(workdir, f"{tag}.in.safetensors")
    outputs = os.path.join(workdir, f"{tag}.out.safetensors")
    write_safetensors(inputs, list(feeds.items()))
    r = subprocess.run(["node", RUN_JS, "--model", model, "--inputs", inputs, "--outputs", outputs],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError(f"ONNX Runtime failed on {model}: {r.stderr.strip()}")
    return read_safetensors(outputs)


def excess(got, want, atol, rtol):
    """The largest amount by which |got - want| exceeds atol + rtol |want| (<= 0 passes)."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return float((np.abs(got - want) - (atol + rtol * np.abs(want))).max())


__all__ = ["BY_NAME", "VARIANTS", "excess", "feed_arrays", "generate", "read_safetensors",
           "run_ort", "write_safetensors"]
