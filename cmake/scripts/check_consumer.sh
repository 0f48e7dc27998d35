#!/usr/bin/env bash
# Installs Trellis from a configured build tree into a fresh prefix, then builds
# and runs cmake/consumer_test against the installed package with
# find_package(Trellis): proof that the exported CMake package works (and,
# for a Trellis built inside Trilinos, that Trellis::trilinos does).
#
#   check_consumer.sh BUILD_DIR CXX_COMPILER [MORE_PREFIXES...]
# Kokkos and Kokkos Kernels come from the prefixes Trellis's package records
# (MORE_PREFIXES: what else the consumer needs, e.g. Trilinos's).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$1" cxx="$2"
shift 2
kokkos="$(IFS=';'; echo "$*")"
prefix="$build/consumer-install"
rm -rf "$prefix" "$build/consumer"
cmake --install "$build" --prefix "$prefix" >/dev/null
# No prefix from the environment: Trellis's own and those given here only.
env -u CMAKE_PREFIX_PATH -u Kokkos_ROOT -u KokkosKernels_ROOT -u Kokkos_DIR -u KokkosKernels_DIR \
  cmake -S "$repo/cmake/consumer_test" -B "$build/consumer" -DCMAKE_BUILD_TYPE=Release \
  ${cxx:+-DCMAKE_CXX_COMPILER="$cxx"} -DCMAKE_PREFIX_PATH="$prefix${kokkos:+;$kokkos}" >/dev/null
cmake --build "$build/consumer" -j "${TRELLIS_JOBS:-$(nproc)}" >/dev/null
"$build/consumer/consumer"
# examples/solve_matrix_market.cpp on its generated problem: exit 0 when it converged.
"$build/consumer/consumer_example" >/dev/null
echo "consumer: examples/solve_matrix_market built from the installed package and converged"
passed="find_package"
# Without CMake: the same program from trellis.pc alone (host backends).
pc="$(ls "$prefix"/lib*/pkgconfig/trellis.pc 2>/dev/null | head -1 || true)"
if [ -n "$pc" ]; then
  flags="$(PKG_CONFIG_PATH="$(dirname "$pc")" pkg-config --cflags --libs trellis)"
  # shellcheck disable=SC2086  # the flags are words
  "${cxx:-c++}" -O1 "$repo/cmake/consumer_test/main.cpp" -o "$build/consumer/consumer_pkg_config" $flags
  "$build/consumer/consumer_pkg_config" | sed 's/^consumer:/consumer (pkg-config):/'
  passed="$passed, pkg-config"
fi
if [ -x "$build/consumer/consumer_tpetra" ]; then
  (cd "$build/consumer" && ctest -R consumer_tpetra --output-on-failure)
fi
echo "check_consumer: passed: $passed"
