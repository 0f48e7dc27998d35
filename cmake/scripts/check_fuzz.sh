#!/usr/bin/env bash
# Fuzzes Trellis's untrusted-input parsers with libFuzzer (Debian's clang,
# installed here when missing): the Matrix Market reader (plain and gzip),
# the problem-spec parser and `trellis solve`'s options (unit_tests/fuzz/).
#
#   check_fuzz.sh [SECONDS]      fuzz each target SECONDS (default 60), TRELLIS_JOBS at once
#
# The build (TRELLIS_ENABLE_FUZZ: the library's input side and the targets,
# with coverage, ASan and UBSan) links the host Kokkos of
# cmake/deps/setup_deps.sh (built by g++; clang code links it, its OpenMP
# calls served by clang's libomp). First each corpus
# in unit_tests/fuzz/corpus/ is replayed (ctest -L fuzz), then each target is
# fuzzed from it. A crash, a sanitizer report, an uncaught exception other than
# InputError, an input slower than TRELLIS_FUZZ_TIMEOUT seconds (default 10) or
# a process over TRELLIS_FUZZ_RSS_MB (default 2048) fails the run; the input is
# left in BUILD/artifacts/ and printed. Make it a regression test: fix the bug,
# copy the input into unit_tests/fuzz/corpus/TARGET/ (every build replays the
# corpora as the ctest cases fuzz_TARGET_corpus).
#
# Environment: TRELLIS_FUZZ_BUILD_DIR (default build/fuzz), TRELLIS_JOBS.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
seconds="${1:-60}"
build="${TRELLIS_FUZZ_BUILD_DIR:-$repo/build/fuzz}"
jobs="${TRELLIS_JOBS:-$(nproc)}"
timeout="${TRELLIS_FUZZ_TIMEOUT:-10}"
rss_mb="${TRELLIS_FUZZ_RSS_MB:-2048}"
start=$SECONDS

# clang, its libFuzzer/sanitizer runtimes, and libomp for clang's -fopenmp.
bash "$repo/cmake/scripts/install_debian_packages.sh" clang libclang-rt-dev libomp-dev

prefix="$(bash "$repo/cmake/deps/setup_deps.sh" host | awk '$1 == "host" {print $2}')"
mkdir -p "$build"
log="$build/trellis-configure.log"
cmake -S "$repo" -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" -DTRELLIS_ENABLE_FUZZ=ON \
  -DTRELLIS_ENABLE_TESTS=OFF -DTRELLIS_ENABLE_PERF_TESTS=OFF -DTRELLIS_ENABLE_APPS=OFF \
  -DTRELLIS_ENABLE_ETI=OFF -DTRELLIS_ENABLE_MPI=OFF \
  -DKokkos_ROOT="$prefix" -DKokkosKernels_ROOT="$prefix" >"$log" 2>&1 \
  || { cat "$log" >&2; exit 1; }
cmake --build "$build" -j "$jobs"
echo "fuzz: built in $((SECONDS - start)) s"

export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:strict_string_checks=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export OMP_NUM_THREADS=1 OMP_PROC_BIND=false
(cd "$build" && ctest -L fuzz --output-on-failure)

artifacts="$build/artifacts"
rm -rf "$artifacts"
mkdir -p "$artifacts"
# One target per core at a time (libFuzzer runs on one thread): each still
# gets its SECONDS, the stage takes SECONDS per round of TRELLIS_JOBS.
fuzz_one() {
  local name="$1" work="$build/corpus/$1" dict=()  # work: what this run adds; the corpus is only read
  mkdir -p "$work"
  [ -f "$repo/unit_tests/fuzz/$name.dict" ] && dict=(-dict="$repo/unit_tests/fuzz/$name.dict")
  local rc=0
  "$build/unit_tests/fuzz/fuzz_$name" "$work" "$repo/unit_tests/fuzz/corpus/$name" "${dict[@]}" \
    -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb="$rss_mb" \
    -artifact_prefix="$artifacts/$name-" -print_final_stats=1 >"$build/$name.log" 2>&1 || rc=$?
  echo "$rc" >"$build/$name.rc"
}
names=()
for dir in "$repo"/unit_tests/fuzz/corpus/*/; do
  name="$(basename "$dir")"
  [ -x "$build/unit_tests/fuzz/fuzz_$name" ] || continue  # fuzz_matrix_market_gzip: only with zlib
  names+=("$name")
  rm -f "$build/$name.rc"
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  echo "== fuzz_$name: ${seconds} s"
  fuzz_one "$name" &
done
wait
failed=()
for name in "${names[@]}"; do
  echo "== fuzz_$name:"
  [ "$(cat "$build/$name.rc" 2>/dev/null)" = 0 ] || failed+=("fuzz_$name")
  grep -E "^stat::number_of_executed_units|^stat::new_units_added|^stat::peak_rss_mb|^#[0-9]+ *DONE" "$build/$name.log" || true
done
if [ ${#failed[@]} -gt 0 ] || compgen -G "$artifacts/*" >/dev/null; then
  for target in "${failed[@]}"; do
    echo "== $target failed; the end of its log ($build/${target#fuzz_}.log):"
    tail -60 "$build/${target#fuzz_}.log"
  done
  for a in "$artifacts"/*; do
    [ -f "$a" ] || continue
    echo "== input $a (base64):"
    base64 "$a" | head -c 4000
    echo
  done
  echo "fuzz: FAILED (${failed[*]}) in $((SECONDS - start)) s" >&2
  exit 1
fi
echo "fuzz: clean in $((SECONDS - start)) s"
