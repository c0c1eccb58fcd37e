#!/usr/bin/env bash
# Installs what the build and the tests need when it is missing:
#   - Debian packages libcbor-dev, libbluetooth-dev and libdbus-1-dev (and pkg-config); qemu-system-x86,
#     qemu-utils and mmdebstrap for the BLE VM (scripts/blevm, docs/blevm.md),
#   - a Python venv in .venv with the PyPI peers of scripts/requirements-peers.txt.
# Safe to run again: it does nothing when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
for pkg in libcbor-dev libbluetooth-dev libdbus-1-dev pkg-config qemu-system-x86 qemu-utils mmdebstrap; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

stamp=.venv/.requirements
if [ ! -x .venv/bin/python ] || ! cmp -s scripts/requirements-peers.txt "$stamp"; then
  echo "bootstrap: creating the Python venv .venv with the SMP peers"
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check -r scripts/requirements-peers.txt
  cp scripts/requirements-peers.txt "$stamp"
fi
