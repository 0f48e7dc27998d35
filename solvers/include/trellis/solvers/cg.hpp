#pragma once
// Preconditioned conjugate gradients, for symmetric positive definite A and M.
#include "trellis/core/eti.hpp"
#include "trellis/solvers/detail/krylov_support.hpp"
#include "trellis/solvers/preconditioner.hpp"

namespace trellis {

namespace detail {
/// The iteration itself (the public cg balances b first).
template <class Scalar, class Device>
KrylovResult cg_solve(const typename Device::execution_space& space, const LinearOperator<Scalar, Device>& A,
                      const Preconditioner<Scalar, Device>& M, Kokkos::View<const Scalar*, Device> b,
                      Kokkos::View<Scalar*, Device> x, const KrylovOptions& o) {
  using detail::axpby;
  using detail::dot;
  using vec = Kokkos::View<Scalar*, Device>;
  detail::check_krylov_arguments("cg", A, b, x, o);
  const size_t n = b.extent(0);
  auto alloc = [&](const char* label) { return vec(Kokkos::view_alloc(space, std::string(label)), n); };
  const vec r = alloc("trellis::cg::r"), z = alloc("trellis::cg::z"), p = alloc("trellis::cg::p"),
            q = alloc("trellis::cg::q");
  KrylovResult out;
  const distributed::Communicator& comm = A.communicator();
  const double bnorm = detail::norm2(space, b, comm);
  if (detail::solved_by_zero(space, bnorm, x, o, out)) return out;
  const double stop = detail::stopping_norm(o, bnorm);
  const double scale = bnorm > 0 ? bnorm : 1;
  A.apply(space, x, r);
  axpby(space, Scalar(1), b, Scalar(-1), r);  // r = b - A x
  double rnorm = detail::norm2(space, r, comm);
  detail::record_residual(out, o, rnorm / scale);
  M.apply(space, r, z);
  Kokkos::deep_copy(space, p, z);
  Scalar rz = dot(space, r, z, comm);
  out.status = KrylovStatus::max_iterations;
  detail::TrueResidualTest confirm(stop);
  while (true) {
    if (!std::isfinite(rnorm) || !std::isfinite(double(rz))) {
      out.status = KrylovStatus::non_finite;
      break;
    }
    if (rnorm <= confirm.iteration_stop) {  // recursive residuals drift: ||b - A x|| decides
      A.apply(space, x, q);
      axpby(space, Scalar(1), b, Scalar(-1), q);
      const double true_norm = detail::norm2(space, q, comm);
      const auto verdict = confirm.judge(true_norm, stop, out.iterations);
      if (verdict != detail::TrueResidualTest::restart) {
        out.status =
            verdict == detail::TrueResidualTest::converged ? KrylovStatus::converged : KrylovStatus::true_residual_high;
        break;
      }
      out.restarts.push_back({out.iterations, KrylovStatus::true_residual_high});
      Kokkos::deep_copy(space, r, q);
      rnorm = true_norm;
      M.apply(space, r, z);
      Kokkos::deep_copy(space, p, z);
      rz = dot(space, r, z, comm);
      continue;
    }
    if (out.iterations >= o.max_iterations) break;
    A.apply(space, p, q);
    const Scalar pq = dot(space, p, q, comm);
    if (!std::isfinite(double(pq))) {
      out.status = KrylovStatus::non_finite;
      break;
    }
    if (!(pq > 0)) {
      out.status = KrylovStatus::breakdown_vr;
      break;
    }
    const Scalar alpha = rz / pq;
    axpby(space, alpha, p, Scalar(1), x);   // x += alpha p
    axpby(space, -alpha, q, Scalar(1), r);  // r -= alpha A p
    rnorm = detail::norm2(space, r, comm);
    ++out.iterations;
    detail::record_residual(out, o, rnorm / scale);
    M.apply(space, r, z);
    const Scalar rz_next = dot(space, r, z, comm);
    axpby(space, Scalar(1), z, rz_next / rz, p);  // p = z + beta p
    rz = rz_next;
  }
  out.true_relative_residual = detail::true_relative_residual<Scalar, Device>(space, A, b, x);
  return out;
}
}  // namespace detail

/// Solves A x = b from the x given, every kernel queued on the instance space
/// (the host waits for it only to read an inner product). Stops on
/// ||r|| <= max(rel_tol ||b||, abs_tol); (p, A p) <= 0 (A not positive
/// definite) is breakdown_vr.
template <class Scalar, class Device>
KrylovResult cg(const typename Device::execution_space& space, const LinearOperator<Scalar, Device>& A,
                const Preconditioner<Scalar, Device>& M, detail::InVector<Scalar, Device> b,
                detail::OutVector<Scalar, Device> x, const KrylovOptions& o = {}) {
  detail::check_krylov_arguments("cg", A, b, x, o);
  return detail::with_balanced_rhs<Scalar, Device>(
      space, A.communicator(), b, x, o,
      [&](Kokkos::View<const Scalar*, Device> balanced_b, const KrylovOptions& balanced) {
        return detail::cg_solve<Scalar, Device>(space, A, M, balanced_b, x, balanced);
      });
}

/// cg on the default instance.
template <class Scalar, class Device>
KrylovResult cg(const LinearOperator<Scalar, Device>& A, const Preconditioner<Scalar, Device>& M,
                detail::InVector<Scalar, Device> b, detail::OutVector<Scalar, Device> x, const KrylovOptions& o = {}) {
  return cg<Scalar, Device>(typename Device::execution_space(), A, M, b, x, o);
}

#define TRELLIS_CG_INSTANTIATE(DEVICE)                                                                                 \
  template KrylovResult cg<double, DEVICE>(const DEVICE::execution_space&, const LinearOperator<double, DEVICE>&,      \
                                           const Preconditioner<double, DEVICE>&, Kokkos::View<const double*, DEVICE>, \
                                           Kokkos::View<double*, DEVICE>, const KrylovOptions&);
#if TRELLIS_ENABLE_ETI  // compiled once per backend for double (core/eti.hpp)
#define TRELLIS_CG_EXTERN(DEVICE) extern TRELLIS_CG_INSTANTIATE(DEVICE)
TRELLIS_ETI_FOR_EACH_DEVICE(TRELLIS_CG_EXTERN)
#undef TRELLIS_CG_EXTERN
#endif

}  // namespace trellis
