#!/usr/bin/python3
"""A decode loop you can time: wnn against ONNX Runtime on transformer-zoo decoders.

usage: /usr/bin/python3 bench/llm_decode.py BUILD MODEL.onnx [MODEL.onnx ...]
           [--prefill 16] [--past 127] [--steps 32] [--rounds 3] [--threads 2] [--work DIR]

For each model (a decoder of tests/models/make_transformers.py, with its NAME.json sidecar):
1. `wnn convert MODEL.onnx -o WORK --phase prefill:... --phase decode:...` writes
   NAME.prefill.webnn (sequence S, past 0) and NAME.decode.webnn (sequence 1, past P) over one
   NAME.safetensors.
2. In alternating rounds, one subprocess per runtime and round (so each has its own peak RSS):
   wnn (this script with --worker, the wnn Python module of BUILD/python, sessions over both
   graphs) and ORT (bench/llm_decode_ort.js, onnxruntime-node) each load the model, run the
   prefill of the same S-token prompt (`--prefill-runs` times), then `--steps` greedy decode
   steps (argmax token), feeding present -> past.
3. Prints per runtime the medians over rounds: load, prefill ms (and the prefill's tokens/s),
   decode ms/token and tokens/s, peak RSS (VmHWM of the worker); the ratio wnn / ORT; and whether both generated
   the same tokens.

The KV cache has a fixed capacity of P positions, so one decode graph serves every step: wnn's
graphs have static shapes (the decoders' reshapes are literal), and a graph per past length
would mean a conversion per step. genai's GroupQueryAttention keeps the valid positions first
(it reads seqlens_k = sum(mask) - 1 and writes the new key/value at that position); the next
past is present[:, :, :P]. optimum's attention takes any mask, so its cache is left-padded
(mask 0 on the pad, explicit position_ids) and the next past is present[:, :, 1:]. Both are
exact for the first P - S steps, so --steps is capped there. Every step thus costs one decode at
a context of P + 1, as a generation at that length would.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def layout_of(sidecar, onnx_path):
    """The names and sizes the loop needs, from the sidecar and the model's inputs."""
    import onnx

    model = onnx.load(onnx_path, load_external_data=False)
    inputs = {i.name: [d.dim_param or d.dim_value for d in i.type.tensor_type.shape.dim]
              for i in model.graph.input}
    past = [n for n in inputs if n.startswith("past_key_values.")]
    sizes = sidecar["sizes"]
    return {
        "layout": "optimum" if sidecar["kind"] == "decoder-optimum" else "genai",
        "inputs": inputs,
        "past_names": past,
        "present_names": [n.replace("past_key_values.", "present.") for n in past],
        "position_ids": "position_ids" in inputs,
        "kv_heads": sizes["kv_heads"],
        "head_dim": sizes["head_dim"],
        "vocab": sizes["vocab"],
    }


def phase_dims(layout, sequence, past):
    """--phase bindings: every symbolic dim of the inputs at this phase's sizes."""
    values = {"batch_size": 1, "sequence_length": sequence, "past_sequence_length": past,
              "total_sequence_length": past + sequence,
              "past_sequence_length + sequence_length": past + sequence,
              "kv_cache_dim": layout["head_dim"]}
    dims = {}
    for shape in layout["inputs"].values():
        for d in shape:
            if isinstance(d, str):
                if d not in values:
                    sys.exit(f"llm_decode: no value for the dim '{d}'")
                dims[d] = values[d]
    return ",".join(f"{k}={v}" for k, v in sorted(dims.items()))


def convert(build, onnx_path, work, layout, prefill, past):
    name = os.path.splitext(os.path.basename(onnx_path))[0]
    cmd = [os.path.join(build, "wnn"), "convert", onnx_path, "-o", work, "-q", "--json",
           "--phase", "prefill:" + phase_dims(layout, prefill, 0),
           "--phase", "decode:" + phase_dims(layout, 1, past)]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        return None, None, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode
    summary = json.loads(r.stdout)
    return (os.path.join(work, name + ".prefill.webnn"), os.path.join(work, name + ".decode.webnn"),
            summary)


