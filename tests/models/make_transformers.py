#!/usr/bin/python3
"""Writes realistic transformer ONNX models (tests/models/transformer_zoo) into OUTDIR.

usage: /usr/bin/python3 tests/models/make_transformers.py --list [--size tiny|bench|all]
       /usr/bin/python3 tests/models/make_transformers.py OUTDIR [--only a,b] [--size ...]

For each model: NAME.onnx (genai decoders also NAME.onnx.data, every initializer external as
the model builder writes them), NAME.json (kind, sizes, quantization, files, and per phase the
feed and the expected output shapes), and per phase (prefill; decoders also decode)
NAME.PHASE.inputs.safetensors plus NAME.PHASE/INPUT.npy (for `wnn validate --input`). The
bytes are the same for the same arguments. Without --only, --size picks the set (default tiny).
"""

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

from safetensors_io import write_safetensors  # noqa: E402
from transformer_zoo.catalog import ENCODER, GENAI, OPTIMUM, VARIANTS  # noqa: E402
from transformer_zoo.sidecar import describe, feed_arrays  # noqa: E402


def write(v, outdir):
    # Imported here so that --list (which CMake runs at configure time) needs no onnx.
    from transformer_zoo import encoder, genai, optimum
    from transformer_zoo.graph import save

    builders = {GENAI: genai.build, OPTIMUM: optimum.build, ENCODER: encoder.build}
    model = builders[v.kind](v.name, v.spec)
    external = v.kind == GENAI
    path = os.path.join(outdir, v.name + ".onnx")
    save(model, path, external)
    files = {"onnx": v.name + ".onnx", "data": v.name + ".onnx.data" if external else None}
    data_bytes = os.path.getsize(path + ".data") if external else 0
    sidecar = describe(v, model, files, os.path.getsize(path), data_bytes)
    for phase, feed in sidecar["phases"].items():
        arrays = feed_arrays(feed)
        write_safetensors(os.path.join(outdir, f"{v.name}.{phase}.inputs.safetensors"),
                          list(arrays.items()))
        npy_dir = os.path.join(outdir, f"{v.name}.{phase}")
        os.makedirs(npy_dir, exist_ok=True)
        for name, array in arrays.items():
            np.save(os.path.join(npy_dir, name + ".npy"), array)
        feed["npy_dir"] = f"{v.name}.{phase}"
        feed["safetensors"] = f"{v.name}.{phase}.inputs.safetensors"
    with open(os.path.join(outdir, v.name + ".json"), "w") as f:
        json.dump(sidecar, f, indent=1)
        f.write("\n")
    return sidecar


def select(only, size):
    by_name = {v.name: v for v in VARIANTS}
    if only:
        wanted = [w for w in only.split(",") if w]
        unknown = [w for w in wanted if w not in by_name]
        if unknown:
            raise SystemExit(f"make_transformers.py: unknown model(s) {', '.join(unknown)}; "
                             "see --list")
        return [by_name[w] for w in wanted]
    return [v for v in VARIANTS if size == "all" or v.size == size]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("outdir", nargs="?")
    parser.add_argument("--only", help="comma-separated model names")
    parser.add_argument("--size", choices=("tiny", "bench", "all"), default="tiny")
    parser.add_argument("--list", action="store_true", help="print the models and exit")
    args = parser.parse_args()
    chosen = select(args.only, args.size)
    if args.list:
        for v in chosen:
            print(f"{v.name}\t{v.kind}\t{v.size}\t{v.spec.params():,} params\t{v.about}")
        return
    if not args.outdir:
        parser.error("OUTDIR is required")
    os.makedirs(args.outdir, exist_ok=True)
    for v in chosen:
        started = time.perf_counter()
        s = write(v, args.outdir)
        mb = (s["bytes"]["onnx"] + s["bytes"]["data"]) / 1e6
        print(f"{v.name:38s} {v.kind:16s} params {s['params']:>12,d}  {mb:9.2f} MB  "
              f"{time.perf_counter() - started:6.1f} s", flush=True)


if __name__ == "__main__":
    main()
