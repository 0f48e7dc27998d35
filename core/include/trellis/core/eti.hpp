#pragma once
// Compiled instantiations (the Kokkos Kernels ETI pattern). The library
// compiles its heavy templates once for double on the device of every
// enabled backend (algorithms/src/eti/); their headers declare those
// `extern template`, so tests, benchmarks, the CLI and applications link
// them instead of instantiating the kernels again. Other scalar types and
// devices still instantiate from the headers. TRELLIS_ENABLE_ETI (CMake
// option of the same name) turns the declarations off; TRELLIS_ETI_BACKENDS
// limits them to some backends (TRELLIS_ETI_HAS_<BACKEND>).
#include <Kokkos_Core.hpp>

#include "trellis/config.hpp"

namespace trellis::eti {
#if defined(KOKKOS_ENABLE_CUDA)
using CudaDevice = Kokkos::Device<Kokkos::Cuda, Kokkos::Cuda::memory_space>;
#endif
#if defined(KOKKOS_ENABLE_HIP)
using HipDevice = Kokkos::Device<Kokkos::Experimental::HIP, Kokkos::Experimental::HIP::memory_space>;
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
using OpenMPDevice = Kokkos::Device<Kokkos::OpenMP, Kokkos::OpenMP::memory_space>;
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
using SerialDevice = Kokkos::Device<Kokkos::Serial, Kokkos::Serial::memory_space>;
#endif
}  // namespace trellis::eti

#if defined(KOKKOS_ENABLE_CUDA) && TRELLIS_ETI_HAS_CUDA
#define TRELLIS_ETI_CUDA(MACRO) MACRO(::trellis::eti::CudaDevice)
#else
#define TRELLIS_ETI_CUDA(MACRO)
#endif
#if defined(KOKKOS_ENABLE_HIP) && TRELLIS_ETI_HAS_HIP
#define TRELLIS_ETI_HIP(MACRO) MACRO(::trellis::eti::HipDevice)
#else
#define TRELLIS_ETI_HIP(MACRO)
#endif
#if defined(KOKKOS_ENABLE_OPENMP) && TRELLIS_ETI_HAS_OPENMP
#define TRELLIS_ETI_OPENMP(MACRO) MACRO(::trellis::eti::OpenMPDevice)
#else
#define TRELLIS_ETI_OPENMP(MACRO)
#endif
#if defined(KOKKOS_ENABLE_SERIAL) && TRELLIS_ETI_HAS_SERIAL
#define TRELLIS_ETI_SERIAL(MACRO) MACRO(::trellis::eti::SerialDevice)
#else
#define TRELLIS_ETI_SERIAL(MACRO)
#endif

/// MACRO(DEVICE) for the device of every backend the library instantiates for.
#define TRELLIS_ETI_FOR_EACH_DEVICE(MACRO) \
  TRELLIS_ETI_CUDA(MACRO) TRELLIS_ETI_HIP(MACRO) TRELLIS_ETI_OPENMP(MACRO) TRELLIS_ETI_SERIAL(MACRO)
