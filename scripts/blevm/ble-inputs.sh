#!/usr/bin/env bash
# The inputs of the BLE checks (scripts/blevm/ble-checks.sh): two MCUboot images of 220 KiB,
# versions 2.0.0 and 3.0.0, made by imgtool (the venv's, from scripts/bootstrap.sh) in DIR; and
# DIR/python.tar, smpmgr with its packages (bleak, dbus-fast, ...) for the guest's python3 (the host's
# Python and glibc are the guest's: pip installs them once into .build/blevm/python, the cache).
#
#   scripts/blevm/ble-inputs.sh DIR
set -euo pipefail
dir=$1
package_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
imgtool=${IMGTOOL:-$package_root/.venv/bin/imgtool}
mkdir -p "$dir"
for spec in a:2.0.0:1 b:3.0.0:2; do
  IFS=: read -r name version seed <<<"$spec"
  # Seeded payloads: the same images on every run.
  python3 -c "import random, sys; r = random.Random($seed); sys.stdout.buffer.write(bytes(r.getrandbits(8) for _ in range(220 * 1024)))" >"$dir/payload-$name.bin"
  "$imgtool" create --align 4 --version "$version" --header-size 0x200 --pad-header --slot-size 0x80000 \
    "$dir/payload-$name.bin" "$dir/image-$name.bin" >/dev/null
  rm "$dir/payload-$name.bin"
done

# smpmgr for the guest (no network there): installed once on the host with the venv's pip.
python_cache=${BLEVM_PYTHON_CACHE:-$package_root/.build/blevm/python}
wanted="smpmgr==0.19.1 smpclient==7.3.0"
if [ ! -f "$python_cache/.installed" ] || [ "$(cat "$python_cache/.installed")" != "$wanted" ]; then
  rm -rf "$python_cache"
  # shellcheck disable=SC2086
  "$package_root/.venv/bin/pip" install --quiet --disable-pip-version-check --target "$python_cache" $wanted
  # What smpmgr never imports (bumble's transport and its gRPC, crypto and HTTP stacks) stays out;
  # the rest is compiled here (the host's Python is the guest's) into .pyc files checked by no source time
  # that stay valid when copied: compiling it under TCG took minutes.
  (cd "$python_cache" && rm -rf bumble* grpc* google cryptography* aiohttp* libusb* bin)
  python3 -m compileall -q --invalidation-mode unchecked-hash "$python_cache" >/dev/null
  echo "$wanted" >"$python_cache/.installed"
fi
# One file on the share: the guest unpacks it into its own disk (opening thousands of files over 9p
# under TCG kept Python importing for minutes).
rm -rf "$dir/python" "$dir/python.tar"
tar -C "$python_cache" -cf "$dir/python.tar" .
