#!/usr/bin/env bash
# The device runs behind perf_tests/journal/RESULTS.md's Kronecker (seed 001) and
# multi-GPU DD (seed 000 section 4.5) sections. Run from the build's
# perf_tests/ (device_check.sh run 'bash .../kron_and_dd_runs.sh MODE...').
#   one-gpu    kron_bench on 1 rank (the paper's size, 6000 iterations, the
#              stage preconditioner), 2 and 4 ranks sharing the GPU, s = 3
#   gpus G     kron_bench and dd_mpi_bench (strong and weak) on 1..G ranks,
#              one GPU each
#   two-gpu-session   the runs of both, most needed first, in one device call
#   gpus-session G    on a G-GPU machine, one GPU per rank: the distributed
#              unit tests on 2 and G ranks, then DD strong (128^3) and weak
#              (128x128x64 per GPU) on 1..G, then kron_bench on 1..G (2000 it)
#   kron-gpus G       kron_bench on 1..G ranks, one GPU each (2000 it)
#   dd-large G        DD strong scaling on 256^3 (50 M rows), 1..G ranks
# Prints to stdout; each run's JSON row is appended to $OUT/runs.jsonl as it ends.
set -u
out="${OUT:-.}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_PROC_BIND=false OMP_NUM_THREADS=2
export NCCL_NVLS_ENABLE=0  # the machines' rule: no NVLink multicast (unused here)
run() {  # run NAME CMD...: prints, appends the JSON row
  local name="$1"; shift
  echo "== $name: $*"
  rm -f "/tmp/$name.json"
  timeout "${RUN_TIMEOUT:-150}" "$@" --json "/tmp/$name.json" || echo "== $name: exit $?"
  [ -f "/tmp/$name.json" ] && echo "{\"run\": \"$name\", \"result\": $(cat "/tmp/$name.json")}" >>"$out/runs.jsonl"
}
while [ $# -gt 0 ]; do
  case "$1" in
    one-gpu)
      run kron_np1 ./kron_bench --iterations 6000 --precond ilu0
      for p in 2 4; do run "kron_np$p" mpiexec -n "$p" --oversubscribe ./kron_bench --iterations 1000; done
      run kron_s3 ./kron_bench --stages 3 --iterations 600
      shift ;;
    gpus)
      g="${2:?number of GPUs}"
      for p in $(seq 2 "$g"); do
        run "kron_gpus$p" mpiexec -n "$p" ./kron_bench --iterations 6000 --kokkos-num-devices="$g"
      done
      for p in $(seq 1 "$g"); do
        run "dd_strong$p" mpiexec -n "$p" ./dd_mpi_bench --grid 128x128x128 --kokkos-num-devices="$g"
        run "dd_weak$p" mpiexec -n "$p" ./dd_mpi_bench --grid 128x128x128 --weak --kokkos-num-devices="$g"
      done
      shift 2 ;;
    two-gpu-session)  # everything on a 2-GPU machine in one call, the most needed first
      run kron_np1 ./kron_bench --iterations 6000 --precond ilu0
      run kron_np2 mpiexec -n 2 --oversubscribe ./kron_bench --iterations 2000
      run kron_gpus2 mpiexec -n 2 ./kron_bench --iterations 2000 --kokkos-num-devices=2
      for p in 1 2; do run "dd_strong$p" mpiexec -n "$p" ./dd_mpi_bench --grid 128x128x128 --kokkos-num-devices=2; done
      for p in 1 2; do run "dd_weak$p" mpiexec -n "$p" ./dd_mpi_bench --grid 128x128x64 --weak --kokkos-num-devices=2; done
      run kron_np4 mpiexec -n 4 --oversubscribe ./kron_bench --iterations 1000
      run kron_s3 ./kron_bench --stages 3 --iterations 600
      shift ;;
    gpus-session)
      g="${2:?number of GPUs}"
      for p in 2 "$g"; do
        for t in test_communicator_mpi test_dd_mpi test_kronecker_mpi; do
          echo "== unit $t on $p ranks, one GPU each"
          timeout 120 mpiexec -n "$p" "../unit_tests/$t" --kokkos-num-devices="$g" 2>&1 | tail -4
          echo "== unit $t np$p: exit ${PIPESTATUS[0]}"
        done
      done
      for p in $(seq 1 "$g"); do run "dd_strong$p" mpiexec -n "$p" ./dd_mpi_bench --grid 128x128x128 --kokkos-num-devices="$g"; done
      for p in $(seq 1 "$g"); do run "dd_weak$p" mpiexec -n "$p" ./dd_mpi_bench --grid 128x128x64 --weak --kokkos-num-devices="$g"; done
      for p in $(seq 1 "$g"); do run "kron_gpus$p" mpiexec -n "$p" ./kron_bench --iterations 2000 --kokkos-num-devices="$g"; done
      shift 2 ;;
    kron-gpus)
      g="${2:?number of GPUs}"
      for p in $(seq 1 "$g"); do run "kron_gpus$p" mpiexec -n "$p" ./kron_bench --iterations 2000 --kokkos-num-devices="$g"; done
      shift 2 ;;
    dd-large)
      g="${2:?number of GPUs}"
      for p in $(seq 1 "$g"); do
        run "dd_strong256_$p" mpiexec -n "$p" ./dd_mpi_bench --grid 256x256x256 --kokkos-num-devices="$g"
      done
      shift 2 ;;
    mappings)  # the lane mappings of the SpMV, one GPU (the fastest serves the solves)
      run kron_map_np1 ./kron_bench --iterations 2000 --precond ilu0
      run kron_map_s3 ./kron_bench --stages 3 --iterations 600
      shift ;;
    *) echo "unknown mode $1"; exit 2 ;;
  esac
done
