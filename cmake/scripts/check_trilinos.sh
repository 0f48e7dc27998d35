#!/usr/bin/env bash
# Trellis inside Trilinos (issue 21), as CI runs it:
#  1. installs Debian's Trilinos 13.2 (Tpetra, Belos, Ifpack2, and the -dev
#     packages whose CMake configs and libraries theirs name), skipping what
#     is installed;
#  2. configures Trellis in build/trilinos on the Kokkos 3.4.01 and Kokkos
#     Kernels 3.4.01 inside that Trilinos (Serial only) with
#     TRELLIS_ENABLE_TRILINOS=ON, and builds only the library, the adapter's
#     test and the Belos example (no unit tests, benchmarks or CLI), as a
#     shared library (BUILD_SHARED_LIBS=ON) as Debian's Trilinos is;
#  3. runs ctest -L trilinos (the example on 1 and 2 ranks with the ILU(0)
#     agreement checks, Trellis inside Ifpack2's AdditiveSchwarz, the
#     adapter's checks) and prints the example's output on two real matrices;
#  4. installs that Trellis into a fresh prefix and builds cmake/consumer_test
#     on it (check_consumer.sh): find_package(Trellis), Trellis::trellis and
#     Trellis::trilinos (the adapter's test, run on 2 ranks).
#
# Environment: TRELLIS_TRILINOS_BUILD_DIR (default <repo>/build/trilinos),
# TRELLIS_JOBS (default nproc), TRELLIS_MATRICES (default <repo>/../shared/matrices).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${TRELLIS_TRILINOS_BUILD_DIR:-$repo/build/trilinos}"
jobs="${TRELLIS_JOBS:-$(nproc)}"
matrices="$(realpath -m "${TRELLIS_MATRICES:-$repo/../shared/matrices}")"
start=$SECONDS

log() { echo "[trellis-trilinos] $*" >&2; }

# Debian splits Trilinos's CMake configs over the -dev packages: Belos's and
# Ifpack2's include those of AztecOO, Xpetra, Thyra, Amesos2, ShyLU, Zoltan2
# ..., and Zoltan's targets name the (PT-)Scotch .so files.
packages=(build-essential cmake openmpi-bin libopenmpi-dev libmetis-dev zlib1g-dev
          libtrilinos-tpetra-dev libtrilinos-belos-dev libtrilinos-ifpack2-dev
          libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev libtrilinos-teuchos-dev
          libtrilinos-epetra-dev libtrilinos-epetraext-dev libtrilinos-aztecoo-dev
          libtrilinos-xpetra-dev libtrilinos-thyra-dev libtrilinos-rtop-dev
          libtrilinos-triutils-dev libtrilinos-amesos2-dev libtrilinos-shylu-dev
          libtrilinos-zoltan-dev libtrilinos-zoltan2-dev libtrilinos-trilinosss-dev
          libptscotch-dev libscotch-dev)
bash "$repo/cmake/scripts/install_debian_packages.sh" "${packages[@]}"
log "packages ready ($((SECONDS - start)) s)"

# Trilinos's own Kokkos and Kokkos Kernels (the versions Trellis uses).
kokkos_dir="$(dirname "$(dpkg -L libtrilinos-kokkos-dev | grep '/cmake/Kokkos/KokkosConfig.cmake$')")"
kernels_dir="$(dirname "$(dpkg -L libtrilinos-kokkos-kernels-dev | grep '/cmake/KokkosKernels/KokkosKernelsConfig.cmake$')")"
mkdir -p "$build"
# -O0: the check is of the integration (configure, link, run on 1 and 2
# ranks), and it builds in about half the time of -O3 (122 s against 232).
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 \
  -DBUILD_SHARED_LIBS=ON \
  -DKokkos_DIR="$kokkos_dir" -DKokkosKernels_DIR="$kernels_dir" -DTRELLIS_ENABLE_TRILINOS=ON \
  -DTRELLIS_ENABLE_TESTS=OFF -DTRELLIS_ENABLE_PERF_TESTS=OFF -DTRELLIS_ENABLE_APPS=OFF \
  -DTRELLIS_TRILINOS_MATRIX="$matrices/BentPipe2D100.mtx" >"$build/trellis-configure.log" 2>&1 \
  || { cat "$build/trellis-configure.log" >&2; exit 1; }
log "configured on $kokkos_dir ($((SECONDS - start)) s)"
cmake --build "$build" -j "$jobs" --target trellis_belos test_tpetra_preconditioner
log "built ($((SECONDS - start)) s)"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
(cd "$build" && ctest -L trilinos --output-on-failure --timeout 600)
for m in Laplace3D10 BentPipe2D100; do
  for ranks in 1 2; do
    echo "--- trellis_belos $m.mtx on $ranks rank(s)"
    mpiexec -n $ranks --oversubscribe "$build/apps/trilinos_belos/trellis_belos" "$matrices/$m.mtx" \
      --precs dd,ilu0,ifpack2-riluk0,schwarz:ilu0,schwarz:dd,ifpack2-schwarz-riluk0
  done
done
log "installed package: find_package(Trellis) and Trellis::trilinos from a consumer"
bash "$repo/cmake/scripts/check_consumer.sh" "$build" "" /usr
ls "$build"/consumer-install/lib*/libtrellis.so* >/dev/null \
  || { log "the installed package has no libtrellis.so"; exit 1; }
log "done ($((SECONDS - start)) s)"
