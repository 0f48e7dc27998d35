#!/usr/bin/env bash
# A compiler launcher (CMAKE_CXX_COMPILER_LAUNCHER) that appends
# "SECONDS OUTPUT" for every compile to $TRELLIS_COMPILE_LOG: which
# translation units make the build's critical path.
start=$(date +%s%N)
"$@"
rc=$?
out="" prev=""
for a in "$@"; do [ "$prev" = -o ] && out=$a; prev=$a; done
ms=$((($(date +%s%N) - start) / 1000000))
printf '%d.%03d %s\n' $((ms / 1000)) $((ms % 1000)) "${out##*/}" >>"${TRELLIS_COMPILE_LOG:-/tmp/trellis_compile_times.log}"
exit $rc
