#!/usr/bin/env bash
# `wnn convert` on a generated big float32 ONNX model against `cp` of the same file(s), for both
# storage forms (raw_data inside the .onnx, and external data). Each command runs twice after a
# warming read, so both see the model in the page cache; the ratio uses the faster run of
# each. Peak RSS is /usr/bin/time's "Maximum resident set size". wnn writes atomically and
# fsyncs (docs CONVENTIONS: no reader sees half a file) while cp does not, so a durable copy
# (cp, then `sync FILE`) is timed too and both ratios are printed.
# Targets (issue 5): convert time <= 2x cp time; peak RSS <= 1.2x model size + 100 MB.
# Usage: bench/convert_big.sh [BUILD] [MEGABYTES]   (default build, 1024)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="${1:-build}"
megabytes="${2:-1024}"
wnn="$(cd "$build" && pwd)/wnn"

# The model, a cp copy and a converted copy side by side: 3x the model, plus slack.
tmp_parent="${TMPDIR:-/tmp}"
need_kb=$(( megabytes * 1024 * 3 + 512 * 1024 ))
free_kb="$(df -Pk "$tmp_parent" | awk 'NR==2 {print $4}')"
if [ "$free_kb" -lt "$need_kb" ]; then
  echo "convert_big: $tmp_parent has $((free_kb / 1024)) MB free, needs $((need_kb / 1024)) MB" >&2
  exit 2
fi
work="$(mktemp -d "$tmp_parent/wnn_convert_big.XXXXXX")"
trap 'rm -rf "$work"' EXIT

timed() {  # prints "seconds max_rss_kb" of the command
  local t="$work/time.txt"
  /usr/bin/time -f "%e %M" -o "$t" "$@" > /dev/null
  cat "$t"
}

fails=0
for form in raw external; do
  mkdir -p "$work/$form"
  model="$work/$form/big.onnx"
  if [ "$form" = external ]; then
    /usr/bin/python3 "$here/make_big_onnx_streamed.py" "$model" "$megabytes" --external
    files=("$model" "$model.data")
  else
    /usr/bin/python3 "$here/make_big_onnx_streamed.py" "$model" "$megabytes"
    files=("$model")
  fi
  size="$(cat "${files[@]}" | wc -c)"
  cat "${files[@]}" > /dev/null  # warm the page cache
  cp_best="" sync_best="" wnn_best="" rss_max=0
  for run in 1 2; do
    # Every timed command starts with no dirty pages queued (an untimed global sync), so none
    # pays for the previous one's writeback.
    rm -rf "$work/copy" && mkdir "$work/copy" && sync
    read -r s _ <<<"$(timed cp "${files[@]}" "$work/copy/")"
    echo "  $form cp run $run: ${s} s" >&2
    if [ -z "$cp_best" ] || awk "BEGIN{exit !($s < $cp_best)}"; then cp_best="$s"; fi
    rm -rf "$work/copy" && mkdir "$work/copy" && sync
    read -r s _ <<<"$(timed sh -c 'd="$1"; shift; cp "$@" "$d/" && sync "$d"/*' sh "$work/copy" "${files[@]}")"
    echo "  $form cp + sync run $run: ${s} s" >&2
    if [ -z "$sync_best" ] || awk "BEGIN{exit !($s < $sync_best)}"; then sync_best="$s"; fi
  done
  rm -rf "$work/copy"
  for run in 1 2; do
    rm -rf "$work/out" && sync
    read -r s rss <<<"$(timed "$wnn" convert "$model" -o "$work/out")"
    echo "  $form wnn convert run $run: ${s} s, peak RSS $((rss / 1024)) MiB" >&2
    if [ -z "$wnn_best" ] || awk "BEGIN{exit !($s < $wnn_best)}"; then wnn_best="$s"; fi
    [ "$rss" -gt "$rss_max" ] && rss_max="$rss"
  done
  out_size="$(stat -c %s "$work/out/big.safetensors")"
  rm -rf "$work/out" "$work/$form"
  rss_limit_kb=$(( size * 12 / 10 / 1024 + 100 * 1024 ))
  awk -v form="$form" -v size="$size" -v out="$out_size" -v cp="$cp_best" -v cs="$sync_best" -v w="$wnn_best" \
      -v rss="$rss_max" -v lim="$rss_limit_kb" 'BEGIN {
    ratio = (cp > 0) ? w / cp : 0
    printf "%s: model %.0f MiB, weights written %.0f MiB; cp %.2f s, cp + sync %.2f s, wnn convert %.2f s (%.2fx cp, target <= 2x: %s; %.2fx cp + sync); peak RSS %.0f MiB (limit %.0f MiB: %s)\n",
      form, size / 1048576, out / 1048576, cp, cs, w, ratio, (w <= 2 * cp) ? "ok" : "MISS", w / cs,
      rss / 1024, lim / 1024, (rss <= lim) ? "ok" : "MISS"
    exit ((w <= 2 * cp && rss <= lim) ? 0 : 1)
  }' || fails=$((fails + 1))
done
exit "$fails"
