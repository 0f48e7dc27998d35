#pragma once
// Preconditioned BiCGSTAB, seed 000's Algorithm 2.1 with M = K1 K2 in two
// forms. `split` iterates on K1^{-1} A K2^{-1} y = K1^{-1} b and returns
// x = x0 + K2^{-1} (y - y0) (for ILU, K1 = L and K2 = U). `right` is K1 = I,
// K2 = M: it iterates on the true residual with M^{-1} applied whole, which
// is what lets a fused preconditioner (one kernel for L, D and U) serve.
#include "trellis/core/eti.hpp"
#include "trellis/core/kokkos_compat.hpp"
#include "trellis/core/name_table.hpp"
#include "trellis/solvers/detail/bicgstab_steps.hpp"
#include "trellis/solvers/detail/krylov_support.hpp"
#include "trellis/solvers/preconditioner.hpp"

namespace trellis {

enum class BicgstabForm { split, right };

template <>
struct NameTable<BicgstabForm> {
  static constexpr const char* what = "BiCGSTAB form";
  static constexpr NameEntry<BicgstabForm> entries[] = {
      {BicgstabForm::right, "right"},
      {BicgstabForm::split, "split"},
  };
};

/// The vectors BiCGSTAB works in. Hand the same workspace to repeated solves
/// (a nonlinear or time loop) and they are allocated once; a solve resizes it
/// when the system size changes.
template <class Scalar, class Device>
struct BicgstabWorkspace {
  using vec = Kokkos::View<Scalar*, Device>;
  using slots = detail::IterationScalars<vec>;
  vec r, rhat, p, v, s, t, phat, shat, w, d;
  vec scalars;                            // an iteration's inner products, in device memory
  typename vec::HostMirror host_scalars;  // and their copy here
  void reserve(size_t n) { reserve(typename Device::execution_space(), n); }
  void reserve(const typename Device::execution_space& space, size_t n) {
    auto alloc = [&](const char* label, size_t size) {
      return vec(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, std::string(label)), size);
    };
    if (scalars.extent(0) != size_t(slots::count)) {
      scalars = alloc("trellis::bicgstab::scalars", slots::count);
      host_scalars = compat::create_mirror_view_uninitialized(Kokkos::HostSpace(), scalars);
    }
    if (r.extent(0) == n) return;
    for (vec* x : {&r, &rhat, &p, &v, &s, &t, &phat, &shat, &w, &d})  // each written before it is read
      *x = alloc("trellis::bicgstab::work", n);
  }
};

