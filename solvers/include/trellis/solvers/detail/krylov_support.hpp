#pragma once
// Pieces every Krylov driver shares: argument checks, the stopping test, and
// the true residual reported at the end.
#include <cmath>
#include <string>

#include "trellis/core/errors.hpp"
#include "trellis/solvers/detail/vector_ops.hpp"
#include "trellis/solvers/krylov.hpp"
#include "trellis/solvers/linear_operator.hpp"

namespace trellis::detail {

/// The vector parameters of the public drivers take no part in deduction:
/// Scalar and Device come from the operator and the preconditioner, and any
/// View that converts (a plain Kokkos::View<double*>, non-const b) is taken.
template <class T>
struct NonDeduced {
  using type = T;
};
template <class Scalar, class Device>
using InVector = typename NonDeduced<Kokkos::View<const Scalar*, Device>>::type;
template <class Scalar, class Device>
using OutVector = typename NonDeduced<Kokkos::View<Scalar*, Device>>::type;

/// What CG and BiCGSTAB do when their own residual meets the tolerance: the
/// true residual ||b - A x|| decides. If it misses, they restart from it with
/// their own test tightened by the ratio it overstated (and a margin), up to
/// `max_restarts` times and never twice at one iteration; then they give up
/// with true_residual_high.
struct TrueResidualTest {
  enum Verdict { converged, restart, give_up };
  static constexpr int max_restarts = 5;
  double iteration_stop;  // the test the iteration's own residual must pass
  int restarted_at = -1;  // the iteration of the last restart
  int restarts = 0;

  explicit TrueResidualTest(double stop) : iteration_stop(stop) {}
  Verdict judge(double true_norm, double true_stop, int iteration) {
    if (true_norm <= true_stop) return converged;
    if (restarted_at == iteration || restarts == max_restarts || !std::isfinite(true_norm)) return give_up;
    restarted_at = iteration;
    ++restarts;
    iteration_stop *= 0.5 * true_stop / true_norm;
    return restart;
  }
};

/// Appends a relative residual to the history and tells the progress hook.
inline void record_residual(KrylovResult& out, const KrylovOptions& o, double relative) {
  out.history.push_back(relative);
  if (o.on_iteration) o.on_iteration(int(out.history.size()) - 1, relative);
}

template <class Op, class B, class X>
void check_krylov_arguments(const char* method, const Op& A, const B& b, const X& x, const KrylovOptions& o) {
  const size_t n = size_t(A.num_rows());
  if (b.extent(0) != n || x.extent(0) != n)
    throw StructureError(std::string(method) + ": vectors of length " + std::to_string(b.extent(0)) + " and " +
                         std::to_string(x.extent(0)) + " for an operator of " + std::to_string(n) + " rows");
  if (b.data() == x.data()) throw StructureError(std::string(method) + ": b and x must differ");
  if (o.max_iterations < 0 || o.restart < 1 || !(o.rel_tol >= 0) || !(o.abs_tol >= 0))
    throw InputError(std::string(method) + ": needs max_iterations >= 0, restart >= 1, tolerances >= 0");
}

/// b = 0: x = 0 solves A x = b exactly, whatever x held (from another x an
/// iteration only approaches it and never meets a stop of 0). Sets x = 0 and
/// out to converged in 0 iterations; false (nothing done) when b != 0.
template <class ExecSpace, class X>
bool solved_by_zero(const ExecSpace& space, double b_norm, const X& x, const KrylovOptions& o, KrylovResult& out) {
  if (b_norm != 0) return false;
  Kokkos::deep_copy(space, x, typename X::non_const_value_type(0));
  space.fence();
  record_residual(out, o, 0.0);
  out.status = KrylovStatus::converged;
  out.iterations = 0;
  out.true_relative_residual = 0;
  return true;
}

/// e with |v| = m 2^e, m in [0.5, 1) (0 for 0, Inf or NaN).
inline int binary_exponent(double v) {
  int e = 0;
  if (std::isfinite(v)) std::frexp(v, &e);
  return e;
}

/// The residual norm at which a method stops: max(rel_tol * ||ref||, abs_tol).
inline double stopping_norm(const KrylovOptions& o, double reference_norm) {
  return std::max(o.rel_tol * reference_norm, o.abs_tol);
}

/// ||b - A x|| / ||b|| (||b - A x|| when b = 0), with r as the work vector,
/// on the instance space (waits for it: the host reads the norms).
template <class Scalar, class Device>
double true_relative_residual(const typename Device::execution_space& space, const LinearOperator<Scalar, Device>& A,
                              Kokkos::View<const Scalar*, Device> b, Kokkos::View<const Scalar*, Device> x,
                              Kokkos::View<Scalar*, Device> r) {
  A.apply(space, x, r);
  axpby(space, Scalar(1), b, Scalar(-1), r);
  const double bn = norm2(space, b, A.communicator()), rn = norm2(space, r, A.communicator());
  return bn > 0 ? rn / bn : rn;
}

template <class Scalar, class Device>
double true_relative_residual(const typename Device::execution_space& space, const LinearOperator<Scalar, Device>& A,
                              Kokkos::View<const Scalar*, Device> b, Kokkos::View<const Scalar*, Device> x) {
  Kokkos::View<Scalar*, Device> r(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, std::string("trellis::krylov::true_residual")),
      b.extent(0));
  return true_relative_residual<Scalar, Device>(space, A, b, x, r);
}

