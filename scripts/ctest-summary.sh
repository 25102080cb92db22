#!/usr/bin/env bash
# Runs CTest in a build dir and ends with one line, `N passed, N failed, N skipped`, from CTest's
# own summary (its "tests passed ... out of T" line and its list of tests that did not run).
# Exit status: CTest's.
# usage: scripts/ctest-summary.sh BUILD_DIR JOBS [ctest args...]
set -uo pipefail
build=$1 jobs=$2
shift 2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
(cd "$build" && ctest --output-on-failure -j "$jobs" "$@") 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
summary=$(grep -E '[0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1)
if [ -z "$summary" ]; then
  echo "ctest-summary: CTest printed no summary (exit status $rc)" >&2
  exit $((rc == 0 ? 1 : rc))
fi
failed=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$summary")
total=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\2/' <<<"$summary")
skipped=$(grep -cE '^[[:space:]]*[0-9]+ - .*\(Skipped\)$' "$log")
# Disabled tests are in the total but neither passed nor failed (a test CTest could not run is a
# failure).
disabled=$(grep -cE '^[[:space:]]*[0-9]+ - .*\(Disabled\)$' "$log")
echo "$((total - failed - skipped - disabled)) passed, $failed failed, $skipped skipped"
exit "$rc"
