#!/usr/bin/env bash
# Installs the named Debian packages that are not installed yet (as root, or
# through sudo); does nothing, and reaches no network, when all are.
#
#   install_debian_packages.sh PACKAGE...
set -euo pipefail
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
echo "[trellis] installing Debian packages: ${missing[*]}" >&2
as_root apt-get update -q >&2
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
