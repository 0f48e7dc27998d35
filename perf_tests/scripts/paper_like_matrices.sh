#!/usr/bin/env bash
# Fetches from Debian (bookworm) real matrices of the kinds the TileSpTRSV
# paper used (circuit simulation, power networks: many thin levels), converts
# them to Matrix Market (.mtx.gz) and writes OUTDIR/MANIFEST.tsv (the columns
# of shared/matrices/MANIFEST.tsv), so that TRELLIS_MATRICES=OUTDIR hands them
# to the benchmarks (docs/performance.md, "Circuit and power-network matrices").
#
#   perf_tests/scripts/paper_like_matrices.sh [--no-trilinos] [--suitesparse] OUTDIR
#
# The matrices (all square, every diagonal entry stored and nonzero):
#   debian_superlu_add32      circuit: SuiteSparse Hamm/add32 (32-bit adder), the
#       file tests/EXAMPLE/big.rua of the binary package libsuperlu-dist-dev
#       (BSD-3-Clause); download: the .deb, 0.9 MB.
#   debian_trilinos_662_bus   power network: HB/662_bus (admittance matrix), from
#       packages/amesos of the source package trilinos 13.2.0-4 (LGPL-2.1);
#       download: none when cmake/deps/setup_deps.sh already fetched that
#       source package into $TRELLIS_DEPS/download (it builds Kokkos from it),
#       else 166 MB (kept there for setup_deps.sh). --no-trilinos leaves it out.
#   debian_suitesparse_bcspwr10   power network, pattern only: HB/bcspwr10, from
#       Mongoose/Matrix of the source package suitesparse 1:5.12.0+dfsg-2
#       (GPL-3+); download 39 MB; only with --suitesparse.
# Left out on purpose (trsv_bench skips a matrix with a zero or missing
# diagonal, and values are never altered here): Basker's matrix1.mtx and
# coverage.mtx (circuits) and amesos2's gemat12.mtx (optimal power flow) of
# trilinos, whose diagonals have missing entries.
#
# The Harwell-Boeing files are converted by perf_tests/tools/hb2mtx.py (every
# stored entry kept, explicit zeros included, values unchanged), every output
# is parsed again by perf_tests/tools/mtx_check.py (size, entries, complete
# nonzero diagonal, level counts), and each extracted source file must have
# the sha256 recorded below. Any failed download, extraction, checksum,
# conversion or check stops the script with exit status 1 and a message; the
# manifest is written only when everything succeeded.
#
# Environment: TRELLIS_DEPS (default <repo>/.deps): downloads are kept in
# $TRELLIS_DEPS/download and reused; TRILINOS_TGZ=FILE uses that
# trilinos_13.2.0.orig.tar.gz. A missing package list or deb-src entry is
# reported (apt-get update is run once, as root, when a download fails).
set -euo pipefail

me=paper_like_matrices.sh
die() { echo "$me: $*" >&2; exit 1; }
usage() { echo "usage: $(sed -n 8p "$0" | sed "s/^# *//")" >&2; exit 2; }

with_trilinos=1
with_suitesparse=0
out=""
for arg in "$@"; do
  case "$arg" in
    --no-trilinos) with_trilinos=0 ;;
    --suitesparse) with_suitesparse=1 ;;
    -h|--help) sed -n '2,36p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "$me: unknown option '$arg'" >&2; usage ;;
    *) [ -z "$out" ] || { echo "$me: one OUTDIR only" >&2; usage; }; out="$arg" ;;
  esac
done
[ -n "$out" ] || usage

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tools="$repo/perf_tests/tools"
deps="${TRELLIS_DEPS:-$repo/.deps}"
cache="$deps/download"
for c in python3 apt-get dpkg-deb tar sha256sum; do
  command -v "$c" >/dev/null || die "needs '$c' (Debian)"
done
mkdir -p "$out" "$cache" || die "cannot create $out or $cache"
out="$(cd "$out" && pwd)"
cache="$(cd "$cache" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rm -f "$out/MANIFEST.tsv"

# --------------------------------------------------------------- downloads ---
updated=0
# apt_try CMD...: runs an apt-get download command in $cache; on failure runs
# `apt-get update` once (the package lists may be missing or stale) and retries.
apt_try() {
  (cd "$cache" && "$@") && return 0
  [ $updated = 0 ] || return 1
  updated=1
  echo "$me: '$*' failed; running apt-get update and trying again" >&2
  if [ "$(id -u)" = 0 ]; then apt-get update -q >&2 || return 1
  else sudo -n apt-get update -q >&2 || return 1; fi
  (cd "$cache" && "$@")
}

# latest_file PATTERN...: the last by version of the files that exist, or nothing.
latest_file() { local f; for f in "$@"; do if [ -e "$f" ]; then echo "$f"; fi; done | sort -V | tail -n 1; }

