#pragma once
// Index types and device aliases shared by every Trellis container and kernel.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace trellis {

/// Row and column indices. 32-bit: halves index traffic in bandwidth-bound
/// solves; matrices with more than 2^31-1 rows are rejected where built.
using ordinal_t = int;
/// Row offsets (nonzero positions). 32-bit for the same reason, and because it
/// is what cuSPARSE's 32-bit index mode takes without a copy; builders check
/// that nnz fits and say so when it does not.
using offset_t = int;

/// The device (execution space + memory space) kernels run on by default.
using DefaultDevice = Kokkos::Device<Kokkos::DefaultExecutionSpace, Kokkos::DefaultExecutionSpace::memory_space>;
/// Host device used by readers, generators and serial references.
using HostDevice = Kokkos::Device<Kokkos::DefaultHostExecutionSpace, Kokkos::HostSpace>;

}  // namespace trellis
