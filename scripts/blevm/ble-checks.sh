#!/bin/sh
# The BLE checks, run in the VM guest by scripts/blevm/run.sh (one boot for all of them).
#
# The kernel's Bluetooth stack with btvirt's two linked LE-only controllers (hci0, hci1): the
# simulated device (mcumgr-sim --hci user:1, our LE host as a peripheral) on hci1, taken from the
# kernel; mcumgr as the central through the kernel's L2CAP socket on hci0 (--ble-socket with
# bluetoothd running, --ble without it), through bluetoothd's D-Bus API (--bluez, as an
# unprivileged user; --ble chooses it while bluetoothd runs), smpmgr over bleak (D-Bus) when its
# packages are in the inputs; then mcumgr through our own LE host on hci0 (--hci user:0). The
# bench-* checks upload the same image through each path to a fresh simulator, for the times side
# by side (Benchmarks/results/).
# A link dropped in the middle of an upload resumes on each path: the peripheral's controller
# powered off and on (--ble-power-cycle) for the socket path with bluetoothd, --bluez and --hci
# user:0; the device silent for a while (--disconnect-at alone) for the socket path without it.
# The simulator asks for other connection parameters 5 s into each upgrade's connection (as a
# Zephyr peripheral does); one check lets the kernel connect on its own so that bluetoothd's GATT
# client holds the link's ATT channel. A device that needs pairing (--ble-require-pairing) is
# refused in one line through the kernel's socket and through our own LE host (the D-Bus path is
# not checked: bluetoothd 5.66 leaves its AcquireNotify unanswered then, see docs/blevm.md).
#
# Inputs ($BLEVM_IN): image-a.bin and image-b.bin, MCUboot images of at least 200 KiB, and
# python.tar, smpmgr and its packages (made by scripts/blevm/ble-inputs.sh). Results ($BLEVM_OUT): checks/NAME.{status,ms,out,err} for every
# check (status 0 is a pass), checks/NAME.mcumgr.{status,ms,err} for the failures item 4 asks
# for (the command's own exit status, time and message), logs/ (bluetoothd, each simulator,
# btvirt, an HCI trace of every controller in btsnoop format), summary. Exit status: the number of
# checks that failed. Nothing waits a fixed time for a controller or a device: every wait polls
# with a bound.
set -u

ADDRESS=C0:5A:17:00:00:01
# Longer than fits beside the service UUID: the advertisement carries it shortened, the scan
# response whole, so finding the device by name needs the scan response.
NAME=smp-sim-blevm
C=$BLEVM_OUT/checks
L=$BLEVM_OUT/logs
mkdir -p "$C" "$L"
# The unprivileged user of the D-Bus checks (dbus-daemon drops a uid without a passwd entry).
grep -q '^smpuser:' /etc/passwd || {
  echo 'smpuser:x:1000:1000:SMP checks:/tmp:/bin/sh' >>/etc/passwd
  echo 'smpuser:x:1000:' >>/etc/group
}
# The images where smpuser can read them (the input share is root's).
U=/tmp/smpuser
mkdir -p $U
cp "$BLEVM_IN/image-a.bin" "$BLEVM_IN/image-b.bin" $U/
chmod 755 $U
chmod 644 $U/image-a.bin $U/image-b.bin
failed=0
sims=0
SIM=""

