#!/usr/bin/env python3
"""Runs `wnn validate` over the test model zoo: exports each model that is not yet in OUTDIR
(tests/models/make_models.py), validates it against ONNX Runtime, keeps each JSON report as
OUTDIR/<name>.report.json and prints one line per model. Exit 1 when any model fails.

usage: /usr/bin/python3 tests/models/validate_zoo.py WNN OUTDIR [--only a,b] [--backend NAME]
                                                     [--threads N]
`make models-test` runs the whole zoo; CTest's models.validate.* run a small subset, one model
per test.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


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
    args = p.parse_args()
    names = [n for n in args.only.split(",") if n] or all_names()
    os.makedirs(args.outdir, exist_ok=True)
    missing = [n for n in names if not os.path.exists(os.path.join(args.outdir, n + ".onnx"))]
    if missing:
        subprocess.run([sys.executable, os.path.join(HERE, "make_models.py"), args.outdir,
                        "--only", ",".join(missing)], check=True)
    failed = []
    for name in names:
        report = os.path.join(args.outdir, name + ".report.json")
        rc = subprocess.run([args.wnn, "validate", os.path.join(args.outdir, name + ".onnx"),
                             "--report", report, "--backend", args.backend,
                             "--threads", args.threads], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
        with open(report) as f:
            r = json.load(f)
        worst = max((o["max_abs"] or 0 for o in r["outputs"]), default=0)
        t = r["timings_ms"]
        print(f"{name:40s} {r['status']:4s} exit {rc.returncode}  max_abs {worst:.3g}  "
              f"wnn {t['wnn_run'] or 0:.0f} ms  ort {t['ort_run'] or 0:.0f} ms"
              + (f"  [{r['stage']}] {r['message']}" if r["status"] != "pass" else ""), flush=True)
        if rc.returncode != 0:
            failed.append(name)
            sys.stdout.write(rc.stdout)
    print(f"{len(names) - len(failed)} of {len(names)} models pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
