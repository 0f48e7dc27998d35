#pragma once
// N sums reduced as one value: the vector lanes' partial sums of a block row
// (block SpMV), several inner products in one pass (Krylov steps). A
// Kokkos::Sum over it needs the volatile += (Kokkos 3.4's join) and the
// reduction_identity below.
#include <Kokkos_Core.hpp>

namespace trellis {

template <class Scalar, int N>
struct SumArray {
  Scalar v[N];
  KOKKOS_INLINE_FUNCTION SumArray() {
    for (int k = 0; k < N; ++k) v[k] = Scalar(0);
  }
  KOKKOS_INLINE_FUNCTION SumArray& operator+=(const SumArray& o) {
    for (int k = 0; k < N; ++k) v[k] += o.v[k];
    return *this;
  }
  KOKKOS_INLINE_FUNCTION void operator+=(const volatile SumArray& o) volatile {
    for (int k = 0; k < N; ++k) v[k] += o.v[k];
  }
};

}  // namespace trellis

namespace Kokkos {
template <class Scalar, int N>
struct reduction_identity<trellis::SumArray<Scalar, N>> {
  KOKKOS_FORCEINLINE_FUNCTION static trellis::SumArray<Scalar, N> sum() { return {}; }
};
}  // namespace Kokkos
