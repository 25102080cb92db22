#!/usr/bin/env python3
"""Runs `wnn validate` over the test model zoo: exports each model that is not yet in OUTDIR
(tests/models/make_models.py), validates it against ONNX Runtime, keeps each JSON report as
OUTDIR/<name>.report.json and prints one line per model. Exit 1 when any model fails.

usage: /usr/bin/python3 tests/models/validate_zoo.py WNN OUTDIR [--only a,b] [--backend NAME]
                                                     [--threads N] [--fp16]
`make models-test` runs the whole zoo; CTest's models.validate.* run a small subset, one model
per test.

--fp16 validates each model's float16 rewrite instead (fp16_converter.py: onnxconverter-common's
keep_io_types shape, Casts listed last, Resize and the other blocked ops kept in float32),
written as OUTDIR/<name>_fp16.onnx; without --only it takes FP16_MODELS. CTest's
models.fp16.* run them one per test.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# Zoo models whose float16 rewrites --fp16 validates by default: convolutions with ReLU,
# HardSwish and squeeze-excitation, a segmentation head with bilinear Resize (blocked, so cast
# around), and attention with LayerNorm, Softmax and GELU.
FP16_MODELS = ["squeezenet1_1", "resnet18", "mobilenet_v3_small", "lraspp_mobilenet_v3_large",
               "transformer_encoder"]


def all_names():
    out = subprocess.run([sys.executable, os.path.join(HERE, "make_models.py"), "--list"],
                         check=True, capture_output=True, text=True).stdout
    return [line.split("\t")[0] for line in out.splitlines() if line.strip()]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("wnn")
    p.add_argument("outdir")
    p.add_argument("--only", default="")
    p.add_argument("--backend", default="auto")
    p.add_argument("--threads", default="1")
    p.add_argument("--fp16", action="store_true")
    args = p.parse_args()
    names = [n for n in args.only.split(",") if n] or (FP16_MODELS if args.fp16 else all_names())
    os.makedirs(args.outdir, exist_ok=True)
    missing = [n for n in names if not os.path.exists(os.path.join(args.outdir, n + ".onnx"))]
    if missing:
        subprocess.run([sys.executable, os.path.join(HERE, "make_models.py"), args.outdir,
                        "--only", ",".join(missing)], check=True)
    if args.fp16:
        import onnx
        from fp16_converter import convert
        for name in names:
            out = os.path.join(args.outdir, name + "_fp16.onnx")
            if not os.path.exists(out):
                model = convert(onnx.load(os.path.join(args.outdir, name + ".onnx")))
                onnx.save(model, out + ".tmp")
                os.replace(out + ".tmp", out)
        names = [n + "_fp16" for n in names]
    failed = []
    for name in names:
        report = os.path.join(args.outdir, name + ".report.json")
        rc = subprocess.run([args.wnn, "validate", os.path.join(args.outdir, name + ".onnx"),
                             "--report", report, "--backend", args.backend,
                             "--threads", args.threads], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
        with open(report) as f:
            r = json.load(f)
        worst = max(r["outputs"], key=lambda o: o["max_normalized"] or 0, default=None)
        tol = (f"  max_norm {worst['max_normalized'] or 0:.3g} ({worst['profile']} profile, "
               f"atol {worst['atol']:.3g} rtol {worst['rtol']:.3g}"
               + (", within the noise floor" if worst["within_noise_floor"] else "")
               + ")") if worst else ""
        max_abs = max((o["max_abs"] or 0 for o in r["outputs"]), default=0)
        t = r["timings_ms"]
        print(f"{name:40s} {r['status']:4s} exit {rc.returncode}  max_abs {max_abs:.3g}{tol}  "
              f"wnn {t['wnn_run'] or 0:.0f} ms  ort {t['ort_run'] or 0:.0f} ms"
              + (f"  [{r['stage']}] {r['message']}" if r["status"] != "pass" else ""), flush=True)
        # A float16 rewrite's float outputs come from its float16 body: they must be judged
        # with the float16 profile, whatever their own dtype (docs/validation.md).
        wrong = [o["name"] for o in r["outputs"]
                 if args.fp16 and o["dtype"] == "float32" and o["profile"] != "float16"]
        if wrong:
            print(f"{name}: outputs {wrong} were not judged with the float16 profile")
        if rc.returncode != 0 or wrong:
            failed.append(name)
            sys.stdout.write(rc.stdout)
    print(f"{len(names) - len(failed)} of {len(names)} models pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
