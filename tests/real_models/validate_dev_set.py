#!/usr/bin/env python3
"""Validates the real-model dev set against ONNX Runtime: `make real-models-test`.

The dev set is nine ONNX models published inside npm packages, one per exporter idiom
(tf2onnx, paddle2onnx, spox, onnxruntime's quantizer, PyTorch 1.x/2.x exports). Their list,
npm pins, SHA-256 and test feeds live beside the checkout in ../shared/models
(dev-models.json, fetch.sh); nothing of them is in the project's tree.

For each model this script
  1. builds the feed: every graph input from its `test_feed` fill (README of the dev set),
     written as .npy; an integer scalar `const:V` is pinned with --pin-input instead (it picks
     an If branch), so free dims come only from the given inputs;
  2. `wnn validate`s it with the feed and default options (tolerances, noise floor),
     converting into a private cache;
  3. `wnn check`s the pair that conversion wrote (it must reload on its own);
and prints one line per model and the runner's `N passed, N failed` line. --update-docs
rewrites the real-model table of docs/validation-status.md.

usage: validate_dev_set.py WNN [--models NAME ...] [--update-docs] [--keep DIR]
environment: WNN_SHARED_MODELS (the folder holding dev-models.json and fetch.sh),
             WNN_DEV_MODELS (where the models are cached; default ~/.cache/wnn-dev-models).
"""
import argparse
import datetime
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

from dev_set import REPO, cache_dir, feed_args, fetch, find_shared_models, load_manifest, \
    not_found_message

STATUS_DOC = REPO / "docs" / "validation-status.md"
BEGIN = "<!-- real-models:begin (written by tests/real_models/validate_dev_set.py --update-docs) -->"
END = "<!-- real-models:end -->"
VALIDATE_TIMEOUT_S = 1800


def run(cmd, timeout, env=None):
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, "", f"timed out after {timeout} s", time.monotonic() - start
    return proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start


def last_line(text):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1] if lines else ""


def check_model(wnn, model, path, workdir):
    """Validate (converting into a private cache) and check the written pair of one model.
    "graph" in the result is the converted .webnn (in workdir/cache) whenever validate wrote
    one, also when its outputs failed."""
    result = {"name": model["name"], "producer": model.get("producer", ""), "status": "fail"}
    args = feed_args(model, workdir)
    report = workdir / "report.json"
    env = dict(os.environ, WNN_CACHE_DIR=str(workdir / "cache"))
    rc, out, err, secs = run([wnn, "validate", str(path), "--cache", "--report", str(report),
                              "-q"] + args, VALIDATE_TIMEOUT_S, env)
    result["seconds"] = secs
    if not report.is_file():
        result["stage"] = "validate"
        result["message"] = last_line(err) or last_line(out) or f"exit {rc}, no report"
        return result
    rep = json.loads(report.read_text())
    outputs = rep.get("outputs") or []
    result["outputs"] = len(outputs)
    result["passed_outputs"] = sum(1 for o in outputs if o.get("pass"))
    compared = [o for o in outputs if o.get("max_abs") is not None]
    result["max_abs"] = max((o["max_abs"] for o in compared), default=None)
    result["max_normalized"] = max((o["max_normalized"] for o in compared), default=None)
    cosines = [o["cosine"] for o in compared if o.get("cosine") is not None]
    result["cosine"] = min(cosines) if cosines else None
    result["floor_outputs"] = [o["name"] for o in outputs if o.get("within_noise_floor")]
    floors = [o["noise_floor"]["max_abs"] for o in outputs
              if o.get("noise_floor") and o["noise_floor"].get("max_abs") is not None]
    result["noise_floor"] = max(floors) if floors else None
    graphs = sorted((workdir / "cache").rglob("*.webnn"))
    if len(graphs) == 1:
        result["graph"] = str(graphs[0])
    if rep.get("status") != "pass" or rc != 0:
        result["stage"] = rep.get("stage") or "compare"
        result["message"] = rep.get("message") or last_line(out) or f"exit {rc}"
        return result
    # The pair validate wrote and reloaded must also pass `wnn check` on its own.
    if len(graphs) != 1:
        result["stage"] = "check"
        result["message"] = f"expected one converted .webnn in the cache, found {len(graphs)}"
        return result
    rc, out, err, _ = run([wnn, "check", str(graphs[0])], VALIDATE_TIMEOUT_S)
    if rc != 0:
        result["stage"] = "check"
        result["message"] = last_line(err) or last_line(out) or f"exit {rc}"
        return result
    result["status"] = "pass"
    return result


