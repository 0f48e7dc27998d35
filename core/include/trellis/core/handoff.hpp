#pragma once
// The memory ordering of a sync-free kernel's hand-off: a producer writes
// its values and then sets a flag (release); a consumer sees the flag and
// then reads the values (acquire). Kokkos::memory_fence() is a sequentially
// consistent fence (fence.sc.gpu on CUDA), stronger than either side needs;
// on CUDA sm_70+ these are the acquire-release fence and the release store
// at GPU scope of the PTX memory model. Other backends: Kokkos's fence.
//
// The warp pattern (as stream-K style GPU barriers do it): the lanes of a
// vector group write, synchronize (a warp barrier orders their writes before
// what follows it on every lane), and one lane makes the release store; a
// consumer's lanes each acquire after the flags they saw and synchronize, so
// a flag seen by one lane orders the reads of all.
//
// The other hand-off needs no flag: a value is its own ready flag. The
// output is filled with an "unpublished" sentinel (a signalling NaN with a
// payload) before the kernel; a producer stores each value once, a
// consumer spins on each value it reads until it no longer holds the
// sentinel. No fence on either side: each location is observed on its own.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <type_traits>

#include "trellis/core/types.hpp"

namespace trellis::detail {

/// The bit pattern of "not yet solved" for a scalar type (void: none).
template <class Scalar>
struct Unpublished {
  using bits_type = void;
};
template <>
struct Unpublished<double> {
  using bits_type = std::uint64_t;
  static constexpr bits_type bits = 0x7FF4'5E17'1E55'0001ull;  // sNaN, quiet bit clear
};
template <>
struct Unpublished<float> {
  using bits_type = std::uint32_t;
  static constexpr bits_type bits = 0x7FA5'1E55u;  // sNaN, quiet bit clear
};

template <class Scalar>
constexpr bool has_value_flag() {
  return !std::is_void<typename Unpublished<Scalar>::bits_type>::value;
}

/// The bits of a scalar and back. A union, not memcpy: memcpy is host-only
/// for hipcc, and GCC, Clang and NVCC all define union punning.
template <class Scalar>
union ScalarBits {
  Scalar value;
  typename Unpublished<Scalar>::bits_type bits;
};

/// Writes the sentinel at *p: its value is not published yet.
template <class Scalar>
KOKKOS_INLINE_FUNCTION void mark_unpublished(Scalar* p) {
  *reinterpret_cast<typename Unpublished<Scalar>::bits_type*>(p) = Unpublished<Scalar>::bits;
}

/// Whether v holds the sentinel.
template <class Scalar>
KOKKOS_INLINE_FUNCTION bool is_unpublished(Scalar v) {
  ScalarBits<Scalar> b;
  b.value = v;
  return b.bits == Unpublished<Scalar>::bits;
}

/// One load of *p at the coherence point, published or not (a consumer that
/// issues its loads early checks them with is_unpublished when it uses them).
template <class Scalar>
KOKKOS_INLINE_FUNCTION Scalar load_published(const Scalar* p) {
  ScalarBits<Scalar> v;
  v.bits = Kokkos::volatile_load(reinterpret_cast<const typename Unpublished<Scalar>::bits_type*>(p));
  return v.value;
}

/// Spins until *p no longer holds the sentinel; returns the published value.
template <class Scalar>
KOKKOS_INLINE_FUNCTION Scalar wait_published(const Scalar* p) {
  ScalarBits<Scalar> v;
  do {
    v.bits = Kokkos::volatile_load(reinterpret_cast<const typename Unpublished<Scalar>::bits_type*>(p));
  } while (v.bits == Unpublished<Scalar>::bits);
  return v.value;
}

/// Publishes v at *p. A value that is not the result of arithmetic (an
/// input copied through) could hold the sentinel's bits; it is stored as
/// a quiet NaN instead, so that no consumer waits on it forever.
template <class Scalar>
KOKKOS_INLINE_FUNCTION void publish_value(Scalar* p, Scalar v) {
  using Bits = typename Unpublished<Scalar>::bits_type;
  ScalarBits<Scalar> b;
  b.value = v;
  if (b.bits == Unpublished<Scalar>::bits)
    b.bits |= Bits(1) << (std::numeric_limits<Scalar>::digits - 2);  // the quiet bit
  Kokkos::volatile_store(reinterpret_cast<Bits*>(p), b.bits);
}

/// Acquire: the reads after it see what the writers of the flags this thread
/// saw wrote before their release.
KOKKOS_FORCEINLINE_FUNCTION void acquire_fence() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
#else
  Kokkos::memory_fence();
#endif
}

/// Sets *flag = value after every write this thread made (or that happened
/// before it, as a warp barrier's writers' do).
KOKKOS_FORCEINLINE_FUNCTION void store_release(int* flag, int value) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(flag), "r"(value) : "memory");
#else
  Kokkos::memory_fence();
  Kokkos::volatile_store(flag, value);
#endif
}

/// On GPUs: this team thread's lanes within its warp (mask) and the first
/// lane's place in the warp (shift). Kokkos puts a thread's vector lanes in
/// threadIdx.x, so blockDim.x lanes are consecutive threads of one warp.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
KOKKOS_INLINE_FUNCTION int lane_shift() { return int(threadIdx.y % (warpSize / blockDim.x)) * int(blockDim.x); }
#endif
#if defined(__CUDA_ARCH__)
KOKKOS_INLINE_FUNCTION unsigned lane_mask() {
  return blockDim.x == 32 ? 0xffffffffu : ((1u << blockDim.x) - 1) << lane_shift();
}
#endif

/// Orders the writes of one team thread's lanes before their next reads and
/// writes (a warp sync with the team thread's lanes as mask on CUDA; one
/// wavefront runs in lock step on HIP, where the fence keeps the order).
/// Every lane of the vector group must call it.
KOKKOS_INLINE_FUNCTION void sync_lanes() {
#if defined(__CUDA_ARCH__)
  __syncwarp(lane_mask());
#elif defined(__HIP_DEVICE_COMPILE__)
  __threadfence_block();
#endif
}

/// Publishes *flag = value after every lane of vector group m has written
/// what the flag guards. Called by the whole vector group, outside a
/// vector loop.
template <class Member>
KOKKOS_INLINE_FUNCTION void publish_flag(const Member& m, int* flag, int value) {
  sync_lanes();
  Kokkos::single(Kokkos::PerThread(m), [&]() { store_release(flag, value); });
}

}  // namespace trellis::detail
