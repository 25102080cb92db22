#!/usr/bin/python3
"""Runs `wnn validate` on transformer-zoo models with each phase's feed from the sidecar.

usage: /usr/bin/python3 tests/models/validate_transformers.py WNN OUTDIR [--only a,b]
                                                              [--size tiny|bench|all]
Writes the models missing from OUTDIR (make_transformers.py), then for each model and phase
feeds every input with `--input NAME=FILE.npy` from NAME.PHASE/, keeps the JSON report as
OUTDIR/NAME.PHASE.report.json and prints one line per run: status, exit code, the largest
error and, on a failure, the stage and wnn's message. Exit 1 when any run fails.
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from make_transformers import select, write  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("wnn")
    p.add_argument("outdir")
    p.add_argument("--only", default="")
    p.add_argument("--size", choices=("tiny", "bench", "all"), default="tiny")
    p.add_argument("--backend", default="auto")
    p.add_argument("--threads", default="1")
    args = p.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    runs = failed = 0
    for v in select(args.only, args.size):
        sidecar_path = os.path.join(args.outdir, v.name + ".json")
        if not os.path.exists(sidecar_path):
            write(v, args.outdir)
        with open(sidecar_path) as f:
            sidecar = json.load(f)
        for phase, feed in sidecar["phases"].items():
            runs += 1
            report = os.path.join(args.outdir, f"{v.name}.{phase}.report.json")
            if os.path.exists(report):
                os.remove(report)
            cmd = [args.wnn, "validate", os.path.join(args.outdir, v.name + ".onnx"),
                   "--report", report, "--backend", args.backend, "--threads", args.threads]
            for spec in feed["inputs"]:
                npy = os.path.join(args.outdir, feed["npy_dir"], spec["name"] + ".npy")
                cmd += ["--input", f"{spec['name']}={npy}"]
            rc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            line = f"{v.name:38s} {phase:8s} exit {rc.returncode}"
            if os.path.exists(report):
                with open(report) as f:
                    r = json.load(f)
                worst = max((o.get("max_abs") or 0 for o in r.get("outputs", [])), default=0)
                line += f"  {r['status']:4s} max_abs {worst:.3g}"
                if r["status"] != "pass":
                    line += f"  [{r.get('stage')}] {r.get('message')}"
            else:
                line += "  " + rc.stdout.strip().splitlines()[-1] if rc.stdout.strip() else ""
            if rc.returncode != 0:
                failed += 1
            print(line, flush=True)
    print(f"{runs - failed} of {runs} runs pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
