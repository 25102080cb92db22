#!/usr/bin/python3
"""wnn against ONNX Runtime, side by side, on the benchmark zoo and the real-model dev set.

Usage: /usr/bin/python3 bench/ort_compare.py BUILD [--only a,b] [--zoo-only | --dev-set-only]
                                             [--runs 20] [--warmup 5] [--threads 2]
                                             [--rounds 3] [--budget 120] [--work DIR]
                                             [--json FILE]

Zoo models (issue 9): export from Debian's PyTorch to ONNX (opset 17, cached in --work),
convert with `wnn convert`, feed both runtimes the same seeded inputs and check wnn's outputs
against ONNX Runtime's (|wnn - ort| <= 1e-4 + 1e-3 |ort|; the max error is printed).
Dev-set models (issue 18: the nine real models of ../shared/models, found, fetched and fed by
tests/real_models/dev_set.py as `make real-models-test` does): `wnn validate` with the model's
feed and default options (validation's tolerances and noise floor, the check of
`make real-models-test`) and `wnn check` of the pair it wrote. That converted graph is what
wnn times; ONNX Runtime times the original file on the same feed (an integer scalar wnn pins,
such as a sample rate, is fed to ORT as an input).

Then, for every model, ONNX Runtime (tools/ort-reference/bench.js, an untimed gc() between
runs) and `wnn bench` (backend auto) run with the same threads, warm-up and runs, alternating
for --rounds rounds (default 3); each one's latency is the median of its round medians. A model
whose runs are slow gets fewer of them: one probe run of each runtime estimates the time per
run, and runs and warm-up shrink (to at least 3 and 1) so that the timed rounds of both take
about --budget seconds (default 120; 0: no limit); such a row says how many it ran. One
more `wnn bench --profile` counts the steps on oneDNN reference implementations ("ref:"
kernels), and `wnn partition --json` the nodes left on wnn's reference kernels (and how many
of them a delegate refused because its kernel would be a reference implementation).

Before the models, the per-run overhead of a one-node model (a relu of 4 floats, the graph of
bench/run_overhead.sh, converted from ONNX) is timed the same way in both runtimes; each row
shows ORT's median less ORT's overhead, that overhead's share of ORT's median, and wnn
against ORT less its overhead, so the Node call cost of a tiny model is in plain view.

Prints the table, the geometric mean of the ratios over the zoo, the dev set and both, issue
18's acceptance as PASS/FAIL lines (informational), then `wnn convert` time against `cp` of
the same ONNX file (zoo models; best of 3 each) and load to first inference of both runtimes.
Exit status 1 if any model's outputs are wrong or any step failed (the acceptance lines do
not change it).
"""

import argparse
import json
import math
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "models"))
sys.path.insert(0, os.path.join(ROOT, "tests", "real_models"))
ORT_DIR = os.path.join(ROOT, "tools", "ort-reference")

import dev_set  # noqa: E402  (tests/real_models, on the path above)
import validate_dev_set  # noqa: E402
from safetensors_io import read_safetensors, write_safetensors  # noqa: E402

ATOL, RTOL = 1e-4, 1e-3
# Bench names -> zoo names; the bench-only models are added in bench_specs().
SUITE = ["resnet18", "mobilenet_v2", "mobilenet_v3_small", "squeezenet1_1", "efficientnet_b0",
         "shufflenet_v2_x0_5", "regnet_x_400mf", "convnext_tiny", "vit_b_16",
         "transformer_encoder_seq128", "multihead_attention", "lstm", "gru",
         "weight_norm_conv1d"]
