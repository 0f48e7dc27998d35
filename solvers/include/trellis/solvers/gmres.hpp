#pragma once
// Right-preconditioned restarted GMRES(m): Arnoldi on A M^{-1} with classical
// Gram-Schmidt applied twice or modified Gram-Schmidt
// (KrylovOptions::orthogonalization; by default CGS2 over MPI, MGS on one process), Givens rotations for the
// least-squares problem, x += M^{-1} V y at the end of each cycle. Its residual is the true one, b - A x. Distributed
// operators (the Kronecker operator over MPI) run the same code: every inner product sums over A.communicator()'s
// processes.
#include <cmath>
#include <vector>

#include "trellis/core/eti.hpp"
#include "trellis/solvers/detail/krylov_support.hpp"
#include "trellis/solvers/preconditioner.hpp"

namespace trellis {

/// The Gram-Schmidt GMRES runs with `requested` on an operator over comm
/// (automatic resolved: cgs2 over several processes, mgs on one).
inline GmresOrthogonalization resolved_orthogonalization(GmresOrthogonalization requested,
                                                         const distributed::Communicator& comm) {
  if (requested != GmresOrthogonalization::automatic) return requested;
  return comm.single_process() ? GmresOrthogonalization::mgs : GmresOrthogonalization::cgs2;
}

namespace detail {
/// The iteration itself (the public gmres balances b first).
template <class Scalar, class Device>
KrylovResult gmres_solve(const typename Device::execution_space& space, const LinearOperator<Scalar, Device>& A,
                         const Preconditioner<Scalar, Device>& M, Kokkos::View<const Scalar*, Device> b,
                         Kokkos::View<Scalar*, Device> x, const KrylovOptions& o) {
  using detail::axpby;
  using detail::dot;
  using vec = Kokkos::View<Scalar*, Device>;
  detail::check_krylov_arguments("gmres", A, b, x, o);
  const size_t n = b.extent(0);
  const int m = o.restart;
  using basis = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>;
  const basis V(Kokkos::view_alloc(space, std::string("trellis::gmres::V")), n, m + 1);
  auto column = [&](int j) { return Kokkos::subview(V, Kokkos::ALL, j); };
  const vec w(Kokkos::view_alloc(space, std::string("trellis::gmres::w")), n);
  const vec z(Kokkos::view_alloc(space, std::string("trellis::gmres::z")), n);
  // Gram-Schmidt coefficients in device memory, read by the host once per
  // iteration: CGS2's pass 1 from 0, pass 2 from room, ||w||^2 at 2 room;
  // MGS's k + 1 products from 0, then ||w||^2.
  const int room = detail::column_dots_room(m + 1);
  const vec coef(Kokkos::view_alloc(space, std::string("trellis::gmres::coefficients")), 2 * size_t(room) + 1);
  const auto coef_host = Kokkos::create_mirror_view(coef);
  std::vector<double> H(size_t(m + 1) * m), cs(m), sn(m), g(m + 1);
  auto h = [&](int i, int j) -> double& { return H[size_t(j) * (m + 1) + i]; };
  const distributed::Communicator& comm = A.communicator();
  const GmresOrthogonalization method = resolved_orthogonalization(o.orthogonalization, comm);
  // ||w|| from the (w, w) computed in device memory, when it is safely inside
  // the double range; else the scaled norm, safe from under- and overflow.
  auto norm_from_sumsq = [&](double ss) {
    return ss > 0x1p-900 && ss < 0x1p+900 ? std::sqrt(ss) : double(detail::norm2(space, w, comm));
  };
  // w -= the projections on columns 0..k, h(0..k, k) = their coefficients;
  // returns ||w|| after.
  auto orthogonalize = [&](int k) -> double {
    if (method == GmresOrthogonalization::mgs_blas) {
      for (int i = 0; i <= k; ++i) {
        h(i, k) = dot(space, w, column(i), comm);
        axpby(space, Scalar(-h(i, k)), column(i), Scalar(1), w);
      }
      return detail::norm2(space, w, comm);
    }
    if (method == GmresOrthogonalization::mgs) {
      detail::mgs_columns(space, V, k + 1, w, coef.data(), comm);  // h(0..k, k), then (w, w)
      Kokkos::deep_copy(space, coef_host, coef);
      space.fence();
      for (int i = 0; i <= k; ++i) h(i, k) = double(coef_host(i));
      return norm_from_sumsq(double(coef_host(k + 1)));
    }
    Scalar* const pass1 = coef.data();
    Scalar* const pass2 = coef.data() + room;
    Scalar* const sumsq = coef.data() + 2 * room;
    // Three passes over V: products; update and products again; update and ||w||^2.
    detail::column_dots(space, V, k + 1, w, pass1, comm);
    detail::column_dots(space, V, k + 1, w, pass2, comm, static_cast<const Scalar*>(pass1));
    detail::subtract_columns(space, V, k + 1, pass2, w, sumsq, comm);
    Kokkos::deep_copy(space, coef_host, coef);
    space.fence();
    for (int i = 0; i <= k; ++i) h(i, k) = double(coef_host(i)) + double(coef_host(room + i));
    return norm_from_sumsq(double(coef_host(2 * room)));
  };
  KrylovResult out;
  const double bnorm = detail::norm2(space, b, comm);
  if (detail::solved_by_zero(space, bnorm, x, o, out)) return out;
  const double stop = detail::stopping_norm(o, bnorm);
  const double scale = bnorm > 0 ? bnorm : 1;
  out.status = KrylovStatus::max_iterations;
  bool done = false;
  for (int cycle = 0; !done; ++cycle) {
    A.apply(space, x, w);
    axpby(space, Scalar(1), b, Scalar(-1), w);  // r = b - A x
    const double beta = detail::norm2(space, w, comm);
    if (cycle == 0) detail::record_residual(out, o, beta / scale);
    if (!std::isfinite(beta)) {
      out.status = KrylovStatus::non_finite;
      break;
    }
    if (beta <= stop) {
      out.status = KrylovStatus::converged;
      break;
    }
    if (out.iterations >= o.max_iterations) break;
    detail::scale(space, Scalar(1 / beta), w, column(0));  // v_0 = r / ||r||
    std::fill(g.begin(), g.end(), 0.0);
    g[0] = beta;
    int k = 0;  // columns of V in this cycle's solution
    while (k < m && out.iterations < o.max_iterations) {
      if (M.is_identity())
        A.apply(space, column(k), w);
      else {
        M.apply(space, column(k), z);
        A.apply(space, z, w);  // w = A M^{-1} v_k
      }
      h(k + 1, k) = orthogonalize(k);
      for (int i = 0; i < k; ++i) {  // earlier rotations on the new column
        const double a = h(i, k), c = h(i + 1, k);
        h(i, k) = cs[i] * a + sn[i] * c;
        h(i + 1, k) = -sn[i] * a + cs[i] * c;
      }
      const double a = h(k, k), c = h(k + 1, k), rr = std::hypot(a, c);
      if (!std::isfinite(rr)) {
        out.status = KrylovStatus::non_finite;
        done = true;
        break;
      }
      const double hk1 = c;  // ||w|| before the rotation: zero means an invariant subspace
      cs[k] = rr > 0 ? a / rr : 1;
      sn[k] = rr > 0 ? c / rr : 0;
      h(k, k) = rr;
      h(k + 1, k) = 0;
      g[k + 1] = -sn[k] * g[k];
      g[k] = cs[k] * g[k];
      ++k;
      ++out.iterations;
      const double resid = std::abs(g[k]);
      detail::record_residual(out, o, resid / scale);
      if (resid <= stop || hk1 == 0) break;
      detail::scale(space, Scalar(1 / hk1), w, column(k));
    }
    if (k == 0) break;
    // y = H(0:k, 0:k)^{-1} g(0:k); x += M^{-1} V y.
    std::vector<double> y(k);
    for (int i = k - 1; i >= 0; --i) {
      double s = g[i];
      for (int j = i + 1; j < k; ++j) s -= h(i, j) * y[j];
      y[i] = h(i, i) != 0 ? s / h(i, i) : 0;
    }
    for (int j = 0; j < k; ++j) coef_host(j) = Scalar(y[j]);  // the host waited for coef_host's last read
    Kokkos::deep_copy(space, coef, coef_host);
    detail::combine_columns(space, V, k, static_cast<const Scalar*>(coef.data()), w);
    M.apply(space, w, z);
    axpby(space, Scalar(1), z, Scalar(1), x);
  }
  out.true_relative_residual = detail::true_relative_residual<Scalar, Device>(space, A, b, x);
  return out;
}
}  // namespace detail

/// Solves A x = b from the x given, every kernel queued on the instance space
/// (the host waits for it only to read an inner product); restart =
/// options.restart (m). Stops on ||b - A x|| <= max(rel_tol ||b||, abs_tol);
/// NaN or Inf is non_finite.
template <class Scalar, class Device>
KrylovResult gmres(const typename Device::execution_space& space, const LinearOperator<Scalar, Device>& A,
                   const Preconditioner<Scalar, Device>& M, detail::InVector<Scalar, Device> b,
                   detail::OutVector<Scalar, Device> x, const KrylovOptions& o = {}) {
  detail::check_krylov_arguments("gmres", A, b, x, o);
  return detail::with_balanced_rhs<Scalar, Device>(
      space, A.communicator(), b, x, o,
      [&](Kokkos::View<const Scalar*, Device> balanced_b, const KrylovOptions& balanced) {
        return detail::gmres_solve<Scalar, Device>(space, A, M, balanced_b, x, balanced);
      });
}

/// gmres on the default instance.
template <class Scalar, class Device>
KrylovResult gmres(const LinearOperator<Scalar, Device>& A, const Preconditioner<Scalar, Device>& M,
                   detail::InVector<Scalar, Device> b, detail::OutVector<Scalar, Device> x,
                   const KrylovOptions& o = {}) {
  return gmres<Scalar, Device>(typename Device::execution_space(), A, M, b, x, o);
}

#define TRELLIS_GMRES_INSTANTIATE(DEVICE)                                                                           \
  template KrylovResult gmres<double, DEVICE>(                                                                      \
      const DEVICE::execution_space&, const LinearOperator<double, DEVICE>&, const Preconditioner<double, DEVICE>&, \
      Kokkos::View<const double*, DEVICE>, Kokkos::View<double*, DEVICE>, const KrylovOptions&);
#if TRELLIS_ENABLE_ETI  // compiled once per backend for double (core/eti.hpp)
#define TRELLIS_GMRES_EXTERN(DEVICE) extern TRELLIS_GMRES_INSTANTIATE(DEVICE)
TRELLIS_ETI_FOR_EACH_DEVICE(TRELLIS_GMRES_EXTERN)
#undef TRELLIS_GMRES_EXTERN
#endif

}  // namespace trellis
