#!/usr/bin/env bash
# Runs the test suite under a sanitizer one test target at a time (make sanitize-thread,
# make sanitize-address): scripts/sanitize-split.sh SCRATCH SANITIZER WIDTH TARGET...
#
# On two cores the whole suite under ThreadSanitizer in one process did not finish (Swift Testing
# starts every test at once; each waits minutes for a turn while child processes and peers run
# 5–15x slower). One process per test target keeps each run small, a hang stays in its target,
# and every target reports. Each target's output goes to SCRATCH/sanitize-logs/TARGET.log; the
# summary (tests passed and failed, sanitizer reports, by target) is printed at the end and
# written to SCRATCH/sanitize-logs/summary.txt. Exits 1 when a target failed or reported anything.
set -uo pipefail
cd "$(dirname "$0")/.."
scratch=$1 sanitizer=$2 width=$3
shift 3
logs="$scratch/sanitize-logs"
mkdir -p "$logs"
summary="$logs/summary.txt"
: >"$summary"
status=0
for target in "$@"; do
  log="$logs/$target.log"
  started=$(date +%s)
  swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" \
    --experimental-maximum-parallelization-width "$width" --filter "^$target\\." >"$log" 2>&1
  code=$?
  reports=$(grep -c -E "^WARNING: ThreadSanitizer|^==[0-9]+==ERROR: AddressSanitizer" "$log" || true)
  # Swift Testing's lines per test (not the last "Test run with N tests" line).
  passed=$(grep -E "^✔ Test .* passed after" "$log" | grep -c -v "^✔ Test run with" || true)
  failed=$(grep -E "^✘ Test .* failed after" "$log" | grep -c -v "^✘ Test run with" || true)
  line="$target: exit $code, $passed passed, $failed failed, $reports sanitizer report(s), $(( $(date +%s) - started )) s"
  echo "$line" | tee -a "$summary"
  if [[ $code -ne 0 || $reports -gt 0 ]]; then status=1; fi
done
exit $status
