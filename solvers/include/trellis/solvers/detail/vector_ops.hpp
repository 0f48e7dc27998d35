#pragma once
// The vector operations of the Krylov drivers. Every reduction goes through
// dot() or sums() here, so that a distributed build can make them global in
// one place.
#include <Kokkos_Core.hpp>
#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_scal.hpp>
#include <KokkosBlas1_update.hpp>
#include <array>
#include <cmath>

namespace trellis::detail {

/// N sums reduced together: one pass and one host round trip for several
/// inner products.
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

}  // namespace trellis::detail

namespace Kokkos {
template <class Scalar, int N>
struct reduction_identity<trellis::detail::SumArray<Scalar, N>> {
  KOKKOS_FORCEINLINE_FUNCTION static trellis::detail::SumArray<Scalar, N> sum() { return {}; }
};
}  // namespace Kokkos

namespace trellis::detail {

/// Runs body(i, acc) for i in [0, n), where acc is a Scalar[N] to add into,
/// and returns the N sums.
template <class Scalar, int N, class ExecSpace, class Body>
std::array<Scalar, N> sums(const char* label, size_t n, const Body& body) {
  SumArray<Scalar, N> total;
  Kokkos::parallel_reduce(
      label, Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(size_t i, SumArray<Scalar, N> & acc) { body(i, acc.v); },
      Kokkos::Sum<SumArray<Scalar, N>>(total));
  std::array<Scalar, N> out;
  for (int k = 0; k < N; ++k) out[k] = total.v[k];
  return out;
}

template <class X, class Y>
typename X::non_const_value_type dot(const X& x, const Y& y) {
  return KokkosBlas::dot(x, y);
}

template <class X>
typename X::non_const_value_type norm2(const X& x) {
  return std::sqrt(dot(x, x));
}

/// y = a x + b y.
template <class Scalar, class X, class Y>
void axpby(Scalar a, const X& x, Scalar b, const Y& y) {
  KokkosBlas::axpby(a, x, b, y);
}

/// z = a x + b y + c z, in one pass (c = 0: z is not read).
template <class Scalar, class X, class Y, class Z>
void update(Scalar a, const X& x, Scalar b, const Y& y, Scalar c, const Z& z) {
  KokkosBlas::update(a, x, b, y, c, z);
}

/// y = a x.
template <class Scalar, class X, class Y>
void scale(Scalar a, const X& x, const Y& y) {
  KokkosBlas::scal(y, a, x);
}

}  // namespace trellis::detail
