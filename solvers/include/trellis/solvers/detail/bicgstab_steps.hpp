#pragma once
// The vector steps of a BiCGSTAB iteration, each one pass over its vectors
// with its inner products folded in, and the iteration's scalars kept in
// device memory. The steps reduce into that memory and read alpha, omega and
// beta from it, so nothing waits for the host inside an iteration: its
// kernels queue back to back and one copy of the scalars at its end is the
// only round trip (there were four, one per inner product: on systems of a
// few thousand rows the round trips were most of what an iteration cost).
//
// The host decides convergence and breakdown from that copy with the same
// predicates (IterationScalars) that the kernels evaluate on the device, so a
// step the host rejects has not touched x or r.
//
// Every step is queued on the execution-space instance it takes first; its
// inner products go through sums_into (vector_ops.hpp, the reduction seam).
#include <Kokkos_Core.hpp>

#include "trellis/core/backend.hpp"
#include "trellis/core/kokkos_compat.hpp"
#include "trellis/solvers/detail/vector_ops.hpp"

namespace trellis::detail {

/// The scalars of one iteration, over a view of slots (device memory for the
/// kernels, its host copy for the driver). Iterations alternate between two
/// (rr, rho) pairs: iteration k reads rho from pair `cur` and writes the next
/// one to the other.
template <class Slots>
struct IterationScalars {
  using Scalar = typename Slots::non_const_value_type;
  enum Slot : int { vr, ss, tt, ts, pair0, stop = pair0 + 4, count };  // ss = (s, s), tt = (t, t), ts = (t, s)
  Slots s;
  int cur = 0;

