#pragma once
// Preconditioned BiCGSTAB. `split` is seed 000's Algorithm 2.1 with M = K1 K2:
// it iterates on K1^{-1} A K2^{-1} y = K1^{-1} b and returns x = K2^{-1} y
// (for ILU, K1 = L and K2 = U). `right` is K1 = I, K2 = M: it iterates on the
// true residual.
#include "trellis/solvers/detail/krylov_support.hpp"
#include "trellis/solvers/preconditioner.hpp"

namespace trellis {

enum class BicgstabForm { split, right };

/// Solves A x = b from the x given. Stops when the residual of the iterated
/// system (K1^{-1}(b - A x) for split, b - A x for right) falls to
/// max(rel_tol * ||K1^{-1} b||, abs_tol). Named breakdowns: rho = (r, r0^) = 0,
/// (v, r0^) = 0, omega = 0; NaN or Inf anywhere is non_finite.
template <class Scalar, class Device>
KrylovResult bicgstab(const LinearOperator<Scalar, Device>& A,
                      const Preconditioner<Scalar, Device>& M,
                      Kokkos::View<const Scalar*, Device> b, Kokkos::View<Scalar*, Device> x,
                      const KrylovOptions& o = {}, BicgstabForm form = BicgstabForm::split) {
  using detail::axpby;
  using detail::dot;
  using detail::update;
  using vec = Kokkos::View<Scalar*, Device>;
  using cvec = Kokkos::View<const Scalar*, Device>;
  detail::check_krylov_arguments("bicgstab", A, b, x, o);
  const size_t n = b.extent(0);
  const bool split = form == BicgstabForm::split;
  auto left = [&](cvec in, vec out) {  // K1^{-1}
    if (split) M.apply_left(in, out);
    else Kokkos::deep_copy(out, in);
  };
  auto right = [&](cvec in, vec out) {  // K2^{-1}
    if (split) M.apply_right(in, out);
    else M.apply(in, out);
  };
  vec r("bicgstab_r", n), rhat("bicgstab_rhat", n), p("bicgstab_p", n), v("bicgstab_v", n),
      s("bicgstab_s", n), t("bicgstab_t", n), d("bicgstab_d", n), w1("bicgstab_w1", n),
      w2("bicgstab_w2", n);
  // op(in, out): out = K1^{-1} A K2^{-1} in.
  auto op = [&](cvec in, vec out) {
    right(in, w1);
    A.apply(w1, w2);
    left(w2, out);
  };
  KrylovResult out;
  left(b, w2);
  const double ref = detail::norm2(w2);  // ||K1^{-1} b||
  const double stop = detail::stopping_norm(o, ref);
  const double scale = ref > 0 ? ref : 1;
  A.apply(x, w1);
  axpby(Scalar(1), b, Scalar(-1), w1);  // b - A x0
  left(w1, r);
  Kokkos::deep_copy(rhat, r);
  Kokkos::deep_copy(p, r);
  // d accumulates y - y0, so that x = x0 + K2^{-1} d at the end.
  double rnorm = detail::norm2(r);
  detail::record_residual(out, o, rnorm / scale);
  Scalar rho = dot(r, rhat);
  out.status = KrylovStatus::max_iterations;
  while (true) {
    if (!std::isfinite(rnorm) || !std::isfinite(double(rho))) { out.status = KrylovStatus::non_finite; break; }
    if (rnorm <= stop) { out.status = KrylovStatus::converged; break; }
    if (out.iterations >= o.max_iterations) break;
    if (rho == Scalar(0)) { out.status = KrylovStatus::breakdown_rho; break; }
    op(p, v);
    const Scalar vr = dot(v, rhat);
    if (!std::isfinite(double(vr))) { out.status = KrylovStatus::non_finite; break; }
    if (vr == Scalar(0)) { out.status = KrylovStatus::breakdown_vr; break; }
    const Scalar alpha = rho / vr;
    update(Scalar(1), r, -alpha, v, Scalar(0), s);  // s = r - alpha v
    ++out.iterations;
    const double snorm = detail::norm2(s);
    if (snorm <= stop) {  // the half step already converged
      axpby(alpha, p, Scalar(1), d);
      rnorm = snorm;
      detail::record_residual(out, o, rnorm / scale);
      continue;
    }
    op(s, t);
    const Scalar tt = dot(t, t), ts = dot(t, s);
    if (!std::isfinite(double(tt)) || !std::isfinite(double(ts))) { out.status = KrylovStatus::non_finite; break; }
    if (tt == Scalar(0) || ts == Scalar(0)) { out.status = KrylovStatus::breakdown_omega; break; }
    const Scalar omega = ts / tt;
    update(alpha, p, omega, s, Scalar(1), d);      // y += alpha p + omega s
    update(Scalar(1), s, -omega, t, Scalar(0), r);  // r = s - omega t
    rnorm = detail::norm2(r);
    detail::record_residual(out, o, rnorm / scale);
    const Scalar rho_next = dot(r, rhat);
    const Scalar beta = (rho_next / rho) * (alpha / omega);
    update(Scalar(1), r, -beta * omega, v, beta, p);  // p = r + beta (p - omega v)
    rho = rho_next;
  }
  right(d, w1);
  axpby(Scalar(1), w1, Scalar(1), x);
  out.true_relative_residual = detail::true_relative_residual<Scalar, Device>(A, b, x);
  return out;
}

}  // namespace trellis
