#!/usr/bin/python3
"""wnn against ONNX Runtime, side by side, on one phase of a transformer-zoo decoder.

Usage: /usr/bin/python3 bench/transformer_decode_ort.py BUILD ZOO_DIR NAME [--phase decode]
                                 [--runs 30] [--warmup 5] [--threads 2] [--rounds 3]
                                 [--sequence S]

ZOO_DIR holds NAME.onnx and its sidecar (tests/models/make_transformers.py, `make
transformer-zoo`). The model is converted with every free dim bound by the phase's feed, then
tools/ort-reference/bench.js and `wnn bench --backend auto` alternate for --rounds rounds with
the same threads, warm-up and runs. Prints per round both medians and minimums and their
ratios, wnn's peak RSS against the weights file, then the median over rounds. For an encoder,
--sequence S runs the first S tokens of the prefill feed (its inputs are [batch, tokens]; the
feed repeated when it is shorter).
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, cmd))} exited {r.returncode}:\n{r.stderr[-2000:]}")
    return r.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build", type=pathlib.Path)
    ap.add_argument("zoo", type=pathlib.Path)
    ap.add_argument("name")
    ap.add_argument("--phase", default="decode")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sequence", type=int, default=None,
                    help="encoders: the first S tokens of the prefill feed (repeated if shorter)")
    args = ap.parse_args()
    wnn = args.build / "wnn"
    onnx_path = args.zoo / f"{args.name}.onnx"
    sidecar = json.loads((args.zoo / f"{args.name}.json").read_text())
    feed_dir = args.zoo / f"{args.name}.{args.phase}"
    specs = sidecar["phases"][args.phase]["inputs"]
    tag = f"{args.name}.{args.phase}" + (f".s{args.sequence}" if args.sequence else "")
    out = args.build / "bench" / "transformer_decode" / tag
    out.mkdir(parents=True, exist_ok=True)
    ort_inputs = args.zoo / f"{args.name}.{args.phase}.inputs.safetensors"
    shapes = {s["name"]: s["shape"] for s in specs}
    if args.sequence:
        if sidecar["kind"] != "encoder" or args.phase != "prefill":
            raise SystemExit("--sequence: only for an encoder's prefill phase")
        import numpy as np
        sys.path.insert(0, str(ROOT / "tests" / "models"))
        from safetensors_io import write_safetensors
        feed_dir = out / "feed"
        feed_dir.mkdir(exist_ok=True)
        arrays = []
        for spec in specs:
            a = np.load(args.zoo / f"{args.name}.{args.phase}" / (spec["name"] + ".npy"))
            # Longer than the feed: the feed's tokens repeated.
            reps = -(-args.sequence // a.shape[1])
            a = np.ascontiguousarray(np.tile(a, (1, reps))[:, :args.sequence])
            np.save(feed_dir / (spec["name"] + ".npy"), a)
            arrays.append((spec["name"], a))
            shapes[spec["name"]] = list(a.shape)
        ort_inputs = out / "inputs.safetensors"
        write_safetensors(str(ort_inputs), arrays)
    inputs = []
    for spec in specs:
        inputs += ["--input", f"{spec['name']}={feed_dir / (spec['name'] + '.npy')}"]
    # Every free dim bound by the feed's shapes, as `wnn validate --input` would.
    dims, overrides = {}, []
    info = json.loads(run([wnn, "onnx-info", onnx_path, "--json"]))
    for decl in info["inputs"]:  # "type": "INT64[batch_size,sequence_length]"
        declared = decl["type"].split("[", 1)[1].rstrip("]").split(",")
        for dim, size in zip(declared, shapes[decl["name"]]):
            if not dim.isdigit() and dim not in dims:
                dims[dim] = size
                overrides += ["--override-dim", f"{dim}={size}"]
    run([wnn, "convert", onnx_path, "-o", out, "-q"] + overrides)
    graph = next(out.glob("*.webnn"))
    weights_mb = os.path.getsize(out / (graph.stem + ".safetensors")) / 2**20
    common = ["--runs", str(args.runs), "--warmup", str(args.warmup), "--threads",
              str(args.threads)]
    print(f"# {args.name} {args.phase}{f' at {args.sequence} tokens' if args.sequence else ''}, "
          f"{args.threads} threads, median of {args.runs} runs after "
          f"{args.warmup} warm-up, {args.rounds} alternating rounds; load average "
          f"{os.getloadavg()[0]:.1f}; weights file {weights_mb:.1f} MiB")
    print(f"{'round':>5} {'ORT ms':>8} {'wnn ms':>8} {'ratio':>6} {'ORT min':>8} {'wnn min':>8} "
          f"{'ratio':>6} {'RSS MiB':>8} {'RSS/file':>8}")
    rows = []
    for r in range(args.rounds):
        o = json.loads(run(["node", "--expose-gc", ROOT / "tools" / "ort-reference" / "bench.js",
                            "--model", onnx_path, "--inputs", ort_inputs] + common))
        w = json.loads(run([wnn, "bench", graph, "--backend", "auto", "--json"] + common + inputs))
        row = (o["median_ms"], w["median_ms"], o["min_ms"], w["min_ms"], w["peak_rss_mb"])
        rows.append(row)
        print(f"{r + 1:>5} {row[0]:8.2f} {row[1]:8.2f} {row[1] / row[0]:6.2f} {row[2]:8.2f} "
              f"{row[3]:8.2f} {row[3] / row[2]:6.2f} {row[4]:8.1f} {row[4] / weights_mb:8.2f}",
              flush=True)
    med = [statistics.median(x[i] for x in rows) for i in range(5)]
    print(f"{'med':>5} {med[0]:8.2f} {med[1]:8.2f} {med[1] / med[0]:6.2f} {med[2]:8.2f} "
          f"{med[3]:8.2f} {med[3] / med[2]:6.2f} {med[4]:8.1f} {med[4] / weights_mb:8.2f}")


if __name__ == "__main__":
    main()