# Issue 18's acceptance: no dev-set model above 1.0x ORT, a geometric mean of at most 0.8 over
# the zoo and the dev set together, and no "ref:" kernel in any profile.
DEV_MAX_RATIO, GEOMEAN_MAX = 1.0, 0.8
# What a wnn profile appends to a concat or sum kept on oneDNN's "ref:any", which runs one jit
# reorder per input (kCompositeByReorders in runtime/onednn/region_builder.h).
COMPOSITE_BY_REORDERS = "(one reorder per input)"
# Timed runs of the one-node model: wnn's as in bench/run_overhead.sh; ORT's fewer, since each
# of its runs is preceded by a gc().
OVERHEAD_RUNS = {"ort": (1000, 100), "wnn": (20000, 1000)}  # (runs, warm-up)


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
    specs = []
    os.makedirs(outdir, exist_ok=True)
    for name, array in read_safetensors(safetensors_path).items():
        path = os.path.join(outdir, f"{name}.npy")
        np.save(path, array)
        specs.append(f"{name}={path}")
    return specs


def compare_outputs(ort_path, wnn_dir, names):
    """Max |wnn - ort| and whether every element is within ATOL + RTOL |ort|."""
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


def wnn_exe(build):
    return os.path.join(build, "wnn")


def prepare_zoo(spec, args, build):
    """Exports, converts (timed against cp) and checks one zoo model against ORT."""
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
    run([wnn_exe(build), "run", graph, "--threads", threads, "--output-dir", wnn_out, "-q"] +
        input_args)
    max_err, ok = compare_outputs(ort_out, wnn_out, list(spec.outputs))
    return {"model": spec.name, "set": "zoo", "onnx": onnx_path, "graph": graph,
            "ort_inputs": inputs, "wnn_inputs": input_args, "max_err": max_err, "ok": ok,
            "check": None, "convert_ms": convert_s * 1e3, "cp_ms": cp_s * 1e3}


def prepare_dev(model, args, build, models_dir):
    """`wnn validate` and `wnn check` of one dev-set model with its feed (validate_dev_set's
    check), and the feed written for both runtimes."""
    workdir = pathlib.Path(args.work) / "dev" / model["name"]
    shutil.rmtree(workdir, ignore_errors=True)  # validate's cache must hold one conversion
    workdir.mkdir(parents=True)
    r = validate_dev_set.check_model(wnn_exe(build), model, models_dir / model["file"], workdir)
    if "graph" not in r:
        raise RuntimeError(validate_dev_set.describe(r))
    # ORT is fed every input by its ONNX name. The converted graph names its inputs by
    # operand (`input:0` is `input_0_<hash>`: validate's cache metadata pairs them) and holds
    # no pinned input (a constant now) nor an unused one (pruned).
    feed = dev_set.write_feed(model, workdir)
    ort_inputs = str(workdir / "feed.safetensors")
    write_safetensors(ort_inputs, [(name, values) for name, values, _, _ in feed])
    metadata = json.loads((pathlib.Path(r["graph"]).parent / "metadata.json").read_text())
    operand = {p["onnx"]: p["operand"] for p in metadata["inputs"]}
    wnn_inputs = [a for name, _, pinned, path in feed if name in operand and not pinned
                  for a in ("--input", f"{operand[name]}={path}")]
    ok = r["status"] == "pass"
    note = None if ok and not r.get("floor_outputs") else validate_dev_set.describe(r)
    return {"model": model["name"], "set": "dev", "onnx": str(models_dir / model["file"]),
            "graph": r["graph"], "ort_inputs": ort_inputs, "wnn_inputs": wnn_inputs,
            "max_err": r.get("max_abs"), "ok": ok, "check": note, "convert_ms": None,
            "cp_ms": None}


def ort_bench(case, runs, warmup, threads):
    return json.loads(run(["node", "--expose-gc", os.path.join(ORT_DIR, "bench.js"), "--model",
                           case["onnx"], "--inputs", case["ort_inputs"], "--runs", str(runs),
                           "--warmup", str(warmup), "--threads", str(threads)]))


def wnn_bench(build, case, runs, warmup, threads, extra=()):
    return json.loads(run([wnn_exe(build), "bench", case["graph"], "--threads", str(threads),
                           "--runs", str(runs), "--warmup", str(warmup), "--json"] +
                          case["wnn_inputs"] + list(extra)))


