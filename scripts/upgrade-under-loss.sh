#!/usr/bin/env bash
# Reliability check (issue 15, defect 6): RUNS default `mcumgr upgrade` runs, each against a fresh
# `mcumgr-sim --drop 30` (30 % of packets lost in each direction, seed = run number), and after
# each run the device's image table read back: the run counts only when mcumgr exited 0 and the
# new image is active and confirmed in slot 0 (nothing left for MCUboot to revert).
#
#   scripts/upgrade-under-loss.sh [RUNS] [IMAGE]      (defaults: 20, Examples/images/demo-app-1.1.0.bin)
#   DROP=30 BIN=.build/release scripts/upgrade-under-loss.sh
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
hash=$("$python" - "$image" <<'EOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
hdr_size, = struct.unpack_from("<H", data, 8)
img_size, = struct.unpack_from("<I", data, 12)
off = hdr_size + img_size
magic, length = struct.unpack_from("<HH", data, off)
if magic == 0x6908:                      # protected TLV area first
    off += length
    magic, length = struct.unpack_from("<HH", data, off)
end, off = off + length, off + 4
while off < end:
    kind, size = struct.unpack_from("<HH", data, off)
    if kind == 0x10:                     # IMAGE_TLV_SHA256
        print(data[off + 4:off + 4 + size].hex()); break
    off += 4 + size
EOF
)

work=$(mktemp -d)
sim=""
cleanup() {
  if [[ -n "$sim" ]]; then kill "$sim" 2>/dev/null || true; wait "$sim" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "upgrade-under-loss: $runs runs of 'mcumgr upgrade $image' (hash ${hash:0:16}…) against mcumgr-sim --drop $drop, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
completed=0
total_start=$(date +%s)
for run in $(seq "$runs"); do
  "$BIN/mcumgr-sim" --udp 127.0.0.1:0 --drop "$drop" --seed "$run" --quiet >"$work/sim.out" 2>"$work/sim.err" &
  sim=$!
  port=""
  for _ in $(seq 200); do
    port=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$work/sim.out" | head -1)
    [[ -n "$port" ]] && break
    sleep 0.05
  done
  [[ -n "$port" ]] || { echo "run $run: mcumgr-sim did not start"; cat "$work/sim.err"; exit 1; }

  start=$(date +%s.%N)
  status=0
  "$BIN/mcumgr" --udp "127.0.0.1:$port" --json upgrade "$image" >"$work/upgrade.json" 2>"$work/upgrade.err" || status=$?
  seconds=$("$python" -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$start" "$(date +%s.%N)")
  # Read the table back through the same lossy link (reads are resent freely).
  list_status=0
  "$BIN/mcumgr" --udp "127.0.0.1:$port" --json --retries 10 image list >"$work/list.json" 2>>"$work/upgrade.err" || list_status=$?
  state=$("$python" - "$work/list.json" "$hash" <<'EOF'
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
EOF
)
  kill "$sim" 2>/dev/null || true
  wait "$sim" 2>/dev/null || true
  sim=""
  if [[ $status -eq 0 && $list_status -eq 0 && "$state" == "new image "*" active confirmed" ]]; then
    completed=$((completed + 1))
    echo "run $run: ok in ${seconds} s: $state"
  else
    echo "run $run: FAILED (mcumgr exit $status) in ${seconds} s: $state; $(tail -1 "$work/upgrade.err")"
  fi
done
echo "upgrade-under-loss: $completed of $runs upgrades completed with the new image active and confirmed ($(( $(date +%s) - total_start )) s)"
[[ $completed -eq $runs ]]
