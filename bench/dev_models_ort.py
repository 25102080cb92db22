#!/usr/bin/python3
"""wnn against ONNX Runtime, side by side, on models of the real-model dev set (issue 18).

Usage: /usr/bin/python3 bench/dev_models_ort.py BUILD --only a,b [--runs 50] [--warmup 10]
                                                [--threads 2] [--rounds 3] [--work DIR]

For each model (ONNX from the dev-model cache, see tests/real_models/validate_dev_set.py):
build its test feed (the dev set's fills), convert it with `wnn convert` (every free dim
overridden by the feed's size, so both runtimes see the same shapes), then alternate
tools/ort-reference/bench.js and `wnn bench --backend auto` with the same threads, warm-up and
runs for --rounds rounds. Prints per round the two medians, their ratio and the two minimums
(on a loaded machine the minimum shows the kernels, the median also the waits for a core), and
per model the median of the round medians and of the round minimums. Timing is of the run call only; per-run overhead is included on
both sides (ORT's through Node's binding).
"""

import argparse
import json
import math
import os
import pathlib
import statistics
import subprocess
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "real_models"))
sys.path.insert(0, str(ROOT / "tests" / "models"))
import validate_dev_set as dev  # noqa: E402
from safetensors_io import write_safetensors  # noqa: E402


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stderr[-2000:]}")
    return r.stdout


def prepare(build, model, onnx_path, work):
    """Feeds (.npy for wnn, .safetensors for ORT) and the converted graph. Returns
    (graph path, safetensors path, wnn --input arguments)."""
    work.mkdir(parents=True, exist_ok=True)
    feed = model["test_feed"]
    arrays, overrides = [], []
    for k, decl in enumerate(model["inputs"]):
        name, spec = decl["name"], feed[decl["name"]]
        shape = list(spec["shape"])
        values = dev.fill_values(spec["fill"], math.prod(shape), k).reshape(shape)
        arrays.append((name, values.astype(dev.DTYPES[decl["dtype"]])))
        for dim, size in zip(decl["shape"], shape):
            if isinstance(dim, str):
                overrides += ["--override-dim", f"{dim}={size}"]
    safetensors = work / "inputs.safetensors"
    write_safetensors(str(safetensors), arrays)
    out = work / "wnn"
    run([str(build / "wnn"), "convert", str(onnx_path), "-o", str(out), "-q"] + overrides)
    graph = next(out.glob("*.webnn"))
    info = json.loads(run([str(build / "wnn"), "info", str(graph), "--json"]))
    names = [i["name"] for i in info["inputs"]]
    input_args = []
    for (onnx_name, values), name in zip(arrays, names):
        path = work / f"{len(input_args)}.npy"
        np.save(path, values)
        input_args += ["--input", f"{name}={path}"]
    return graph, safetensors, input_args


def line(name, round_, ort_ms, wnn_ms, ort_min, wnn_min):
    print(f"{name:24} {round_:>5} {ort_ms:9.3f} {wnn_ms:9.3f} {wnn_ms / ort_ms:8.2f} "
          f"{ort_min:9.3f} {wnn_min:9.3f} {wnn_min / ort_min:9.2f}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build", type=pathlib.Path)
    ap.add_argument("--only", required=True, help="comma-separated dev-set model names")
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--work", type=pathlib.Path, help="default BUILD/bench/dev_models")
    ap.add_argument("--ort-dir", type=pathlib.Path, default=ROOT / "tools" / "ort-reference",
                    help="tools/ort-reference with its node_modules installed")
    args = ap.parse_args()
    shared = dev.find_shared_models()
    if shared is None:
        raise SystemExit("dev_models_ort: no shared/models with dev-models.json found")
    models = {m["name"]: m for m in json.loads((shared / "dev-models.json").read_text())["models"]}
    work = args.work or args.build / "bench" / "dev_models"
    threads = str(args.threads)
    print(f"# {args.threads} threads, median of {args.runs} runs after {args.warmup} warm-up, "
          f"{args.rounds} alternating rounds (ORT then wnn)")
    print(f"{'model':24} {'round':>5} {'ORT ms':>9} {'wnn ms':>9} {'wnn/ORT':>8} "
          f"{'ORT min':>9} {'wnn min':>9} {'min ratio':>9}")
    for name in args.only.split(","):
        model = models[name]
        onnx_path = dev.cache_dir() / model["file"]
        graph, inputs, input_args = prepare(args.build, model, onnx_path, work / name)
        orts, wnns = [], []
        for r in range(args.rounds):
            o = json.loads(run(["node", "--expose-gc", str(args.ort_dir / "bench.js"), "--model",
                                str(onnx_path), "--inputs", str(inputs), "--runs",
                                str(args.runs), "--warmup", str(args.warmup), "--threads",
                                threads]))
            w = json.loads(run([str(args.build / "wnn"), "bench", str(graph), "--backend", "auto",
                                "--threads", threads, "--runs", str(args.runs), "--warmup",
                                str(args.warmup), "--json"] + input_args))
            orts.append(o)
            wnns.append(w)
            line(name, r + 1, o["median_ms"], w["median_ms"], o["min_ms"], w["min_ms"])
        line(name, "med", *(statistics.median(x[key] for x in runs)
                            for key in ("median_ms", "min_ms") for runs in (orts, wnns)))


if __name__ == "__main__":
    main()
