#!/usr/bin/env bash
# Checks that every tracked C++ file is formatted as .clang-format says
# (Debian's clang-format, installed here when missing).
#   check_format.sh          report files that differ, exit 1 if any
#   check_format.sh --fix    format them in place
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
command -v clang-format >/dev/null || bash "$repo/cmake/scripts/install_debian_packages.sh" clang-format
mapfile -t files < <(git ls-files '*.hpp' '*.cpp')
if [ "${1:-}" = --fix ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
bad=0
for f in "${files[@]}"; do
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "not formatted: $f (cmake/scripts/check_format.sh --fix)"
    bad=1
  fi
done
[ $bad = 0 ] && echo "format: ${#files[@]} files formatted as .clang-format says"
exit $bad
