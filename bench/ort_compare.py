#!/usr/bin/python3
"""wnn against ONNX Runtime, side by side, on the benchmark zoo (issue 9).

Usage: /usr/bin/python3 bench/ort_compare.py BUILD [--only a,b] [--runs 20] [--warmup 5]
                                             [--threads 2] [--rounds 3] [--work DIR]
                                             [--json FILE]

For each model: export it from Debian's PyTorch to ONNX (opset 17, cached in --work), convert
it with `wnn convert`, feed both runtimes the same seeded inputs, check wnn's outputs against
ONNX Runtime's (|wnn - ort| <= 1e-4 + 1e-3 |ort|; the max error is printed), then time
ONNX Runtime (tools/ort-reference/bench.js, an untimed gc() between runs) and `wnn bench`
(backend auto) with the same threads, warm-up and runs, alternating the two for --rounds
rounds (default 3) and taking each one's median over the rounds. Prints a table (median ms, ratio
wnn/ORT, wnn GFLOP/s over conv and matmul FLOPs) and the geometric mean of the ratios, then a
second table: `wnn convert` time against `cp` of the same ONNX file (best of 3 each), and load
to first inference (model load, session creation and the cold first run) of both runtimes.
Exit status 1 if any model's outputs are outside the tolerance or any step failed.
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "models"))
ORT_DIR = os.path.join(ROOT, "tools", "ort-reference")

ATOL, RTOL = 1e-4, 1e-3
# Bench names -> zoo names; the bench-only models are added in bench_specs().
SUITE = ["resnet18", "mobilenet_v2", "mobilenet_v3_small", "squeezenet1_1", "efficientnet_b0",
         "shufflenet_v2_x0_5", "regnet_x_400mf", "convnext_tiny", "vit_b_16",
         "transformer_encoder_seq128", "multihead_attention", "lstm", "gru",
         "weight_norm_conv1d"]


def bench_specs():
    """The zoo's specs by name, plus the issue's TransformerEncoder at sequence 128."""
    import zoo
    specs = {s.name: s for s in zoo.MODELS}
    base = specs["transformer_encoder"]
    specs["transformer_encoder_seq128"] = zoo.ModelSpec(
        "transformer_encoder_seq128", base.source + ", sequence 128", base.build,
        inputs=(("input", (1, 128, 192)),), export_with_grad=True)
    return specs


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stderr[-2000:]}")
    return r.stdout


def export_model(spec, work):
    path = os.path.join(work, f"{spec.name}.onnx")
    if not os.path.exists(path) or not os.path.exists(
            os.path.join(work, f"{spec.name}.inputs.safetensors")):
        import make_models
        import warnings
        warnings.filterwarnings("ignore")
        make_models.export(spec, 17, work, spec.name)
    return path


def conv_matmul_flops(onnx_path):
    """FLOPs (2 per multiply-add) of Conv, ConvTranspose, Gemm and MatMul after shape inference;
    None when a shape is unknown. Recurrent layers count their input and hidden GEMMs."""
    import onnx
    from onnx import shape_inference
    model = shape_inference.infer_shapes(onnx.load(onnx_path))
    g = model.graph
    shapes = {}
    for v in list(g.input) + list(g.output) + list(g.value_info):
        dims = v.type.tensor_type.shape.dim
        shapes[v.name] = [d.dim_value if d.HasField("dim_value") else None for d in dims]
    for t in g.initializer:
        shapes[t.name] = list(t.dims)
    total = 0
    for n in g.node:
        try:
            if n.op_type in ("Conv", "ConvTranspose"):
                w = shapes[n.input[1]]
                src = n.output[0] if n.op_type == "Conv" else n.input[0]
                out = shapes[src]
                total += 2 * math.prod(out) * math.prod(w[1:])
            elif n.op_type in ("MatMul", "Gemm"):
                a, out = shapes[n.input[0]], shapes[n.output[0]]
                k = a[-1]
                if n.op_type == "Gemm":
                    trans_a = next((x.i for x in n.attribute if x.name == "transA"), 0)
                    k = a[0] if trans_a else a[1]
                total += 2 * math.prod(out) * k
            elif n.op_type in ("LSTM", "GRU", "RNN"):
                x, w, r = shapes[n.input[0]], shapes[n.input[1]], shapes[n.input[2]]
                total += 2 * x[0] * x[1] * (math.prod(w) + math.prod(r))
        except (KeyError, TypeError):
            return None
    return total


def write_npy_inputs(safetensors_path, outdir):
    from safetensors_io import read_safetensors
    specs = []
    os.makedirs(outdir, exist_ok=True)
    for name, array in read_safetensors(safetensors_path).items():
        path = os.path.join(outdir, f"{name}.npy")
        np.save(path, array)
        specs.append(f"{name}={path}")
    return specs


def compare_outputs(ort_path, wnn_dir, names):
    """Max |wnn - ort| and whether every element is within ATOL + RTOL |ort|."""
    from safetensors_io import read_safetensors
    ref = read_safetensors(ort_path)
    worst, ok = 0.0, True
    for i, name in enumerate(names):
        got = np.load(os.path.join(wnn_dir, f"{name}.npy"))
        want = ref[name]
        if got.shape != want.shape:
            raise RuntimeError(f"output '{name}': wnn shape {got.shape}, ORT {want.shape}")
        err = np.abs(got.astype(np.float64) - want.astype(np.float64))
        worst = max(worst, float(err.max()) if err.size else 0.0)
        ok = ok and bool((err <= ATOL + RTOL * np.abs(want)).all())
    return worst, ok


def best_seconds(cmd, before, repeats=3):
    """The fastest of `repeats` runs of cmd, each after before() (untimed)."""
    best = None
    for _ in range(repeats):
        before()
        start = time.perf_counter()
        run(cmd)
        took = time.perf_counter() - start
        best = took if best is None else min(best, took)
    return best


def time_conversion(build, onnx_path, model_dir):
    """`wnn convert` into model_dir against `cp` of the same .onnx file (and its external data,
    if any), both from a warm page cache; best of 3 each. wnn's output is left in model_dir."""
    files = [onnx_path] + [os.path.join(os.path.dirname(onnx_path), f)
                           for f in os.listdir(os.path.dirname(onnx_path))
                           if f.startswith(os.path.basename(onnx_path) + ".data")]
    copy_dir = model_dir + ".cp"

    def fresh(d):
        def reset():
            subprocess.run(["rm", "-rf", d], check=True)
            os.makedirs(d)
        return reset

    cp_s = best_seconds(["cp"] + files + [copy_dir], fresh(copy_dir))
    subprocess.run(["rm", "-rf", copy_dir], check=True)
    convert_s = best_seconds([os.path.join(build, "wnn"), "convert", onnx_path, "-o", model_dir],
                             fresh(model_dir))
    return convert_s, cp_s


