#!/usr/bin/python3
"""SIGKILL at random moments: `wnn convert --cache` and `wnn validate-models` (issue 11).

Each command runs KILLS times under a seeded RNG and is killed (its whole process group, so the
sweep's subprocesses die with it) after a delay drawn from [0, its measured uninterrupted
runtime]. After every kill:
  - nothing partial is accepted: every cache entry present has its metadata and its files match
    the recorded sizes and SHA-256; every downloaded file present (Hub blob, URL copy) has the
    served bytes; a report present is complete JSON (JUnit: complete XML);
  - a rerun of the same command succeeds and gives the uninterrupted run's results;
  - once that rerun has finished, no temporary is left anywhere under the test directory
    (atomic-write temporaries, cache build/trash directories, `.incomplete` downloads, snapshot
    links, sweep scratch directories and their lock files).

Usage: kill_test.py WNN_BINARY [--kills N] [--seed S]
"""

import argparse
import hashlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "hub"))
sys.path.insert(0, os.path.join(here, "..", "sweep"))
from hub_server import HubServer  # noqa: E402
import make_sweep_models  # noqa: E402

C1 = "c" * 40
# Names only a writer in progress (or one that died) leaves behind.
TEMPORARY = re.compile(r"(\.tmp[.-]|^\.trash-|\.incomplete$|\.link$|^wnn-sweep-)")


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def wide_mlp(path, width):
    """x[batch, width] @ w[width, width] + b: a few MB of weights, so a conversion spends most of
    its time writing and hashing files, where a kill does the most damage."""
    rng = np.random.default_rng(11)
    w = numpy_helper.from_array(rng.standard_normal((width, width)).astype(np.float32), "w")
    b = numpy_helper.from_array(np.linspace(-1, 1, width, dtype=np.float32), "b")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", width])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", width])
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("Add", ["h", "b"], ["y"])]
    graph = helper.make_graph(nodes, "wide", [x], [y], [w, b])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


def leftovers(root):
    found = []
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            if TEMPORARY.search(n):
                found.append(os.path.relpath(os.path.join(d, n), root))
    return found


def check_cache(cache):
    """Every installed entry is complete and matches its recorded digests."""
    entries = 0
    if not os.path.isdir(cache):
        return 0
    for name in os.listdir(cache):
        path = os.path.join(cache, name)
        if name.startswith(".") or not os.path.isdir(path) or name == "urls":
            continue
        entries += 1
        meta_path = os.path.join(path, "metadata.json")
        expect(os.path.isfile(meta_path), "cache entry %s has no metadata.json" % name)
        with open(meta_path) as f:
            meta = json.load(f)
        for fname, rec in meta["files"].items():
            fpath = os.path.join(path, fname)
            expect(os.path.getsize(fpath) == rec["bytes"], "%s: size differs from metadata" % fpath)
            expect(sha256(fpath) == rec["sha256"], "%s: digest differs from metadata" % fpath)
    return entries


def check_downloads(root, served):
    """Every downloaded file present is byte-identical to what the server sent."""
    hub = os.path.join(root, "hub")
    for d, _, files in os.walk(hub):
        for n in files:
            p = os.path.join(d, n)
            if os.sep + "blobs" + os.sep in p and not n.endswith(".incomplete"):
                expect(sha256(p) in served, "hub blob %s is not a served file" % p)
            # A refresh removes the blob before fetching it again: a dangling link is missing,
            # not partial, and the next run fetches it.
            if os.sep + "snapshots" + os.sep in p and not n.endswith(".link") and os.path.exists(p):
                expect(sha256(p) in served, "snapshot %s does not resolve to a served file" % p)
    urls = os.path.join(root, "wnn", "urls")
    for d, _, files in os.walk(urls):
        for n in files:
            p = os.path.join(d, n)
            if n.endswith(".sha256"):
                with open(p) as f:
                    expect(f.read().strip() in served, "%s records a digest never served" % p)
            elif not TEMPORARY.search(n) and os.sep + ".locks" not in p:
                expect(sha256(p) in served, "URL copy %s is not the served file" % p)


def check_reports(report, junit):
    if os.path.exists(report):
        with open(report) as f:
            j = json.load(f)  # raises on a partial file
        expect(j.get("kind") == "wnn validate-models", "report %s is not a sweep report" % report)
    if os.path.exists(junit):
        ET.parse(junit)


def kill_after(argv, env, delay):
    p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    time.sleep(delay)
    killed = p.poll() is None
    if killed:
        os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    # The whole group must be gone before the rerun: a child the sweep was spawning still holds a
    # copy of its scratch lock until the kernel finishes tearing it down, and a rerun that starts
    # earlier rightly treats that scratch directory as a live run's.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.killpg(p.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.005)
    else:
        raise AssertionError("processes of group %d outlived SIGKILL by 30 s" % p.pid)
    return killed


def run(argv, env):
    start = time.monotonic()
    r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    return r, time.monotonic() - start


class Scenario:
    def __init__(self, name, root):
        self.name = name
        self.root = root
        self.env = dict(os.environ)
        self.env.pop("WNN_TEST_CRASH_MATCH", None)
        self.env.update(WNN_CACHE_DIR=os.path.join(root, "wnn"), HF_HUB_CACHE=os.path.join(root, "hub"),
                        TMPDIR=os.path.join(root, "tmp"))
        os.makedirs(self.env["TMPDIR"])


