# A record (journal/RESULTS.md, forty-seventh session): on the GPU machine,
# after device_check.sh built struct_bench, compiles the reproducer with the
# build's flags plus each variant's options, in parallel, links each as
# struct_bench is linked, runs each; then the chunk-12 kernels' registers.
B=/tmp/trellis-device/build; d=$B/perf_tests/CMakeFiles/struct_bench.dir; R="$(cd "$(dirname "$0")" && pwd)"
flags() { sed -n "s/^$1 = //p" $d/flags.make; }
CXX=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' $B/CMakeCache.txt)
defs=$(flags CXX_DEFINES); incs=$(flags CXX_INCLUDES); cxxf=$(flags CXX_FLAGS)
link=$(cat $d/link.txt)
declare -A V=([base]="" [ptxas_O0]="-Xptxas=-O0" [ptxas_O1]="-Xptxas=-O1" [ptxas_O2]="-Xptxas=-O2" [no_l1]="-Xptxas=-dlcm=cg" [regs128]="-maxrregcount 128" [debug_G]="-G")
cd $B/perf_tests
for v in "${!V[@]}"; do
  ( t0=$SECONDS; eval timeout 330 $CXX $defs $incs $cxxf ${V[$v]} -c $R/structilu_dof2_chunk_repro.cpp -o /tmp/repro_$v.o > /tmp/repro_$v.log 2>&1 &&
    eval "${link/CMakeFiles\/struct_bench.dir\/struct_bench.cpp.o -o struct_bench//tmp/repro_$v.o -o /tmp/repro_$v}" >> /tmp/repro_$v.log 2>&1;
    echo "$v built rc=$? in $((SECONDS - t0)) s" ) &
done
wait
for v in base ptxas_O2 ptxas_O1 ptxas_O0 no_l1 regs128 debug_G; do
  echo "== $v (${V[$v]})"; [ -x /tmp/repro_$v ] && timeout 60 /tmp/repro_$v 2>&1 | tail -30 || tail -5 /tmp/repro_$v.log
done
echo "== registers of the chunk-12 kernels (REG, STACK, LOCAL per kernel)"
for v in base ptxas_O1 ptxas_O0 no_l1 regs128 debug_G; do
  [ -x /tmp/repro_$v ] || continue
  echo "$v: $(cuobjdump -res-usage /tmp/repro_$v 2>/dev/null | c++filt | grep -A1 'sweep_of<2, 16, double, Kokkos::Device<Kokkos::Cuda, Kokkos::CudaSpace>, 12>' | grep -o 'REG:[0-9]* STACK:[0-9]*' | sort | uniq -c | tr '\n' ';')"
done
cuobjdump -sass /tmp/repro_base > /tmp/repro_base.sass 2>/dev/null
python3 - <<'PY' > $OUT/sass_chunk12_base.txt
import re, subprocess
t = open("/tmp/repro_base.sass").read()
parts = re.split(r"\n\s*Function : (\S+)\n", t)
for name, body in zip(parts[1::2], parts[2::2]):
    d = subprocess.run(["c++filt", name], capture_output=True, text=True).stdout
    if "sweep_of<2, 16, double, Kokkos::Device<Kokkos::Cuda, Kokkos::CudaSpace>, 12>" in d and "sweep_tiles<0" in d:
        print(d[:300]); print(body); break
PY
ls -la $OUT
