#!/usr/bin/env bash
# The upload times of the BLE VM's bench checks, side by side (Benchmarks/results/ble-paths.md).
#
#   scripts/blevm/ble-bench.sh RUN_DIR...      e.g. .build/blevm/run-*
#
# Each run uploaded the same 220 KiB image to a fresh `mcumgr-sim --hci user:1` through four
# clients: mcumgr --ble-socket (the kernel's L2CAP socket), mcumgr --bluez (bluetoothd's D-Bus API),
# mcumgr --hci user:0 (our own LE host) and smpmgr --ble (smpclient over bleak, D-Bus). Prints a
# markdown table: per client the median over the runs of the upload time (mcumgr: the time its
# "Done" line reports; smpmgr: the wall time less its start-up, measured by `--version` just
# before), the runs' range, and the ratio to --bluez. The link is virtual (btvirt under qemu TCG):
# ratios compare the hosts' paths, not a radio.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: ble-bench.sh RUN_DIR..." >&2; exit 2; }

collect() {
  client=$1
  shift
  for run in "$@"; do
    c=$run/files/checks
    case $client in
      smpmgr)
        [ -f "$c/bench-smpmgr.ms" ] || continue
        startup=$(sed -n 's/^python3 -m smpmgr --version: \([0-9]*\) ms$/\1/p' "$c/smpmgr-upload.out" | head -n1)
        awk -v w="$(cat "$c/bench-smpmgr.ms")" -v s="${startup:-0}" 'BEGIN { printf "%.1f\n", (w - s) / 1000 }'
        ;;
      *)
        [ -f "$c/bench-$client.out" ] || continue
        sed -n 's/.* in \([0-9.]*\) s (.*/\1/p' "$c/bench-$client.out" | head -n1
        ;;
    esac
  done
}
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

declare -A med range count
for client in socket bluez hci smpmgr; do
  values=$(collect $client "$@")
  count[$client]=$(echo -n "$values" | grep -c . || true)
  med[$client]=$(echo "$values" | { grep . || true; } | median)
  range[$client]=$(echo "$values" | { grep . || true; } | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR) printf "%s–%s", lo, hi }')
done
echo "| client | path | runs | upload time (s, median) | range (s) | time / --bluez |"
echo "|---|---|---|---|---|---|"
for client in socket bluez hci smpmgr; do
  case $client in
    socket) name="mcumgr --ble-socket"; path="kernel L2CAP socket (libbluetooth)" ;;
    bluez) name="mcumgr --bluez"; path="bluetoothd D-Bus, AcquireWrite/AcquireNotify" ;;
    hci) name="mcumgr --hci user:0"; path="our LE host on the HCI user channel" ;;
    smpmgr) name="smpmgr --ble"; path="smpclient over bleak (bluetoothd D-Bus)" ;;
  esac
  ratio=$(awk -v a="${med[$client]:-0}" -v b="${med[bluez]:-0}" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "—" }')
  echo "| $name | $path | ${count[$client]} | ${med[$client]:-—} | ${range[$client]:-—} | $ratio |"
done

# Per run, the four side by side (load on the host machine changes from run to run; within a run
# the four uploads are minutes apart).
echo
echo "| run | --ble-socket (s) | --bluez (s) | --hci user:0 (s) | smpmgr (s) |"
echo "|---|---|---|---|---|"
for run in "$@"; do
  row="| $(basename "$run")"
  for client in socket bluez hci smpmgr; do
    value=$(collect $client "$run")
    row="$row | ${value:-—}"
  done
  echo "$row |"
done
