#!/usr/bin/env bash
# CUDA portability check, compile only, for machines with nvcc but no GPU:
# builds Kokkos for CUDA (sm_90) with setup_deps.sh, then compiles and links
# all of Trellis (library, CLI, tests, benchmarks with the cuSPARSE
# baselines) against it. Catches what only nvcc rejects (extended lambdas in
# constructors or private members, device-only calls) before a GPU run.
# Running the result needs the GPU machine (device_check.sh).
#
#   check_cuda_compile.sh                 everything (TRELLIS_CUDA_TARGETS: some cmake targets)
#   check_cuda_compile.sh OBJECT ...      single translation units, minutes each on 2
#       cores: eti/StructIlu_CudaDevice.o (the library's), struct_bench.o
#       (perf_tests/), test_structilu.o (unit_tests/)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || { echo "no nvcc: nothing to check" >&2; exit 1; }
export PATH="$PATH:/usr/local/cuda/bin"
build="${TRELLIS_CUDA_BUILD_DIR:-$repo/build/cuda-check}"
prefix="$(bash "$repo/cmake/deps/setup_deps.sh" --no-apt cuda | awk '$1 == "cuda" {print $2}')"
mkdir -p "$build"
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" \
  -DKokkos_ROOT="$prefix" -DKokkosKernels_ROOT="$prefix" -DTRELLIS_ENABLE_MPI=OFF ${TRELLIS_CUDA_CMAKE_ARGS:-} \
  >"$build/trellis-configure.log" 2>&1 || { cat "$build/trellis-configure.log" >&2; exit 1; }
if [ $# -gt 0 ]; then
  for object in "$@"; do
    dir="$build"  # an object of the library, else of the benchmarks or the tests
    for sub in perf_tests unit_tests; do
      grep -q "^${object}:" "$build/$sub/Makefile" && dir="$build/$sub"
    done
    log="$build/compile-${object//\//_}.log"
    # -B: CMake tracks no header dependencies for nvcc_wrapper here; a stale
    # object would pass unchecked.
    make -C "$dir" -B "$object" >"$log" 2>&1 || { grep -E "error" -A3 "$log" | head -60 >&2; exit 1; }
    echo "CUDA compile check: $object compiled in $dir"
  done
  exit 0
fi
cmake --build "$build" -j "${TRELLIS_JOBS:-$(nproc)}" ${TRELLIS_CUDA_TARGETS:+--target $TRELLIS_CUDA_TARGETS} \
  >"$build/trellis-build.log" 2>&1 || { grep -E "error" -A3 "$build/trellis-build.log" | head -60 >&2; exit 1; }
echo "CUDA compile check: Trellis built for CUDA (sm_90) in $build"