# Milliseconds since boot, without a fork.
now_ms() {
  read -r up _ </proc/uptime
  # Hundredths after the point; the leading 1 keeps "07" from reading as octal.
  echo $(( ${up%.*} * 1000 + 1${up#*.} * 10 - 1000 ))
}

# wait_until SECONDS COMMAND...: polls COMMAND every 0.2 s until it succeeds; false after SECONDS.
wait_until() {
  deadline=$(( $(now_ms) + $1 * 1000 ))
  shift
  until "$@"; do
    [ "$(now_ms)" -ge "$deadline" ] && return 1
    sleep 0.2
  done
}

# Every mcumgr call is bounded (its own timeouts are shorter; this is the backstop). 300 s: a
# 220 KiB upload through our own LE host took over 120 s under TCG while the host machine was loaded.
mg() { timeout -k 5 300 mcumgr "$@"; odd_status $?; }
# The same as an unprivileged user (smpuser, uid 1000, no groups, no capabilities), through D-Bus.
mg_user() { setpriv --reuid=1000 --regid=1000 --clear-groups --inh-caps=-all env HOME=/tmp timeout -k 5 300 mcumgr "$@"; odd_status $?; }
# odd_status STATUS: says on standard error what status mcumgr ended with, unless 0 or 3 (the
# transport failure the fails_with checks expect, one line). 1 is a device error, or, with no line
# of mcumgr's before it, a library's _exit; 124 the backstop; 128+N signal N.
odd_status() {
  case $1 in
    0|3) ;;
    *) echo "blevm: mcumgr ended with status $1" >&2 ;;
  esac
  return "$1"
}
# The option of the kernel's socket path: --ble-socket while bluetoothd runs (--ble would choose
# its D-Bus API), plain --ble once it is stopped (the choice falls back to the socket).
SOCK=--ble-socket

# check NAME FUNCTION: runs FUNCTION, its output in checks/NAME.out and .err; records its status and time.
check() {
  start=$(now_ms)
  "$2" >"$C/$1.out" 2>"$C/$1.err"
  status=$?
  echo $status >"$C/$1.status"
  echo $(( $(now_ms) - start )) >"$C/$1.ms"
  if [ $status = 0 ]; then verdict=pass; else verdict=FAIL; failed=$((failed + 1)); fi
  printf '%-28s %s %6s ms\n' "$1" $verdict "$(cat "$C/$1.ms")" | tee -a "$BLEVM_OUT/summary"
}

# --- controllers, daemons, the simulator --------------------------------------------------------

has_address() { hciconfig "$1" 2>/dev/null | grep -q 'BD Address: [0-9A-F:]*' && ! hciconfig "$1" | grep -q 'BD Address: 00:00:00:00:00:00'; }
both_ready() { has_address hci0 && has_address hci1; }
none_left() { [ ! -e /sys/class/bluetooth/hci0 ] && [ ! -e /sys/class/bluetooth/hci1 ]; }
is_up() { hciconfig "$1" 2>/dev/null | grep -q 'UP RUNNING'; }

# btvirt's controllers, once the kernel has set both up (under TCG the kernel's first HCI Reset
# may time out, leaving a controller without an address: start btvirt again then).
start_controllers() {
  modprobe hci_vhci || return 1
  for try in 1 2 3 4; do
    btvirt -L -l2 >>"$L/btvirt.log" 2>&1 &
    BTVIRT=$!
    if wait_until 30 both_ready; then
      echo "controllers ready (try $try)"
      return 0
    fi
    echo "controllers not set up on try $try:"; hciconfig -a
    kill $BTVIRT; wait $BTVIRT
    wait_until 10 none_left
  done
  return 1
}

start_bluetoothd() {
  mkdir -p /run/dbus
  [ -e /run/dbus/system_bus_socket ] || dbus-daemon --system --fork || return 1
  /usr/libexec/bluetooth/bluetoothd -n >>"$L/bluetoothd.log" 2>&1 &
  BLUETOOTHD=$!
  # bluetoothd powers the adapters it manages on (AutoEnable).
  wait_until 30 is_up hci0
}

stop_bluetoothd() {
  kill $BLUETOOTHD 2>/dev/null
  wait $BLUETOOTHD 2>/dev/null
  BLUETOOTHD=""
}

advertising() { grep -q '^advertising as' "$L/sim-$sims.out"; }
sim_done() { ! kill -0 "$SIM" 2>/dev/null || advertising; }

# start_sim [OPTIONS]: mcumgr-sim on hci1's user channel. The kernel must let the adapter go
# (down); bluetoothd powers a returning adapter on again, so power it off and try again, bounded.
start_sim() {
  [ -n "$SIM" ] && stop_sim >/dev/null
  for try in 1 2 3 4 5 6 7 8 9 10; do
    sims=$((sims + 1))
    hciconfig hci1 down 2>/dev/null
    mcumgr-sim --hci user:1 --ble-name $NAME --ble-address $ADDRESS --boot-time 300 --reset-delay 100 \
      --dump-slots "$L/slots-$sims" "$@" >"$L/sim-$sims.out" 2>"$L/sim-$sims.err" &
    SIM=$!
    mkdir -p "$L/slots-$sims"
    wait_until 60 sim_done
    if advertising; then
      echo "simulator $sims advertising (try $try): $(cat "$L/sim-$sims.out")"
      return 0
    fi
    echo "simulator $sims did not start: $(tail -n1 "$L/sim-$sims.err")"
    kill $SIM 2>/dev/null
    wait $SIM 2>/dev/null
  done
  return 1
}

# Whether process $1 has ended (gone, or a zombie: it wrote its slots before it exited).
sim_gone() { [ ! -e "/proc/$1" ] || grep -q '^[0-9]* ([^)]*) [ZX]' "/proc/$1/stat" 2>/dev/null; }

# stop_sim: stops it (it writes its slots to logs/slots-N); the slots' directory on stdout. Mostly
# called inside $(…), a subshell whose `wait` returns at once (the simulator is not its child):
# it polls until the simulator has ended, so the slots are there when the caller reads them.
stop_sim() {
  kill $SIM 2>/dev/null
  wait_until 30 sim_gone $SIM
  wait $SIM 2>/dev/null
  SIM=""
  echo "$L/slots-$sims"
}

# --- what the checks assert ---------------------------------------------------------------------

# The slot 0 hash of image 0 in `image list` text.
primary_hash() { awk '/image=0 slot=0/ { found = 1 } found && /hash:/ { print $2; exit }'; }
primary_flags() { awk '/image=0 slot=0/ { found = 1 } found && /flags:/ { $1 = ""; print; exit }'; }
image_hash() { mg image info "$1" --json | grep -m1 '"value"' | sed 's/.*: *"\([0-9a-f]*\)".*/\1/'; }

# upgrade_and_verify FILE CONNECTION...: a test-and-confirm upgrade of FILE (through $MG, mg by
# default); afterwards image list shows FILE's hash in slot 0, active and confirmed.
upgrade_and_verify() {
  file=$1
  shift
  ${MG:-mg} "$@" upgrade "$file" || return 1
  list=$(${MG:-mg} "$@" image list) || return 1
  echo "$list"
  expected=$(image_hash "$file")
  [ -n "$expected" ] && [ "$(echo "$list" | primary_hash)" = "$expected" ] || { echo "slot 0 does not hold $file ($expected)"; return 1; }
  echo "$list" | primary_flags | grep -q 'active confirmed' || { echo "slot 0 is not active and confirmed"; return 1; }
}

# same_as_slot FILE DIR [SLOT]: the bytes of FILE are those of image 0's slot SLOT (0 unless
# given: after an upgrade; 1 after an upload alone) in the simulator's dump.
same_as_slot() {
  size=$(stat -c %s "$1")
  cmp -n "$size" "$1" "$2/image-0-slot-${3:-0}.bin" && echo "slot ${3:-0} holds the $size bytes of $1"
}

# uploads_resumed LOG FILE: the simulator's request log shows the upload resumed after the drop
# (the bytes sent in upload requests are less than the image and half the part before the drop).
uploads_resumed() {
  total=$(grep 'write group=1 cmd=1 ' "$1" | sed 's/.* len=\([0-9]*\) .*/\1/' | awk '{ s += $1 } END { print s + 0 }')
  size=$(stat -c %s "$2")
  echo "upload requests carried $total bytes for a $size-byte image"
  [ "$total" -gt "$size" ] && [ "$total" -lt $((size + 50000)) ]
}

# fails_with NAME PATTERN SECONDS ARGS...: mcumgr ARGS fails with exit status 3, one line on
# standard error matching PATTERN, within SECONDS; what it did is kept in checks/NAME.mcumgr.*.
fails_with() {
  name=$1 pattern=$2 bound=$3
  shift 3
  start=$(now_ms)
  "$@" >/dev/null 2>"$C/$name.mcumgr.err"
  status=$?
  ms=$(( $(now_ms) - start ))
  echo $status >"$C/$name.mcumgr.status"
  echo $ms >"$C/$name.mcumgr.ms"
  echo "exit $status after $ms ms: $(cat "$C/$name.mcumgr.err")"
  [ $status = 3 ] && [ "$(wc -l <"$C/$name.mcumgr.err")" = 1 ] && grep -q "$pattern" "$C/$name.mcumgr.err" && [ $ms -le $((bound * 1000)) ]
}

# --- the checks ---------------------------------------------------------------------------------



c_no_adapter() { fails_with no-adapter 'no Bluetooth adapter' 30 mg --ble $ADDRESS --ble-type random echo hi; }
c_controllers() { start_controllers; }
c_bluetoothd() { start_bluetoothd; }
c_sim() { start_sim; }
c_scan() {
  out=$(mg --ble-scan --scan-seconds 5) || return 1
  echo "$out"
  echo "$out" | grep -q "$ADDRESS (random)  $NAME"
}
c_echo_address() {
  out=$(mg -v $SOCK $ADDRESS --ble-type random echo hello 2>"$C/echo-mtu.log") || { cat "$C/echo-mtu.log"; return 1; }
  [ "$out" = hello ]
}
c_mtu() { grep -o 'ATT MTU [0-9]*' "$C/echo-mtu.log" | tee /dev/stderr | grep -q 'ATT MTU 498'; }
c_echo_name() { [ "$(mg $SOCK $NAME echo by name)" = "by name" ]; }
c_image_list() {
  out=$(mg $SOCK $ADDRESS --ble-type random image list) || return 1
  echo "$out"
  echo "$out" | primary_flags | grep -q 'active confirmed'
}
c_upgrade_sim() { start_sim --ble-interval 15-30; }
c_upgrade() {
  upgrade_and_verify "$BLEVM_IN/image-a.bin" $SOCK $ADDRESS --ble-type random || return 1
  # 5 s into the connection the simulator asked for other connection parameters, as Zephyr does.
  grep 'connection parameters 12-24 (1.25 ms) asked' "$L/sim-$sims.err" | grep -q accepted
}
c_upgrade_slot() { same_as_slot "$BLEVM_IN/image-a.bin" "$(stop_sim)"; }
# The link drops at 100 000 bytes into the upload: the device goes silent for 1.5 s (c_drop_sim),
# or its controller is powered off and on with it (c_cycle_sim: the link ends with "power off",
# 0x15, the controller is reset and advertises again once the device is back).
c_drop_sim() { start_sim --disconnect-at 100000 --reconnect-delay 1500; }
c_cycle_sim() { start_sim --disconnect-at 100000 --reconnect-delay 1500 --ble-power-cycle; }
c_drop_upgrade() { upgrade_and_verify "$BLEVM_IN/image-b.bin" $SOCK $ADDRESS --ble-type random -t 3; }
c_drop_resumed() { dropped_and_resumed "$BLEVM_IN/image-b.bin"; }
c_cycle_resumed() { dropped_and_resumed "$BLEVM_IN/image-b.bin" cycled; }

# dropped_and_resumed FILE [cycled]: the simulator made the link again after the drop (and, with
# cycled, powered its controller off and on for it), the upload resumed, slot 0 holds FILE.
dropped_and_resumed() {
  slots=$(stop_sim)
  connections=$(grep -c 'central .* connected' "$L/sim-$sims.err")
  echo "$connections connections"
  [ "$connections" -ge 2 ] || { echo "the link was not dropped and made again"; return 1; }
  if [ "${2:-}" = cycled ]; then
    grep 'central .* disconnected\|controller powered off\|resetting the controller' "$L/sim-$sims.err"
    grep -q 'controller powered off until the device is back' "$L/sim-$sims.err" \
      && grep -q 'resetting the controller' "$L/sim-$sims.err" || { echo "the controller was not powered off and on"; return 1; }
  fi
  uploads_resumed "$L/sim-$sims.err" "$1" && same_as_slot "$1" "$slots"
}
connected() { hcitool con | grep -q "$ADDRESS"; }
disconnected() { ! connected; }
c_busy() {
  start_sim || return 1
  # The kernel connects on its own and bluetoothd's GATT client takes the link's ATT channel.
  btmgmt --index 0 add-device -a 2 -t 2 $ADDRESS >/dev/null
  wait_until 60 connected || { echo "the kernel did not connect"; return 1; }
  fails_with busy "bluetoothctl disconnect $ADDRESS" 30 mg $SOCK $ADDRESS --ble-type random echo hi
  status=$?
  btmgmt --index 0 del-device -t 2 $ADDRESS >/dev/null
  bluetoothctl disconnect $ADDRESS >/dev/null
  return $status
}
c_busy_recovered() {
  wait_until 30 disconnected || { echo "still connected: $(hcitool con)"; return 1; }
  [ "$(mg $SOCK $ADDRESS --ble-type random echo again)" = again ]
}
c_stop_bluetoothd() {
  stop_bluetoothd
  SOCK=--ble
  is_up hci0 || hciconfig hci0 up
  wait_until 10 is_up hci0
}
c_user_central() {
  hciconfig hci0 down || return 1
  [ "$(mg --hci user:0 --ble $NAME echo over the user channel)" = "over the user channel" ] || return 1
  upgrade_and_verify "$BLEVM_IN/image-a.bin" --hci user:0 --ble $ADDRESS --ble-type random
}
c_user_central_slot() { same_as_slot "$BLEVM_IN/image-a.bin" "$(stop_sim)" && hciconfig hci0 up; }
c_user_central_cycle_upgrade() {
  hciconfig hci0 down || return 1
  upgrade_and_verify "$BLEVM_IN/image-b.bin" --hci user:0 --ble $ADDRESS --ble-type random -t 3
  status=$?
  hciconfig hci0 up
  return $status
}

c_fail_powered_off() {
  hciconfig hci0 down
  fails_with powered-off 'powered off' 30 mg --ble $ADDRESS --ble-type random echo hi
  status=$?
  hciconfig hci0 up
  return $status
}
c_fail_unknown_adapter() { fails_with unknown-adapter 'no Bluetooth adapter hci7' 30 mg --ble-adapter hci7 --ble $ADDRESS --ble-type random echo hi; }
c_fail_name_not_found() { fails_with name-not-found "no advertisement from an SMP device named 'nosuchdevice'" 40 mg --ble nosuchdevice echo hi; }
c_fail_address_not_found() { fails_with address-not-found 'C0:5A:17:00:00:99' 40 mg --ble C0:5A:17:00:00:99 --ble-type random echo hi; }
c_fail_permission() {
  fails_with permission 'permission denied' 30 setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
    timeout -k 5 60 mcumgr --ble $NAME echo hi
}

# A device that needs pairing (--ble-require-pairing: its CCCD takes writes only on an encrypted
# link, which the simulator never makes, as a Zephyr device built with
# CONFIG_MCUMGR_TRANSPORT_BT_PERM_RW_AUTHEN answers an unpaired central): each path fails in one line.
c_pairing_sim() { start_sim --ble-require-pairing; }
c_fail_pairing() { fails_with pairing 'the device requires pairing' 40 mg $SOCK $ADDRESS --ble-type random echo hi; }
c_user_central_fail_pairing() {
  hciconfig hci0 down || return 1
  # A fresh peripheral: the kernel's last link to it ended with hci0's reset, which btvirt does not report to the peer.
  c_pairing_sim || return 1
  fails_with user-central-pairing 'requires a paired, encrypted link' 40 mg --hci user:0 --ble $ADDRESS --ble-type random echo hi
  status=$?
  hciconfig hci0 up
  return $status
}

# --- bluetoothd's D-Bus API (--bluez) --------------------------------------------------------------

bluez_owned() {
  dbus-send --system --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.NameHasOwner string:org.bluez 2>/dev/null | grep -q 'boolean true'
}
# Before any controller exists: bluetoothd runs and manages no adapter.
c_bluez_no_adapter() {
  mkdir -p /run/dbus
  [ -e /run/dbus/system_bus_socket ] || dbus-daemon --system --fork || return 1
  /usr/libexec/bluetooth/bluetoothd -n >>"$L/bluetoothd-no-adapter.log" 2>&1 &
  early=$!
  wait_until 30 bluez_owned || { kill $early; return 1; }
  fails_with bluez-no-adapter 'no Bluetooth adapter: bluetoothd manages none' 30 mg_user --bluez $ADDRESS echo hi
  status=$?
  kill $early
  wait $early
  return $status
}
c_bluez_echo_address() {
  out=$(mg_user -v --bluez $ADDRESS echo hello 2>"$C/bluez-echo-mtu.log") || { cat "$C/bluez-echo-mtu.log"; return 1; }
  [ "$out" = hello ]
}
c_bluez_mtu() {
  grep -o 'through bluetoothd: ATT MTU [0-9]*' "$C/bluez-echo-mtu.log" | tee /dev/stderr | grep -q 'ATT MTU 498'
}
c_bluez_echo_name() { [ "$(mg_user --bluez $NAME echo by name)" = "by name" ]; }
# --ble while bluetoothd runs goes through its D-Bus API (as an unprivileged user: the socket path could not scan).
c_bluez_default() {
  out=$(mg_user -v --ble $NAME echo chosen 2>"$C/bluez-default.log") || { cat "$C/bluez-default.log"; return 1; }
  [ "$out" = chosen ] && grep -q 'connecting through its D-Bus API' "$C/bluez-default.log"
}
c_bluez_image_list() {
  out=$(mg_user --bluez $ADDRESS image list) || return 1
  echo "$out"
  echo "$out" | primary_flags | grep -q 'active confirmed'
}
c_bluez_scan() {
  out=$(mg_user --ble-scan --scan-seconds 5) || return 1
  echo "$out"
  echo "$out" | grep -q "$ADDRESS (random)  $NAME"
}
# --bluez-no-acquire: writes through WriteValue, notifications through StartNotify (the fallback
# where bluetoothd offers no AcquireWrite/AcquireNotify), MTU from the characteristic's property.
c_bluez_calls() {
  out=$(mg_user -v --bluez $ADDRESS --bluez-no-acquire echo through calls 2>"$C/bluez-calls.log") || { cat "$C/bluez-calls.log"; return 1; }
  grep -o 'through bluetoothd: ATT MTU [0-9]* (WriteValue/StartNotify)' "$C/bluez-calls.log" || { cat "$C/bluez-calls.log"; return 1; }
  [ "$out" = "through calls" ]
}
c_bluez_calls_upload() {
  mg_user --log-level debug --bluez $ADDRESS --bluez-no-acquire image upload "$U/image-a.bin" 2>"$C/bluez-calls-upload.log" ||
    { grep -v ' image cmd 1 ' "$C/bluez-calls-upload.log" | tail -20; return 1; }
  same_as_slot "$BLEVM_IN/image-a.bin" "$(stop_sim)" 1
}
c_bluez_upgrade() {
  upgrade_as_user "$U/image-b.bin" --bluez $ADDRESS || return 1
  grep 'connection parameters 12-24 (1.25 ms) asked' "$L/sim-$sims.err" | grep -q accepted
}
upgrade_as_user() {
  MG=mg_user
  upgrade_and_verify "$@"
  status=$?
  MG=mg
  return $status
}
c_bluez_upgrade_slot() { same_as_slot "$BLEVM_IN/image-b.bin" "$(stop_sim)"; }
c_bluez_drop_upgrade() { upgrade_as_user "$U/image-a.bin" --bluez $ADDRESS -t 3; }
c_bluez_cycle_resumed() { dropped_and_resumed "$BLEVM_IN/image-a.bin" cycled; }
c_bluez_fail_powered_off() {
  btmgmt --index 0 power off >/dev/null
  fails_with bluez-powered-off 'is powered off' 30 mg_user --bluez $ADDRESS echo hi
  status=$?
  btmgmt --index 0 power on >/dev/null
  wait_until 10 is_up hci0
  return $status
}
c_bluez_fail_unknown_adapter() { fails_with bluez-unknown-adapter 'no Bluetooth adapter hci7' 30 mg_user --ble-adapter hci7 --bluez $ADDRESS echo hi; }
c_bluez_fail_name_not_found() { fails_with bluez-name-not-found "no advertisement from an SMP device named 'nosuchdevice'" 40 mg_user --bluez nosuchdevice echo hi; }
# A D-Bus policy that keeps user nobody from bluetoothd (Debian's lets every user in).
c_bluez_fail_permission() {
  cat >/etc/dbus-1/system.d/zz-blevm-deny.conf <<'POLICY'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><policy user="nobody"><deny send_destination="org.bluez"/></policy></busconfig>
POLICY
  dbus-send --system --type=method_call --dest=org.freedesktop.DBus / org.freedesktop.DBus.ReloadConfig || return 1
  fails_with bluez-permission 'permission denied' 30 setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
    timeout -k 5 60 mcumgr --bluez $ADDRESS echo hi
  status=$?
  rm /etc/dbus-1/system.d/zz-blevm-deny.conf
  dbus-send --system --type=method_call --dest=org.freedesktop.DBus / org.freedesktop.DBus.ReloadConfig
  return $status
}
c_bluez_fail_no_bluetoothd() { fails_with bluez-no-bluetoothd 'bluetoothd is not running' 30 mg_user --bluez $ADDRESS echo hi; }

# --- smpmgr (smpclient over bleak, BlueZ's D-Bus API) ------------------------------------------------

smpmgr() { PYTHONPATH=/tmp/python PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 timeout -k 5 180 python3 -m smpmgr "$@"; }
# bleak finds a device through discovery, which races the emulated controller's one report per
# scan-enable: up to three attempts, each bounded (30 s: under TCG on a loaded machine bleak's
# connect and bluetoothd's service discovery took more than 10 s).
c_smpmgr_upload() {
  [ -f "$BLEVM_IN/python.tar" ] || { echo "smpmgr is not in the inputs"; return 1; }
  mkdir -p /tmp/python && tar -C /tmp/python -xf "$BLEVM_IN/python.tar" || return 1
  start=$(now_ms)
  smpmgr --version || return 1
  echo "python3 -m smpmgr --version: $(( $(now_ms) - start )) ms"
  for try in 1 2 3; do
    start=$(now_ms)
    if smpmgr --ble $ADDRESS --timeout 30 --loglevel INFO image upload "$BLEVM_IN/image-a.bin" >"$C/smpmgr-try-$try.out" 2>&1; then
      echo $(( $(now_ms) - start )) >"$C/bench-smpmgr.ms"
      echo "uploaded on try $try"
      return 0
    fi
    echo "try $try failed: $(tail -n 3 "$C/smpmgr-try-$try.out")"
  done
  return 1
}
c_smpmgr_slot() { same_as_slot "$BLEVM_IN/image-a.bin" "$(stop_sim)" 1; }

# --- upload times through each path (one fresh simulator each; see Benchmarks/results) -----------

# bench NAME ARGS...: uploads image-a through ARGS, its time in checks/bench-NAME.ms.
bench_upload() {
  name=$1
  shift
  start=$(now_ms)
  mg "$@" image upload "$BLEVM_IN/image-a.bin" || return 1
  echo $(( $(now_ms) - start )) >"$C/bench-$name.ms"
  same_as_slot "$BLEVM_IN/image-a.bin" "$(stop_sim)" 1
}
c_bench_socket() { start_sim && bench_upload socket --ble-socket $ADDRESS --ble-type random; }
c_bench_bluez() { start_sim && bench_upload bluez --bluez $ADDRESS; }
c_bench_hci() { start_sim && hciconfig hci0 down && bench_upload hci --hci user:0 --ble $ADDRESS --ble-type random; status=$?; hciconfig hci0 up; return $status; }

# Without any adapter: before the controllers exist.
check no-adapter c_no_adapter
check bluez-fail-no-adapter c_bluez_no_adapter
check controllers c_controllers || true
btmon -w "$L/hci.btsnoop" >/dev/null 2>&1 &
BTMON=$!

# The kernel's L2CAP socket, with bluetoothd running.
check bluetoothd c_bluetoothd
check sim c_sim
check scan c_scan
check echo-address c_echo_address
check mtu c_mtu
check echo-name c_echo_name
check image-list c_image_list
check upgrade-sim c_upgrade_sim
check upgrade c_upgrade
check upgrade-slot c_upgrade_slot
check cycle-sim c_cycle_sim
check cycle-upgrade c_drop_upgrade
check cycle-resumed c_cycle_resumed
check fail-busy c_busy
check busy-recovered c_busy_recovered

# bluetoothd's D-Bus API, as an unprivileged user (uid 1000) unless said otherwise.
check bluez-sim c_sim
check bluez-echo-address c_bluez_echo_address
check bluez-mtu c_bluez_mtu
check bluez-echo-name c_bluez_echo_name
check bluez-default c_bluez_default
check bluez-image-list c_bluez_image_list
check bluez-scan c_bluez_scan
check bluez-calls c_bluez_calls
check bluez-calls-upload c_bluez_calls_upload
check bluez-upgrade-sim c_upgrade_sim
check bluez-upgrade c_bluez_upgrade
check bluez-upgrade-slot c_bluez_upgrade_slot
check bluez-cycle-sim c_cycle_sim
check bluez-cycle-upgrade c_bluez_drop_upgrade
check bluez-cycle-resumed c_bluez_cycle_resumed
check bluez-fail-powered-off c_bluez_fail_powered_off
check bluez-fail-unknown-adapter c_bluez_fail_unknown_adapter
check bluez-fail-name-not-found c_bluez_fail_name_not_found
check bluez-fail-permission c_bluez_fail_permission
check pairing-sim c_pairing_sim
check fail-pairing c_fail_pairing

# smpmgr over bleak (D-Bus), and the upload times of the three paths through BlueZ.
check smpmgr-sim c_sim
check smpmgr-upload c_smpmgr_upload
check smpmgr-slot c_smpmgr_slot
check bench-socket c_bench_socket
check bench-bluez c_bench_bluez

# The kernel's L2CAP socket without bluetoothd.
check stop-bluetoothd c_stop_bluetoothd
check bluez-fail-no-bluetoothd c_bluez_fail_no_bluetoothd
check nobluetoothd-sim c_sim
check nobluetoothd-scan c_scan
check nobluetoothd-echo-address c_echo_address
check nobluetoothd-mtu c_mtu
check nobluetoothd-echo-name c_echo_name
check nobluetoothd-image-list c_image_list
check nobluetoothd-upgrade-sim c_upgrade_sim
check nobluetoothd-upgrade c_upgrade
check nobluetoothd-upgrade-slot c_upgrade_slot
check nobluetoothd-drop-sim c_drop_sim
check nobluetoothd-drop-upgrade c_drop_upgrade
check nobluetoothd-drop-resumed c_drop_resumed

# Failures of the socket path, each one line, exit status 3, in bounded time.
check fail-powered-off c_fail_powered_off
check fail-unknown-adapter c_fail_unknown_adapter
check fail-name-not-found c_fail_name_not_found
check fail-address-not-found c_fail_address_not_found
check fail-permission c_fail_permission
check nobluetoothd-pairing-sim c_pairing_sim
check nobluetoothd-fail-pairing c_fail_pairing
check user-central-fail-pairing c_user_central_fail_pairing

# Our own LE host as the central, on hci0's user channel.
check user-central-sim c_sim
check user-central c_user_central
check user-central-slot c_user_central_slot
check user-central-cycle-sim c_cycle_sim
check user-central-cycle-upgrade c_user_central_cycle_upgrade
check user-central-cycle-resumed c_cycle_resumed
check bench-hci c_bench_hci

kill $BTMON 2>/dev/null
echo "$failed checks failed" | tee -a "$BLEVM_OUT/summary"
exit $failed