def alternate(case, build, rounds, threads, ort_runs, wnn_runs):
    """Rounds alternate the two runtimes, so slow spells of a shared or virtual machine land on
    both: each round times ORT then wnn. Returns both runtimes' per-round JSON results."""
    orts, wnns = [], []
    for _ in range(rounds):
        orts.append(ort_bench(case, *ort_runs, threads))
        wnns.append(wnn_bench(build, case, *wnn_runs, threads))
    return orts, wnns


def reference_impl(kernel):
    """Whether a profile's kernel name is one of oneDNN's reference implementations: a
    ':'-separated part starting with "ref" ("ref:any", "gemm:ref"), the rule of
    reference_impl() in runtime/onednn/region_builder.cc."""
    return any(part.startswith("ref") for part in kernel.split(":"))


def kernel_census(case, build, threads):
    """The "ref:" kernels of one profiled run and the nodes left on wnn's reference kernels."""
    profile = wnn_bench(build, case, 1, 1, threads, ["--profile"])["profile"]
    ref = sorted(s["kernel"] for s in profile if reference_impl(s["kernel"]))
    composite = [k for k in ref if k.endswith(COMPOSITE_BY_REORDERS)]
    part = json.loads(run([wnn_exe(build), "partition", case["graph"], "--threads",
                           str(threads), "--json"]))
    return {"ref_kernels": len(ref), "ref_composite": len(composite),
            "ref_kernel_names": sorted(set(ref)), "reference_nodes": part["reference_nodes"],
            "slow_refused": part["slow_kernels_refused"],
            "profile_flops": sum(s["flops"] for s in profile)}


