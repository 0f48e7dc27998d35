#pragma once
// Timing a benchmark run on several processes (kron_bench, dd_mpi_bench):
// all start together, and a run takes as long as its slowest process (the
// paper's convention in seed 001: the maximum over the processes).
#include <Kokkos_Core.hpp>
#include <functional>

#include "trellis/core/stopwatch.hpp"
#include "trellis/distributed/communicator.hpp"

namespace trellis::bench {

/// The largest v over the processes of comm.
inline double max_over_ranks(const distributed::Communicator& comm, double v) {
  comm.allreduce_max(&v, 1);
  return v;
}

/// Seconds of `run`, started together on every process (device work fenced
/// before and after), the slowest process's.
inline double timed_on_all(const distributed::Communicator& comm, const std::function<void()>& run) {
  Kokkos::fence();
  double ready = 0;
  comm.allreduce_sum(&ready, 1);  // a barrier: nobody starts before everybody is here
  const time_point t0 = now();
  run();
  Kokkos::fence();
  return max_over_ranks(comm, seconds_since(t0));
}

}  // namespace trellis::bench
