# Shared by the BLE VM rig's scripts (sourced, not run): where the image cache is, how its key is
# made, and the one-line messages. See docs/blevm.md.

# The cache of VM images, outside the repository: $BLEVM_CACHE, else /var/cache/swift-mcumgr/blevm
# for root, else $XDG_CACHE_HOME/swift-mcumgr/blevm (~/.cache when unset).
blevm_cache_root() {
  if [ -n "${BLEVM_CACHE:-}" ]; then
    printf '%s\n' "$BLEVM_CACHE"
  elif [ "$(id -u)" = 0 ]; then
    printf '%s\n' /var/cache/swift-mcumgr/blevm
  else
    printf '%s\n' "${XDG_CACHE_HOME:-$HOME/.cache}/swift-mcumgr/blevm"
  fi
}

# The image's key: a hash of the script that builds it (package list, bootstrap init, hooks).
blevm_image_key() {
  sha256sum "$BLEVM_SCRIPTS/image.sh" | cut -c1-16
}

# One line on standard error, prefixed with the rig's name.
blevm_say() {
  printf 'blevm: %s\n' "$*" >&2
}

BLEVM_SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
