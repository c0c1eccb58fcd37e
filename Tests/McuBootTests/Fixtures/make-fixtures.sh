#!/usr/bin/env bash
# Regenerates the MCUboot image fixtures of the McuBoot tests with imgtool from the project
# venv (.venv, created by scripts/bootstrap.sh / `make test`).
#
#   keys/        test keys (imgtool keygen; made once and kept) and their public halves
#   payloads/    small pseudo-random payloads, fixed seeds
#   images/      imgtool-made images (see IMAGES below)
#   expectations.json   per image: the imgtool arguments, `imgtool verify` version and digest,
#                       and the full `imgtool dumpinfo -f json` report
#
# The outputs are committed; the tests do not run this script. Unsigned and Ed25519 images are
# reproducible byte for byte; ECDSA and RSA-PSS signatures are randomised, so an existing image is
# kept as it is (only expectations.json is recomputed from it) unless REGENERATE=1 is set. Set it
# after changing an image's arguments below.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(cd ../../.. && pwd)
IMGTOOL=${IMGTOOL:-$ROOT/.venv/bin/imgtool}
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
if [ ! -x "$IMGTOOL" ] || [ ! -x "$PYTHON" ]; then
  echo "make-fixtures: $IMGTOOL not found; run scripts/bootstrap.sh (or make test) first" >&2
  exit 1
fi

mkdir -p keys payloads images

# Test keys: generated once, then kept so that committed images keep verifying.
[ -f keys/ecdsa-p256.pem ] || "$IMGTOOL" keygen -t ecdsa-p256 -k keys/ecdsa-p256.pem
[ -f keys/ed25519.pem ] || "$IMGTOOL" keygen -t ed25519 -k keys/ed25519.pem
[ -f keys/rsa-2048.pem ] || "$IMGTOOL" keygen -t rsa-2048 -k keys/rsa-2048.pem
[ -f keys/rsa-3072.pem ] || "$IMGTOOL" keygen -t rsa-3072 -k keys/rsa-3072.pem
for key in ecdsa-p256 ed25519 rsa-2048 rsa-3072; do
  "$IMGTOOL" getpub -e pem -k "keys/$key.pem" -o "keys/$key.pub.pem"
done

# Payloads: name seed size.
"$PYTHON" - <<'PY'
import random
for name, seed, size in [("a", 1, 3000), ("b", 2, 2048), ("c", 3, 1500)]:
    rng = random.Random(seed)
    with open(f"payloads/{name}.bin", "wb") as f:
        f.write(bytes(rng.getrandbits(8) for _ in range(size)))
# An input that already carries 0x200 zero bytes of header space (Zephyr style, no --pad-header).
with open("payloads/c.bin", "rb") as f:
    data = f.read()
with open("payloads/c-zero-header.bin", "wb") as f:
    f.write(bytes(0x200) + data)
PY

# name|payload|key (or -)|imgtool create arguments
IMAGES=(
  "unsigned|a|-|-v 1.0.0 -H 0x20 --pad-header -S 0x20000"
  "build-version|a|-|-v 1.2.3+7 -H 0x20 --pad-header -S 0x20000"
  "header-0x200|c|-|-v 0.9.8 -H 0x200 --pad-header -S 0x20000"
  "zero-header|c-zero-header|-|-v 0.9.9 -H 0x200 -S 0x20000"
  "protected-tlvs|c|-|-v 1.4.0 -H 0x20 --pad-header -S 0x20000 --security-counter 42 --dependencies (1,2.3.4+5) --custom-tlv 0xa0 0x0102030405 --custom-tlv 0xa1 hello"
  "flags|b|-|-v 2.0.0 -H 0x20 --pad-header -S 0x20000 --non-bootable --load-addr 0x20008000"
  "sha384|b|-|-v 2.2.2 -H 0x20 --pad-header -S 0x20000 --sha 384"
  "padded-confirm|c|-|-v 1.0.1 -H 0x20 --pad-header -S 0x1000 -M 16 --align 4 --confirm"
  "signed-ecdsa-p256|b|ecdsa-p256|-v 2.1.0 -H 0x200 --pad-header -S 0x20000"
  "signed-ecdsa-p256-seccnt|a|ecdsa-p256|-v 4.5.6+1 -H 0x20 --pad-header -S 0x20000 --security-counter auto"
  "signed-ed25519|a|ed25519|-v 3.0.1+12 -H 0x20 --pad-header -S 0x20000"
  "signed-ed25519-sha512-full|b|ed25519|-v 3.1.0 -H 0x20 --pad-header -S 0x20000 --sha 512 --public-key-format full"
  "signed-rsa2048|a|rsa-2048|-v 5.0.0 -H 0x20 --pad-header -S 0x20000"
  "signed-rsa3072-full|c|rsa-3072|-v 5.1.2+3 -H 0x200 --pad-header -S 0x20000 --security-counter 7 --public-key-format full"
)

records=$(mktemp)
trap 'rm -f "$records"' EXIT
for entry in "${IMAGES[@]}"; do
  IFS='|' read -r name payload key args <<<"$entry"
  # shellcheck disable=SC2206  # the arguments are split on purpose
  argv=($args)
  keyargs=()
  [ "$key" = "-" ] || keyargs=(-k "keys/$key.pem")
  if [ "${REGENERATE:-0}" = 1 ] || [ ! -f "images/$name.bin" ]; then
    "$IMGTOOL" create "${argv[@]}" "${keyargs[@]}" "payloads/$payload.bin" "images/$name.bin" >/dev/null
  fi
  verify=$("$IMGTOOL" verify "${keyargs[@]}" "images/$name.bin")
  dump=$("$IMGTOOL" dumpinfo -f json "images/$name.bin")
  "$PYTHON" - "$name" "$payload" "$key" "$args" "$verify" "$dump" >>"$records" <<'PY'
import json, sys
name, payload, key, args, verify, dump = sys.argv[1:]
fields = dict(line.split(": ", 1) for line in verify.splitlines() if ": " in line)
print(json.dumps({
    "name": name,
    "image": f"images/{name}.bin",
    "payload": f"payloads/{payload}.bin",
    "key": None if key == "-" else f"keys/{key}.pem",
    "publicKey": None if key == "-" else f"keys/{key}.pub.pem",
    "imgtoolArguments": args.split(),
    "version": fields["Image version"],
    "hash": fields["Image digest"],
    "dumpinfo": json.loads(dump),
}))
PY
done
"$PYTHON" - "$records" <<'PY'
import json, sys
entries = [json.loads(line) for line in open(sys.argv[1])]
import imgtool
doc = {"imgtool": imgtool.imgtool_version, "images": entries}
with open("expectations.json", "w") as f:
    json.dump(doc, f, indent=2)
    f.write("\n")
PY
echo "make-fixtures: wrote ${#IMAGES[@]} images and expectations.json"
