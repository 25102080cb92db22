#!/usr/bin/python3
"""Exports wnn's test model zoo from Debian's PyTorch to ONNX, at test time.

Usage: /usr/bin/python3 tests/models/make_models.py OUTDIR [--only a,b] [--opset 13|17] [--list]

For each model it writes OUTDIR/<name>.onnx, <name>.json (inputs and outputs: names, shapes,
dtypes; opset; parameter count), <name>.inputs.safetensors (seeded random inputs) and
<name>.torch.safetensors (eager PyTorch's outputs on those inputs; for the *_qdyn_* models,
rewritten into onnxruntime's quantize_dynamic idiom, those of the float model). There is no network, so
weights are random: seeded per model (the same with or without --only), re-initialised where
the default init would make outputs constant or meaningless, with BatchNorm statistics
measured on random data so activations stay well-scaled. Without --opset every model is
exported at opset 17, and the models whose graphs differ at opset 13 (LayerNorm is an op only
from 17, HardSwish from 14) also as <name>_opset13. With --opset N every model is exported at
N under its plain name.
"""

import argparse
import json
import os
import sys
import time
import zlib

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from safetensors_io import write_safetensors  # noqa: E402
from quantize_dynamic import quantize_dynamic  # noqa: E402
from zoo import MODELS  # noqa: E402

DEFAULT_OPSET = 17
VARIANT_OPSET = 13
NORMS = (torch.nn.modules.batchnorm._BatchNorm, torch.nn.LayerNorm, torch.nn.GroupNorm)


def seed_of(name):
    # crc32 rather than hash(): Python salts str hashes per process.
    return zlib.crc32(name.encode())


def is_constant(t):
    return t.numel() > 1 and bool((t == t.flatten()[0]).all())


@torch.no_grad()
def reinitialise(model, generator):
    """Makes every parameter carry information a broken converter would get wrong.

    Norm scales and shifts move away from 1 and 0; parameters a default init leaves constant
    (zero heads, zero biases, ViT's class token, ConvNeXt's 1e-6 layer scale) get random values.
    """
    def normal(t, std, mean=0.0):
        t.copy_(torch.randn(t.shape, generator=generator) * std + mean)

    for module in model.modules():
        if isinstance(module, NORMS) and getattr(module, "weight", None) is not None:
            module.weight.copy_(torch.rand(module.weight.shape, generator=generator) * 0.4 + 0.8)
            normal(module.bias, 0.1)
    for name, p in model.named_parameters():
        if not is_constant(p):
            continue
        leaf = name.rsplit(".", 1)[-1]
        if leaf == "bias":
            normal(p, 0.05)
        elif leaf == "layer_scale":
            p.copy_(torch.rand(p.shape, generator=generator) * 0.3 + 0.1)
        elif p.dim() >= 2:
            # A zero-initialised weight matrix (ViT's head): variance-preserving scale.
            fan_in = p[0].numel()
            normal(p, 1.0 / fan_in ** 0.5)
        else:
            normal(p, 0.1)


@torch.no_grad()
def calibrate_batch_norm(model, example_inputs, generator):
    """Sets BatchNorm running statistics to the batch statistics of random inputs.

    Default running stats (mean 0, var 1) make eval-mode BatchNorm nearly an identity and let
    activations drift by orders of magnitude through deep nets. Measuring them on data keeps
    every layer's output near unit scale, and the stats themselves become non-trivial.
    """
    norms = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not norms:
        return
    for m in norms:
        m.reset_running_stats()
        m.momentum = None  # cumulative average over the calibration batches
        m.train()
    batch = [torch.randn((4,) + tuple(x.shape[1:]), generator=generator) for x in example_inputs]
    model(*batch)
    for m in norms:
        m.eval()


