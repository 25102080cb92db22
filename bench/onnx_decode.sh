#!/usr/bin/env bash
# Decode a generated ~300 MB ONNX model with wnn's reader and with libprotobuf, each in its own
# process, best of N runs, and print the ratios. Usage: bench/onnx_decode.sh [BUILD] [MB] [N]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="${1:-build}"
megabytes="${2:-300}"
runs="${3:-5}"
bench="$build/bench/onnx_decode_bench"
model="$(mktemp -d)/big.onnx"
trap 'rm -rf "$(dirname "$model")"' EXIT
/usr/bin/python3 "$here/make_big_onnx.py" "$model" "$megabytes"
echo "model: $(stat -c %s "$model") bytes" >&2
cat "$model" > /dev/null  # warm the page cache so both decoders start equal

best() {  # prints "ms rss anon" of the fastest run
  local which="$1" line ms rss anon best_ms="" best_rss="" best_anon=""
  for _ in $(seq "$runs"); do
    line="$("$bench" "$which" "$model")"
    echo "  $line" >&2
    ms="$(sed -n 's/.*ms=\([0-9.]*\).*/\1/p' <<<"$line")"
    rss="$(sed -n 's/.*peak_rss_mib=\([0-9.]*\).*/\1/p' <<<"$line")"
    anon="$(sed -n 's/.*anon_mib=\([0-9.]*\).*/\1/p' <<<"$line")"
    [ -z "$ms" ] && { echo "error"; return; }
    if [ -z "$best_ms" ] || awk "BEGIN{exit !($ms < $best_ms)}"; then best_ms="$ms"; best_rss="$rss"; best_anon="$anon"; fi
  done
  echo "$best_ms $best_rss $best_anon"
}
read -r wnn_ms wnn_rss wnn_anon <<<"$(best wnn)"
read -r pb_ms pb_rss pb_anon <<<"$(best protobuf)"
echo "wnn:      ${wnn_ms} ms, peak RSS ${wnn_rss} MiB, private (anon) ${wnn_anon} MiB"
echo "protobuf: ${pb_ms} ms, peak RSS ${pb_rss} MiB, private (anon) ${pb_anon} MiB"
awk "BEGIN{printf \"ratio protobuf/wnn: time %.0fx, peak RSS %.1fx, private memory %.0fx\n\", \
  $pb_ms/$wnn_ms, $pb_rss/$wnn_rss, $pb_anon/$wnn_anon}"
