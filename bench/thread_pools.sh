#!/bin/sh
# Two thread pools on 2 cores: oneDNN's OpenMP team and XNNPACK's pthreadpool, handing work
# back and forth on every block of bench/make_alternating.py's graph. Times `--backend auto`
# (both pools) under each OpenMP wait policy against oneDNN alone.
# Usage: bench/thread_pools.sh [BUILD_DIR] [THREADS]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
threads=${2:-2}
wnn=$build/wnn
out=$build/bench/alternating
[ -f "$out/alternating.webnn" ] || /usr/bin/python3 "$here/make_alternating.py" "$out"
median() { sed -n 's/.*"median_ms": \([0-9.e+-]*\).*/\1/p'; }
run() { "$wnn" bench "$out/alternating.webnn" --threads "$threads" --runs 30 --warmup 5 --json "$@" | median; }
printf '%-34s %10s\n' configuration "median ms"
printf '%-34s %10s\n' "onednn + reference floor" "$(run --backend onednn)"
for policy in unset ACTIVE PASSIVE; do
  if [ $policy = unset ]; then
    printf '%-34s %10s\n' "auto, unset (wnn chooses)" "$(env -u OMP_WAIT_POLICY "$wnn" bench "$out/alternating.webnn" --threads "$threads" --runs 30 --warmup 5 --json --backend auto | median)"
  else
    printf '%-34s %10s\n' "auto, OMP_WAIT_POLICY=$policy" "$(OMP_WAIT_POLICY=$policy run --backend auto)"
  fi
done