def peak_rss_kb():
    """This process's peak resident set (VmHWM). Not ru_maxrss: Linux carries the parent's
    high-water mark across fork + exec into it, so every worker would report at least the
    orchestrator's size."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def worker(config_path):
    """wnn's side: the loop of bench/llm_decode_ort.js over wnn.Session, one JSON line out."""
    import numpy as np
    import wnn

    with open(config_path) as f:
        c = json.load(f)
    S, P, heads, dim = len(c["prompt"]), c["past"], c["kv_heads"], c["head_dim"]
    t0 = time.perf_counter()
    prefill = wnn.Session(c["prefill_graph"], backend=c["backend"], threads=c["threads"])
    decode = wnn.Session(c["decode_graph"], backend=c["backend"], threads=c["threads"])
    load_ms = (time.perf_counter() - t0) * 1e3
    feed = {"input_ids": np.array([c["prompt"]], np.int64),
            "attention_mask": np.ones((1, S), np.int64)}
    if c["position_ids"]:
        feed["position_ids"] = np.arange(S, dtype=np.int64)[None]
    for name in c["past_names"]:
        feed[name] = np.zeros((1, heads, 0, dim), np.float32)
    feed = {k: v for k, v in feed.items() if k in prefill.input_names}
    prefill_ms = []
    for _ in range(c["prefill_runs"]):
        start = time.perf_counter()
        out = prefill.run(feed)
        prefill_ms.append((time.perf_counter() - start) * 1e3)
    tokens = [int(np.argmax(out["logits"][0, S - 1]))]
    left = c["layout"] == "optimum"
    past = {}
    for name, present in zip(c["past_names"], c["present_names"]):
        buf = np.zeros((1, heads, P, dim), np.float32)
        if left:
            buf[:, :, P - S:] = out[present]
        else:
            buf[:, :, :S] = out[present]
        past[name] = buf
    mask = np.zeros((1, P + 1), np.int64)
    if left:
        mask[0, P - S:] = 1
    else:
        mask[0, :S + 1] = 1
    step_ms = []
    for t in range(c["steps"]):
        feed = {"input_ids": np.array([[tokens[-1]]], np.int64), "attention_mask": mask}
        if c["position_ids"]:
            feed["position_ids"] = np.array([[S + t]], np.int64)
        feed.update(past)
        feed = {k: v for k, v in feed.items() if k in decode.input_names}
        start = time.perf_counter()
        o = decode.run(feed)
        step_ms.append((time.perf_counter() - start) * 1e3)
        tokens.append(int(np.argmax(o["logits"][0, 0])))
        for name, present in zip(c["past_names"], c["present_names"]):
            # Copied: the outputs view wnn's result buffers, which the next run reuses.
            past[name] = np.ascontiguousarray(o[present][:, :, 1:] if left else o[present][:, :, :P])
        if left:
            mask = np.concatenate([mask[:, 1:], np.ones((1, 1), np.int64)], axis=1)
        else:
            mask = mask.copy()
            mask[0, S + t + 1] = 1
    print(json.dumps({"load_ms": load_ms, "prefill_ms": prefill_ms, "step_ms": step_ms,
                      "tokens": tokens,
                      "max_rss_kb": peak_rss_kb()}))