size_mb() { python3 -c 'import os,sys; print("%.1f MB" % (os.path.getsize(sys.argv[1]) / 1e6))' "$1"; }

# fetch_cached PATTERN WHAT WHY CMD...: sets $fetched to the newest file of
# $cache matching PATTERN; when there is none, downloads WHAT with the apt-get
# command CMD (apt_try) and looks again. WHY says what a failed download most
# likely means.
fetched=""
fetch_cached() {
  local pattern="$1" what="$2" why="$3"
  shift 3
  fetched="$(latest_file "$cache"/$pattern)"
  if [ -n "$fetched" ]; then
    echo "  reusing $fetched ($(size_mb "$fetched"), no download)"
    return
  fi
  echo "  downloading $what"
  apt_try "$@" >&2 || die "'$*' failed: $why"
  fetched="$(latest_file "$cache"/$pattern)"
  [ -n "$fetched" ] || die "'$*' left no $pattern in $cache"
  echo "  downloaded $(basename "$fetched") ($(size_mb "$fetched"))"
}

# check_sha FILE SHA256 WHAT: the extracted file must be the one this script
# was written against.
check_sha() {
  local got
  got="$(sha256sum "$1" | cut -d' ' -f1)"
  [ "$got" = "$2" ] || die "$3: sha256 $got, expected $2 (a different package version?)"
}

# --------------------------------------------------------------- manifest ---
rows=()
# add_row FILE SOURCE_REPO SOURCE_PATH KIND: checks OUTDIR/FILE (parses, full
# nonzero diagonal) and records its manifest row; the level counts and tile
# density of L = tril(A) are appended to KIND.
add_row() {
  local file="$1" src_repo="$2" src_path="$3" kind="$4" line
  line="$(python3 "$tools/mtx_check.py" --tsv --require-diagonal "$out/$file" | tail -n +2)" \
    || die "$file: check failed (mtx_check.py above)"
  # mtx_check.py's columns; --require-diagonal has checked the two diagonal counts.
  local nrows ncols nnz_stored field symmetry nnz zeros lev_l lev_u widest thin per_tile
  IFS=$'\t' read -r _ nrows ncols nnz_stored field symmetry nnz zeros _ _ lev_l lev_u widest thin _ per_tile <<<"$line"
  [ "$nrows" = "$ncols" ] || die "$file: not square ($nrows x $ncols)"
  local extra="$nnz entries"
  [ "$zeros" = 0 ] || extra="$extra ($zeros stored explicit zeros, kept)"
  [ "$field" = pattern ] && extra="$extra, pattern only (values read as 1)"
  kind="$kind; $extra; full nonzero diagonal; tril: $lev_l levels (widest $widest rows, $thin under 32 rows), $per_tile entries a nonempty 16x16 tile; triu: $lev_u levels"
  rows+=("$file"$'\t'"$src_repo"$'\t'"$src_path"$'\t'"$(stat -c %s "$out/$file")"$'\t'"$nrows"$'\t'"$ncols"$'\t'"$nnz_stored"$'\t'"$symmetry"$'\t'"$kind")
  echo "  $file: n=$nrows, $nnz entries, tril $lev_l levels, triu $lev_u levels"
}

# --------------------------------------------------- 1. add32 (circuit) ---
echo "== add32: binary package libsuperlu-dist-dev"
fetch_cached 'libsuperlu-dist-dev_*.deb' "libsuperlu-dist-dev's .deb (0.9 MB)" "no network to the Debian archive, or no such package in this suite" \
  apt-get download -q libsuperlu-dist-dev
deb="$fetched"
ver="$(dpkg-deb -f "$deb" Version)" || die "$deb: not a readable .deb"
member="$(dpkg-deb -c "$deb" | awk '{print $NF}' | grep '/superlu-dist/tests/EXAMPLE/big\.rua$' | head -n 1 || true)"
[ -n "$member" ] || die "$deb ($ver) holds no superlu-dist/tests/EXAMPLE/big.rua"
dpkg-deb --fsys-tarfile "$deb" | tar -xO "$member" >"$work/big.rua" || die "$deb: cannot extract $member"
check_sha "$work/big.rua" cfaf152249717f7d320677f71783acb642de09adada960387325f7145323613f "${member#.} of libsuperlu-dist-dev $ver"
python3 "$tools/hb2mtx.py" "$work/big.rua" "$out/debian_superlu_add32.mtx.gz" \
  --comment "SuiteSparse Hamm/add32 (circuit simulation, 32-bit adder)" \
  --comment "source: Debian binary package libsuperlu-dist-dev $ver, file ${member#.} (BSD-3-Clause)" \
  --comment "converted by Trellis perf_tests/tools/hb2mtx.py: every stored entry kept, values unchanged" \
  >/dev/null || die "converting big.rua failed (hb2mtx.py above)"
