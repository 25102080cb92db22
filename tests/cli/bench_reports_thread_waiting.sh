#!/usr/bin/env bash
# `wnn bench` reports its timings and how the OpenMP workers wait; the CLI chooses the waiting
# (and tells why) only when the user has not, and an explicit setting reaches libgomp as given.
set -euo pipefail
wnn="$1"
src="$2"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
graph="$src/examples/small_cnn.webnn"

env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT -u WNN_OPENMP_WAITING \
  "$wnn" bench "$graph" --threads 2 --runs 3 --warmup 1 --json > "$out/chosen.json"
env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT -u WNN_OPENMP_WAITING \
  "$wnn" bench "$graph" --threads=2 --runs 3 --warmup 1 --json > "$out/inline.json"
env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT -u WNN_OPENMP_WAITING \
  "$wnn" bench "$graph" --threads 1 --runs 3 --warmup 1 --json > "$out/one.json"
env -u WNN_OPENMP_WAITING OMP_WAIT_POLICY=ACTIVE GOMP_SPINCOUNT=123 \
  "$wnn" bench "$graph" --threads 2 --runs 3 --warmup 1 --json > "$out/user.json"
/usr/bin/python3 - "$out" <<'PY'
import json, re, sys
out = sys.argv[1]
chosen = json.load(open(out + "/chosen.json"))
assert chosen["runs"] == 3 and chosen["threads"] == 2, chosen
assert 0 < chosen["min_ms"] <= chosen["median_ms"] <= chosen["p90_ms"], chosen
def check_chosen(w):
    m = re.fullmatch(r"(idle machine: workers spin 100 us \((\d+) spins\) between kernels, then sleep"
                     r"|\d+ other tasks? running on \d+ CPUs: workers sleep between kernels)"
                     r" \(OMP_WAIT_POLICY=PASSIVE GOMP_SPINCOUNT=(\d+)\)", w)
    assert m, w
    if m.group(2) is not None:
        assert m.group(2) == m.group(3) and int(m.group(3)) >= 1000, w
    else:
        assert m.group(3) == "0", w
check_chosen(chosen["openmp_waiting"])
# `--threads=2` asks for workers too; one thread has none, so nothing is chosen (no probe, no
# re-execution) and libgomp's defaults are reported.
check_chosen(json.load(open(out + "/inline.json"))["openmp_waiting"])
one = json.load(open(out + "/one.json"))["openmp_waiting"]
assert one == "workers spin: OMP_WAIT_POLICY=(unset) GOMP_SPINCOUNT=(unset)", one
user = json.load(open(out + "/user.json"))["openmp_waiting"]
assert user == "workers spin: OMP_WAIT_POLICY=ACTIVE GOMP_SPINCOUNT=123", user
print("ok")
PY
# The text form prints the same line for more than one thread, and none for one.
"$wnn" bench "$graph" --threads 2 --runs 2 --warmup 1 | grep -q '^threads: .*OMP_WAIT_POLICY='
! "$wnn" bench "$graph" --threads 1 --runs 2 --warmup 1 | grep -q '^threads:'