  KOKKOS_INLINE_FUNCTION Scalar rho() const { return s(pair0 + 2 * cur + 1); }
  KOKKOS_INLINE_FUNCTION Scalar rr_next() const { return s(pair0 + 2 * (1 - cur)); }
  KOKKOS_INLINE_FUNCTION Scalar rho_next() const { return s(pair0 + 2 * (1 - cur) + 1); }
  KOKKOS_INLINE_FUNCTION Scalar alpha() const { return rho() / s(vr); }
  KOKKOS_INLINE_FUNCTION Scalar omega() const { return s(ts) / s(tt); }
  KOKKOS_INLINE_FUNCTION Scalar beta() const { return (rho_next() / rho()) * (alpha() / omega()); }
  KOKKOS_INLINE_FUNCTION double snorm() const { return math::sqrt(double(s(ss))); }
  /// (v, r0^) finite and non-zero: alpha can be formed.
  KOKKOS_INLINE_FUNCTION bool alpha_usable() const { return math::isfinite(double(s(vr))) && s(vr) != Scalar(0); }
  /// ||s|| already meets the tolerance: the iterate takes alpha's half step only.
  KOKKOS_INLINE_FUNCTION bool half_step_converged() const { return alpha_usable() && snorm() <= double(s(stop)); }
  /// (t, t) and (t, s) finite and non-zero: omega can be formed.
  KOKKOS_INLINE_FUNCTION bool omega_usable() const {
    return math::isfinite(double(s(tt))) && math::isfinite(double(s(ts))) && s(tt) != Scalar(0) && s(ts) != Scalar(0);
  }
  /// The whole iteration is applied to the iterate, r and p.
  KOKKOS_INLINE_FUNCTION bool full_step_taken() const {
    return alpha_usable() && !half_step_converged() && omega_usable();
  }
};

template <class Scalar, class Device>
using DeviceScalars = IterationScalars<Kokkos::View<Scalar*, Device>>;

/// (v, rhat) into slot vr.
template <class Scalar, class Device>
void alpha_dot(const typename Device::execution_space& space, const DeviceScalars<Scalar, Device>& c,
               Kokkos::View<const Scalar*, Device> v, Kokkos::View<const Scalar*, Device> rhat,
               const distributed::Communicator& comm) {
  sums_into<Scalar, 1>(
      space, "trellis::bicgstab::alpha_dot", v.extent(0), c.s.data() + c.vr,
      KOKKOS_LAMBDA(size_t i, Scalar * acc) { acc[0] += v(i) * rhat(i); }, comm);
}

/// s = r - alpha v, (s, s) into slot ss. When alpha cannot be formed s = 0,
/// so that the operator the driver applies to s next sees finite input.
template <class Scalar, class Device>
void half_step(const typename Device::execution_space& space, const DeviceScalars<Scalar, Device>& c,
               Kokkos::View<const Scalar*, Device> r, Kokkos::View<const Scalar*, Device> v,
               Kokkos::View<Scalar*, Device> s, const distributed::Communicator& comm) {
  sums_into<Scalar, 1>(
      space, "trellis::bicgstab::half_step", r.extent(0), c.s.data() + c.ss,
      KOKKOS_LAMBDA(size_t i, Scalar * acc) {
        const Scalar si = c.alpha_usable() ? r(i) - c.alpha() * v(i) : Scalar(0);
        s(i) = si;
        acc[0] += si * si;
      },
      comm);
}

/// (t, t) and (t, s) into slots tt and ts.
template <class Scalar, class Device>
void omega_dots(const typename Device::execution_space& space, const DeviceScalars<Scalar, Device>& c,
                Kokkos::View<const Scalar*, Device> t, Kokkos::View<const Scalar*, Device> s,
                const distributed::Communicator& comm) {
  sums_into<Scalar, 2>(
      space, "trellis::bicgstab::omega_dots", t.extent(0), c.s.data() + c.tt,
      KOKKOS_LAMBDA(size_t i, Scalar * acc) {
        acc[0] += t(i) * t(i);
        acc[1] += t(i) * s(i);
      },
      comm);
}

/// The iterate y and the residual r: y += alpha p + omega q and r = s - omega t,
/// with (r, r) and (r, rhat) into the next (rr, rho) pair; after a half step
/// that converged, y += alpha p alone; after a breakdown, nothing.
template <class Scalar, class Device>
void full_step(const typename Device::execution_space& space, const DeviceScalars<Scalar, Device>& c,
               Kokkos::View<Scalar*, Device> y, Kokkos::View<const Scalar*, Device> p,
               Kokkos::View<const Scalar*, Device> q, Kokkos::View<const Scalar*, Device> s,
               Kokkos::View<const Scalar*, Device> t, Kokkos::View<Scalar*, Device> r,
               Kokkos::View<const Scalar*, Device> rhat, const distributed::Communicator& comm) {
  sums_into<Scalar, 2>(
      space, "trellis::bicgstab::full_step", r.extent(0), c.s.data() + c.pair0 + 2 * (1 - c.cur),
      KOKKOS_LAMBDA(size_t i, Scalar * acc) {
        if (c.full_step_taken()) {
          const Scalar omega = c.omega();
          y(i) += c.alpha() * p(i) + omega * q(i);
          const Scalar ri = s(i) - omega * t(i);
          r(i) = ri;
          acc[0] += ri * ri;
          acc[1] += ri * rhat(i);
        } else if (c.half_step_converged()) {
          y(i) += c.alpha() * p(i);
        }
      },
      comm);
}

/// p = r + beta (p - omega v), after a full step only.
template <class Scalar, class Device>
void direction_step(const typename Device::execution_space& space, const DeviceScalars<Scalar, Device>& c,
                    Kokkos::View<const Scalar*, Device> r, Kokkos::View<const Scalar*, Device> v,
                    Kokkos::View<Scalar*, Device> p) {
  Kokkos::parallel_for(
      "trellis::bicgstab::direction", trellis::RangePolicy<typename Device::execution_space>(space, 0, p.extent(0)),
      KOKKOS_LAMBDA(size_t i) {
        if (c.full_step_taken()) p(i) = r(i) + c.beta() * (p(i) - c.omega() * v(i));
      });
}

}  // namespace trellis::detail
