#!/usr/bin/env bash
# Reliability check (issue 15, defect 6): RUNS default `mcumgr upgrade` runs, each against a fresh
# `mcumgr-sim --drop 30` (30 % of packets lost in each direction, seed = run number), and after
# each run the device's image table read back: the run counts only when mcumgr exited 0 and the
# new image is active and confirmed in slot 0 (nothing left for MCUboot to revert).
#
#   scripts/upgrade-under-loss.sh [RUNS] [IMAGE]      (defaults: 20, Examples/images/demo-app-1.1.0.bin)
#   DROP=30 BIN=.build/release JOBS=4 scripts/upgrade-under-loss.sh   (JOBS runs at once, each on its own simulator)
#
# Prints one line per run and a summary "N of RUNS upgrades completed"; exits 1 unless all did.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-20}
image=${2:-Examples/images/demo-app-1.1.0.bin}
drop=${DROP:-30}
if [[ -z "${BIN:-}" ]]; then
  swift build --product mcumgr-sim >/dev/null
  swift build --product mcumgr >/dev/null
  BIN=$(swift build --show-bin-path)
fi

python=python3
[[ -x .venv/bin/python ]] && python=.venv/bin/python
# The image's SHA-256 TLV, as `mcumgr image info` reads it (it exits 4 when the hash does not verify).
hash=$("$BIN/mcumgr" --json image info "$image" | "$python" -c 'import json, sys; print(json.load(sys.stdin)["images"][0]["hash"]["value"])')

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
jobs_at_once=${JOBS:-4}

# One run in its own directory: a fresh simulator, the upgrade, the table read back; prints one line.
one_run() {
  local run=$1 dir="$work/run-$1" sim port status list_status seconds state
  mkdir -p "$dir"
  "$BIN/mcumgr-sim" --udp 127.0.0.1:0 --drop "$drop" --seed "$run" --quiet >"$dir/sim.out" 2>"$dir/sim.err" &
  sim=$!
  port=""
  for _ in $(seq 200); do
    port=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$dir/sim.out" | head -1)
    [[ -n "$port" ]] && break
    sleep 0.05
  done
  if [[ -z "$port" ]]; then
    echo "run $run: FAILED: mcumgr-sim did not start: $(cat "$dir/sim.err")"
    kill "$sim" 2>/dev/null || true
    return
  fi
  start=$(date +%s.%N)
  status=0
  "$BIN/mcumgr" --udp "127.0.0.1:$port" --json upgrade "$image" >"$dir/upgrade.json" 2>"$dir/upgrade.err" || status=$?
  seconds=$("$python" -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$start" "$(date +%s.%N)")
  # Read the table back through the same lossy link (reads are resent freely).
  list_status=0
  "$BIN/mcumgr" --udp "127.0.0.1:$port" --json --retries 10 image list >"$dir/list.json" 2>>"$dir/upgrade.err" || list_status=$?
  state=$("$python" - "$dir/list.json" "$hash" <<'PY'
import json, sys
try:
    table = json.load(open(sys.argv[1]))
except Exception:
    print("no image table"); sys.exit()
images = table.get("images", table) if isinstance(table, dict) else table
primary = [s for s in images if s.get("image", 0) == 0 and s.get("slot") == 0]
if not primary:
    print("no slot 0"); sys.exit()
slot = primary[0]
new = slot.get("hash") == sys.argv[2]
print(("new" if new else "old") + " image " + slot.get("version", "?")
      + (" active" if slot.get("active") else "") + (" confirmed" if slot.get("confirmed") else " UNCONFIRMED"))
PY
)
  kill "$sim" 2>/dev/null || true
  wait "$sim" 2>/dev/null || true
  if [[ $status -eq 0 && $list_status -eq 0 && "$state" == "new image "*" active confirmed" ]]; then
    echo "run $run: ok in ${seconds} s: $state"
  else
    echo "run $run: FAILED (mcumgr exit $status) in ${seconds} s: $state; $(tail -1 "$dir/upgrade.err")"
  fi
}

echo "upgrade-under-loss: $runs runs of 'mcumgr upgrade $image' (hash ${hash:0:16}…) against mcumgr-sim --drop $drop, $jobs_at_once at once, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
total_start=$(date +%s)
for run in $(seq "$runs"); do
  while [[ $(jobs -rp | wc -l) -ge $jobs_at_once ]]; do wait -n || true; done
  one_run "$run" >"$work/line-$run" &
done
wait
completed=0
for run in $(seq "$runs"); do
  cat "$work/line-$run"
  grep -q ": ok in " "$work/line-$run" && completed=$((completed + 1))
done
echo "upgrade-under-loss: $completed of $runs upgrades completed with the new image active and confirmed ($(( $(date +%s) - total_start )) s)"
[[ $completed -eq $runs ]]
