#!/usr/bin/env bash
# HIP portability check, compile only (no AMD GPU here): builds Kokkos for HIP
# (gfx908) with Debian's hipcc, then compiles and links all of Trellis (library,
# CLI, tests, benchmarks) against it. Running needs an AMD GPU.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${TRELLIS_HIP_BUILD_DIR:-$repo/build/hip}"
prefix="$(bash "$repo/cmake/deps/setup_deps.sh" hip | awk '$1 == "hip" {print $2}')"
mkdir -p "$build"
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$(command -v hipcc)" \
  -DKokkos_ROOT="$prefix" -DKokkosKernels_ROOT="$prefix" -DTRELLIS_ENABLE_MPI=OFF \
  >"$build/trellis-configure.log" 2>&1 || { cat "$build/trellis-configure.log" >&2; exit 1; }
cmake --build "$build" -j "${TRELLIS_JOBS:-$(nproc)}" >"$build/trellis-build.log" 2>&1 \
  || { grep -E "error" -A3 "$build/trellis-build.log" | head -60 >&2; exit 1; }
echo "HIP compile check: Trellis built for HIP (gfx908) in $build"
