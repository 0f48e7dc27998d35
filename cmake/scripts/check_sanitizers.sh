#!/usr/bin/env bash
# ASan + UBSan over Trellis's own code: a second build tree on the host Kokkos
# (OpenMP + Serial, from cmake/deps/setup_deps.sh host, built by g++; Kokkos
# itself is not instrumented, its OpenMP calls are served by clang's libomp),
# the unit tests and the CLI built by Debian's clang (installed here when
# missing; it compiles this build in about 0.8x g++'s time) with
#   -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer
#   -fno-sanitize-recover=undefined
# (the test binaries at -O0, TRELLIS_TEST_COMPILE_OPTIONS: they compile in
# about a third of the time, and run mostly in the library's kernels), and
# `ctest -L unit` run on them (the CLI tests carry that label too). The
# kernels are instantiated and tested on OpenMP alone (TRELLIS_ETI_BACKENDS):
# the threaded backend, where ordering and sharing faults show; the same
# templates on Serial are the README test's (the host build), unsanitized. Any
# sanitizer report fails the run: every report is written under
# BUILD/sanitizer-logs (ASAN_OPTIONS/UBSAN_OPTIONS log_path), so a report from
# a test that passes on its output alone (PASS_REGULAR_EXPRESSION, as most
# CLI tests) still fails, and the reports are printed.
#
#   check_sanitizers.sh [BUILD_DIR]     default build/asan
#
# Not built: the benchmarks (TRELLIS_ENABLE_PERF_TESTS=OFF) and the
# header-by-header compile check (TRELLIS_ENABLE_HEADER_CHECK=OFF; the
# default build has it). Skipped: the consumer test (consumer_find_package
# builds an outside project against the installed package without the
# sanitizer runtime), cli_out_of_memory and the *_bounded input tests (they
# run under `ulimit -v` 0.4-3 GB, where ASan cannot map its shadow memory).
# LeakSanitizer: on, except for the MPI tests (*_mpi*): Open MPI's components,
# loaded with dlopen, leak at MPI_Finalize and are unloaded before the
# exit-time leak scan, so their frames have no names a suppression could
# match; ASan and UBSan stay on there. Suppressions: cmake/sanitizers/lsan.supp
# (each one says why).
# Environment: TRELLIS_JOBS (default nproc), OMP_NUM_THREADS (default 2).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$repo/build/asan}"
jobs="${TRELLIS_JOBS:-$(nproc)}"
start=$SECONDS

# clang, its sanitizer runtimes, and libomp for clang's -fopenmp.
bash "$repo/cmake/scripts/install_debian_packages.sh" clang libclang-rt-dev libomp-dev
prefix="$(bash "$repo/cmake/deps/setup_deps.sh" host | awk '$1 == "host" {print $2}')"
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
# -Wno-pass-failed: at -O1 clang leaves some `#pragma unroll` loops rolled and
# says so for every instantiation; the optimized builds unroll them.
mkdir -p "$build"
log="$build/trellis-configure.log"
cmake -S "$repo" -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g -fno-omit-frame-pointer -Wno-pass-failed $sanitize" \
  -DCMAKE_EXE_LINKER_FLAGS="$sanitize" -DCMAKE_SHARED_LINKER_FLAGS="$sanitize" \
  -DTRELLIS_TEST_COMPILE_OPTIONS=-O0 -DTRELLIS_ETI_BACKENDS=OPENMP \
  -DTRELLIS_ENABLE_PERF_TESTS=OFF -DTRELLIS_ENABLE_HEADER_CHECK=OFF \
  -DKokkos_ROOT="$prefix" -DKokkosKernels_ROOT="$prefix" >"$log" 2>&1 \
  || { cat "$log" >&2; exit 1; }
cmake --build "$build" -j "$jobs"
echo "sanitizers: built in $((SECONDS - start)) s"

logs="$build/sanitizer-logs"
rm -rf "$logs"
mkdir -p "$logs"
# halt_on_error: the first report ends the process (UBSan: with
# -fno-sanitize-recover); detect_leaks: LeakSanitizer at exit, suppressions
# for what is not Trellis's (lsan.supp); allocator_may_return_null: an
# allocation too large for the machine fails as it does without ASan
# (std::bad_alloc, which the tests of out-of-memory errors expect), not as
# an ASan report.
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:allocator_may_return_null=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:log_path=$logs/report"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$logs/report"
export LSAN_OPTIONS="suppressions=$repo/cmake/sanitizers/lsan.supp:print_suppressions=0"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}" OMP_PROC_BIND="${OMP_PROC_BIND:-false}"
status=0
cd "$build"
ctest -L unit -E '^consumer_find_package$|^cli_out_of_memory$|_bounded$|_mpi' --output-on-failure --timeout 900 || status=1
ASAN_OPTIONS="${ASAN_OPTIONS/detect_leaks=1/detect_leaks=0}" \
  ctest -L unit -R '_mpi' --output-on-failure --timeout 900 || status=1
if compgen -G "$logs/report*" >/dev/null; then
  for f in "$logs"/report*; do
    echo "== $f"
    cat "$f"
  done
  echo "sanitizers: $(ls "$logs" | wc -l) report(s) above" >&2
  status=1
fi
echo "sanitizers: $([ $status = 0 ] && echo clean || echo FAILED) in $((SECONDS - start)) s"
exit $status
