#!/usr/bin/env bash
# Runs every libFuzzer target built in BUILD for SECONDS each and prints a summary of executions
# and coverage. Exits non-zero when any target finds a crash, leak, timeout or out-of-memory
# input; the input is kept in BUILD/fuzz-artifacts/<target>/. FUZZ_JOBS targets run at once
# (default 1: one after another). FUZZ_SEED fixes libFuzzer's seed (default: a random one), so
# a short run from the checked-in seeds is repeatable (CI uses it).
#   tests/fuzz/run.sh BUILD SECONDS [TARGET...]
set -uo pipefail
build=$1
seconds=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
jobs=${FUZZ_JOBS:-1}
seed_arg=()
if [ -n "${FUZZ_SEED:-}" ]; then seed_arg=(-seed="$FUZZ_SEED"); fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(graph_text graph_json safetensors npy onnx_model model onnx_import sweep_manifest)
fi

# Runs one target; its summary line goes to fuzz-logs/<target>.summary, the exit code into the
# line (rc=).
fuzz_one() {
  local t=$1
  local work="$build/fuzz-corpus/$t"     # grows across runs; new inputs land here
  local artifacts="$build/fuzz-artifacts/$t/"
  local log="$build/fuzz-logs/$t.log"
  mkdir -p "$work" "$artifacts" "$(dirname "$log")"
  rm -f "$build/fuzz-logs/$t.summary"
  "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts" "${seed_arg[@]}" \
    "$work" "$here/corpus/$t" "$here/regressions/$t" >"$log" 2>&1
  local rc=$?
  local execs last cov ft corpus
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(echo "$last" | grep -o 'cov: [0-9]*' | grep -o '[0-9]*')
  ft=$(echo "$last" | grep -o 'ft: [0-9]*' | grep -o '[0-9]*')
  corpus=$(echo "$last" | grep -o 'corp: [0-9]*' | grep -o '[0-9]*')
  printf '%-14s rc=%-3s execs=%-10s cov=%-6s ft=%-6s corpus=%s\n' "$t" "$rc" \
    "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corpus:-?}" >"$build/fuzz-logs/$t.summary"
  cat "$build/fuzz-logs/$t.summary"
  if [ $rc -ne 0 ]; then
    grep -E 'ERROR|SUMMARY|Test unit written' "$log" | head -5
    echo "   full log: $log"
  fi
  return $rc
}

mkdir -p "$build/fuzz-logs"
status=0
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
  echo "== fuzz_$t for ${seconds}s"
  fuzz_one "$t" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done
echo
echo "fuzz summary (${seconds}s per target, $jobs at a time):"
passed=0 failed=0
for t in "${targets[@]}"; do
  cat "$build/fuzz-logs/$t.summary"
  if grep -q ' rc=0 ' "$build/fuzz-logs/$t.summary"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "$passed passed, $failed failed"
exit $status
