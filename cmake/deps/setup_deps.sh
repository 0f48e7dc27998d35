#!/usr/bin/env bash
# Installs what Trellis needs and builds Kokkos 3.4.01 + Kokkos Kernels 3.4.01
# from Debian's trilinos 13.2.0 source package, one install prefix per backend.
#
#   setup_deps.sh [--no-apt] [host] [cuda] [hip]
#
#   host  OpenMP + Serial (always wanted on a CPU machine)
#   cuda  CUDA (sm_90, H100/H200) + OpenMP + Serial, for the GPU machine
#   hip   HIP for gfx908 with Debian's hipcc: a compile-only portability check
#
# --no-apt   install no Debian packages and fetch nothing (the GPU machine has no
#            network: it builds from sources carried in $TRELLIS_DEPS/src).
#
# Work already done is skipped: each step leaves a stamp that records the inputs
# it was made from (patch checksum, backend options).
#
# Environment: TRELLIS_DEPS (default <repo>/.deps), TRELLIS_JOBS (default nproc).
# Prints, last, one line per backend: "<backend> <install prefix>".
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
deps="${TRELLIS_DEPS:-$repo/.deps}"
jobs="${TRELLIS_JOBS:-$(nproc)}"
patch_dir="$repo/cmake/deps/patches"
use_apt=1
backends=()
for arg in "$@"; do
  case "$arg" in
    --no-apt) use_apt=0 ;;
    host|cuda|hip) backends+=("$arg") ;;
    *) echo "setup_deps.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done
