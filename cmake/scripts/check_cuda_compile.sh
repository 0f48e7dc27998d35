#!/usr/bin/env bash
# CUDA compile check on a machine with nvcc but no GPU (nothing runs): builds
# Kokkos for CUDA (sm_90) as the GPU machine does, then compiles the given
# make targets of a CUDA build of Trellis (default: the library; object files
# such as eti/StructIlu_CudaDevice.o or, in perf_tests/, struct_bench.o
# compile one translation unit). Catches nvcc-only errors (extended lambdas,
# cuSPARSE calls) before a device call.
#
#   bash cmake/scripts/check_cuda_compile.sh [TARGET ...]
#   (CUDA_HOME, default /usr/local/cuda; TRELLIS_CUDA_BUILD_DIR, default build/cuda-compile)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${TRELLIS_CUDA_BUILD_DIR:-$repo/build/cuda-compile}"
cuda="${CUDA_HOME:-/usr/local/cuda}"
[ -x "$cuda/bin/nvcc" ] || { echo "check_cuda_compile: no nvcc in $cuda/bin (set CUDA_HOME)" >&2; exit 1; }
export PATH="$cuda/bin:$PATH"
prefix="$(bash "$repo/cmake/deps/setup_deps.sh" --no-apt cuda | awk '$1 == "cuda" {print $2}')"
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" \
  -DKokkos_ROOT="$prefix" -DKokkosKernels_ROOT="$prefix" -DCMAKE_PREFIX_PATH="$prefix" \
  >"$build-configure.log" 2>&1 || { cat "$build-configure.log" >&2; exit 1; }
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(trellis)
for t in "${targets[@]}"; do
  dir="$build"
  case "$t" in
    */*.o) ;;  # eti/X.o: an object of the library, from the build's top
    *.o) [ -f "$build/perf_tests/Makefile" ] && grep -q "^${t}:" "$build/perf_tests/Makefile" && dir="$build/perf_tests"
         [ "$dir" = "$build" ] && grep -q "^${t}:" "$build/unit_tests/Makefile" && dir="$build/unit_tests" ;;
  esac
  make -C "$dir" -j "${TRELLIS_JOBS:-$(nproc)}" "$t" >"$build/compile-${t//\//_}.log" 2>&1 \
    || { grep -E "error" -A3 "$build/compile-${t//\//_}.log" | head -60 >&2; exit 1; }
  echo "CUDA compile check: $t built in $dir"
done