/// Solves through solve(b', o') on the system scaled by an exact power of two
/// 2^k (b' = 2^k b, x = 2^k x on entry and back on exit, abs_tol scaled too)
/// when ||b|| lies outside [2^-300, 2^300]: the iterations' sums of squares
/// then neither underflow to 0 (a false "converged" at x = 0) nor overflow.
/// Finite entries whose norm overflows a double (entries near DBL_MAX) are
/// scaled by their largest.
/// Inside that range it calls solve(b, o) untouched (results bit for bit as
/// before). Relative residuals, histories and statuses are scale-free.
template <class Scalar, class Device, class Solve>
KrylovResult with_balanced_rhs(const typename Device::execution_space& space, const distributed::Communicator& comm,
                               Kokkos::View<const Scalar*, Device> b, Kokkos::View<Scalar*, Device> x,
                               const KrylovOptions& o, const Solve& solve) {
  double bnorm = norm2(space, b, comm);
  if (std::isinf(bnorm)) bnorm = max_abs(space, b, comm);  // the norm overflowed: the largest entry sets the scale
  int e = 0;
  std::frexp(bnorm, &e);  // bnorm = m 2^e, m in [0.5, 1)
  if (!(bnorm > 0) || !std::isfinite(bnorm) || (e > -300 && e < 300)) return solve(b, o);
  // 2^-e in two factors: a subnormal ||b|| (e < -1022) needs more than
  // 2^1023, which is Inf; each half is finite and every product exact.
  const int e1 = -e / 2, e2 = -e - e1;
  auto by_power_of_two = [&](int k1, int k2, Kokkos::View<const Scalar*, Device> from,
                             Kokkos::View<Scalar*, Device> to) {
    scale(space, Scalar(std::ldexp(1.0, k1)), from, to);
    scale(space, Scalar(std::ldexp(1.0, k2)), Kokkos::View<const Scalar*, Device>(to), to);
  };
  Kokkos::View<Scalar*, Device> scaled(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, std::string("trellis::krylov::balanced_b")), b.extent(0));
  by_power_of_two(e1, e2, b, scaled);
  by_power_of_two(e1, e2, Kokkos::View<const Scalar*, Device>(x), x);
  KrylovOptions balanced = o;
  balanced.abs_tol = std::ldexp(o.abs_tol, -e);
  KrylovResult r = solve(Kokkos::View<const Scalar*, Device>(scaled), balanced);
  by_power_of_two(-e1, -e2, Kokkos::View<const Scalar*, Device>(x), x);
  return r;
}

}  // namespace trellis::detail
