#pragma once
// What kernels need to know of the backend they run on: host or GPU, team
// shapes (on GPUs a team is a block of rows_per_team(K) vector groups of K
// lanes, 256 threads; on host backends a team is one thread and vector lanes
// are 1), and how to order routines that take no execution-space instance.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <type_traits>

namespace trellis {

/// The execution policies of Trellis's kernels: Kokkos's, with the
/// light-weight launch hint. Kokkos 3.4 on CUDA passes a functor of 512
/// bytes or more through constant memory, and each such launch first waits
/// on the host until the previous one has finished (cudaEventSynchronize):
/// a loop of launches, a level at a time, then pays a host round trip per
/// launch. With the hint a functor under 4 KB goes as kernel arguments and
/// a larger one through global memory, neither with a wait. Other backends
/// ignore the hint.
template <class Exec, class... Traits>
using TeamPolicy = Kokkos::TeamPolicy<Exec, Kokkos::Experimental::WorkItemProperty::HintLightWeight_t, Traits...>;
template <class Exec, class... Traits>
using RangePolicy = Kokkos::RangePolicy<Exec, Kokkos::Experimental::WorkItemProperty::HintLightWeight_t, Traits...>;

}  // namespace trellis

namespace trellis::detail {

template <class Exec>
constexpr bool is_host_space() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
}

/// Lanes a row may use: a warp on GPUs, 1 on host backends.
template <class Exec>
int max_vector_width() {
  return is_host_space<Exec>() ? 1 : std::min(32, int(Kokkos::TeamPolicy<Exec>::vector_length_max()));
}

/// Vector groups (rows) per team for K lanes each.
template <class Exec>
int rows_per_team(int K) {
  return is_host_space<Exec>() ? 1 : std::max(1, 256 / K);
}

/// Rows a chained level may have to run inside one team.
template <class Exec>
int chain_rows(int K) {
  return is_host_space<Exec>() ? 64 : rows_per_team<Exec>(K);
}

/// Runs `routine` (Kokkos Kernels 3.4's sort, spmv and axpy, core's level
/// and transpose analyses: routines that take no instance and run on the
/// default one) after the work queued on `space`, and finishes it before
/// anything queued on `space` afterwards.
template <class Exec, class Routine>
void on_default_instance(const Exec& space, Routine&& routine) {
  space.fence();
  routine();
  Exec().fence();
}

/// Whether work queued on a and on b runs in order (one stream). Host
/// backends run each dispatch to completion, so any two of theirs count as one.
template <class Exec>
bool same_instance(const Exec& a, const Exec& b) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<Exec, Kokkos::Cuda>::value) return a.cuda_stream() == b.cuda_stream();
#endif
#if defined(KOKKOS_ENABLE_HIP)
  if constexpr (std::is_same<Exec, Kokkos::Experimental::HIP>::value) return a.hip_stream() == b.hip_stream();
#endif
  (void)a, (void)b;
  return true;
}

}  // namespace trellis::detail
