#!/usr/bin/python3
"""Dynamically quantized models (onnxruntime quantize_dynamic's idiom) on wnn, with and without
the oneDNN int8 convolution (WNN_ONEDNN_INT8=0 turns it off), against ONNX Runtime.

Usage: /usr/bin/python3 bench/qdyn_ort_compare.py BUILD MODEL.onnx[:INPUTS.safetensors]...
                                                [--runs 5] [--warmup 2] [--threads 2]
                                                [--rounds 3] [--work DIR]

Each model is converted with `wnn convert`. Inputs come from INPUTS.safetensors (the zoo's
<name>.inputs.safetensors), or are the dev set's `sin` feed (element i of input k is
sin(0.01 i + k)) for float32 inputs. Every round times ONNX Runtime (tools/ort-reference/bench.js),
then `wnn bench` (backend auto) with the int8 path off, then on, with the same threads, warm-up
and runs, so slow spells of a shared machine land on all three; each latency is the median of
its round medians. Prints one row per model: the three medians and the ratios to ORT.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "models"))
ORT_DIR = os.path.join(ROOT, "tools", "ort-reference")


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stderr[-2000:]}")
    return r.stdout


def sin_inputs(onnx_path, out):
    """The dev set's `sin` feed for every float32 graph input, as a safetensors file."""
    import onnx
    from safetensors_io import write_safetensors
    model = onnx.load(onnx_path, load_external_data=False)
    inits = {i.name for i in model.graph.initializer}
    tensors = {}
    for k, vi in enumerate(i for i in model.graph.input if i.name not in inits):
        shape = [d.dim_value for d in vi.type.tensor_type.shape.dim]
        i = np.arange(int(np.prod(shape)), dtype=np.float64)
        tensors[vi.name] = np.sin(0.01 * i + k).reshape(shape).astype(np.float32)
    write_safetensors(out, tensors)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("build")
    p.add_argument("models", nargs="+")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--work", default="/tmp/wnn-qdyn-bench")
    args = p.parse_args()
    from safetensors_io import read_safetensors
    os.makedirs(args.work, exist_ok=True)
    wnn = os.path.join(args.build, "wnn")
    rows = []
    for spec in args.models:
        onnx_path, _, inputs = spec.partition(":")
        name = os.path.splitext(os.path.basename(onnx_path))[0]
        out_dir = os.path.join(args.work, name)
        run([wnn, "convert", onnx_path, "-o", out_dir])
        graph = os.path.join(out_dir, name + ".webnn")
        if not inputs:
            inputs = os.path.join(args.work, name + ".inputs.safetensors")
            sin_inputs(onnx_path, inputs)
        input_args = []
        for input_name, array in read_safetensors(inputs).items():
            path = os.path.join(args.work, f"{name}.{input_name}.npy")
            np.save(path, array)
            input_args += ["--input", f"{input_name}={path}"]
        common = ["--threads", str(args.threads), "--runs", str(args.runs), "--warmup",
                  str(args.warmup)]
        times = {"ort": [], "float": [], "int8": []}
        for _ in range(args.rounds):
            times["ort"].append(json.loads(run(
                ["node", "--expose-gc", os.path.join(ORT_DIR, "bench.js"), "--model", onnx_path,
                 "--inputs", inputs] + common))["median_ms"])
            for key, flag in (("float", "0"), ("int8", "1")):
                env = dict(os.environ, WNN_ONEDNN_INT8=flag)
                times[key].append(json.loads(run(
                    [wnn, "bench", graph, "--json"] + common + input_args, env))["median_ms"])
        med = {k: statistics.median(v) for k, v in times.items()}
        rows.append((name, med, times))
        print(f"{name}: " + json.dumps(times), file=sys.stderr, flush=True)
    print("| model | ORT ms | wnn float32 conv ms (ratio) | wnn int8 conv ms (ratio) |")
    print("|---|---|---|---|")
    for name, med, _ in rows:
        print(f"| {name} | {med['ort']:.1f} | {med['float']:.1f} ({med['float'] / med['ort']:.2f}x)"
              f" | {med['int8']:.1f} ({med['int8'] / med['ort']:.2f}x) |")


if __name__ == "__main__":
    main()