namespace detail {
/// The iteration itself (the public bicgstab balances b first).
template <class Scalar, class Device>
KrylovResult bicgstab_solve(const typename Device::execution_space& space, const LinearOperator<Scalar, Device>& A,
                            const Preconditioner<Scalar, Device>& M, Kokkos::View<const Scalar*, Device> b,
                            Kokkos::View<Scalar*, Device> x, const KrylovOptions& o, BicgstabForm form,
                            BicgstabWorkspace<Scalar, Device>* workspace) {
  using detail::dot;
  using vec = Kokkos::View<Scalar*, Device>;
  using cvec = Kokkos::View<const Scalar*, Device>;
  detail::check_krylov_arguments("bicgstab", A, b, x, o);
  const distributed::Communicator& comm = A.communicator();  // inner products sum over its processes
  const size_t n = b.extent(0);
  const bool split = form == BicgstabForm::split;
  BicgstabWorkspace<Scalar, Device> own;
  BicgstabWorkspace<Scalar, Device>& ws = workspace ? *workspace : own;
  ws.reserve(space, n);
  const vec r = ws.r, rhat = ws.rhat, p = ws.p, v = ws.v, s = ws.s, t = ws.t, phat = ws.phat, shat = ws.shat;
  const vec w = ws.w, d = ws.d;  // split form: A K2^{-1} in before K1^{-1}, and y - y0
  // Powers of two on K1^{-1} and K2^{-1} (split) or M^{-1} (right) that keep
  // the iterated system near unit scale, so that its inner products neither
  // under- nor overflow (a system scaled by 1e-300 or an unpreconditioned
  // tiny A): M' = M / (left_scale right_scale), the same solve exactly.
  // 1 (no extra pass) unless the scale is more than 2^64 away.
  Scalar left_scale = 1, right_scale = 1;
  auto left_solve = [&](cvec in, vec out) {
    M.apply_left(space, in, out);
    if (left_scale != Scalar(1)) detail::scale(space, left_scale, out, out);
  };
  auto right_solve = [&](cvec in, vec out) {
    if (split)
      M.apply_right(space, in, out);
    else
      M.apply(space, in, out);
    if (right_scale != Scalar(1)) detail::scale(space, right_scale, out, out);
  };
  // out = K1^{-1} A K2^{-1} in, with pre = K2^{-1} in kept.
  auto op = [&](cvec in, vec pre, vec out) {
    right_solve(in, pre);
    if (split) {
      A.apply(space, pre, w);
      left_solve(w, out);
    } else {
      A.apply(space, pre, out);
    }
  };
  // The iterate the steps add to: y - y0 in terms of p and s (split), x in
  // terms of M^{-1} p and M^{-1} s (right).
  const vec acc = split ? d : x;
  const cvec acc_p = split ? p : phat, acc_s = split ? s : shat;
  if (split) Kokkos::deep_copy(space, d, Scalar(0));
  KrylovResult out;
  if (detail::solved_by_zero(space, detail::norm2(space, b, comm), x, o, out)) return out;
  double ref;  // ||K1^{-1} b||
  if (split) {
    M.apply_left(space, b, s);
    ref = detail::norm2(space, s, comm);
    const int e = detail::binary_exponent(ref);
    if (e <= -64 || e >= 64) {  // K1 far from unit scale: K2 takes the inverse power, K1^{-1} A K2^{-1} keeps its own
      left_scale = Scalar(std::ldexp(1.0, -e));
      right_scale = Scalar(std::ldexp(1.0, e));
      ref = std::ldexp(ref, -e);
    }
    A.apply(space, x, w);
    detail::axpby(space, Scalar(1), b, Scalar(-1), w);
    left_solve(w, r);
  } else {
    ref = detail::norm2(space, b, comm);
    A.apply(space, x, r);
    detail::axpby(space, Scalar(1), b, Scalar(-1), r);  // b - A x0
  }
  const double stop = detail::stopping_norm(o, ref);
  // What convergence means: ||b - A x|| <= max(rel_tol ||b||, abs_tol) (split
  // form: its iteration tests the K1-preconditioned residual instead).
  const double true_stop = split ? detail::stopping_norm(o, detail::norm2(space, b, comm)) : stop;
  const double scale = ref > 0 ? ref : 1;
  Kokkos::deep_copy(space, rhat, r);
  Kokkos::deep_copy(space, p, r);
  Scalar rho = dot(space, r, rhat, comm);
  double rnorm = std::sqrt(double(rho));  // rhat = r at the start
  detail::record_residual(out, o, rnorm / scale);
  out.status = KrylovStatus::max_iterations;
  // The iteration's scalars on the device (c) and their copy here (h).
  detail::DeviceScalars<Scalar, Device> c{ws.scalars};
  const auto host_slots = ws.host_scalars;
  detail::IterationScalars<decltype(host_slots)> h{host_slots};
  // The slots of a (re)start: rho in the current pair, the iteration's stop.
  auto start_slots = [&](Scalar rho0, double iteration_stop) {
    for (size_t k = 0; k < host_slots.extent(0); ++k) host_slots(k) = Scalar(0);  // no parallel fill for 9 values
    c.cur = h.cur = 0;
    host_slots(h.pair0 + 1) = rho0;
    host_slots(h.stop) = Scalar(iteration_stop);
    Kokkos::deep_copy(space, ws.scalars, host_slots);
  };
  start_slots(rho, stop);
  detail::TrueResidualTest confirm(stop);
  // x += K2^{-1} d and d = 0 (split form: the steps accumulate y - y0 in d).
  auto fold_iterate = [&] {
    if (!split) return;
    right_solve(d, w);
    detail::axpby(space, Scalar(1), w, Scalar(1), x);
    Kokkos::deep_copy(space, d, Scalar(0));
  };
  // Stagnation: the iteration at which the residual last fell below 0.9
  // times the best before it.
  double best = rnorm;
  int best_at = 0;
  // A fresh start from x, with t = b - A x: r from t, p = r, and the shadow
  // residual rhat = r, or a pseudo-random one when rhat = r has just failed
  // (a breakdown right after a start: (A r, r) = 0 for an indefinite A).
  int started_at = 0;
  auto start_from_t = [&](bool random_shadow) {
    if (split)
      left_solve(t, r);
    else
      Kokkos::deep_copy(space, r, t);
    if (random_shadow)
      detail::fill_pseudo_random(space, rhat, unsigned(out.restarts.size()));
    else
      Kokkos::deep_copy(space, rhat, r);
    Kokkos::deep_copy(space, p, r);
    started_at = out.iterations;
    rho = dot(space, r, rhat, comm);
    rnorm = detail::norm2(space, r, comm);
    best = rnorm;
    best_at = out.iterations;
    start_slots(rho, confirm.iteration_stop);
  };
  // Once per solve, at its first breakdown or non-finite scalar: the
  // iterated operator's scale from one application to r. More than 2^64 from
  // 1 (t = B s then under- or overflows in (t, t)), K2^{-1} (M^{-1}) takes
  // the inverse power of two (true: restart).
  bool balanced = false;
  auto rebalance = [&] {
    if (balanced) return false;
    balanced = true;
    const double rn = detail::norm2(space, r, comm);
    if (!(rn > 0) || !std::isfinite(rn)) return false;
    op(r, phat, v);
    const double vn = detail::norm2(space, v, comm);
    if (!(vn > 0) || !std::isfinite(vn)) return false;
    const int e = detail::binary_exponent(vn) - detail::binary_exponent(rn);
    if (e > -64 && e < 64) return false;
    right_scale = Scalar(std::ldexp(double(right_scale), -e));
    return true;
  };
  // A breakdown, a stagnation or a non-finite scalar: restart from the
  // current iterate, rebalanced once (above), else while restarts are left
  // (breakdowns and stagnation only; true), else end with `why` (false).
  int recoveries = 0;
  auto recover = [&](KrylovStatus why) {
    fold_iterate();
    const bool rescaled = rebalance();
    if (!rescaled) {
      if (why == KrylovStatus::non_finite || recoveries >= o.max_breakdown_restarts) {
        out.status = why;
        return false;
      }
      ++recoveries;
    }
    const bool random_shadow = !rescaled && out.iterations == started_at;
    out.restarts.push_back({out.iterations, why});
    A.apply(space, x, t);
    detail::axpby(space, Scalar(1), b, Scalar(-1), t);
    start_from_t(random_shadow);
    return true;
  };
  while (true) {
    if (!std::isfinite(rnorm) || !std::isfinite(double(rho))) {
      if (recover(KrylovStatus::non_finite)) continue;
      break;
    }
    if (rnorm <= confirm.iteration_stop) {  // recursive residuals drift, K1 may hide some: ||b - A x|| decides
      fold_iterate();                       // x = x0 + K2^{-1} d, and d starts again from 0
      A.apply(space, x, t);
      detail::axpby(space, Scalar(1), b, Scalar(-1), t);  // t = b - A x
      const double true_norm = detail::norm2(space, t, comm);
      const auto verdict = confirm.judge(true_norm, true_stop, out.iterations);
      if (verdict != detail::TrueResidualTest::restart) {
        out.status =
            verdict == detail::TrueResidualTest::converged ? KrylovStatus::converged : KrylovStatus::true_residual_high;
        break;
      }
      out.restarts.push_back({out.iterations, KrylovStatus::true_residual_high});
      start_from_t(false);
      continue;
    }
    if (out.iterations >= o.max_iterations) break;
    if (rho == Scalar(0)) {
      if (recover(KrylovStatus::breakdown_rho)) continue;
      break;
    }
    // One iteration, queued without a wait; the kernels skip what a breakdown
    // or an early convergence leaves out.
    op(p, phat, v);
    detail::alpha_dot<Scalar, Device>(space, c, v, rhat, comm);
    detail::half_step<Scalar, Device>(space, c, r, v, s, comm);  // s = r - alpha v
    op(s, shat, t);
    detail::omega_dots<Scalar, Device>(space, c, t, s, comm);
    // acc += alpha p + omega s (in the iterate's terms); r = s - omega t.
    detail::full_step<Scalar, Device>(space, c, acc, acc_p, acc_s, s, t, r, rhat, comm);
    detail::direction_step<Scalar, Device>(space, c, r, v, p);  // p = r + beta (p - omega v)
    Kokkos::deep_copy(space, host_slots, ws.scalars);           // the iteration's one round trip
    space.fence();                                              // before the host reads it
    const Scalar vr = host_slots(h.vr);
    if (!std::isfinite(double(vr))) {
      if (recover(KrylovStatus::non_finite)) continue;
      break;
    }
    if (vr == Scalar(0)) {  // the steps left x and r as they were
      if (recover(KrylovStatus::breakdown_vr)) continue;
      break;
    }
    ++out.iterations;
    if (h.half_step_converged()) {  // the half step already converged
      rnorm = h.snorm();
      detail::record_residual(out, o, rnorm / scale);
      continue;
    }
    const Scalar tt = host_slots(h.tt), ts = host_slots(h.ts);
    if (!std::isfinite(double(tt)) || !std::isfinite(double(ts))) {
      if (recover(KrylovStatus::non_finite)) continue;
      break;
    }
    if (!h.omega_usable()) {  // likewise: x and r untouched
      if (recover(KrylovStatus::breakdown_omega)) continue;
      break;
    }
    rnorm = std::sqrt(double(h.rr_next()));
    detail::record_residual(out, o, rnorm / scale);
    rho = h.rho_next();
    c.cur = h.cur = 1 - h.cur;
    if (rnorm < 0.9 * best) {
      best = rnorm;
      best_at = out.iterations;
    } else if (o.stagnation_window > 0 && out.iterations - best_at >= o.stagnation_window) {
      if (recover(KrylovStatus::stagnated)) continue;
      break;
    }
  }
  fold_iterate();
  out.true_relative_residual = detail::true_relative_residual<Scalar, Device>(space, A, b, x, t);
  return out;
}
}  // namespace detail