def run_worker(cmd, env=None):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"llm_decode: {' '.join(cmd)} failed ({r.returncode}):\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def summarize(results, prefill):
    med = statistics.median
    prefill_ms = med(med(r["prefill_ms"]) for r in results)
    step_ms = med(med(r["step_ms"]) for r in results)
    return {"load_ms": med(r["load_ms"] for r in results), "prefill_ms": prefill_ms,
            "prefill_tok_s": prefill / prefill_ms * 1e3, "ms_per_token": step_ms,
            "tok_s": 1e3 / step_ms, "rss_mb": med(r["max_rss_kb"] for r in results) / 1024,
            "tokens": results[-1]["tokens"]}


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        return worker(sys.argv[2])
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("build")
    p.add_argument("models", nargs="+")
    p.add_argument("--prefill", type=int, default=16, help="prompt tokens S")
    p.add_argument("--past", type=int, default=127, help="KV cache capacity P")
    p.add_argument("--steps", type=int, default=32, help="decode steps (at most P - S)")
    p.add_argument("--prefill-runs", type=int, default=5)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--backend", default="auto")
    p.add_argument("--work", default=None, help="conversion dir (default BUILD/llm-decode)")
    p.add_argument("--json", default=None, help="also write the results here")
    args = p.parse_args()
    build = os.path.abspath(args.build)
    work = args.work or os.path.join(build, "llm-decode")
    steps = min(args.steps, args.past - args.prefill)
    if steps < 1:
        sys.exit("llm_decode: --past must be above --prefill")
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"))
    load = os.getloadavg()
    print(f"# S={args.prefill} prompt tokens, {steps} decode steps over a KV cache of "
          f"P={args.past}, {args.threads} threads, wnn backend {args.backend}, "
          f"{args.rounds} alternating rounds (medians), load average {load[0]:.2f}")
    print(f"{'model':28s} {'rt':4s} {'load ms':>8s} {'prefill ms':>10s} {'tok/s':>8s} "
          f"{'ms/token':>9s} {'tok/s':>7s} {'RSS MB':>7s}")
    all_results = []
    for onnx_path in args.models:
        onnx_path = os.path.abspath(onnx_path)
        name = os.path.splitext(os.path.basename(onnx_path))[0]
        with open(os.path.splitext(onnx_path)[0] + ".json") as f:
            sidecar = json.load(f)
        layout = layout_of(sidecar, onnx_path)
        out = os.path.join(work, name)
        prefill_graph, decode_graph, conv = convert(build, onnx_path, out, layout, args.prefill,
                                                    args.past)
        if prefill_graph is None:  # the table goes on with the next model
            print(f"{name:28s} wnn convert failed: {conv}")
            all_results.append({"model": name, "convert_error": str(conv)})
            continue
        vocab = layout["vocab"]
        prompt = [(7919 * i + 13) % vocab for i in range(args.prefill)]
        config = dict(layout, onnx=onnx_path, prefill_graph=prefill_graph,
                      decode_graph=decode_graph, prompt=prompt, past=args.past, steps=steps,
                      prefill_runs=args.prefill_runs, threads=args.threads, backend=args.backend)
        del config["inputs"]
        config_path = os.path.join(out, "llm_decode.json")
        with open(config_path, "w") as f:
            json.dump(config, f)
        runs = {"wnn": [], "ort": []}
        cmds = {"wnn": [sys.executable, os.path.abspath(__file__), "--worker", config_path],
                "ort": ["node", os.path.join(HERE, "llm_decode_ort.js"), config_path]}
        for r in range(args.rounds):
            for rt in (("wnn", "ort") if r % 2 == 0 else ("ort", "wnn")):
                runs[rt].append(run_worker(cmds[rt], env))
        w, o = summarize(runs["wnn"], args.prefill), summarize(runs["ort"], args.prefill)
        for rt, s in (("wnn", w), ("ort", o)):
            print(f"{name:28s} {rt:4s} {s['load_ms']:8.1f} {s['prefill_ms']:10.2f} "
                  f"{s['prefill_tok_s']:8.0f} {s['ms_per_token']:9.2f} {s['tok_s']:7.1f} "
                  f"{s['rss_mb']:7.0f}")
        same = w["tokens"] == o["tokens"]
        print(f"{name:28s} wnn/ORT: prefill {w['prefill_ms'] / o['prefill_ms']:.2f}x, decode "
              f"{w['ms_per_token'] / o['ms_per_token']:.2f}x, RSS "
              f"{w['rss_mb'] / o['rss_mb']:.2f}x; {len(w['tokens'])} tokens "
              f"{'the same' if same else 'DIFFER'}; weights file "
              f"{conv['weight_bytes'] / 1e6:.1f} MB ({conv['phase_weight_bytes'] / 1e6:.1f} MB "
              f"over both phases)")
        if not same:
            first = next((i for i, (a, b) in enumerate(zip(w["tokens"], o["tokens"])) if a != b),
                         min(len(w["tokens"]), len(o["tokens"])))
            print(f"{name:28s} first difference at token {first} (0 = the prefill's): wnn "
                  f"{w['tokens'][first:first + 4]}, ORT {o['tokens'][first:first + 4]}")
        all_results.append({"model": name, "wnn": w, "ort": o, "same_tokens": same,
                            "convert": conv})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(all_results, f, indent=1)


if __name__ == "__main__":
    main()
