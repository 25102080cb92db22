#!/usr/bin/python3
"""`wnn download` against a real local server speaking the Hub's resolve protocol.

Usage: /usr/bin/python3 -m unittest discover -s tests/hub  (WNN_BINARY names the wnn binary)
"""

import hashlib
import os
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hub_server import HubServer, git_blob_sha1  # noqa: E402

WNN = os.environ.get("WNN_BINARY", "build/wnn")
C1 = "1" * 40
C2 = "2" * 40
# Bytes whose digest a broken verifier could not pass by accident: not all zeros, odd size.
MODEL_V1 = bytes((i * 7 + 3) % 251 for i in range(200_003))
MODEL_V2 = bytes((i * 13 + 5) % 253 for i in range(150_001))
CONFIG = b'{"model_type": "test", "hidden": -3}\n'


def sha256(data):
    return hashlib.sha256(data).hexdigest()


class HubDownloadTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.cache = os.path.join(self.tmp.name, "hub")
        self.server = HubServer().start()
        self.server.add_repo("org/model", {C1: {"model.onnx": MODEL_V1, "config.json": CONFIG},
                                           C2: {"model.onnx": MODEL_V2, "config.json": CONFIG}},
                             {"main": C2, "v1": C1})
        self.server.add_repo("org/private", {C1: {"model.onnx": MODEL_V1}}, {"main": C1},
                             private=True)

    def tearDown(self):
        try:
            self.server.stop()
        except Exception:
            pass
        self.tmp.cleanup()

    def env(self, **extra):
        e = dict(os.environ)
        for k in ("HF_TOKEN", "HF_HUB_OFFLINE", "HF_HOME"):
            e.pop(k, None)
        e.update(HF_ENDPOINT=self.server.url, HF_HUB_CACHE=self.cache,
                 WNN_CACHE_DIR=os.path.join(self.tmp.name, "wnn"))
        e.update(extra)
        return e

    def download(self, *args, **env):
        return subprocess.run([WNN, "download", *args], env=self.env(**env),
                              capture_output=True, text=True, timeout=120)

    def ok(self, *args, **env):
        r = self.download(*args, **env)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.strip()

    def repo_dir(self, repo="org/model"):
        return os.path.join(self.cache, "models--" + repo.replace("/", "--"))

    def read(self, path):
        with open(path, "rb") as f:
            return f.read()

    def test_fresh_download_uses_the_hub_cache_layout(self):
        path = self.ok("org/model", "model.onnx", "config.json")
        model, config = path.splitlines()
        rd = self.repo_dir()
        self.assertEqual(model, os.path.join(rd, "snapshots", C2, "model.onnx"))
        self.assertEqual(os.readlink(model), os.path.join("..", "..", "blobs", sha256(MODEL_V2)))
        self.assertEqual(self.read(model), MODEL_V2)
        # A Git (non-LFS) file's blob is named by its Git blob SHA-1, as huggingface_hub does.
        self.assertEqual(os.readlink(config), os.path.join("..", "..", "blobs",
                                                           git_blob_sha1(CONFIG)))
        self.assertEqual(self.read(config), CONFIG)
        with open(os.path.join(rd, "refs", "main")) as f:
            self.assertEqual(f.read().strip(), C2)
        self.assertEqual(self.server.full_bodies, 2)
        self.assertEqual([n for n in os.listdir(os.path.join(rd, "blobs"))
                          if n.endswith(".incomplete")], [])

    def test_reuse_needs_no_network(self):
        first = self.ok("org/model", "model.onnx")
        gets = self.server.count("GET")
        again = self.ok("org/model", "model.onnx")
        self.assertEqual(again, first)
        self.assertEqual(self.server.count("GET"), gets)  # verified copy reused, HEAD only
        offline = self.ok("org/model", "model.onnx", HF_HUB_OFFLINE="1")
        self.assertEqual(offline, first)
        requests = self.server.count()
        self.server.stop()
        self.assertEqual(self.ok("org/model", "model.onnx"), first)  # server gone
        self.assertEqual(self.ok("org/model", "model.onnx", HF_HUB_OFFLINE="1"), first)
        self.assertEqual(self.server.count(), requests)
        r = self.download("org/model", "config.json")  # never fetched: must fail, not invent
        self.assertEqual(r.returncode, 2)
        self.assertIn("not in the cache", r.stderr)

    def test_offline_without_a_cached_copy_fails(self):
        r = self.download("org/model", "model.onnx", HF_HUB_OFFLINE="1")
        self.assertEqual(r.returncode, 2)
        self.assertIn("HF_HUB_OFFLINE", r.stderr)
        self.assertEqual(self.server.count(), 0)

    def test_resume_after_the_connection_drops_halfway(self):
        self.server.drop_bodies = 1
        path = self.ok("org/model", "model.onnx", "--revision", "v1")
        self.assertEqual(self.read(path), MODEL_V1)
        ranges = self.server.ranges()
        self.assertEqual(len(ranges), 1)
        start = int(ranges[0][len("bytes="):-1])
        self.assertEqual(start, len(MODEL_V1) // 2)

    def test_resume_from_an_incomplete_file_left_by_an_earlier_run(self):
        blobs = os.path.join(self.repo_dir(), "blobs")
        os.makedirs(blobs)
        with open(os.path.join(blobs, sha256(MODEL_V2) + ".incomplete"), "wb") as f:
            f.write(MODEL_V2[:70_000])
        path = self.ok("org/model", "model.onnx")
        self.assertEqual(self.read(path), MODEL_V2)
        self.assertEqual(self.server.ranges(), ["bytes=70000-"])

    def test_digest_mismatch_downloads_once_more_then_fails(self):
        self.server.wrong_bodies = -1
        r = self.download("org/model", "model.onnx")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("fail verification", r.stderr)
        self.assertEqual(self.server.count("GET", "/cdn/"), 2)
        blobs = os.path.join(self.repo_dir(), "blobs")
        self.assertEqual(os.listdir(blobs) if os.path.isdir(blobs) else [], [])

    def test_one_wrong_download_is_repaired_by_the_second(self):
        self.server.wrong_bodies = 1
        path = self.ok("org/model", "model.onnx")
        self.assertEqual(self.read(path), MODEL_V2)
        self.assertEqual(self.server.count("GET", "/cdn/"), 2)

    def test_a_corrupted_cached_blob_is_downloaded_again(self):
        path = self.ok("org/model", "config.json")
        blob = os.path.realpath(path)
        with open(blob, "r+b") as f:
            f.write(b"X")
        self.assertEqual(self.read(self.ok("org/model", "config.json")), CONFIG)
        self.assertEqual(self.server.full_bodies, 2)

    def test_manifest_sha256_is_checked(self):
        r = self.download("org/model", "config.json", "--sha256", sha256(b"other"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("fail verification", r.stderr)
        path = self.ok("org/model", "config.json", "--sha256", sha256(CONFIG))
        self.assertEqual(self.read(path), CONFIG)

    def test_private_repo_needs_the_token(self):
        r = self.download("org/private", "model.onnx")
        self.assertEqual(r.returncode, 2)
        self.assertIn("401", r.stderr)
        self.assertIn("HF_TOKEN", r.stderr)
        r = self.download("org/private", "model.onnx", HF_TOKEN="wrong")
        self.assertEqual(r.returncode, 2)
        path = self.ok("org/private", "model.onnx", HF_TOKEN=self.server.token)
        self.assertEqual(self.read(path), MODEL_V1)

    def test_revision_pin(self):
        v1 = self.ok("org/model", "model.onnx", "--revision", "v1")
        self.assertEqual(v1, os.path.join(self.repo_dir(), "snapshots", C1, "model.onnx"))
        self.assertEqual(self.read(v1), MODEL_V1)
        with open(os.path.join(self.repo_dir(), "refs", "v1")) as f:
            self.assertEqual(f.read().strip(), C1)
        by_commit = self.ok("org/model", "model.onnx", "--revision", C1)
        self.assertEqual(by_commit, v1)
        self.assertFalse(os.path.exists(os.path.join(self.repo_dir(), "refs", C1)))
        # Offline, the pinned ref still resolves to its commit.
        self.assertEqual(self.ok("org/model", "model.onnx", "--revision", "v1",
                                 HF_HUB_OFFLINE="1"), v1)
        main = self.ok("org/model", "model.onnx")
        self.assertEqual(self.read(main), MODEL_V2)

    def test_path_traversal_names_are_rejected(self):
        for args in (["org/model", "../escape.onnx"], ["org/model", "/etc/passwd"],
                     ["org/model", "a/../../b"], ["../org", "model.onnx"],
                     ["org/model", "model.onnx", "--revision", "../../x"]):
            r = self.download(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.server.evil_etag = True  # a server naming a blob "../../evil"
        r = self.download("org/model", "model.onnx")
        self.assertEqual(r.returncode, 2)
        self.assertIn("ETag", r.stderr)
        self.assertEqual(self.server.count("GET"), 0)
        for root, _, names in os.walk(self.tmp.name):
            self.assertNotIn("evil", names, root)

    def test_two_workers_racing_download_once(self):
        self.server.delay_per_chunk = 0.01  # ~0.4 s per body: the two processes overlap
        procs = [subprocess.Popen([WNN, "download", "org/model", "model.onnx"], env=self.env(),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
        outs = [p.communicate(timeout=120) for p in procs]
        for p, (out, err) in zip(procs, outs):
            self.assertEqual(p.returncode, 0, err)
            self.assertEqual(self.read(out.strip()), MODEL_V2)
        self.assertEqual(self.server.count("GET", "/cdn/"), 1)
        self.assertEqual(self.server.full_bodies, 1)
        # It was a race: both workers asked for the file before the one body was complete.
        heads = [t for (m, _, _), t in zip(self.server.requests, self.server.times) if m == "HEAD"]
        self.assertEqual(len(heads), 2)
        self.assertLess(max(heads), self.server.bodies_done[0])

    def test_url_download_is_verified_and_cached(self):
        url = self.server.url + "/cdn/" + sha256(MODEL_V1)
        path = self.ok("--url", url, "--sha256", sha256(MODEL_V1))
        self.assertEqual(self.read(path), MODEL_V1)
        self.assertTrue(path.startswith(os.path.join(self.tmp.name, "wnn", "urls")))
        self.assertEqual(self.ok("--url", url, HF_HUB_OFFLINE="1"), path)
        self.assertEqual(self.server.count("GET"), 1)
        r = self.download("--url", url, "--sha256", sha256(MODEL_V2), "--refresh")
        self.assertEqual(r.returncode, 2)
        self.assertIn("fail verification", r.stderr)

    def test_url_download_finishes_a_complete_leftover_incomplete_file(self):
        # The earlier run got every byte but stopped before the rename: the server answers the
        # resume request with 416, and the file verifies.
        url = self.server.url + "/cdn/" + sha256(MODEL_V2)
        d = os.path.join(self.tmp.name, "wnn", "urls", sha256(url.encode())[:32])
        os.makedirs(d)
        with open(os.path.join(d, sha256(MODEL_V2) + ".incomplete"), "wb") as f:
            f.write(MODEL_V2)
        path = self.ok("--url", url, "--sha256", sha256(MODEL_V2))
        self.assertEqual(path, os.path.join(d, sha256(MODEL_V2)))
        self.assertEqual(self.read(path), MODEL_V2)
        self.assertEqual(self.server.ranges(), ["bytes=%d-" % len(MODEL_V2)])
        self.assertEqual(self.server.full_bodies, 0)


if __name__ == "__main__":
    unittest.main()