/// Solves A x = b from the x given, every kernel and copy queued on the
/// instance space (the host waits for it once per iteration, to read the
/// iteration's scalars). Stops when the residual of the iterated
/// system (K1^{-1}(b - A x) for split, b - A x for right) falls to
/// max(rel_tol * ||K1^{-1} b||, abs_tol). Named breakdowns: rho = (r, r0^) = 0,
/// (v, r0^) = 0, omega = 0; each, and a stagnation, first restarts the
/// iteration from the current iterate with r0^ = r, up to
/// o.max_breakdown_restarts times (KrylovResult::restarts lists them); NaN or
/// Inf anywhere is non_finite.
template <class Scalar, class Device>
KrylovResult bicgstab(const typename Device::execution_space& space, const LinearOperator<Scalar, Device>& A,
                      const Preconditioner<Scalar, Device>& M, detail::InVector<Scalar, Device> b,
                      detail::OutVector<Scalar, Device> x, const KrylovOptions& o = {},
                      BicgstabForm form = BicgstabForm::split, BicgstabWorkspace<Scalar, Device>* workspace = nullptr) {
  detail::check_krylov_arguments("bicgstab", A, b, x, o);
  return detail::with_balanced_rhs<Scalar, Device>(
      space, A.communicator(), b, x, o,
      [&](Kokkos::View<const Scalar*, Device> balanced_b, const KrylovOptions& balanced) {
        return detail::bicgstab_solve<Scalar, Device>(space, A, M, balanced_b, x, balanced, form, workspace);
      });
}

