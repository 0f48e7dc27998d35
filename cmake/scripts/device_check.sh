#!/usr/bin/env bash
# On the GPU machine, in one call: build Kokkos/Kokkos Kernels for CUDA (sm_90)
# from the carried sources, build Trellis, run the unit tests, run the perf
# suite, print a short summary last. Logs and JSON results go to $OUT.
#
#   bash cmake/scripts/device_check.sh [unit|perf|all]   (default all)
#   bash cmake/scripts/device_check.sh bench ARGS...     trsv_bench with ARGS only
#   bash cmake/scripts/device_check.sh run 'COMMANDS'   a shell command line after the build, in
#       perf_tests/ of the build ($OUT and TRELLIS_MATRICES set), output to run.log
#   bash cmake/scripts/device_check.sh unit+run 'COMMANDS'   the unit tests, then as run
#   bash cmake/scripts/device_check.sh profile KERNEL_REGEX SKIP PROGRAM ARGS...
#       ncu (clocks left alone) on one launch of the kernel whose demangled
#       name matches KERNEL_REGEX, after SKIP matching launches, of
#       perf_tests/PROGRAM ARGS: details and per-SASS-instruction stall samples
#       (profile_details.txt, profile_sass.csv) go to $OUT, and their summary
#       by stall reason and by runs of instructions (profile_stalls.txt,
#       ncu_stall_summary.py) to the output too.
#   bash cmake/scripts/device_check.sh sanitize   compute-sanitizer (memcheck,
#       racecheck, initcheck, synccheck; TRELLIS_SANITIZE_TOOLS to choose) over
#       the CUDA cases of the unit test programs (TRELLIS_SANITIZE_PROGRAMS,
#       default every unit test program; TRELLIS_SANITIZE_FILTER, a gtest
#       filter, default the Cuda-typed cases), logs sanitize_TOOL_PROGRAM_N.log; each run
#       stops after TRELLIS_SANITIZE_TIMEOUT s (default 150, reported TIMEOUT,
#       not a finding), no run starts after TRELLIS_SANITIZE_BUDGET s (420),
#       TRELLIS_SANITIZE_JOBS runs at once (1), TRELLIS_SANITIZE_ARGS adds options;
#       an entry PROG@FILTER runs PROG on its own filter (one program split)
#   bash cmake/scripts/device_check.sh sanitize+run 'COMMANDS'   both
# TRELLIS_PERF_TESTS=REGEX limits `perf` to the perf tests it matches (each
# perf test is sized to fit one 600 s device call). For a quick check of a few
# areas, TRELLIS_DEVICE_TARGETS="test_a test_b" builds only those targets and
# TRELLIS_UNIT_TESTS=REGEX runs only the unit tests it matches.
#
# Needs .device-carry (cmake/scripts/prepare_device_carry.sh) and .deps/src, or
# a Kokkos already built for CUDA: .deps/install/cuda with .deps/src/kokkos/bin.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
what="${1:-all}"
[ $# -gt 0 ] && shift
bench_args=("$@")
out="${OUT:-$repo/.device-out}"
mkdir -p "$out"
carry="$repo/.device-carry"
# The source commit, for the result files (bench::run_record).
[ -f "$carry/commit" ] && export TRELLIS_COMMIT="$(cat "$carry/commit")"
work=/tmp/trellis-device
mkdir -p "$work"
export TRELLIS_DEPS="$work/deps"
summary=()
step() {  # step NAME CMD...: runs, logs to $out/NAME.log, records pass/fail and time
  local name="$1"; shift
  local t0=$SECONDS
  if "$@" >"$out/$name.log" 2>&1; then
    summary+=("$(printf '%-12s ok     %4ds' "$name" $((SECONDS - t0)))")
  else
    summary+=("$(printf '%-12s FAILED %4ds  (see %s.log)' "$name" $((SECONDS - t0)) "$name")")
    tail -30 "$out/$name.log"
    return 1
  fi
}
finish() { echo; echo "== device_check summary =="; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; printf '%s\n' "${summary[@]}"; }
trap finish EXIT

# Kokkos for CUDA: carried already built (.deps/install/cuda, made on a host with
# nvcc by check_cuda_compile.sh; its config names .deps/src/kokkos/bin/nvcc_wrapper,
# so carry that folder too), else built here from the carried .deps/src.
cuda_prefix="$TRELLIS_DEPS/install/cuda"
deps() {
  if ls "$repo"/.deps/install/cuda/.trellis-* >/dev/null 2>&1 && [ -x "$repo/.deps/src/kokkos/bin/nvcc_wrapper" ]; then
    cuda_prefix="$repo/.deps/install/cuda"
    echo "using the carried Kokkos build in $cuda_prefix"
    # Its CMake files name the build host's CUDA libraries (/usr/local/cuda/lib/):
    # pointed at this machine's where those are absent.
    local stubs
    stubs="$(dirname "$(find /usr/local/cuda/ -name libcuda.so -path '*stubs*' | head -1)")"
    if [ ! -e /usr/local/cuda/lib/libcudart.so ] && [ -f "$stubs/libcuda.so" ]; then
      grep -rl "/usr/local/cuda/lib/" "$cuda_prefix/lib/cmake" |
        xargs -r sed -i "s#/usr/local/cuda/lib/stubs/#$stubs/#g; s#/usr/local/cuda/lib/#$(dirname "$stubs")/#g"
    fi
  else
    mkdir -p "$TRELLIS_DEPS" && rm -rf "$TRELLIS_DEPS/src" && cp -r "$repo/.deps/src" "$TRELLIS_DEPS/src"
    TRELLIS_JOBS=16 bash "$repo/cmake/deps/setup_deps.sh" --no-apt cuda || return 1
  fi
  # GoogleTest, METIS, nlohmann-json and CLI11 are not installed there: build / unpack
  # the carried ones (every carried .deb into one folder, $work/metis).
  cmake -S "$carry/googletest" -B "$work/gtest-build" -DCMAKE_INSTALL_PREFIX="$work/gtest" \
    -DCMAKE_BUILD_TYPE=Release -DBUILD_GMOCK=OFF -DCMAKE_POLICY_VERSION_MINIMUM=3.5 &&
  cmake --build "$work/gtest-build" -j 16 && cmake --install "$work/gtest-build" &&
  for d in "$carry"/debs/*.deb; do dpkg -x "$d" "$work/metis"; done
}
configure() {
  local prefix="$cuda_prefix"
  find "$prefix" -name '*Config.cmake'
  cmake -S "$repo" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
    -DKokkosKernels_DIR="$(dirname "$(find "$prefix" -name KokkosKernelsConfig.cmake | head -1)")" \
    -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" \
    -DKokkos_ROOT="$prefix" -DKokkosKernels_ROOT="$prefix" \
    -DCMAKE_PREFIX_PATH="$prefix;$work/gtest;$work/metis/usr" ${TRELLIS_DEVICE_CMAKE_ARGS:-} \
    -DMETIS_INCLUDE_DIR="$work/metis/usr/include" \
    -DMETIS_LIBRARY="$(ls "$work"/metis/usr/lib/x86_64-linux-gnu/libmetis.so* | head -1)" \
    -Dnlohmann_json_DIR="$work/metis/usr/share/cmake/nlohmann_json" \
    -DCLI11_DIR="$work/metis/usr/share/cmake/CLI11"
}
build() { cmake --build "$work/build" -j 16 ${TRELLIS_DEVICE_TARGETS:+--target $TRELLIS_DEVICE_TARGETS}; }
unit() {
  export TRELLIS_MATRICES="$carry/matrices" OMP_NUM_THREADS=8 OMP_PROC_BIND=false
  ctest --test-dir "$work/build" -L unit -R "${TRELLIS_UNIT_TESTS:-.}" -V --timeout 600 -j 1
}
perf() {
  export TRELLIS_MATRICES="$carry/matrices"
  ctest --test-dir "$work/build" -L '^perf$' -R "${TRELLIS_PERF_TESTS:-.}" --output-on-failure \
    --timeout 600 -V
  local rc=$?
  cp "$work"/build/perf_tests/*.json "$out"/ 2>/dev/null || true
  return $rc
}

bench() {
  export TRELLIS_MATRICES="$carry/matrices"
  "$work/build/perf_tests/trsv_bench" "${bench_args[@]}" --json "$out/trsv_results.json"
}

run_commands() {
  export TRELLIS_MATRICES="$carry/matrices" OUT="$out"
  (cd "$work/build/perf_tests" && bash -c "${bench_args[0]}")
}
# One tool over one program: any finding (or a failing test) fails the step.
# TRELLIS_SANITIZE_ARGS adds compute-sanitizer options (e.g. a kernel filter).
sanitize_one() {
  local tool="$1" prog="$2" filter="$3" extra=()
  [ "$tool" = racecheck ] && extra=(--racecheck-report all)
  # shellcheck disable=SC2086  # the extra options are meant to split
  timeout "${TRELLIS_SANITIZE_TIMEOUT:-150}" compute-sanitizer --tool "$tool" --error-exitcode 9 --print-limit 30 "${extra[@]}" \
    ${TRELLIS_SANITIZE_ARGS:-} "$prog" --gtest_filter="$filter" --gtest_brief=1
}
# One run, its summary line written to NAME.result (runs may go in parallel).
sanitize_job() {
  local tool="$1" prog="$2" filter="$3" name="$4" t0=$SECONDS result
  sanitize_one "$tool" "$prog" "$filter" >"$out/$name.log" 2>&1
  case $? in 0) result=ok ;; 124) result=TIMEOUT ;; *) result=FAILED ;; esac
  printf '%-10s %-28s %-7s %4ds  %s\n' "$tool" "$(basename "$prog")" "$result" $((SECONDS - t0)) "$filter" >"$out/$name.result"
}
# TRELLIS_SANITIZE_JOBS programs at once (default 1): the tools' slowdown is
# mostly per launch on the host side, so several processes share one GPU well.
sanitize() {
  local jobs="${TRELLIS_SANITIZE_JOBS:-1}" threads=8
  # The machine's cores shared among the runs at once (8 when one runs).
  [ "$jobs" -gt 1 ] && threads=$(($(nproc) / jobs))
  [ "$threads" -ge 1 ] || threads=1
  export TRELLIS_MATRICES="$carry/matrices" OMP_NUM_THREADS=$threads OMP_PROC_BIND=false
  local rc=0 tool prog start=$SECONDS names=() name
  for tool in ${TRELLIS_SANITIZE_TOOLS:-memcheck racecheck initcheck synccheck}; do
    local entry filter job=0
    for entry in ${TRELLIS_SANITIZE_PROGRAMS:-$(ls "$work"/build/unit_tests/test_* | grep -v '\.')}; do
      prog="${entry%%@*}" filter="${TRELLIS_SANITIZE_FILTER:-*Cuda*}"
      [ "$prog" = "$entry" ] || filter="${entry#*@}"  # PROG@FILTER: that program's cases split over runs
      [ -x "$prog" ] || prog="$work/build/unit_tests/$prog"
      job=$((job + 1))
      name="sanitize_${tool}_$(basename "$prog")_$job"
      if [ $((SECONDS - start)) -gt "${TRELLIS_SANITIZE_BUDGET:-420}" ]; then
        printf '%-10s %-28s SKIPPED (budget)  %s\n' "$tool" "$(basename "$prog")" "$filter" >"$out/$name.result"
      else
        while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
        sanitize_job "$tool" "$prog" "$filter" "$name" &
      fi
      names+=("$name")
    done
  done
  wait
  for name in "${names[@]}"; do
    cat "$out/$name.result"
    if grep -q FAILED "$out/$name.result"; then
      grep -E "=========|FAILED|Error" "$out/$name.log" | head -20 | cut -c1-300
      rc=1
    fi
  done
  return $rc
}
profile() {
  export TRELLIS_MATRICES="$carry/matrices"
  local kernel="${bench_args[0]}" skip="${bench_args[1]}" prog="${bench_args[2]}"
  ncu --clock-control none --import-source yes --set full --warp-sampling-interval 0 --kernel-name-base demangled -k "regex:$kernel" --launch-skip "$skip" -c 1 -f \
    -o "$out/profile" "$work/build/perf_tests/$prog" "${bench_args[@]:3}" &&
    ncu -i "$out/profile.ncu-rep" --page details >"$out/profile_details.txt" &&
    ncu -i "$out/profile.ncu-rep" --page source --csv --print-source sass >"$out/profile_sass.csv" &&
    python3 "$repo/cmake/scripts/ncu_stall_summary.py" "$out/profile_sass.csv" >"$out/profile_stalls.txt" &&
    cat "$out/profile_stalls.txt"
}

step deps deps && step configure configure && step build build || exit 1
rc=0
case "$what" in
  unit) step unit unit || rc=1 ;;
  perf) step perf perf || rc=1 ;;
  bench) step bench bench || rc=1; tail -40 "$out/bench.log" ;;
  profile) step profile profile || rc=1; tail -40 "$out/profile.log" ;;
  run) step run run_commands || rc=1; tail -60 "$out/run.log" ;;
  sanitize) step sanitize sanitize || rc=1; cat "$out/sanitize.log" ;;
  sanitize+run) step sanitize sanitize || rc=1; cat "$out/sanitize.log"; step run run_commands || rc=1; tail -60 "$out/run.log" ;;
  unit+run) step unit unit || rc=1; step run run_commands || rc=1; tail -60 "$out/run.log" ;;
  all) step unit unit || rc=1; step perf perf || rc=1 ;;
esac
grep -E "tests passed|tests failed" "$out/unit.log" 2>/dev/null | tail -1 | sed 's/^/unit: /' >&2 || true
exit $rc
