#!/usr/bin/env bash
# Runs every libFuzzer target built in BUILD for SECONDS each, one after another, and prints a
# summary of executions and coverage. Exits non-zero when any target finds a crash, leak,
# timeout or out-of-memory input; the input is kept in BUILD/fuzz-artifacts/<target>/.
#   tests/fuzz/run.sh BUILD SECONDS [TARGET...]
set -uo pipefail
build=$1
seconds=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(graph_text graph_json safetensors npy onnx_model model onnx_import sweep_manifest)
fi
status=0
summary=""
for t in "${targets[@]}"; do
  work="$build/fuzz-corpus/$t"           # grows across runs; new inputs land here
  artifacts="$build/fuzz-artifacts/$t/"
  log="$build/fuzz-logs/$t.log"
  mkdir -p "$work" "$artifacts" "$(dirname "$log")"
  echo "== fuzz_$t for ${seconds}s"
  "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts" \
    "$work" "$here/corpus/$t" "$here/regressions/$t" >"$log" 2>&1
  rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(echo "$last" | grep -o 'cov: [0-9]*' | grep -o '[0-9]*')
  ft=$(echo "$last" | grep -o 'ft: [0-9]*' | grep -o '[0-9]*')
  corpus=$(echo "$last" | grep -o 'corp: [0-9]*' | grep -o '[0-9]*')
  line=$(printf '%-12s rc=%-3s execs=%-10s cov=%-6s ft=%-6s corpus=%s' "$t" "$rc" \
    "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corpus:-?}")
  echo "$line"
  summary+="$line"$'\n'
  if [ $rc -ne 0 ]; then
    status=1
    grep -E 'ERROR|SUMMARY|Test unit written' "$log" | head -5
    echo "   full log: $log"
  fi
done
echo
echo "fuzz summary (${seconds}s per target):"
printf '%s' "$summary"
exit $status
