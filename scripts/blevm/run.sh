#!/usr/bin/env bash
# Boots the BLE VM once and runs one guest script in it.
#
#   scripts/blevm/run.sh --out DIR [--timeout SECONDS] [--bin DIR] [--input FILE]... SCRIPT
#
# The guest is Debian 12 with its own kernel (qemu; KVM when /dev/kvm can run a stock kernel,
# else TCG), no network, the image read-only (snapshot=on). SCRIPT runs as root under /bin/sh
# with, on a read-only share at $BLEVM_IN: SCRIPT itself, each --input FILE, and bin/ with
# mcumgr and mcumgr-sim from --bin DIR (default .build/debug), and lib/ with the Swift runtime
# libraries they link from the host toolchain (the guest has the host's glibc). Whatever SCRIPT
# writes under $BLEVM_OUT comes back in DIR/files.
#
# DIR receives: stdout, stderr and status of SCRIPT; files/; console.log (the guest's serial
# console); dmesg; timing (boot and run seconds). Exit status: SCRIPT's own; 124 when the guest
# did not finish within SECONDS (default 300) plus the boot allowance; 125 when the VM could not
# run (no qemu, no image): DIR/rig-error and standard error say why in one line.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
package_root=$(cd "$BLEVM_SCRIPTS/../.." && pwd)

out="" limit=300 bin="$package_root/.build/debug" script="" inputs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --input) inputs+=("$2"); shift 2 ;;
    -*) blevm_say "unknown option $1"; exit 2 ;;
    *) script=$1; shift ;;
  esac
done
if [ -z "$out" ] || [ -z "$script" ]; then
  blevm_say "usage: run.sh --out DIR [--timeout SECONDS] [--bin DIR] [--input FILE]... SCRIPT"
  exit 2
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/files" "$out/status" "$out/stdout" "$out/stderr" "$out/rig-error" "$out/console.log" "$out/dmesg" "$out/timing"
mkdir -p "$out/files"

fail() {
  printf '%s\n' "$1" >"$out/rig-error"
  blevm_say "$1"
  exit 125
}

command -v qemu-system-x86_64 >/dev/null || fail "qemu-system-x86_64 is missing (scripts/bootstrap.sh installs qemu-system-x86)"
set +e
image=$("$BLEVM_SCRIPTS/image.sh")
built=$?
set -e
[ $built = 0 ] || fail "no VM image: $(tail -n1 "$(blevm_cache_root)/build-$(blevm_image_key).log" 2>/dev/null || echo "image.sh exited with $built")"

staging=$(mktemp -d "${TMPDIR:-/tmp}/blevm-in.XXXXXX")
trap 'rm -rf "$staging"' EXIT
install -m 755 "$BLEVM_SCRIPTS/guest-init.sh" "$staging/init"
install -m 644 "$script" "$staging/script"
echo "$limit" >"$staging/timeout"
mkdir -p "$staging/bin" "$staging/lib"
for name in mcumgr mcumgr-sim; do
  [ -x "$bin/$name" ] || continue
  # Stripped: the guest copies what it runs into memory, and 9p under TCG is slow.
  strip -o "$staging/bin/$name" "$bin/$name" 2>/dev/null || cp "$bin/$name" "$staging/bin/"
  # The Swift runtime libraries it links from the toolchain (none when built with --static-swift-stdlib).
  ldd "$bin/$name" | awk '$3 ~ /\/usr\/lib\/swift\// { print $3 }' | while read -r library; do
    [ -f "$staging/lib/$(basename "$library")" ] || cp "$library" "$staging/lib/"
  done
done
for input in "${inputs[@]}"; do
  cp -r "$input" "$staging/"
done

# KVM only when it can run a stock kernel: a PVM /dev/kvm (kvm_pvm loaded) cannot.
accel=${BLEVM_ACCEL:-}
if [ -z "$accel" ]; then
  if [ -r /dev/kvm ] && [ -w /dev/kvm ] && [ ! -d /sys/module/kvm_pvm ]; then accel=kvm; else accel=tcg,thread=multi; fi
fi
shares=(-virtfs "local,path=$staging,mount_tag=in,security_model=none,readonly=on"
  -virtfs "local,path=$out,mount_tag=out,security_model=none")

# The boot allowance: TCG reaches init in ~15 s on an idle machine; a loaded one takes longer.
allowance=${BLEVM_BOOT_ALLOWANCE:-120}
started=$(date +%s.%N)
set +e
timeout -k 10 $((limit + allowance)) qemu-system-x86_64 \
  -machine q35 -accel "$accel" -cpu max -smp 2 -m 1024 \
  -kernel "$image/vmlinuz" -initrd "$image/initrd.img" \
  -append "root=/dev/vda rw console=ttyS0 panic=-1 init=/usr/local/sbin/blevm-init" \
  -drive "file=$image/rootfs.img,if=virtio,format=raw,snapshot=on" \
  "${shares[@]}" -nic none -display none -monitor none -serial "file:$out/console.log" -no-reboot \
  >"$out/qemu.log" 2>&1
qemu_status=$?
set -e
finished=$(date +%s.%N)

if [ -f "$out/status" ]; then
  awk -v s="$started" -v f="$finished" -v a="$(cat "$out/started")" -v b="$(cat "$out/finished")" -v accel="$accel" \
    'BEGIN { printf "accel %s\nboot %.1f s\nscript %.1f s\ntotal %.1f s\n", accel, a - s, b - a, f - s }' >"$out/timing"
  rm -f "$out/started" "$out/finished"
  exit "$(cat "$out/status")"
fi
if [ $qemu_status = 124 ] || [ $qemu_status = 137 ]; then
  printf 'the guest did not finish within %s s (+%s s to boot); see %s\n' "$limit" "$allowance" "$out/console.log" >"$out/rig-error"
  blevm_say "$(cat "$out/rig-error")"
  exit 124
fi
fail "the VM stopped without a result (qemu exit $qemu_status): $(tail -n1 "$out/qemu.log" 2>/dev/null)$(grep -m1 -i 'panic\|not syncing' "$out/console.log" 2>/dev/null)"