def convert_scenario(wnn, root, models, rng, kills):
    s = Scenario("convert --cache", root)
    model = os.path.join(models, "wide.onnx")
    cache = s.env["WNN_CACHE_DIR"]

    def argv(i):
        # A new batch size is a new cache key, so most runs build an entry (rather than reuse
        # one) and the kill lands in the build.
        return [wnn, "convert", model, "--cache", "--json", "--override-dim", "batch=%d" % (i + 1)]

    # The typical runtime: the median of five uninterrupted builds.
    times = []
    for k in range(5):
        r, t = run(argv(10**6 + k), s.env)
        expect(r.returncode == 0, "uninterrupted convert failed: %s" % r.stderr)
        times.append(t)
    typical = sorted(times)[2]
    reference = json.loads(r.stdout)
    weights_digest = sha256(reference["weights"])
    landed = 0
    for i in range(kills):
        landed += kill_after(argv(i), s.env, rng.uniform(0, typical))
        check_cache(cache)
        r, _ = run(argv(i), s.env)
        expect(r.returncode == 0, "convert rerun %d failed: %s" % (i, r.stderr))
        out = json.loads(r.stdout)
        expect(sha256(out["weights"]) == weights_digest, "rerun %d: weights differ" % i)
        expect(check_cache(cache) == i + 6, "rerun %d: %d entries" % (i, check_cache(cache)))
        left = leftovers(root)
        expect(not left, "convert rerun %d left temporaries: %s" % (i, left))
    return typical, landed


def sweep_scenario(wnn, root, models, rng, kills):
    s = Scenario("validate-models", root)
    server = HubServer().start()
    # A killed client resets its connection mid-body; that is the point, not a server error.
    server.httpd.handle_error = lambda request, address: None
    try:
        files = {n: open(os.path.join(models, n), "rb").read()
                 for n in ("external.onnx", "external.onnx.data", "mlp.onnx")}
        server.add_repo("org/ext", {C1: {"onnx/external.onnx": files["external.onnx"],
                                         "onnx/external.onnx.data": files["external.onnx.data"],
                                         "onnx/mlp.onnx": files["mlp.onnx"]}},
                        {"main": C1})
        s.env["HF_ENDPOINT"] = server.url
        served = {hashlib.sha256(d).hexdigest() for d in files.values()}
        manifest = os.path.join(root, "zoo.json")
        with open(manifest, "w") as f:
            json.dump({"version": 1, "models": [
                {"id": "local", "path": os.path.join(models, "mlp.onnx")},
                {"id": "local-ext", "path": os.path.join(models, "external.onnx")},
                {"id": "hub", "hf": {"repo": "org/ext", "file": "onnx/external.onnx",
                                     "sidecars": ["onnx/external.onnx.data"]}},
                # A plain URL (not a Hub entry): the Hub's resolve URL, redirected to /cdn/.
                {"id": "web", "url": "%s/org/ext/resolve/main/onnx/mlp.onnx" % server.url},
                {"id": "wide", "path": os.path.join(models, "wide.onnx")},
            ]}, f)
        report = os.path.join(root, "r.json")
        junit = os.path.join(root, "r.xml")
        base = [wnn, "validate-models", manifest, "--weights", "zeros", "--jobs", "2", "-q",
                "--report", report, "--junit", junit]
        times = []  # the median of five uninterrupted runs, downloads included
        for k in range(5):
            r, t = run(base + ["--refresh"], s.env)
            expect(r.returncode == 0, "uninterrupted sweep failed: %s%s" % (r.stdout, r.stderr))
            times.append(t)
        typical = sorted(times)[2]
        with open(report) as f:
            outcomes = [e["outcome"] for e in json.load(f)["entries"]]
        expect(outcomes == ["pass"] * 5, "uninterrupted sweep: %s" % outcomes)
        landed = 0
        for i in range(kills):
            for p in (report, junit):
                if os.path.exists(p):
                    os.remove(p)
            # Every other run downloads again, so kills also land mid-download.
            landed += kill_after(base + (["--refresh"] if i % 2 == 0 else []), s.env,
                                 rng.uniform(0, typical))
            check_reports(report, junit)
            check_downloads(root, served)
            check_cache(s.env["WNN_CACHE_DIR"])
            r, _ = run(base, s.env)
            expect(r.returncode == 0, "sweep rerun %d failed: %s%s" % (i, r.stdout, r.stderr))
            with open(report) as f:
                got = [e["outcome"] for e in json.load(f)["entries"]]
            expect(got == outcomes, "sweep rerun %d: %s" % (i, got))
            check_downloads(root, served)
            left = leftovers(root)
            expect(not left, "sweep rerun %d left temporaries: %s" % (i, left))
        return typical, landed
    finally:
        server.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("wnn")
    ap.add_argument("--kills", type=int, default=50)
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--width", type=int, default=768)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="wnn-kill-") as top:
        models = os.path.join(top, "models")
        make_sweep_models.main(models)
        wide_mlp(os.path.join(models, "wide.onnx"), a.width)
        results = {}

        def scenario(k, name, fn):
            # Each command has its own seeded RNG and directory; both run at once.
            rng = random.Random(a.seed * 2 + k)
            root = os.path.join(top, name.split()[0])
            os.makedirs(root)
            start = time.monotonic()
            try:
                typical, landed = fn(os.path.abspath(a.wnn), root, models, rng, a.kills)
                results[name] = (True, "%d kills (%d mid-run), typical run %.2f s, %.1f s in all"
                                 % (a.kills, landed, typical, time.monotonic() - start))
            except Exception as e:  # a Failure, or a partial file that does not parse
                results[name] = (False, "%s: %s" % (type(e).__name__, e))

        threads = [threading.Thread(target=scenario, args=(k, name, fn)) for k, (name, fn) in
                   enumerate((("convert --cache", convert_scenario),
                              ("validate-models", sweep_scenario)))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        ok = True
        for name, (passed, text) in sorted(results.items()):
            print("%s: %s: %s" % (name, "ok" if passed else "FAIL", text))
            ok = ok and passed
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