add_row debian_superlu_add32.mtx.gz "Debian libsuperlu-dist-dev $ver (binary .deb, BSD-3-Clause)" \
  "${member#.} (sha256 cfaf1522...613f)" \
  "circuit simulation: SuiteSparse Hamm/add32, 32-bit adder (S. Hamm, Motorola), nonsymmetric values on a symmetric pattern"

# ---------------------------------------------- 2. 662_bus (power network) ---
if [ $with_trilinos = 1 ]; then
  echo "== 662_bus: source package trilinos 13.2.0-4"
  tgz="${TRILINOS_TGZ:-}"
  if [ -n "$tgz" ]; then
    [ -s "$tgz" ] || die "TRILINOS_TGZ=$tgz: no such file"
    echo "  reusing $tgz ($(size_mb "$tgz"), no download)"
  else
    fetch_cached 'trilinos_13.2.0.orig.tar.*' "trilinos_13.2.0.orig.tar.gz (166 MB, kept in $cache for setup_deps.sh)" \
      "it needs a deb-src entry for bookworm (cmake/deps/setup_deps.sh adds one) and the Debian archive; or set TRILINOS_TGZ=FILE, or pass --no-trilinos" \
      apt-get source --download-only -q trilinos=13.2.0-4
    tgz="$fetched"
  fi
  path=Trilinos-trilinos-release-13-2-0/packages/amesos/test/Test_Basic/662_bus.rsa
  tar -xOf "$tgz" "$path" >"$work/662_bus.rsa" || die "$tgz: cannot extract $path"
  check_sha "$work/662_bus.rsa" 7891287604dd24ef6a3227a3073b7e7c4694649002ae4cdda9088f2fe7550385 "$path"
  python3 "$tools/hb2mtx.py" "$work/662_bus.rsa" "$out/debian_trilinos_662_bus.mtx.gz" \
    --comment "SuiteSparse HB/662_bus (power network admittance matrix)" \
    --comment "source: Debian source package trilinos 13.2.0-4, file $path (LGPL-2.1, packages/amesos)" \
    --comment "converted by Trellis perf_tests/tools/hb2mtx.py: every stored entry kept, values unchanged" \
    >/dev/null || die "converting 662_bus.rsa failed (hb2mtx.py above)"
  add_row debian_trilinos_662_bus.mtx.gz "Debian trilinos 13.2.0-4 (source package, LGPL-2.1 for packages/amesos)" \
    "$path (sha256 78912876...0385)" \
    "power network: SuiteSparse HB/662_bus, admittance matrix of a 662-bus power system (D.J. Tylavsky, 1985), symmetric"
fi

# -------------------------------------- 3. bcspwr10 (power network, opt-in) ---
if [ $with_suitesparse = 1 ]; then
  echo "== bcspwr10: source package suitesparse 1:5.12.0+dfsg-2"
  fetch_cached 'suitesparse_5.12.0+dfsg.orig.tar.*' "suitesparse_5.12.0+dfsg.orig.tar.xz (39 MB)" \
    "it needs a deb-src entry for bookworm (cmake/deps/setup_deps.sh adds one) and the Debian archive" \
    apt-get source --download-only -q suitesparse=1:5.12.0+dfsg-2
  txz="$fetched"
  path=SuiteSparse-5.12.0/Mongoose/Matrix/bcspwr10.mtx
  tar -xOf "$txz" "$path" >"$work/bcspwr10.mtx" || die "$txz: cannot extract $path"
  check_sha "$work/bcspwr10.mtx" 5011d5518a7d96ab054dadb8f0670fded73385548add1cfa75c43742523c3e33 "$path"
  # Already Matrix Market: compressed as it is (gzip -n: no name, no timestamp).
  gzip -n -9 <"$work/bcspwr10.mtx" >"$out/debian_suitesparse_bcspwr10.mtx.gz.tmp" \
    || die "compressing bcspwr10.mtx failed"
  mv "$out/debian_suitesparse_bcspwr10.mtx.gz.tmp" "$out/debian_suitesparse_bcspwr10.mtx.gz"
  add_row debian_suitesparse_bcspwr10.mtx.gz "Debian suitesparse 1:5.12.0+dfsg-2 (source package, GPL-3+ for Mongoose)" \
    "$path (sha256 5011d551...3e33)" \
    "power network: SuiteSparse HB/bcspwr10, structure of the entire US power network (B. Dembart, J. Lewis, 1981), symmetric"
fi

# --------------------------------------------------------------- manifest ---
{
  printf 'file\tsource_repo\tsource_path\tbytes\tnrows\tncols\tnnz_stored\tsymmetry\tkind\n'
  printf '%s\n' "${rows[@]}"
} >"$out/MANIFEST.tsv.tmp" && mv "$out/MANIFEST.tsv.tmp" "$out/MANIFEST.tsv"
echo "wrote $out/MANIFEST.tsv (${#rows[@]} matrices); run: TRELLIS_MATRICES=$out trsv_bench --quick"
