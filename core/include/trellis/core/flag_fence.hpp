#pragma once
// The fence of DESIGN.md's publish-then-flag pattern, on both of its sides:
// after the writes and before the ready flag's store (release), after the
// flag's load and before the reads (acquire).
#include <Kokkos_Core.hpp>

namespace trellis {

/// On CUDA a fence.acq_rel.gpu: the release and acquire orderings the
/// pattern needs, and cumulative, so that one thread's fence after a team
/// barrier also publishes what the rest of its team wrote before it.
/// Kokkos::memory_fence() there is __threadfence(), a sequentially
/// consistent fence.sc.gpu (MEMBAR.SC.GPU). Elsewhere Kokkos::memory_fence().
KOKKOS_FORCEINLINE_FUNCTION void flag_fence() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
#else
  Kokkos::memory_fence();
#endif
}

}  // namespace trellis