def budgeted_runs(case, args, build):
    """(runs, warm-up) for one model: args.runs and args.warmup, fewer when one run of each
    runtime (a probe, untimed here) says all rounds would take longer than args.budget."""
    if args.budget <= 0:
        return args.runs, args.warmup
    probe_s = (ort_bench(case, 1, 0, args.threads)["median_ms"] +
               wnn_bench(build, case, 1, 0, args.threads)["median_ms"]) / 1e3
    per_round = args.budget / args.rounds
    fits = int(per_round / max(probe_s, 1e-9))  # runs of both per round
    if fits >= args.runs + args.warmup:
        return args.runs, args.warmup
    warmup = max(1, min(args.warmup, fits // 5))
    return max(3, fits - warmup), warmup


def bench_case(case, args, build):
    runs, warmup = budgeted_runs(case, args, build)
    orts, wnns = alternate(case, build, args.rounds, args.threads, (runs, warmup),
                           (runs, warmup))
    ort, wnn = orts[0], wnns[0]  # the first round's load-to-first-inference: a cold process
    ort_ms = statistics.median(o["median_ms"] for o in orts)
    wnn_ms = statistics.median(w["median_ms"] for w in wnns)
    census = kernel_census(case, build, args.threads)
    # Conv, gemm, matmul and recurrent FLOPs from ONNX shape inference; a model with free dims
    # (the dev set) takes the sum over its wnn profile's steps instead (conv and matmul).
    flops = conv_matmul_flops(case["onnx"]) if case["set"] == "zoo" else None
    flops = flops or census["profile_flops"] or None
    row = {key: case[key] for key in ("model", "set", "max_err", "ok", "check", "convert_ms",
                                      "cp_ms")}
    row.update(census)
    row.update({
        "ort_ms": ort_ms, "wnn_ms": wnn_ms, "ratio": wnn_ms / ort_ms,
        "round_ratios": [w["median_ms"] / o["median_ms"] for o, w in zip(orts, wnns)],
        "gflop": flops / 1e9 if flops else None,
        "wnn_gflops": flops / 1e6 / wnn_ms if flops else None,
        "regions": wnn["regions"], "compile_ms": wnn["compile_ms"],
        "runs": runs, "warmup": warmup,
        "ort_first_ms": ort["load_to_first_inference_ms"],
        "wnn_first_ms": wnn["load_to_first_inference_ms"],
    })
    return row


def one_node_case(work, build):
    """A relu of 4 floats (bench/run_overhead.sh's graph) as ONNX, converted by wnn, and its
    input (negative, zero and positive values) for both runtimes."""
    import onnx
    from onnx import TensorProto, helper
    d = os.path.join(work, "one_node")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "one_node", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx_path = os.path.join(d, "one_node.onnx")
    onnx.save(model, onnx_path)
    run([wnn_exe(build), "convert", onnx_path, "-o", os.path.join(d, "wnn")])
    values = np.array([-1.5, 0.0, 2.25, -0.75], dtype=np.float32)
    ort_inputs = os.path.join(d, "x.safetensors")
    write_safetensors(ort_inputs, {"x": values})
    np.save(os.path.join(d, "x.npy"), values)
    return {"onnx": onnx_path, "graph": os.path.join(d, "wnn", "one_node.webnn"),
            "ort_inputs": ort_inputs, "wnn_inputs": ["--input", f"x={d}/x.npy"]}


def measure_overheads(args, build):
    """Per-run overhead (us) of a one-node model in ORT through Node and in wnn bench: the
    median of the round medians, rounds alternating as for the models."""
    orts, wnns = alternate(one_node_case(args.work, build), build, args.rounds, args.threads,
                           OVERHEAD_RUNS["ort"], OVERHEAD_RUNS["wnn"])
    return {"ort_us": statistics.median(o["median_ms"] for o in orts) * 1e3,
            "wnn_us": statistics.median(w["median_ms"] for w in wnns) * 1e3}


def geomean(rows):
    return math.exp(sum(math.log(r["ratio"]) for r in rows) / len(rows)) if rows else None


def net_ratio(r, overhead):
    """wnn against ORT less ORT's per-run overhead (None when that leaves nothing)."""
    net = r["ort_ms"] - overhead["ort_us"] / 1e3
    return r["wnn_ms"] / net if net > 0 else None


def opt(value, spec, width):
    return format(value, f"{width}{spec}") if value is not None else f"{'-':>{width}s}"


HEADER = (f"{'model':26s} {'set':3s} {'ORT ms':>9s} {'wnn ms':>9s} {'ratio':>6s} "
          f"{'rounds':>11s} {'ORT-ovh':>9s} {'ovh%':>5s} {'vs net':>6s} {'GFLOP':>7s} "
          f"{'GFLOP/s':>8s} {'max err':>9s} {'ref:':>4s} {'ref nodes':>9s} {'regions':>7s} "
          f"{'steal%':>6s}")


def cpu_times():
    """(steal, total) jiffies of all CPUs from /proc/stat, or None where there is none."""
    try:
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    return fields[7], sum(fields)


def steal_percent(start, end):
    """The share of CPU time the hypervisor gave other guests between two cpu_times()."""
    if start is None or end is None or end[1] == start[1]:
        return None
    return 100.0 * (end[0] - start[0]) / (end[1] - start[1])


def print_row(r, overhead, args_runs, args_warmup):
    ovh_ms = overhead["ort_us"] / 1e3
    spread = f"{min(r['round_ratios']):.2f}-{max(r['round_ratios']):.2f}"
    ref_nodes = f"{r['reference_nodes']}" + (f" ({r['slow_refused']} slow)"
                                             if r["slow_refused"] else "")
    print(f"{r['model']:26s} {r['set']:3s} {r['ort_ms']:9.3f} {r['wnn_ms']:9.3f} "
          f"{r['ratio']:6.2f} {spread:>11s} {r['ort_ms'] - ovh_ms:9.3f} "
          f"{100 * ovh_ms / r['ort_ms']:5.1f} {opt(net_ratio(r, overhead), '.2f', 6)} "
          f"{opt(r['gflop'], '.2f', 7)} {opt(r['wnn_gflops'], '.1f', 8)} "
          f"{opt(r['max_err'], '.2e', 9)} {r['ref_kernels']:4d} {ref_nodes:>9s} "
          f"{r['regions']:7d} {opt(r.get('steal'), '.1f', 6)}{'' if r['ok'] else '  WRONG'}",
          flush=True)
    if r["runs"] != args_runs or r["warmup"] != args_warmup:
        print(f"{'':31s}slow runs: median of {r['runs']} after {r['warmup']} warm-up "
              f"(--budget)")
    if r["ref_kernel_names"]:
        print(f"{'':31s}ref: kernels: {', '.join(r['ref_kernel_names'])}")
    if r["check"]:
        print(f"{'':31s}validate: {r['check']}")


def print_acceptance(rows, dev_names):
    """Issue 18's criteria over what was measured, each PASS or FAIL; "partial" unless every
    model of the zoo suite and of the dev set (dev_names) has a row."""
    dev = [r for r in rows if r["set"] == "dev"]
    measured = {r["model"] for r in rows}
    missing = (set(SUITE) | set(dev_names)) - measured
    partial = "" if dev_names and not missing else \
        f" (partial: {len(measured & set(SUITE))} of {len(SUITE)} zoo and " \
        f"{len(measured & set(dev_names))} of {len(dev_names)} dev-set models)"
    print("issue 18 acceptance (informational: the exit status is about correctness):")
    if dev:
        worst = max(dev, key=lambda r: r["ratio"])
        verdict = "PASS" if worst["ratio"] <= DEV_MAX_RATIO else "FAIL"
        above = [r["model"] for r in dev if r["ratio"] > DEV_MAX_RATIO]
        print(f"  {verdict} no dev-set model above {DEV_MAX_RATIO:.1f}x ORT: largest "
              f"{worst['model']} {worst['ratio']:.2f}"
              f"{'; above: ' + ', '.join(above) if above else ''}{partial}")
    else:
        print(f"  FAIL no dev-set model above {DEV_MAX_RATIO:.1f}x ORT: no dev-set model measured")
    g = geomean(rows)
    print(f"  {'PASS' if g is not None and g <= GEOMEAN_MAX else 'FAIL'} geometric mean <= "
          f"{GEOMEAN_MAX} over the zoo and the dev set together: "
          f"{'-' if g is None else f'{g:.3f}'} over {len(rows)} models{partial}")
    total = sum(r["ref_kernels"] for r in rows)
    composite = sum(r["ref_composite"] for r in rows)
    why = (f"; {composite} of them concat/sum on ref:any running one jit reorder per input "
           f"(docs/delegates.md)" if composite else "")
    print(f"  {'PASS' if total == 0 and rows else 'FAIL'} zero ref: kernels in any profile: "
          f"{total} over {len(rows)} profiles{why}{partial}")


def select_models(args, specs):
    """(zoo names, selected dev-set models, every dev-set name, error or None)."""
    only = args.only.split(",") if args.only else None
    zoo = [] if args.dev_set_only else [n for n in SUITE if only is None or n in only]
    shared = dev_set.find_shared_models()
    manifest = dev_set.load_manifest(shared) if shared else []
    dev_names = {m["name"] for m in manifest}
    if only:
        unknown = [n for n in only if n not in specs and n not in dev_names]
        if unknown:
            hint = "" if shared else f" ({dev_set.not_found_message()})"
            raise SystemExit(f"ort_compare.py: unknown model(s) {', '.join(unknown)}{hint}")
        zoo += [n for n in only if n in specs and n not in SUITE and not args.dev_set_only]
    dev = [] if args.zoo_only else [m for m in manifest if only is None or m["name"] in only]
    error = None
    if shared is None and not args.zoo_only and only is None:
        error = f"dev set: {dev_set.not_found_message()}"
    return zoo, dev, sorted(dev_names), error


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("build", help="the build directory holding wnn")
    parser.add_argument("--only", help="comma-separated model names, zoo or dev set "
                        "(default: the whole zoo suite and the whole dev set)")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--zoo-only", action="store_true", help="only the zoo models")
    which.add_argument("--dev-set-only", action="store_true", help="only the dev-set models")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3,
                        help="alternating ORT/wnn timing rounds per model (default 3)")
    parser.add_argument("--budget", type=float, default=120,
                        help="seconds of timed rounds per model: slow models get fewer runs "
                        "(default 120; 0: always --runs)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--work", help="cache for exported models (default BUILD/bench-zoo)")
    parser.add_argument("--json", help="also write the overheads and rows as JSON to this file")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    args.work = os.path.abspath(args.work or os.path.join(build, "bench-zoo"))
    os.makedirs(args.work, exist_ok=True)
    specs = bench_specs()
    zoo, dev, dev_names, error = select_models(args, specs)
    failed = False
    if error:
        print(f"ort_compare.py: {error}", file=sys.stderr)
        failed = True
    models_dir = dev_set.cache_dir()
    if dev and dev_set.fetch(dev_set.find_shared_models(), [m["name"] for m in dev],
                             models_dir) != 0:
        print("ort_compare.py: could not fetch the dev set; see the lines above", file=sys.stderr)
        failed, dev = True, []

    import torch
    torch.set_num_threads(args.threads)
    overhead = measure_overheads(args, build)
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}, {args.threads} threads, median of {args.runs} "
          f"runs after {args.warmup} warm-up, median of {args.rounds} alternating rounds; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"# per-run overhead of a one-node model (relu of 4 floats): ORT through Node "
          f"{overhead['ort_us']:.1f} us, wnn bench {overhead['wnn_us']:.2f} us. ORT-ovh is "
          f"ORT's median less it,")
    print("# ovh% its share of ORT's median, vs net wnn against ORT less it. ref: counts "
          "profile steps on oneDNN")
    print("# reference implementations; ref nodes the nodes on wnn's reference kernels (slow: "
          "refused by a delegate for one);")
    print("# steal% the CPU time the hypervisor gave to other guests during the model's rounds "
          "(above a few percent the ratios are noise).")
    print(HEADER)
    cases = [(n, lambda n=n: prepare_zoo(specs[n], args, build)) for n in zoo]
    cases += [(m["name"], lambda m=m: prepare_dev(m, args, build, models_dir)) for m in dev]
    rows = []
    for name, prepare in cases:
        try:
            case = prepare()
            start = cpu_times()
            r = bench_case(case, args, build)
            r["steal"] = steal_percent(start, cpu_times())
        except Exception as e:  # one model's failure is reported, the rest still run
            print(f"{name:26s} FAILED: {e}", flush=True)
            failed = True
            continue
        rows.append(r)
        failed = failed or not r["ok"]
        print_row(r, overhead, args.runs, args.warmup)
    for label, subset in (("the zoo", [r for r in rows if r["set"] == "zoo"]),
                          ("the dev set", [r for r in rows if r["set"] == "dev"]),
                          ("both", rows)):
        if subset:
            nets = [net_ratio(r, overhead) for r in subset]
            net = (f"; against ORT less its overhead "
                   f"{math.exp(sum(map(math.log, nets)) / len(nets)):.3f}"
                   if all(nets) else "")
            print(f"geometric mean of wnn/ORT over {label} ({len(subset)} models): "
                  f"{geomean(subset):.3f}{net}")
    print()
    print_acceptance(rows, dev_names)
    if rows:
        print()
        print("conversion (zoo models: best of 3, warm page cache) and load to first inference")
        print("(model load, session creation and the cold first run, in-process):")
        print(f"{'model':26s} {'cp ms':>8s} {'convert ms':>10s} {'x cp':>6s} "
              f"{'ORT first ms':>12s} {'wnn first ms':>12s} {'ratio':>6s}")
        for r in rows:
            conv = (f"{r['cp_ms']:8.1f} {r['convert_ms']:10.1f} "
                    f"{r['convert_ms'] / r['cp_ms']:6.2f}" if r["convert_ms"] is not None
                    else f"{'-':>8s} {'-':>10s} {'-':>6s}")
            print(f"{r['model']:26s} {conv} {r['ort_first_ms']:12.1f} "
                  f"{r['wnn_first_ms']:12.1f} {r['wnn_first_ms'] / r['ort_first_ms']:6.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"overhead": overhead, "rows": rows}, f, indent=2)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
