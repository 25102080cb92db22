#!/usr/bin/python3
"""`wnn validate-models` end to end: manifests over small generated models, local paths and a
local Hub server, in skeleton mode (`--weights zeros`, convert only) and in real mode (through
`wnn validate`). WNN_BINARY names the wnn binary.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "hub"))
sys.path.insert(0, here)
from hub_server import HubServer  # noqa: E402
import make_sweep_models  # noqa: E402

WNN = os.environ.get("WNN_BINARY", "build/wnn")
C1 = "c" * 40


class SweepTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.models = tempfile.mkdtemp(prefix="wnn-sweep-models-")
        make_sweep_models.main(cls.models)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.models)

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def manifest(self, entries, name="m.json"):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            json.dump({"version": 1, "models": entries}, f)
        return path

    def model(self, name):
        return os.path.join(self.models, name)

    def sweep(self, manifest, *args, env=None):
        e = dict(os.environ)
        e.pop("WNN_TEST_CRASH_MATCH", None)
        e.update(HF_HUB_CACHE=os.path.join(self.dir, "hub"),
                 WNN_CACHE_DIR=os.path.join(self.dir, "wnn"))
        e.update(env or {})
        return subprocess.run([WNN, "validate-models", manifest, *args], env=e,
                              capture_output=True, text=True, timeout=600)

    def report(self, path):
        with open(path) as f:
            return json.load(f)

    # Skeleton mode: these need only `wnn convert`.

    def test_a_crashing_entry_fails_while_the_others_complete(self):
        m = self.manifest([
            {"id": "first", "path": self.model("mlp.onnx"), "override_dims": {"batch": 2}},
            {"id": "crashes", "path": self.model("mlp_crashme.onnx")},
            {"id": "custom", "path": self.model("custom.onnx"), "expect": "fail:Frobnicate"},
            {"id": "last", "path": self.model("mlp.onnx"), "pin_inputs": {"x": 0.5}},
        ])
        rep, junit = os.path.join(self.dir, "r.json"), os.path.join(self.dir, "j.xml")
        r = self.sweep(m, "--weights", "zeros", "--jobs", "2", "--report", rep, "--junit", junit,
                       env={"WNN_TEST_CRASH_MATCH": "crashme"})
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        j = self.report(rep)
        by_id = {e["id"]: e for e in j["entries"]}
        self.assertEqual([e["id"] for e in j["entries"]], ["first", "crashes", "custom", "last"])
        self.assertEqual(by_id["first"]["outcome"], "pass")
        self.assertEqual(by_id["last"]["outcome"], "pass")
        self.assertEqual(by_id["crashes"]["outcome"], "fail")
        self.assertEqual(by_id["crashes"]["stage"], "crash")
        self.assertIn("signal 6", by_id["crashes"]["message"])
        self.assertEqual(by_id["custom"]["outcome"], "expected-fail")
        self.assertEqual(by_id["custom"]["blocker"],
                         "conversion: unsupported op com.example::Frobnicate")
        self.assertEqual(j["summary"]["passed"], 2)
        self.assertEqual(j["summary"]["failed"], 1)
        self.assertEqual(j["summary"]["expected_failures"], 1)
        self.assertIn("4 entries: 2 passed (50.0%), 1 failed (25.0%), "
                      "1 expected failures (25.0%)", r.stdout)
        self.assertIn("  crash (1):\n    crashes: killed by signal 6", r.stdout)
        # Not a TTY: one line per finished entry on stderr.
        lines = [l for l in r.stderr.splitlines() if l.startswith("[")]
        self.assertEqual(len(lines), 4, r.stderr)
        self.assertTrue(any("FAIL crashes" in l for l in lines))
        root = ET.parse(junit).getroot()
        self.assertEqual(root.get("tests"), "4")
        self.assertEqual(root.get("failures"), "1")
        cases = {c.get("name"): c for c in root.iter("testcase")}
        self.assertEqual(cases["crashes"].find("failure").get("type"), "crash")
        self.assertIsNotNone(cases["custom"].find("skipped"))
        self.assertIsNone(cases["first"].find("failure"))

    def test_without_the_switch_the_same_entry_passes(self):
        m = self.manifest([{"id": "crashes", "path": self.model("mlp_crashme.onnx")}])
        r = self.sweep(m, "--weights", "zeros")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_zero_weights_convert_a_model_whose_sidecar_is_missing(self):
        d = os.path.join(self.dir, "nosidecar")
        os.makedirs(d)
        shutil.copy(self.model("external.onnx"), d)  # external.onnx.data left behind
        model = os.path.join(d, "external.onnx")
        r = subprocess.run([WNN, "convert", model, "-o", os.path.join(self.dir, "out1")],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 2, r.stderr)
        r = subprocess.run([WNN, "convert", model, "-o", os.path.join(self.dir, "out2"),
                            "--weights", "zeros"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("external.onnx.data read as zeros", r.stderr)
        m = self.manifest([{"id": "skeleton", "path": model}])
        self.assertEqual(self.sweep(m, "--weights", "zeros").returncode, 0)

    def test_unexpected_pass_turns_the_run_red(self):
        m = self.manifest([{"id": "fixed", "path": self.model("mlp.onnx"),
                            "expect": "fail:used to fail"}])
        rep = os.path.join(self.dir, "r.json")
        r = self.sweep(m, "--weights", "zeros", "--report", rep)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(self.report(rep)["entries"][0]["outcome"], "unexpected-pass")
        self.assertIn("unexpected pass (1)", r.stdout)

    def test_selection_shards_and_merge(self):
        # "bad" is heavy: first in the manifest, it runs last, alone, yet reports stay in
        # manifest order.
        entries = [{"id": "bad", "path": self.model("custom.onnx"), "heavy": True}]
        entries += [{"id": "e%d" % i, "path": self.model("mlp.onnx")} for i in range(5)]
        m = self.manifest(entries)
        full = os.path.join(self.dir, "full.json")
        r = self.sweep(m, "--weights", "zeros", "--jobs", "2", "--report", full)
        self.assertEqual(r.returncode, 1)
        lines = [l for l in r.stderr.splitlines() if l.startswith("[")]
        self.assertTrue(lines[-1].startswith("[6/6] FAIL bad"), lines)
        self.assertEqual([e["id"] for e in self.report(full)["entries"]],
                         ["bad", "e0", "e1", "e2", "e3", "e4"])
        shards = []
        for k in (1, 2, 3):
            p = os.path.join(self.dir, "s%d.json" % k)
            self.sweep(m, "--weights", "zeros", "--shard", "%d/3" % k, "--report", p)
            shards.append(p)
        self.assertEqual([e["id"] for e in self.report(shards[0])["entries"]], ["bad", "e2"])
        merged = os.path.join(self.dir, "merged.json")
        r = subprocess.run([WNN, "report", "merge", *reversed(shards), "-o", merged],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 1, r.stderr)  # "bad" fails unexpectedly
        strip = lambda j: [(e["id"], e["outcome"], e["stage"]) for e in j["entries"]]
        self.assertEqual(strip(self.report(merged)), strip(self.report(full)))
        r = subprocess.run([WNN, "report", "merge", shards[0], shards[0], "-o", merged],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("also in", r.stderr)
        sel = os.path.join(self.dir, "sel.json")
        r = self.sweep(m, "--weights", "zeros", "--selection", "id=e4,e1", "--report", sel)
        self.assertEqual(r.returncode, 0)
        self.assertEqual([e["id"] for e in self.report(sel)["entries"]], ["e1", "e4"])
        r = self.sweep(m, "--weights", "zeros", "--selection", "id=nope")
        self.assertEqual(r.returncode, 2)

    def test_a_terminal_gets_one_redrawn_progress_bar(self):
        import pty
        m = self.manifest([{"id": "e%d" % i, "path": self.model("mlp.onnx")} for i in range(3)]
                          + [{"id": "x", "path": self.model("custom.onnx"), "expect": "fail:x"}])
        master, slave = pty.openpty()
        p = subprocess.Popen([WNN, "validate-models", m, "--weights", "zeros"],
                             stdout=subprocess.PIPE, stderr=slave, text=True)
        os.close(slave)
        out, _ = p.communicate(timeout=300)
        err = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            err += chunk
        os.close(master)
        self.assertEqual(p.returncode, 0, out)
        err = err.decode()
        self.assertEqual(err.count("\r\x1b[K["), 4, repr(err))
        self.assertIn("] 4/4  pass 3  fail 0  xfail 1  ETA 0s", err)
        self.assertNotIn("PASS e0", err)  # no per-entry lines on a terminal
        self.assertIn("4 entries: 3 passed (75.0%)", out)

    def test_bad_manifest_is_a_usage_error_naming_the_field(self):
        m = self.manifest([{"id": "a", "path": "x.onnx", "weight": 1}])
        r = self.sweep(m)
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown field 'weight'", r.stderr)
        self.assertIn("id 'a'", r.stderr)

    def test_hub_sources_and_download_failures(self):
        server = HubServer().start()
        try:
            with open(self.model("external.onnx"), "rb") as f:
                model = f.read()
            with open(self.model("external.onnx.data"), "rb") as f:
                data = f.read()
            server.add_repo("org/ext", {C1: {"onnx/external.onnx": model,
                                             "onnx/external.onnx.data": data}}, {"main": C1})
            m = self.manifest([
                {"id": "hub", "hf": {"repo": "org/ext", "file": "onnx/external.onnx",
                                     "sidecars": ["onnx/external.onnx.data"]}},
                {"id": "missing", "hf": {"repo": "org/ext", "file": "onnx/nope.onnx"}},
                {"id": "escape", "hf": {"repo": "org/ext", "file": "onnx/external.onnx",
                                        "sidecars": ["../../../escape.data"]}},
            ])
            rep = os.path.join(self.dir, "r.json")
            r = self.sweep(m, "--weights", "zeros", "--report", rep,
                           env={"HF_ENDPOINT": server.url})
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            j = self.report(rep)
            self.assertEqual(j["entries"][0]["outcome"], "pass")
            self.assertEqual(j["entries"][0]["commit"], C1)
            self.assertEqual(j["entries"][1]["stage"], "download")
            self.assertIn("404", j["entries"][1]["message"])
            self.assertEqual(j["entries"][2]["outcome"], "pass")  # skeleton: no sidecars
            self.assertIn("  download (1):", r.stdout)
            r = self.sweep(m, "--selection", "id=escape", "--report", rep,
                           env={"HF_ENDPOINT": server.url})
            escape = self.report(rep)["entries"][0]
            self.assertEqual(escape["stage"], "download")
            self.assertIn("contains '..'", escape["message"])
            self.assertEqual(server.count(prefix="/org/ext/resolve/main/..%2F"), 0)
            self.assertEqual(server.count(prefix="/org/ext/resolve/main/../"), 0)
            # Skeleton mode never fetches the sidecar.
            self.assertEqual(server.count("GET", "/org/ext/resolve/main/onnx/external.onnx.data"), 0)
            # Real mode fetches it into the same snapshot, where the importer may follow the
            # snapshot's symlinks into blobs/.
            snapshot = os.path.join(self.dir, "hub", "models--org--ext", "snapshots", C1, "onnx")
            r = subprocess.run([WNN, "download", "org/ext", "onnx/external.onnx",
                                "onnx/external.onnx.data"], capture_output=True, text=True,
                               env=dict(os.environ, HF_ENDPOINT=server.url,
                                        HF_HUB_CACHE=os.path.join(self.dir, "hub")))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(os.path.islink(os.path.join(snapshot, "external.onnx.data")))
            r = subprocess.run([WNN, "convert", os.path.join(snapshot, "external.onnx"), "-o",
                                os.path.join(self.dir, "o")], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
        finally:
            server.stop()

    # Real mode: runs `wnn validate` (ONNX Runtime as the reference) on every entry.

    def test_real_validation_of_local_models(self):
        m = self.manifest([
            {"id": "mlp", "path": self.model("mlp.onnx"), "override_dims": {"batch": 3},
             "tolerance": {"atol": 1e-5, "rtol": 1e-4}},
            {"id": "external", "path": self.model("external.onnx")},
            {"id": "crashes", "path": self.model("mlp_crashme.onnx")},
            {"id": "custom", "path": self.model("custom.onnx"), "expect": "fail:Frobnicate"},
        ])
        rep, junit = os.path.join(self.dir, "r.json"), os.path.join(self.dir, "j.xml")
        r = self.sweep(m, "--jobs", "2", "--report", rep, "--junit", junit,
                       env={"WNN_TEST_CRASH_MATCH": "crashme"})
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        by_id = {e["id"]: e for e in self.report(rep)["entries"]}
        self.assertEqual(by_id["mlp"]["outcome"], "pass", by_id["mlp"])
        self.assertEqual(by_id["mlp"]["validate_report"]["status"], "pass")
        self.assertEqual(by_id["external"]["outcome"], "pass", by_id["external"])
        self.assertEqual(by_id["crashes"]["stage"], "crash")
        self.assertEqual(by_id["custom"]["outcome"], "expected-fail")
        self.assertEqual(by_id["custom"]["stage"], "conversion")
        self.assertEqual(by_id["custom"]["blocker"],
                         "conversion: unsupported op com.example::Frobnicate")


if __name__ == "__main__":
    unittest.main()
