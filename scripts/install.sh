#!/usr/bin/env bash
# Installs mcumgr and mcumgr-sim from a build directory into PREFIX (make install runs it):
#   PREFIX/bin/mcumgr, PREFIX/bin/mcumgr-sim
#   PREFIX/lib/mcumgr/libMcuMgrZIP.so          (opened by mcumgr only to read DFU packages)
#   PREFIX/share/bash-completion/completions/{mcumgr,mcumgr-sim}
#   PREFIX/share/zsh/site-functions/{_mcumgr,_mcumgr-sim}
#   PREFIX/share/fish/vendor_completions.d/{mcumgr,mcumgr-sim}.fish
#   PREFIX/share/man/man1/*.1                  (from MANUAL_DIR, swift-argument-parser's generate-manual output)
# The completion scripts come from the installed programs themselves (--generate-completion-script).
# Usage: scripts/install.sh PREFIX BUILD_DIR [MANUAL_DIR]
set -euo pipefail
prefix=${1:?usage: scripts/install.sh PREFIX BUILD_DIR [MANUAL_DIR]}
build=${2:?usage: scripts/install.sh PREFIX BUILD_DIR [MANUAL_DIR]}
manuals=${3:-}

for program in mcumgr mcumgr-sim; do
  test -x "$build/$program" || { echo "install: $build/$program is missing: build it first (make install builds it)" >&2; exit 1; }
done
test -f "$build/libMcuMgrZIP.so" || { echo "install: $build/libMcuMgrZIP.so is missing: build it first (make install builds it)" >&2; exit 1; }

mkdir -p "$prefix/bin" "$prefix/lib/mcumgr" "$prefix/share/bash-completion/completions" \
  "$prefix/share/zsh/site-functions" "$prefix/share/fish/vendor_completions.d" "$prefix/share/man/man1"
for program in mcumgr mcumgr-sim; do
  install -m 755 "$build/$program" "$prefix/bin/$program"
  "$prefix/bin/$program" --generate-completion-script bash > "$prefix/share/bash-completion/completions/$program"
  "$prefix/bin/$program" --generate-completion-script zsh > "$prefix/share/zsh/site-functions/_$program"
  "$prefix/bin/$program" --generate-completion-script fish > "$prefix/share/fish/vendor_completions.d/$program.fish"
done
install -m 644 "$build/libMcuMgrZIP.so" "$prefix/lib/mcumgr/libMcuMgrZIP.so"

if [ -n "$manuals" ]; then
  count=0
  for page in "$manuals"/*/*.1 "$manuals"/*.1; do
    [ -f "$page" ] || continue
    install -m 644 "$page" "$prefix/share/man/man1/$(basename "$page")"
    count=$((count + 1))
  done
  [ "$count" -gt 0 ] || { echo "install: no manual pages in $manuals" >&2; exit 1; }
fi
echo "install: mcumgr $("$prefix/bin/mcumgr" --version) in $prefix"
