#!/bin/sh
# The ExecuTorch weight_norm case, side by side: weight_norm(Conv1d(1024, 1024, 128,
# padding=64, groups=16)) at length 499 with the filter computed in the graph, per delegate:
#   folded     (default): one region, nothing outside; compare with the precomputed filter
#   --no-fold            : the conv falls back to the reference kernels, with its reason
# Usage: bench/weight_norm.sh [BUILD_DIR] [THREADS]   (needs Debian's python3-numpy)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
threads=${2:-2}
wnn=$build/wnn
out=$build/bench/weight_norm
[ -f "$out/weight_norm.webnn" ] || /usr/bin/python3 "$here/make_weight_norm.py" "$out"
weights="--weights $out/weight_norm.safetensors"
median() { sed -n 's/.*"median_ms": \([0-9.e+-]*\).*/\1/p'; }

echo "== partition, folded (auto)"
"$wnn" partition "$out/weight_norm.webnn" $weights --backend auto
echo "== partition, --no-fold (auto)"
"$wnn" partition "$out/weight_norm.webnn" $weights --backend auto --no-fold

printf '\n%-10s %14s %14s %8s %16s\n' backend "folded ms" "precomp. ms" ratio "no-fold ms"
for backend in onednn xnnpack; do
  if ! "$wnn" partition "$out/precomputed.webnn" $weights --backend "$backend" >/dev/null 2>&1; then
    printf '%-10s (not in this build)\n' "$backend"
    continue
  fi
  f=$("$wnn" bench "$out/weight_norm.webnn" $weights --backend "$backend" --threads "$threads" \
      --runs 20 --warmup 3 --json | median)
  p=$("$wnn" bench "$out/precomputed.webnn" $weights --backend "$backend" --threads "$threads" \
      --runs 20 --warmup 3 --json | median)
  n=$("$wnn" bench "$out/weight_norm.webnn" $weights --backend "$backend" --threads "$threads" \
      --runs 1 --warmup 0 --no-fold --json | median)
  r=$(echo "$f $p" | awk '{printf "%.3f", $1 / $2}')
  printf '%-10s %14s %14s %8s %16s\n' "$backend" "$f" "$p" "$r" "$n"
done