def export(spec, opset, outdir, filename):
    """Builds, initialises, checks and exports one model; returns a report dict."""
    started = time.perf_counter()
    torch.manual_seed(seed_of(spec.name))
    generator = torch.Generator().manual_seed(seed_of(spec.name))
    model = spec.build()
    model.eval()
    inputs = tuple(torch.randn(shape, generator=generator) for _, shape in spec.inputs)
    reinitialise(model, generator)
    calibrate_batch_norm(model, inputs, generator)

    with torch.no_grad():
        reference = model(*inputs)
    reference = reference if isinstance(reference, tuple) else (reference,)
    path = os.path.join(outdir, f"{filename}.onnx")
    with torch.set_grad_enabled(spec.export_with_grad):
        torch.onnx.export(
            model, inputs, path,
            input_names=[n for n, _ in spec.inputs],
            output_names=list(spec.outputs),
            opset_version=opset,
            do_constant_folding=True,
            training=torch.onnx.TrainingMode.EVAL,
        )

    if spec.quantize:
        import onnx

        weights = np.uint8 if spec.quantize == "uint8" else np.int8
        onnx.save(quantize_dynamic(onnx.load(path), weights, spec.quantize.endswith("per-channel")),
                  path)

    outputs = [o.detach().numpy() for o in reference]
    for name, out in zip(spec.outputs, outputs):
        if not np.isfinite(out).all():
            raise RuntimeError(f"{filename}: output '{name}' has non-finite values")
        if not out.std() > 1e-4:
            raise RuntimeError(f"{filename}: output '{name}' is constant (std {out.std():.3g})")

    write_safetensors(os.path.join(outdir, f"{filename}.inputs.safetensors"),
                      [(n, x.numpy()) for (n, _), x in zip(spec.inputs, inputs)])
    write_safetensors(os.path.join(outdir, f"{filename}.torch.safetensors"),
                      list(zip(spec.outputs, outputs)))
    params = sum(p.numel() for p in model.parameters())
    sidecar = {
        "name": filename,
        "source": spec.source,
        "opset": opset,
        "params": params,
        "seed": seed_of(spec.name),
        # The torch outputs are the float model's; a quantized export is compared with ORT.
        "quantize": spec.quantize or None,
        "inputs": [{"name": n, "shape": list(s), "dtype": "float32"} for n, s in spec.inputs],
        "outputs": [{"name": n, "shape": list(o.shape), "dtype": str(o.dtype)}
                    for n, o in zip(spec.outputs, outputs)],
    }
    with open(os.path.join(outdir, f"{filename}.json"), "w") as f:
        json.dump(sidecar, f, indent=2)
        f.write("\n")
    return {
        "name": filename, "params": params, "shape": list(outputs[0].shape),
        "std": float(outputs[0].std()), "seconds": time.perf_counter() - started,
    }


def op_types(path):
    import onnx  # only needed to compare opset variants

    return {n.op_type for n in onnx.load(path, load_external_data=False).graph.node}


def plan(only, opset):
    """Returns the (spec, opset, filename) exports requested."""
    by_name = {s.name: s for s in MODELS}
    jobs = []
    for spec in MODELS:
        if opset is not None:
            jobs.append((spec, opset, spec.name))
            continue
        jobs.append((spec, DEFAULT_OPSET, spec.name))
        if spec.opset_sensitive:
            jobs.append((spec, VARIANT_OPSET, f"{spec.name}_opset{VARIANT_OPSET}"))
    if only is None:
        return jobs
    wanted = [w for w in only.split(",") if w]
    known = {f for _, _, f in jobs} | set(by_name)
    unknown = [w for w in wanted if w not in known]
    if unknown:
        raise SystemExit(f"make_models.py: unknown model(s) {', '.join(unknown)}; see --list")
    return [j for j in jobs if j[2] in wanted or j[0].name in wanted]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("outdir", nargs="?")
    parser.add_argument("--only", help="comma-separated model names (a base name selects its variants)")
    parser.add_argument("--opset", type=int, choices=(13, 17), help="export every model at this opset only")
    parser.add_argument("--list", action="store_true", help="print the model names and exit")
    args = parser.parse_args()
    jobs = plan(args.only, args.opset)
    if args.list:
        for spec, opset, filename in jobs:
            print(f"{filename}\topset {opset}\t{spec.source}")
        return
    if not args.outdir:
        parser.error("OUTDIR is required")
    os.makedirs(args.outdir, exist_ok=True)
    torch.set_num_threads(2)
    # The exporter warns about every traced shape computation; the zoo's line per model is the
    # output that matters.
    import warnings
    warnings.filterwarnings("ignore")

    started = time.perf_counter()
    exported = {}
    for spec, opset, filename in jobs:
        r = export(spec, opset, args.outdir, filename)
        note = ""
        if spec.name in exported and filename != spec.name:
            ops17 = op_types(os.path.join(args.outdir, f"{spec.name}.onnx"))
            ops13 = op_types(os.path.join(args.outdir, f"{filename}.onnx"))
            note = f"  ops only in opset {DEFAULT_OPSET}: {','.join(sorted(ops17 - ops13)) or 'none'}"
        exported[spec.name] = True
        print(f"{r['name']:34s} params {r['params']:>10,d}  output {str(r['shape']):18s} "
              f"std {r['std']:9.4g}  {r['seconds']:6.1f} s{note}", flush=True)
    print(f"{len(jobs)} models in {time.perf_counter() - started:.1f} s", flush=True)


if __name__ == "__main__":
    main()
