#pragma once
// The vector operations of the Krylov drivers. Every reduction goes through
// dot() or sums_into() here, so that a distributed build can make them global in
// one place.
#include <Kokkos_Core.hpp>
#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_scal.hpp>
#include <KokkosBlas1_update.hpp>
#include <cmath>

#include "trellis/core/sum_array.hpp"

namespace trellis::detail {

/// Runs body(i, acc) for i in [0, n), where acc is a Scalar[N] to add into,
/// and writes the N sums to dest[0..N), memory of ExecSpace's: the call does
/// not wait for the result, so reductions queue like any other kernel.
template <class Scalar, int N, class ExecSpace, class Body>
void sums_into(const char* label, size_t n, Scalar* dest, const Body& body) {
  using space = typename ExecSpace::memory_space;
  Kokkos::View<SumArray<Scalar, N>, space> result(reinterpret_cast<SumArray<Scalar, N>*>(dest));  // unmanaged
  Kokkos::parallel_reduce(
      label, Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(size_t i, SumArray<Scalar, N> & acc) { body(i, acc.v); },
      Kokkos::Sum<SumArray<Scalar, N>, space>(result));
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
