#!/usr/bin/python3
"""A local stand-in for the Hugging Face Hub's file protocol, for wnn's download tests.

It speaks what huggingface_hub's downloader relies on:
  HEAD/GET /{repo}/resolve/{revision}/{file}
    - X-Repo-Commit: the commit the revision resolves to
    - small (Git) files: 200, ETag "<git blob sha1>", Content-Length
    - LFS files: 302 to an absolute CDN URL on the same server, X-Linked-Etag "<sha256>",
      X-Linked-Size; GET /cdn/<sha256> serves the bytes with Range support (206)
    - 401 for a private repo without "Authorization: Bearer <token>", 404 for unknown names
Faults a test can switch on: drop the connection halfway through a body (drop_bodies), serve
wrong bytes under the right headers (wrong_bodies), slow bodies down (delay_per_chunk), and an
ETag that is a path (evil_etag). It counts every request so tests can assert on them.

Run as a script it serves a directory of files as repo org/<dir> and prints the port.
"""

import hashlib
import http.server
import threading
import time

LFS_MIN_BYTES = 1024


def git_blob_sha1(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class Repo:
    def __init__(self, commits, refs, private=False):
        self.commits = commits  # commit hex -> {file: bytes}
        self.refs = refs  # branch or tag -> commit hex
        self.private = private


class HubServer:
    def __init__(self, token="secret-token"):
        self.repos = {}
        self.token = token
        self.lock = threading.Lock()
        self.requests = []  # (method, path, range header or None)
        self.times = []  # time.monotonic() of each request, in the same order
        self.bodies_done = []  # time.monotonic() just before each whole body's last chunk
        self.full_bodies = 0  # whole bodies sent (no Range, not dropped), /cdn and Git files
        self.drop_bodies = 0  # the next N bodies stop halfway
        self.wrong_bodies = 0  # the next N bodies have one byte flipped (-1: all)
        self.delay_per_chunk = 0.0
        self.evil_etag = False
        self.blobs = {}  # sha256 -> bytes
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.port = self.httpd.server_address[1]
        self.url = "http://127.0.0.1:%d" % self.port
        self.thread = None

    def add_repo(self, repo_id, commits, refs, private=False):
        self.repos[repo_id] = Repo(commits, refs, private)
        for files in commits.values():
            for data in files.values():
                self.blobs[hashlib.sha256(data).hexdigest()] = data

    def start(self):
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        return self

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def count(self, method=None, prefix=""):
        with self.lock:
            return sum(1 for m, p, _ in self.requests
                       if (method is None or m == method) and p.startswith(prefix))

    def ranges(self):
        with self.lock:
            return [r for _, _, r in self.requests if r]

    def _take(self, name):
        with self.lock:
            n = getattr(self, name)
            if n == 0:
                return False
            if n > 0:
                setattr(self, name, n - 1)
            return True

    def _handler(hub):
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_HEAD(self):
                self._serve(head=True)

            def do_GET(self):
                self._serve(head=False)

            def _serve(self, head):
                with hub.lock:
                    hub.requests.append((self.command, self.path, self.headers.get("Range")))
                    hub.times.append(time.monotonic())
                if self.path.startswith("/cdn/"):
                    data = hub.blobs.get(self.path[len("/cdn/"):])
                    if data is None:
                        return self._status(404, "no such blob")
                    return self._body(data, head, {})
                parts = self.path.split("/resolve/", 1)
                repo = hub.repos.get(parts[0].lstrip("/")) if len(parts) == 2 else None
                if repo is None:
                    return self._status(404, "Repository not found")
                if repo.private and self.headers.get("Authorization") != "Bearer " + hub.token:
                    return self._status(401, "Invalid credentials")
                revision, _, name = parts[1].partition("/")
                from urllib.parse import unquote
                revision, name = unquote(revision), unquote(name)
                commit = repo.refs.get(revision, revision)
                files = repo.commits.get(commit)
                if files is None or name not in files:
                    return self._status(404, "Entry not found")
                data = files[name]
                headers = {"X-Repo-Commit": commit}
                if len(data) >= LFS_MIN_BYTES:
                    sha = hashlib.sha256(data).hexdigest()
                    headers["X-Linked-Etag"] = '"%s"' % ("../../evil" if hub.evil_etag else sha)
                    headers["X-Linked-Size"] = str(len(data))
                    headers["ETag"] = '"%s"' % git_blob_sha1(b"pointer " + sha.encode())
                    headers["Location"] = "%s/cdn/%s" % (hub.url, sha)
                    self.send_response(302)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                headers["ETag"] = '"%s"' % git_blob_sha1(data)
                return self._body(data, head, headers)

            def _status(self, code, message):
                body = (message + "\n").encode()
                self.send_response(code)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def _body(self, data, head, headers):
                start = 0
                rng = self.headers.get("Range")
                if rng and rng.startswith("bytes=") and rng.endswith("-"):
                    start = int(rng[len("bytes="):-1])
                    if start >= len(data):
                        return self._status(416, "range not satisfiable")
                self.send_response(206 if start else 200)
                for k, v in headers.items():
                    self.send_header(k, v)
                if start:
                    self.send_header("Content-Range",
                                     "bytes %d-%d/%d" % (start, len(data) - 1, len(data)))
                self.send_header("Accept-Ranges", "bytes")
                self.send_header("Content-Length", str(len(data) - start))
                self.end_headers()
                if head:
                    return
                body = data[start:]
                if hub._take("wrong_bodies"):
                    body = bytes([body[0] ^ 0xFF]) + body[1:]
                if hub._take("drop_bodies"):
                    self.wfile.write(body[:len(body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if start == 0:  # counted before sending: the client may exit on the last byte
                    with hub.lock:
                        hub.full_bodies += 1
                for i in range(0, len(body), 4096):
                    if i and hub.delay_per_chunk:
                        time.sleep(hub.delay_per_chunk)
                    if i + 4096 >= len(body):  # before the client can have every byte
                        with hub.lock:
                            hub.bodies_done.append(time.monotonic())
                    self.wfile.write(body[i:i + 4096])

        return Handler


if __name__ == "__main__":
    import os
    import sys
    root = sys.argv[1]
    server = HubServer()
    files = {}
    for dirpath, _, names in os.walk(root):
        for n in names:
            p = os.path.join(dirpath, n)
            with open(p, "rb") as f:
                files[os.path.relpath(p, root)] = f.read()
    commit = hashlib.sha1(b"".join(sorted(files))).hexdigest()
    server.add_repo("org/" + os.path.basename(os.path.abspath(root)), {commit: files},
                    {"main": commit})
    print(server.port, flush=True)
    server.httpd.serve_forever()
