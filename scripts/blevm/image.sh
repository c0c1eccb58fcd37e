#!/usr/bin/env bash
# The BLE VM's disk image: builds it, or reuses the one cached for this script's hash.
#
#   scripts/blevm/image.sh        prints the image's directory (rootfs.img, vmlinuz, initrd.img)
#
# A Debian 12 (the host's release) "essential" system with the kernel, BlueZ (bluetoothd, btmgmt,
# btvirt), D-Bus, the libraries our binaries link (libcbor, libbluetooth, libdbus-1) and python3 (for
# smpmgr over bleak, whose packages come from the run's input share); an initramfs with
# only the virtio and ext4 modules; a bootstrap init that mounts the run's input share and hands
# over to the init found there (scripts/blevm/guest-init.sh, so that changing the guest side
# needs no new image). Needs root, mmdebstrap and network access to a Debian mirror; ~2 minutes.
#
# Exit status: 0 ready; 3 it cannot be built here (not root, a tool missing): one line says why;
# 1 the build failed (its log is named).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# What the image holds. Changing anything in this file makes a new key, hence a new image.
packages=(
  linux-image-amd64 kmod mount procps util-linux libstdc++6
  bluez bluez-test-tools dbus
  libcbor0.8 libbluetooth3 libdbus-1-3
  python3
)
# Kernel modules nobody loads in the guest: left out to keep the image small and mkfs short.
excluded_modules=(drivers/gpu drivers/media drivers/net/wireless drivers/infiniband drivers/staging sound)

root=$(blevm_cache_root)
key=$(blevm_image_key)
dir="$root/$key"

if [ -f "$dir/ready" ]; then
  printf '%s\n' "$dir"
  exit 0
fi

if [ "$(id -u)" != 0 ]; then
  blevm_say "cannot build the VM image: it needs root (mmdebstrap, mkfs.ext4 -d); run 'make blevm' as root once, or set BLEVM_CACHE to a built cache"
  exit 3
fi
for tool in mmdebstrap mkfs.ext4 flock; do
  if ! command -v "$tool" >/dev/null; then
    blevm_say "cannot build the VM image: $tool is missing (scripts/bootstrap.sh installs mmdebstrap)"
    exit 3
  fi
done

mkdir -p "$root"
exec 9>"$root/.lock"
flock 9
# Another build may have finished while this one waited for the lock.
if [ -f "$dir/ready" ]; then
  printf '%s\n' "$dir"
  exit 0
fi

work=$(mktemp -d "$root/.build-$key.XXXXXX")
log="$root/build-$key.log"
trap 'rm -rf "$work"' EXIT
blevm_say "building the VM image $key in $root (log: $log)"
started=$(date +%s)

# The bootstrap init: everything else comes from the input share (guest-init.sh).
cat >"$work/blevm-init" <<'INIT'
#!/bin/sh
# swift-mcumgr BLE VM bootstrap: mounts the run's input share and hands over to its init.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mountpoint -q /proc || mount -t proc proc /proc
mountpoint -q /sys || mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mountpoint -q /run || mount -t tmpfs tmpfs /run
modprobe -a 9pnet_virtio 9p
mkdir -p /blevm/in
if mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 in /blevm/in && [ -x /blevm/in/init ]; then
  exec /blevm/in/init
fi
echo "blevm: no input share with an init; powering off" >/dev/console
echo o >/proc/sysrq-trigger
INIT

dpkg_options=(--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*'
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*')
for module in "${excluded_modules[@]}"; do
  dpkg_options+=(--dpkgopt="path-exclude=/usr/lib/modules/*/kernel/$module/*")
done

if ! mmdebstrap --variant=essential --include="$(IFS=,; echo "${packages[*]}")" "${dpkg_options[@]}" \
  --setup-hook='mkdir -p "$1/etc/initramfs-tools/conf.d"' \
  --setup-hook='echo MODULES=list >"$1/etc/initramfs-tools/conf.d/blevm.conf"' \
  --customize-hook='printf "virtio_pci\nvirtio_blk\next4\n" >>"$1/etc/initramfs-tools/modules"' \
  --customize-hook='chroot "$1" update-initramfs -u -k all' \
  --customize-hook="copy-in $work/blevm-init /usr/local/sbin" \
  --customize-hook='chmod 755 "$1/usr/local/sbin/blevm-init"' \
  --customize-hook='mkdir -p "$1/blevm/in" "$1/blevm/out" "$1/blevm/local"' \
  bookworm "$work/tree" >"$log" 2>&1; then
  blevm_say "the VM image build failed (mmdebstrap); see $log"
  exit 1
fi

cp "$work"/tree/boot/vmlinuz-* "$work/vmlinuz"
cp "$work"/tree/boot/initrd.img-* "$work/initrd.img"
size=$(( $(du -sm "$work/tree" | cut -f1) * 5 / 4 + 128 ))
truncate -s "${size}M" "$work/rootfs.img"
if ! mkfs.ext4 -q -F -L blevm -d "$work/tree" "$work/rootfs.img" >>"$log" 2>&1; then
  blevm_say "the VM image build failed (mkfs.ext4); see $log"
  exit 1
fi
rm -rf "$work/tree"
rm -rf "$dir"
mkdir -p "$dir"
mv "$work/rootfs.img" "$work/vmlinuz" "$work/initrd.img" "$dir/"
printf '%s\n' "${packages[@]}" >"$dir/packages"
touch "$dir/ready"
blevm_say "VM image $key ready in $(( $(date +%s) - started )) s: $dir ($(du -sm "$dir" | cut -f1) MB)"
printf '%s\n' "$dir"
