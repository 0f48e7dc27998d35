#!/usr/bin/env bash
# HIP portability check, compile only (no AMD GPU here): builds Kokkos for HIP
# (gfx908) with Debian's hipcc, then compiles and links Trellis's library, CLI
# and unit tests against it (the benchmarks run the library's kernels: the
# host and CUDA builds compile them). Running needs an AMD GPU. Trellis is
# compiled at -O0: every kernel still goes through gfx908 code generation, in
# about 0.4x the time of -O3 (a run on an AMD GPU wants the Release build).
# Only the HIP backend's instantiations and typed tests are compiled here:
# the Serial backend this Kokkos also has is the host build's to compile
# and test (TRELLIS_ETI_BACKENDS, TRELLIS_TEST_HOST_BACKENDS).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${TRELLIS_HIP_BUILD_DIR:-$repo/build/hip}"
prefix="$(bash "$repo/cmake/deps/setup_deps.sh" hip | awk '$1 == "hip" {print $2}')"
mkdir -p "$build"
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 \
  -DCMAKE_CXX_COMPILER="$(command -v hipcc)" \
  -DKokkos_ROOT="$prefix" -DKokkosKernels_ROOT="$prefix" -DTRELLIS_ENABLE_MPI=OFF \
  -DTRELLIS_ENABLE_PERF_TESTS=OFF -DTRELLIS_ETI_BACKENDS=HIP -DTRELLIS_TEST_HOST_BACKENDS=OFF \
  >"$build/trellis-configure.log" 2>&1 || { cat "$build/trellis-configure.log" >&2; exit 1; }
cmake --build "$build" -j "${TRELLIS_JOBS:-$(nproc)}" >"$build/trellis-build.log" 2>&1 \
  || { grep -E "error" -A3 "$build/trellis-build.log" | head -60 >&2; exit 1; }
echo "HIP compile check: Trellis built for HIP (gfx908) in $build"
