#!/usr/bin/env bash
# The README's main job: a full test-and-confirm firmware upgrade of the bundled example image
# against the simulated device over UDP, with a progress bar, then the device's image table.
#   - starts mcumgr-sim on ${DEMO_ADDRESS:-127.0.0.1:1337} with a little link latency,
#   - mcumgr upgrade Examples/images/demo-app-1.1.0.bin (upload, test, reset, confirm),
#   - mcumgr image list: the new image (1.1.0) is active and confirmed in slot 0.
set -euo pipefail
cd "$(dirname "$0")/.."

address=${DEMO_ADDRESS:-127.0.0.1:1337}
swift build --product mcumgr-sim >/dev/null
swift build --product mcumgr >/dev/null
bin=$(swift build --show-bin-path)

log=$(mktemp)
"$bin/mcumgr-sim" --udp "$address" --latency 10 >"$log" 2>&1 &
sim=$!
trap 'kill $sim 2>/dev/null || true; wait $sim 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 100); do
  grep -q "listening" "$log" && break
  if ! kill -0 $sim 2>/dev/null; then
    echo "demo: mcumgr-sim did not start:" >&2; cat "$log" >&2; exit 1
  fi
  sleep 0.1
done

echo "== mcumgr image list (before)"
"$bin/mcumgr" --udp "$address" image list
echo
echo "== mcumgr upgrade Examples/images/demo-app-1.1.0.bin"
"$bin/mcumgr" --udp "$address" upgrade Examples/images/demo-app-1.1.0.bin
echo
echo "== mcumgr image list (after)"
"$bin/mcumgr" --udp "$address" image list
