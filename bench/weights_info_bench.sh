#!/bin/sh
# Measures SafetensorsReader::open + walking tensors() on a ~4 GB sparse Safetensors file.
# Target: well under 1 s and under 100 MB peak RSS (the data must stay unread in the mapping).
# Usage: bench/weights_info_bench.sh [BUILD_DIR]   (builds wnn_format there first)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
ninja -C "$build" -j2 wnn_format >/dev/null
bin=$build/weights_info_bench
g++ -std=c++20 -O2 -Wall -Wextra -I"$root/src" "$root/bench/weights_info_bench.cc" \
  "$build/libwnn_format.a" "$build/libwnn_core.a" -lfmt -o "$bin"
file=$(mktemp -d)/bench.safetensors
for shape in "4096 262144" "65536 16384"; do
  # shellcheck disable=SC2086
  /usr/bin/time -f "  /usr/bin/time: %e s wall, %M KiB max RSS" "$bin" "$file" $shape
done
rmdir "$(dirname "$file")"
