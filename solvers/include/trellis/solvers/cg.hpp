#pragma once
// Preconditioned conjugate gradients, for symmetric positive definite A and M.
#include "trellis/solvers/detail/krylov_support.hpp"
#include "trellis/solvers/preconditioner.hpp"

namespace trellis {

/// Solves A x = b from the x given. Stops on ||r|| <= max(rel_tol ||b||,
/// abs_tol); (p, A p) <= 0 (A not positive definite) is breakdown_vr.
template <class Scalar, class Device>
KrylovResult cg(const LinearOperator<Scalar, Device>& A, const Preconditioner<Scalar, Device>& M,
                Kokkos::View<const Scalar*, Device> b, Kokkos::View<Scalar*, Device> x,
                const KrylovOptions& o = {}) {
  using detail::axpby;
  using detail::dot;
  using vec = Kokkos::View<Scalar*, Device>;
  detail::check_krylov_arguments("cg", A, b, x, o);
  const size_t n = b.extent(0);
  vec r("cg_r", n), z("cg_z", n), p("cg_p", n), q("cg_q", n);
  KrylovResult out;
  const double bnorm = detail::norm2(b);
  const double stop = detail::stopping_norm(o, bnorm);
  const double scale = bnorm > 0 ? bnorm : 1;
  A.apply(x, r);
  axpby(Scalar(1), b, Scalar(-1), r);  // r = b - A x
  double rnorm = detail::norm2(r);
  detail::record_residual(out, o, rnorm / scale);
  M.apply(r, z);
  Kokkos::deep_copy(p, z);
  Scalar rz = dot(r, z);
  out.status = KrylovStatus::max_iterations;
  while (true) {
    if (!std::isfinite(rnorm) || !std::isfinite(double(rz))) { out.status = KrylovStatus::non_finite; break; }
    if (rnorm <= stop) { out.status = KrylovStatus::converged; break; }
    if (out.iterations >= o.max_iterations) break;
    A.apply(p, q);
    const Scalar pq = dot(p, q);
    if (!std::isfinite(double(pq))) { out.status = KrylovStatus::non_finite; break; }
    if (!(pq > 0)) { out.status = KrylovStatus::breakdown_vr; break; }
    const Scalar alpha = rz / pq;
    axpby(alpha, p, Scalar(1), x);
    axpby(-alpha, q, Scalar(1), r);
    rnorm = detail::norm2(r);
    ++out.iterations;
    detail::record_residual(out, o, rnorm / scale);
    M.apply(r, z);
    const Scalar rz_next = dot(r, z);
    axpby(Scalar(1), z, rz_next / rz, p);  // p = z + beta p
    rz = rz_next;
  }
  out.true_relative_residual = detail::true_relative_residual<Scalar, Device>(A, b, x);
  return out;
}

}  // namespace trellis
