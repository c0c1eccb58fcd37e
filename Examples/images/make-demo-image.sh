#!/usr/bin/env bash
# Makes the example MCUboot image of the README demo with MCUboot's imgtool (from the project
# venv, .venv, made by scripts/bootstrap.sh): demo-app-1.1.0.bin, an unsigned image of version
# 1.1.0 with a 256 KiB pseudo-random payload (fixed seed, so the file is the same on every run),
# a 0x200-byte header (padded) and alignment 4, for a 512 KiB slot.
#
# The simulated device (mcumgr-sim, and mcumgr's built-in --sim) runs version 1.0.0, so this
# image is an upgrade for it:
#
#   mcumgr upgrade Examples/images/demo-app-1.1.0.bin
#
# The output is committed; run this script again only to change it.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(cd ../.. && pwd)
IMGTOOL=${IMGTOOL:-$ROOT/.venv/bin/imgtool}
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
if [ ! -x "$IMGTOOL" ] || [ ! -x "$PYTHON" ]; then
  echo "make-demo-image: $IMGTOOL not found; run scripts/bootstrap.sh first" >&2
  exit 1
fi

payload=$(mktemp)
trap 'rm -f "$payload"' EXIT
"$PYTHON" - "$payload" <<'PY'
import random, sys
rng = random.Random(20250101)
with open(sys.argv[1], "wb") as f:
    f.write(rng.randbytes(256 * 1024))
PY

"$IMGTOOL" create --version 1.1.0 --header-size 0x200 --pad-header --align 4 --slot-size 0x80000 \
  "$payload" demo-app-1.1.0.bin
"$IMGTOOL" verify demo-app-1.1.0.bin
