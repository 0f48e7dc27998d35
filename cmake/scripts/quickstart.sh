#!/usr/bin/env bash
# The README's two commands.
#
#   quickstart.sh run  [PROBLEM]  set up, build, run the main job on PROBLEM
#                                 (default: the embedded default problem)
#   quickstart.sh test            set up, build, run the unit test suite
#
# "Set up" = install Debian packages and build Kokkos/Kokkos Kernels for the
# host (OpenMP + Serial) with cmake/deps/setup_deps.sh, skipping work already
# done. Build tree: build/host (override with TRELLIS_BUILD_DIR).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mode="${1:-}"
[ $# -gt 0 ] && shift
build="${TRELLIS_BUILD_DIR:-$repo/build/host}"
jobs="${TRELLIS_JOBS:-$(nproc)}"

case "$mode" in
  run|test) ;;
  *) echo "usage: quickstart.sh run [PROBLEM] | quickstart.sh test" >&2; exit 2 ;;
esac

mkdir -p "$build"
log="$build/trellis-configure.log"
prefix="$(bash "$repo/cmake/deps/setup_deps.sh" host | awk '$1 == "host" {print $2}')"
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DKokkos_ROOT="$prefix" -DKokkosKernels_ROOT="$prefix" >"$log" 2>&1 \
  || { cat "$log" >&2; exit 1; }
if [ "$mode" = run ]; then
  cmake --build "$build" -j "$jobs" --target trellis_cli
  export OMP_PROC_BIND="${OMP_PROC_BIND:-spread}" OMP_PLACES="${OMP_PLACES:-threads}"
  # The main job: `trellis solve --compare` (the default problem unless one is given).
  exec "$build/apps/trellis" solve --compare "$@"
else
  cmake --build "$build" -j "$jobs"
  export OMP_PROC_BIND="${OMP_PROC_BIND:-false}"
  cd "$build" && ctest -L unit --output-on-failure --timeout 900
fi