[ ${#backends[@]} -gt 0 ] || backends=(host)

log() { echo "[trellis-deps] $*" >&2; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# --- 1. Debian packages ------------------------------------------------------
apt_packages=(build-essential cmake dpkg-dev patch pkg-config python3
              libopenmpi-dev openmpi-bin libmetis-dev
              libgtest-dev nlohmann-json3-dev libcli11-dev zlib1g-dev)
for b in "${backends[@]}"; do
  [ "$b" = hip ] && apt_packages+=(hipcc libamdhip64-dev)
done

install_packages() { bash "$repo/cmake/scripts/install_debian_packages.sh" "${apt_packages[@]}"; }

# --- 2. Sources: Kokkos + Kokkos Kernels out of trilinos 13.2.0 ----------------
# Bump src_layout when the extraction or pruning changes.
src_layout=2
patch_sum="$( (echo $src_layout; cat "$patch_dir"/*.patch) | sha256sum | cut -c1-16)"
src_stamp="$deps/src/.trellis-src-$patch_sum"
# A backend's build depends on the patches that change what it compiles:
# *-cuda-only.patch files touch CUDA sources alone, so a new one does not
# rebuild the host and HIP prefixes.
backend_patch_sum() {
  local p files=()
  for p in "$patch_dir"/*.patch; do
    case "$(basename "$p")" in *-cuda-only.patch) [ "$1" = cuda ] || continue ;; esac
    files+=("$p")
  done
  (echo $src_layout; cat "${files[@]}") | sha256sum | cut -c1-16
}

enable_deb_src() {
  # apt-get source needs a deb-src line for the suite the machine already uses.
  if apt-get indextargets --format '$(CREATED_BY)' 2>/dev/null | grep -q '^Sources$'; then
    return 0
  fi
  log "adding deb-src entries mirroring the configured deb entries"
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
      | as_root tee /etc/apt/sources.list.d/trellis-deb-src.sources >/dev/null
  else
    grep -h '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
      | grep -v 'cloud.google\|nodesource' | sed 's/^deb /deb-src /' \
      | as_root tee /etc/apt/sources.list.d/trellis-deb-src.list >/dev/null
  fi
  as_root apt-get update -q >&2
}

fetch_sources() {
  [ -f "$src_stamp" ] && return 0
  if [ $use_apt = 0 ]; then
    [ -d "$deps/src/kokkos" ] && [ -d "$deps/src/kokkos-kernels" ] || {
      echo "setup_deps.sh: --no-apt given but $deps/src holds no Kokkos sources" >&2; exit 1; }
    log "using carried sources in $deps/src (no stamp for this patch set; trusting them)"
    return 0
  fi
  enable_deb_src
  mkdir -p "$deps/download"
  if ! ls "$deps"/download/trilinos_13.2.0.orig.tar.* >/dev/null 2>&1; then
    log "downloading Debian source package trilinos 13.2.0"
    (cd "$deps/download" && apt-get source --download-only -q trilinos >&2)
  fi
  local tarball
  tarball="$(ls "$deps"/download/trilinos_13.2.0.orig.tar.* | head -1)"
  rm -rf "$deps/src" "$deps/extract"
  mkdir -p "$deps/src" "$deps/extract"
  log "extracting packages/kokkos and packages/kokkos-kernels"
  tar -xf "$tarball" -C "$deps/extract" --wildcards \
    '*/packages/kokkos/*' '*/packages/kokkos-kernels/*'
  mv "$deps"/extract/*/packages/kokkos "$deps/src/kokkos"
  mv "$deps"/extract/*/packages/kokkos-kernels "$deps/src/kokkos-kernels"
  rm -rf "$deps/extract"
  # Docs are never built; dropping them keeps the carried tree small.
  rm -rf "$deps"/src/kokkos/doc "$deps"/src/kokkos-kernels/doc
  for p in "$patch_dir"/*.patch; do
    log "applying $(basename "$p")"
    patch -d "$deps/src" -p1 --quiet < "$p"
  done
  touch "$src_stamp"
}

# --- 3. Builds ----------------------------------------------------------------
kokkos_options() {
  case "$1" in
    host) echo "-DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON" ;;
    cuda) echo "-DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON -DKokkos_ENABLE_CUDA_CONSTEXPR=ON" \
               "-DKokkos_ARCH_HOPPER90=ON -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON" \
               "-DCMAKE_CXX_COMPILER=$deps/src/kokkos/bin/nvcc_wrapper" ;;
    hip)  echo "-DKokkos_ENABLE_HIP=ON -DKokkos_ARCH_VEGA908=ON -DKokkos_ENABLE_SERIAL=ON" \
               "-DCMAKE_CXX_COMPILER=$(command -v hipcc || echo hipcc)" ;;
  esac
}

build_backend() {
  local b="$1" prefix="$deps/install/$b" opts
  opts="$(kokkos_options "$b")"
  local stamp="$prefix/.trellis-$(echo "$(backend_patch_sum "$b") $opts" | sha256sum | cut -c1-16)"
  if [ -f "$stamp" ]; then log "$b: up to date in $prefix"; return 0; fi
  local build="$deps/build/$b" start=$SECONDS
  rm -rf "$build" "$prefix"
  mkdir -p "$build"
  log "$b: building Kokkos 3.4.01 ($jobs jobs)"
  # shellcheck disable=SC2086
  cmake -S "$deps/src/kokkos" -B "$build/kokkos" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_CXX_STANDARD=17 \
    -DCMAKE_CXX_EXTENSIONS=OFF -DKokkos_ENABLE_TESTS=OFF $opts >"$build/kokkos.log" 2>&1 \
    || { tail -40 "$build/kokkos.log" >&2; exit 1; }
  cmake --build "$build/kokkos" -j "$jobs" >>"$build/kokkos.log" 2>&1 \
    || { tail -40 "$build/kokkos.log" >&2; exit 1; }
  cmake --install "$build/kokkos" >>"$build/kokkos.log" 2>&1
  log "$b: building Kokkos Kernels 3.4.01 (no TPLs, no default ETI)"
  local cxx=""
  case "$b" in
    cuda) cxx="-DCMAKE_CXX_COMPILER=$prefix/bin/nvcc_wrapper" ;;
    hip)  cxx="-DCMAKE_CXX_COMPILER=$(command -v hipcc || echo hipcc)" ;;
  esac
  # shellcheck disable=SC2086
  cmake -S "$deps/src/kokkos-kernels" -B "$build/kokkos-kernels" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DKokkos_ROOT="$prefix" $cxx \
    -DKokkosKernels_ADD_DEFAULT_ETI=OFF -DKokkosKernels_ENABLE_TESTS=OFF \
    -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF -DKokkosKernels_ENABLE_TPL_CUBLAS=OFF \
    -DKokkosKernels_ENABLE_TPL_BLAS=OFF -DKokkosKernels_ENABLE_TPL_LAPACK=OFF \
    >"$build/kokkos-kernels.log" 2>&1 || { tail -40 "$build/kokkos-kernels.log" >&2; exit 1; }
  cmake --build "$build/kokkos-kernels" -j "$jobs" >>"$build/kokkos-kernels.log" 2>&1 \
    || { tail -40 "$build/kokkos-kernels.log" >&2; exit 1; }
  cmake --install "$build/kokkos-kernels" >>"$build/kokkos-kernels.log" 2>&1
  rm -rf "$build"
  touch "$stamp"
  log "$b: installed in $prefix ($((SECONDS - start)) s)"
}

[ $use_apt = 1 ] && install_packages
fetch_sources
for b in "${backends[@]}"; do build_backend "$b"; done
for b in "${backends[@]}"; do echo "$b $deps/install/$b"; done
