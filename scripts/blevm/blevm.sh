#!/usr/bin/env bash
# `make blevm`: builds mcumgr and mcumgr-sim, builds or reuses the VM image, and runs the BLE
# checks (scripts/blevm/ble-checks.sh) in the guest, RUNS times (one boot each).
#
#   scripts/blevm/blevm.sh [--runs N] [--out DIR]
#
# Each run's results go to DIR/run-N (default .build/blevm): summary, checks/, logs/, the
# guest's console and dmesg. Exit status 0 when every check of every run passed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
package_root=$(cd "$BLEVM_SCRIPTS/../.." && pwd)
runs=1 out="$package_root/.build/blevm"
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) blevm_say "usage: blevm.sh [--runs N] [--out DIR]"; exit 2 ;;
  esac
done

cd "$package_root"
swift build --product mcumgr >/dev/null
swift build --product mcumgr-sim >/dev/null
"$BLEVM_SCRIPTS/image.sh" >/dev/null
mkdir -p "$out"
"$BLEVM_SCRIPTS/ble-inputs.sh" "$out/inputs"

passed=0
for run in $(seq 1 "$runs"); do
  dir="$out/run-$run"
  set +e
  "$BLEVM_SCRIPTS/run.sh" --out "$dir" --timeout 1800 --input "$out/inputs/image-a.bin" --input "$out/inputs/image-b.bin" --input "$out/inputs/python.tar" \
    "$BLEVM_SCRIPTS/ble-checks.sh" >/dev/null
  status=$?
  set -e
  failures=$(grep -c ' FAIL ' "$dir/files/summary" 2>/dev/null || true)
  checks=$(grep -c ' ms$' "$dir/files/summary" 2>/dev/null || true)
  timing=$(tr '\n' ' ' <"$dir/timing" 2>/dev/null || cat "$dir/rig-error" 2>/dev/null || true)
  if [ "$status" = 0 ]; then
    passed=$((passed + 1))
    echo "run $run: all $checks checks passed ($timing)"
  else
    echo "run $run: exit $status, $failures of $checks checks failed ($timing); see $dir"
    grep ' FAIL ' "$dir/files/summary" 2>/dev/null | sed 's/^/  /' || true
  fi
done
echo "$passed of $runs runs passed"
[ "$passed" = "$runs" ]
