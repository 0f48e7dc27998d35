#!/usr/bin/env bash
# Fills .device-carry/ (git-ignored) with what the GPU machine lacks and cannot
# download: GoogleTest sources, METIS, nlohmann-json and CLI11 (Debian .debs,
# unpacked there into a folder, never into /), and the real test matrices. Kokkos
# sources travel separately as .deps/src (made by setup_deps.sh).
#
# Then, with the device tool:  carry [".deps/src", ".device-carry"]
#   command: bash cmake/scripts/device_check.sh
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="$repo/.device-carry"
bash "$repo/cmake/deps/setup_deps.sh" >/dev/null   # sources (and host build) ready
rm -rf "$out" && mkdir -p "$out/debs"
cp -r /usr/src/googletest "$out/googletest"
(cd "$out/debs" && apt-get download libmetis5 libmetis-dev nlohmann-json3-dev libcli11-dev >/dev/null 2>&1)
matrices="${TRELLIS_MATRICES:-$repo/../shared/matrices}"
[ -d "$matrices" ] && cp -r "$matrices" "$out/matrices"
# The commit the carried tree is (with "+changes" when it differs from it):
# the GPU machine's copy has no .git, and result files record it.
commit="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
git -C "$repo" diff --quiet HEAD 2>/dev/null || commit="$commit+changes"
echo "$commit" >"$out/commit"
du -sh "$out" "$repo/.deps/src"
