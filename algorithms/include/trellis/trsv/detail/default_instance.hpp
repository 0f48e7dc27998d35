#pragma once
// Ordering between an execution-space instance and routines that take none
// (Kokkos Kernels 3.4's sort, spmv and axpy, core's level and transpose
// analyses): those run on the default instance.
#include <Kokkos_Core.hpp>

namespace trellis::detail {

/// Runs `routine` after the work queued on `space`, and finishes it before
/// anything queued on `space` afterwards.
template <class Exec, class Routine>
void on_default_instance(const Exec& space, Routine&& routine) {
  space.fence();
  routine();
  Exec().fence();
}

}  // namespace trellis::detail
