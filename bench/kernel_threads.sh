#!/bin/sh
# The oneDNN kernel-thread threshold (src/wnn/runtime/onednn/kernel_threads.h): kernels whose
# estimated single-thread time is below it run on the calling thread alone. Times the small
# convnets of the ORT bench zoo at several thresholds, interleaved, so a quiet machine can
# confirm (or move) the default. 0 is the old behaviour: every kernel on every thread.
# Usage: bench/kernel_threads.sh [BUILD_DIR] [THREADS] [REPEATS]
# Needs the models exported by bench/ort_compare.py (BUILD_DIR/bench-zoo).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
threads=${2:-2}
repeats=${3:-3}
zoo=$build/bench-zoo
median() { sed -n 's/.*"median_ms": \([0-9.e+-]*\).*/\1/p'; }
echo "# $(date '+%Y-%m-%d %H:%M'), $threads threads, median ms of 20 runs, $repeats repeats;" \
  "$(uptime | sed 's/.*load/load/')"
printf '%-22s %s\n' model "threshold us: median of each repeat"
for m in shufflenet_v2_x0_5 mobilenet_v3_small efficientnet_b0 regnet_x_400mf mobilenet_v2 \
         resnet18; do
  graph=$zoo/$m.wnn/$m.webnn
  [ -f "$graph" ] || { echo "$m: no $graph (run bench/ort_compare.py first)"; continue; }
  line=""
  for r in $(seq "$repeats"); do
    for us in 0 50 100 200 400; do
      ms=$(WNN_ONEDNN_PARALLEL_MIN_US=$us "$build/wnn" bench "$graph" --threads "$threads" \
             --runs 20 --warmup 5 --json | median)
      line="$line $us=$ms"
    done
    line="$line |"
  done
  printf '%-22s%s\n' "$m" "$line"
done
