#!/bin/sh
# Per-run overhead of Session::run: a one-node graph (relu of 4 floats, so the kernel itself
# costs well under a microsecond) timed by `wnn bench` over many runs, on each backend.
# Issue 9's target: under 10 us per run beyond the kernel.
# Usage: bench/run_overhead.sh [BUILD_DIR] [RUNS]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
runs=${2:-20000}
out=$build/bench/overhead
mkdir -p "$out"
cat > "$out/one_node.webnn" <<'GRAPH'
webnn_graph "one_node" v1 {
  inputs {
    x: f32[4];
  }
  nodes {
    y = relu(x);
  }
  outputs {
    y;
  }
}
GRAPH
printf '%-10s %12s %12s\n' backend "median us" "p90 us"
for backend in ref onednn xnnpack auto; do
  "$build/wnn" bench "$out/one_node.webnn" --backend "$backend" --threads 2 --runs "$runs" \
    --warmup 1000 --json |
    /usr/bin/python3 -c "import json,sys; j=json.load(sys.stdin); print('%-10s %12.2f %12.2f' % ('$backend', j['median_ms']*1e3, j['p90_ms']*1e3))"
done