/// bicgstab on the default instance.
template <class Scalar, class Device>
KrylovResult bicgstab(const LinearOperator<Scalar, Device>& A, const Preconditioner<Scalar, Device>& M,
                      detail::InVector<Scalar, Device> b, detail::OutVector<Scalar, Device> x,
                      const KrylovOptions& o = {}, BicgstabForm form = BicgstabForm::split,
                      BicgstabWorkspace<Scalar, Device>* workspace = nullptr) {
  return bicgstab<Scalar, Device>(typename Device::execution_space(), A, M, b, x, o, form, workspace);
}

#define TRELLIS_BICGSTAB_INSTANTIATE(DEVICE)                                                                        \
  template KrylovResult bicgstab<double, DEVICE>(                                                                   \
      const DEVICE::execution_space&, const LinearOperator<double, DEVICE>&, const Preconditioner<double, DEVICE>&, \
      Kokkos::View<const double*, DEVICE>, Kokkos::View<double*, DEVICE>, const KrylovOptions&, BicgstabForm,       \
      BicgstabWorkspace<double, DEVICE>*);
#if TRELLIS_ENABLE_ETI  // compiled once per backend for double (core/eti.hpp)
#define TRELLIS_BICGSTAB_EXTERN(DEVICE) extern TRELLIS_BICGSTAB_INSTANTIATE(DEVICE)
TRELLIS_ETI_FOR_EACH_DEVICE(TRELLIS_BICGSTAB_EXTERN)
#undef TRELLIS_BICGSTAB_EXTERN
#endif

}  // namespace trellis
