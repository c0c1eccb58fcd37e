#!/usr/bin/env bash
# Runs the libFuzzer targets of Fuzz/ (built by `make fuzz-build`), one after the other.
#   scripts/fuzz.sh RUNS SECONDS JOBS TARGET...
# Each target runs until RUNS executions or SECONDS, whichever comes first, in JOBS processes that
# share its working corpus (Fuzz/.work/TARGET, grown from the committed seeds in Fuzz/corpus/TARGET).
# A hang is an input running past 1 s; an allocation past 512 MB counts as a crash (an allocation
# sized by a length field). A crashing, leaking or hanging input is left in Fuzz/crashes/ as a
# reproducer (run the target's binary with that file as its argument). Prints one line per target
# with the executions done; exits 1 when any target found something.
#
# AddressSanitizer keeps 2 frames of each allocation's and free's stack (malloc_context_size,
# default 30): recording 30 frames per malloc was a quarter of some targets' time, and in Swift
# the frames past malloc and swift_slowAlloc are the runtime's anyway. Detection is the same; a
# report's allocation and free stacks are short (re-run the reproducer without this for full
# ones). Not below 2: with 0 or 1 LeakSanitizer reports no leak at all (checked on a leaking
# target). An ASAN_OPTIONS of the caller's comes after it and wins.
set -euo pipefail
export ASAN_OPTIONS="malloc_context_size=2${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
cd "$(dirname "$0")/.."
runs=$1 seconds=$2 jobs=$3
shift 3
root=$(pwd)
bin="$root/Fuzz/.build/release"
mkdir -p Fuzz/crashes
status=0
for target in "$@"; do
  work="$root/Fuzz/.work/$target"
  logs="$work/logs"
  mkdir -p "$work/corpus" "$logs"
  rm -f "$logs"/*.log
  before=$(ls "$root/Fuzz/crashes" | wc -l)
  started=$(date +%s)
  (cd "$logs" && "$bin/$target" "$work/corpus" "$root/Fuzz/corpus/$target" \
      -runs=$(( (runs + jobs - 1) / jobs )) -max_total_time="$seconds" -jobs="$jobs" -workers="$jobs" \
      -timeout=1 -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 \
      -artifact_prefix="$root/Fuzz/crashes/$target-" >/dev/null 2>&1) || true
  executed=$(cat "$logs"/fuzz-*.log 2>/dev/null | sed -n 's/^stat::number_of_executed_units: *//p' | awk '{s += $1} END {print s + 0}')
  mkdir -p "$root/Fuzz/crashes"
  found=$(( $(ls "$root/Fuzz/crashes" | wc -l) - before ))
  # (grep finds nothing in a clean run; under pipefail that must not end the script)
  problems=$( (grep -l -E "^==[0-9]+==ERROR|ALARM: working on the last Unit|out-of-memory|deadly signal" "$logs"/fuzz-*.log 2>/dev/null || true) | wc -l)
  # A binary without coverage counters fuzzes blind; one without ASan misses memory errors.
  if ! grep -q "inline 8-bit counters" "$logs"/fuzz-*.log 2>/dev/null || ! nm "$bin/$target" | grep " __asan_init" >/dev/null; then
    problems=$((problems + 1))
    echo "$target: built without coverage instrumentation or AddressSanitizer (make fuzz-build)" >>"$logs/fuzz-0.log"
  fi
  corpus=$(ls "$work/corpus" | wc -l)
  line="$target: $executed executions in $(( $(date +%s) - started )) s on $jobs processes, corpus $corpus inputs"
  if [[ $found -gt 0 || $problems -gt 0 ]]; then
    echo "$line: FOUND $found reproducer(s) in Fuzz/crashes/ (logs in $logs)"
    grep -h -A3 -E "^==[0-9]+==ERROR|ALARM|out-of-memory|Fatal error|deadly signal|built without" "$logs"/fuzz-*.log | head -20 || true
    status=1
  else
    echo "$line: no crash, leak or hang"
  fi
done
exit $status
