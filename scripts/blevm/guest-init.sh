#!/bin/sh
# The BLE VM guest's init (PID 1), run by the image's bootstrap from the read-only input share
# /blevm/in: mounts the results share, runs /blevm/in/script under a time limit, records its
# output and exit status, and powers the guest off. See scripts/blevm/run.sh.
#
# In the guest: PATH has our binaries first and LD_LIBRARY_PATH the Swift runtime they link,
# both copied from the share into memory once (every exec over 9p under TCG costs seconds);
# BLEVM_IN is the input share, BLEVM_OUT the directory whose files come back to the host; /tmp
# and /run are tmpfs.
export PATH=/blevm/local/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LD_LIBRARY_PATH=/blevm/local/lib
export HOME=/root LANG=C.UTF-8 TERM=dumb
export BLEVM_IN=/blevm/in BLEVM_OUT=/blevm/out/files

mountpoint -q /tmp || mount -t tmpfs tmpfs /tmp
mkdir -p /dev/pts /dev/shm
mountpoint -q /dev/pts || mount -t devpts devpts /dev/pts
mountpoint -q /dev/shm || mount -t tmpfs tmpfs /dev/shm
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /blevm/out
mkdir -p /blevm/local
mount -t tmpfs tmpfs /blevm/local
cp -r /blevm/in/bin /blevm/in/lib /blevm/local/
mkdir -p "$BLEVM_OUT"
hostname blevm 2>/dev/null

limit=$(cat /blevm/in/timeout 2>/dev/null || echo 300)
date +%s.%N >/blevm/out/started
cd /tmp
timeout -k 5 "$limit" /bin/sh /blevm/in/script >/blevm/out/stdout 2>/blevm/out/stderr </dev/null
echo $? >/blevm/out/status.tmp
date +%s.%N >/blevm/out/finished
dmesg >/blevm/out/dmesg 2>/dev/null
mv /blevm/out/status.tmp /blevm/out/status
sync
umount /blevm/out
echo o >/proc/sysrq-trigger
