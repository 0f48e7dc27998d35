#pragma once
// The vector steps of a BiCGSTAB iteration, each one pass over its vectors
// with its inner products folded in. An iteration then costs four host
// reductions and one plain vector kernel besides the operator and the
// preconditioner (it was six reductions and four updates): on systems of a
// few thousand rows the launches and host round trips are what an iteration
// costs, whatever the preconditioner.
#include <array>

#include "trellis/solvers/detail/vector_ops.hpp"

namespace trellis::detail {

/// s = r - alpha v; returns (s, s).
template <class Scalar, class Device>
Scalar half_step(Kokkos::View<const Scalar*, Device> r, Scalar alpha, Kokkos::View<const Scalar*, Device> v,
                 Kokkos::View<Scalar*, Device> s) {
  using exec = typename Device::execution_space;
  return sums<Scalar, 1, exec>("trellis::bicgstab::half_step", r.extent(0), KOKKOS_LAMBDA(size_t i, Scalar * acc) {
    const Scalar si = r(i) - alpha * v(i);
    s(i) = si;
    acc[0] += si * si;
  })[0];
}

/// Returns ((t, t), (t, s)).
template <class Scalar, class Device>
std::array<Scalar, 2> omega_dots(Kokkos::View<const Scalar*, Device> t, Kokkos::View<const Scalar*, Device> s) {
  using exec = typename Device::execution_space;
  return sums<Scalar, 2, exec>("trellis::bicgstab::omega_dots", t.extent(0), KOKKOS_LAMBDA(size_t i, Scalar * acc) {
    acc[0] += t(i) * t(i);
    acc[1] += t(i) * s(i);
  });
}

/// y += alpha p + omega q; r = s - omega t; returns ((r, r), (r, rhat)).
template <class Scalar, class Device>
std::array<Scalar, 2> full_step(Kokkos::View<Scalar*, Device> y, Scalar alpha, Kokkos::View<const Scalar*, Device> p,
                                Scalar omega, Kokkos::View<const Scalar*, Device> q,
                                Kokkos::View<const Scalar*, Device> s, Kokkos::View<const Scalar*, Device> t,
                                Kokkos::View<Scalar*, Device> r, Kokkos::View<const Scalar*, Device> rhat) {
  using exec = typename Device::execution_space;
  return sums<Scalar, 2, exec>("trellis::bicgstab::full_step", r.extent(0), KOKKOS_LAMBDA(size_t i, Scalar * acc) {
    y(i) += alpha * p(i) + omega * q(i);
    const Scalar ri = s(i) - omega * t(i);
    r(i) = ri;
    acc[0] += ri * ri;
    acc[1] += ri * rhat(i);
  });
}

}  // namespace trellis::detail