def fmt(v, spec=".3g"):
    return "-" if v is None else format(v, spec)


def describe(r):
    if r["status"] != "pass" and not r.get("outputs"):
        return f"{r['stage']}: {r['message']}"
    s = (f"outputs {r['passed_outputs']}/{r['outputs']}  max_abs {fmt(r['max_abs'])}  "
         f"max_norm {fmt(r['max_normalized'])}  cos {fmt(r['cosine'], '.6f')}")
    if r["floor_outputs"]:
        s += f"  within noise floor: {', '.join(r['floor_outputs'])}"
    if r["status"] != "pass":
        s += f"  ({r['stage']}: {r['message']})"
    return s


def table(results, when):
    rows = [BEGIN, "",
            f"Measured {when} with `make real-models-test`; default options plus each model's",
            "feed (integer scalars pinned with `--pin-input`, free dims only from the given",
            "inputs). `relied on floor` lists the outputs that passed only within k times the",
            "reference's noise floor.", "",
            "| model | exporter | status | outputs passed | max_abs | max_normalized | cosine |"
            " noise floor | relied on floor | validate s |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        if r.get("outputs"):
            rows.append(
                f"| {r['name']} | {r['producer']} | {r['status']} | "
                f"{r['passed_outputs']}/{r['outputs']} | {fmt(r['max_abs'])} | "
                f"{fmt(r['max_normalized'])} | {fmt(r['cosine'], '.6f')} | "
                f"{fmt(r['noise_floor'])} | {', '.join(r['floor_outputs']) or '-'} | "
                f"{fmt(r.get('seconds'), '.1f')} |")
        else:
            msg = r["message"].replace("|", "\\|")
            rows.append(f"| {r['name']} | {r['producer']} | {r['stage']}: {msg} | - | - | - | - "
                        f"| - | - | - |")
    passed = sum(r["status"] == "pass" for r in results)
    rows += ["", f"{passed} of {len(results)} pass.", "", END]
    return "\n".join(rows)


def update_docs(results):
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    text = STATUS_DOC.read_text()
    block = table(results, when)
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: block, text)
    else:
        text = text.rstrip("\n") + "\n\n## Real models from other exporters\n\n" + block + "\n"
    STATUS_DOC.write_text(text)
    print(f"updated {STATUS_DOC.relative_to(REPO)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("wnn", help="the wnn executable")
    ap.add_argument("--models", nargs="*", default=[], help="only these dev models")
    ap.add_argument("--update-docs", action="store_true",
                    help="rewrite the real-model table of docs/validation-status.md")
    ap.add_argument("--keep", help="keep each model's feed, converted pair and report here")
    a = ap.parse_args()
    wnn = str(pathlib.Path(a.wnn).resolve())

    shared = find_shared_models()
    if shared is None:
        print(f"validate_dev_set: {not_found_message()}", file=sys.stderr)
        print("0 passed, 1 failed")
        return 1
    manifest = load_manifest(shared)
    unknown = set(a.models) - {m["name"] for m in manifest}
    if unknown:
        print(f"validate_dev_set: unknown model(s): {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    models = [m for m in manifest if not a.models or m["name"] in a.models]
    out = cache_dir()
    if fetch(shared, [m["name"] for m in models], out) != 0:
        print("validate_dev_set: could not fetch the dev set (is the npm registry reachable?); "
              "see the lines above", file=sys.stderr)
        print(f"0 passed, {len(models)} failed")
        return 1

    results = []
    keep = pathlib.Path(a.keep) if a.keep else None
    for m in models:
        with tempfile.TemporaryDirectory(prefix=f"wnn-dev-{m['name']}-") as tmp:
            r = check_model(wnn, m, out / m["file"], pathlib.Path(tmp))
            if keep:
                shutil.copytree(tmp, keep / m["name"], dirs_exist_ok=True)
        results.append(r)
        print(f"{'PASS' if r['status'] == 'pass' else 'FAIL'} {m['name']:<22} {describe(r)}",
              flush=True)
    passed = sum(r["status"] == "pass" for r in results)
    relied = sum(1 for r in results if r["status"] == "pass" and r.get("floor_outputs"))
    print(f"{relied} of {passed} passes relied on the noise floor")
    if a.update_docs:
        update_docs(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