def bench_one(spec, args, build):
    work = args.work
    onnx_path = export_model(spec, work)
    model_dir = os.path.join(work, f"{spec.name}.wnn")
    graph = os.path.join(model_dir, f"{spec.name}.webnn")
    convert_s, cp_s = time_conversion(build, onnx_path, model_dir)
    inputs = os.path.join(work, f"{spec.name}.inputs.safetensors")
    input_specs = write_npy_inputs(inputs, os.path.join(work, f"{spec.name}.inputs"))
    input_args = [a for s in input_specs for a in ("--input", s)]
    threads = str(args.threads)

    ort_out = os.path.join(work, f"{spec.name}.ort.safetensors")
    run(["node", os.path.join(ORT_DIR, "run.js"), "--model", onnx_path, "--inputs", inputs,
         "--outputs", ort_out, "--threads", threads])
    wnn_out = os.path.join(work, f"{spec.name}.wnn_out")
    run([os.path.join(build, "wnn"), "run", graph, "--threads", threads, "--output-dir", wnn_out,
         "-q"] + input_args)
    max_err, ok = compare_outputs(ort_out, wnn_out, list(spec.outputs))

    # Rounds alternate the two runtimes, so slow spells of a shared or virtual machine land on
    # both: each round times ORT then wnn, and each runtime's latency is the median of its
    # round medians (the per-round ratios are reported too).
    orts, wnns = [], []
    for _ in range(args.rounds):
        orts.append(json.loads(run(["node", "--expose-gc", os.path.join(ORT_DIR, "bench.js"),
                                    "--model", onnx_path, "--inputs", inputs, "--runs",
                                    str(args.runs), "--warmup", str(args.warmup), "--threads",
                                    threads])))
        wnns.append(json.loads(run([os.path.join(build, "wnn"), "bench", graph, "--threads",
                                    threads, "--runs", str(args.runs), "--warmup",
                                    str(args.warmup), "--json"] + input_args)))
    ort, wnn = orts[0], wnns[0]  # the first round's load-to-first-inference: a cold process
    ort_ms = statistics.median(o["median_ms"] for o in orts)
    wnn_ms = statistics.median(w["median_ms"] for w in wnns)
    round_ratios = [w["median_ms"] / o["median_ms"] for o, w in zip(orts, wnns)]
    flops = conv_matmul_flops(onnx_path)
    return {
        "model": spec.name, "ort_ms": ort_ms, "wnn_ms": wnn_ms, "ratio": wnn_ms / ort_ms,
        "round_ratios": round_ratios, "gflop": flops / 1e9 if flops else None,
        "wnn_gflops": flops / 1e6 / wnn_ms if flops else None,
        "max_err": max_err, "ok": ok, "regions": wnn["regions"],
        "reference_nodes": wnn["reference_nodes"], "compile_ms": wnn["compile_ms"],
        "convert_ms": convert_s * 1e3, "cp_ms": cp_s * 1e3,
        "ort_first_ms": ort["load_to_first_inference_ms"],
        "wnn_first_ms": wnn["load_to_first_inference_ms"],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build", help="the build directory holding wnn")
    parser.add_argument("--only", help="comma-separated model names (default: the whole suite)")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3,
                        help="alternating ORT/wnn timing rounds per model (default 3)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--work", help="cache for exported models (default BUILD/bench-zoo)")
    parser.add_argument("--json", help="also write the rows as JSON to this file")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    args.work = os.path.abspath(args.work or os.path.join(build, "bench-zoo"))
    os.makedirs(args.work, exist_ok=True)
    specs = bench_specs()
    names = args.only.split(",") if args.only else SUITE
    unknown = [n for n in names if n not in specs]
    if unknown:
        raise SystemExit(f"ort_compare.py: unknown model(s) {', '.join(unknown)}")

    import torch
    torch.set_num_threads(args.threads)
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}, {args.threads} threads, median of {args.runs} "
          f"runs after {args.warmup} warm-up, median of {args.rounds} alternating rounds; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'model':28s} {'ORT ms':>9s} {'wnn ms':>9s} {'ratio':>6s} {'rounds':>11s} "
          f"{'GFLOP':>7s} {'wnn GFLOP/s':>11s} {'max err':>9s}  regions/ref")
    rows, failed = [], False
    for name in names:
        try:
            r = bench_one(specs[name], args, build)
        except Exception as e:  # one model's failure is reported, the rest still run
            print(f"{name:28s} FAILED: {e}", flush=True)
            failed = True
            continue
        rows.append(r)
        failed = failed or not r["ok"]
        gflop = f"{r['gflop']:7.2f}" if r["gflop"] is not None else f"{'?':>7s}"
        rate = f"{r['wnn_gflops']:11.1f}" if r["wnn_gflops"] is not None else f"{'?':>11s}"
        spread = f"{min(r['round_ratios']):.2f}-{max(r['round_ratios']):.2f}"
        print(f"{name:28s} {r['ort_ms']:9.3f} {r['wnn_ms']:9.3f} {r['ratio']:6.2f} {spread:>11s} "
              f"{gflop} {rate} "
              f"{r['max_err']:9.2e}{'' if r['ok'] else ' WRONG'}  "
              f"{r['regions']}/{r['reference_nodes']}", flush=True)
    if rows:
        geomean = math.exp(sum(math.log(r["ratio"]) for r in rows) / len(rows))
        print(f"geometric mean of wnn/ORT over {len(rows)} models: {geomean:.3f}")
        print()
        print("conversion (best of 3, warm page cache) and load to first inference (model load,")
        print("session creation and the cold first run, in-process):")
        print(f"{'model':28s} {'cp ms':>8s} {'convert ms':>10s} {'x cp':>6s} "
              f"{'ORT first ms':>12s} {'wnn first ms':>12s} {'ratio':>6s}")
        for r in rows:
            print(f"{r['model']:28s} {r['cp_ms']:8.1f} {r['convert_ms']:10.1f} "
                  f"{r['convert_ms'] / r['cp_ms']:6.2f} {r['ort_first_ms']:12.1f} "
                  f"{r['wnn_first_ms']:12.1f} {r['wnn_first_ms'] / r['ort_first_ms']:6.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
