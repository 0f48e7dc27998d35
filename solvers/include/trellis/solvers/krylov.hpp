#pragma once
// What every Krylov driver takes and returns: stopping criteria, a named
// status (breakdowns never loop on garbage), the convergence history and the
// true residual ||b - A x|| / ||b|| computed at the end.
#include <functional>
#include <string>
#include <vector>

#include "trellis/core/name_table.hpp"

namespace trellis {

/// How GMRES orthogonalizes each new Arnoldi vector against the basis.
enum class GmresOrthogonalization {
  /// cgs2 when the operator spans several processes (each round trip an
  /// MPI_Allreduce), mgs on one: measured on an H100 and an H200
  /// (perf_tests/journal/RESULTS.md).
  automatic,
  /// Classical Gram-Schmidt applied twice: all k + 1 inner products of a pass
  /// in one kernel and one global sum, so an iteration waits for the device
  /// (or the other processes) once instead of k + 2 times; as accurate as
  /// modified Gram-Schmidt (the second pass restores orthogonality).
  cgs2,
  /// Modified Gram-Schmidt (seed 001's Algorithm 1) with its coefficients
  /// kept in device memory: one kernel per basis vector (the previous
  /// vector's update fused with the next product), one host read per
  /// iteration on one process; over MPI a global sum per vector.
  mgs,
  /// Modified Gram-Schmidt as a BLAS-1 GMRES runs it (a dot read by the host,
  /// then an axpy, per basis vector: k + 2 round trips an iteration): the
  /// paper's baseline, kept for comparisons.
  mgs_blas,
};

template <>
struct NameTable<GmresOrthogonalization> {
  static constexpr const char* what = "GMRES orthogonalization";
  static constexpr NameEntry<GmresOrthogonalization> entries[] = {
      {GmresOrthogonalization::automatic, "automatic"},
      {GmresOrthogonalization::cgs2, "cgs2"},
      {GmresOrthogonalization::mgs, "mgs"},
      {GmresOrthogonalization::mgs_blas, "mgs-blas"},
  };
};

struct KrylovOptions {
  double rel_tol = 1e-8;  // stop when ||r|| <= rel_tol * ||b|| ...
  double abs_tol = 0;     // ... or ||r|| <= abs_tol
  int max_iterations = 1000;
  int restart = 30;  // GMRES(m)
  /// BiCGSTAB: how many times a breakdown ((r, r0^), (v, r0^) or omega = 0)
  /// or a stagnation restarts the iteration from the current iterate with a
  /// fresh shadow residual r0^ = r before the solve ends with that status.
  int max_breakdown_restarts = 3;
  /// BiCGSTAB: this many iterations without the residual falling below 0.9
  /// times its best so far is a stagnation (0: never detected).
  int stagnation_window = 300;
  GmresOrthogonalization orthogonalization = GmresOrthogonalization::automatic;  // GMRES only
  /// Called with (iteration, relative residual) each time the history grows
  /// (progress displays); empty by default.
  std::function<void(int, double)> on_iteration;
};

enum class KrylovStatus {
  converged,
  max_iterations,
  breakdown_rho,       // BiCGSTAB: (r_j, r0^) = 0
  breakdown_vr,        // BiCGSTAB: (v_j, r0^) = 0; CG: (p, A p) <= 0
  breakdown_omega,     // BiCGSTAB: omega = 0
  non_finite,          // NaN or Inf in a scalar of the iteration
  true_residual_high,  // the iteration's residual met the tolerance, ||b - A x|| did not, even after restarts
  stagnated,           // BiCGSTAB: no progress over KrylovOptions::stagnation_window iterations, even after restarts
};

template <>
struct NameTable<KrylovStatus> {
  static constexpr const char* what = "Krylov status";
  static constexpr NameEntry<KrylovStatus> entries[] = {
      {KrylovStatus::converged, "converged"},
      {KrylovStatus::max_iterations, "max-iterations"},
      {KrylovStatus::breakdown_rho, "breakdown-rho"},
      {KrylovStatus::breakdown_vr, "breakdown-vr"},
      {KrylovStatus::breakdown_omega, "breakdown-omega"},
      {KrylovStatus::non_finite, "non-finite"},
      {KrylovStatus::true_residual_high, "true-residual-high"},
      {KrylovStatus::stagnated, "stagnated"},
  };
};

/// A restart of the iteration from its current iterate: at which iteration,
/// and why (a breakdown, a stagnation, or true_residual_high when the true
/// residual missed what the iteration's own residual promised).
struct KrylovRestart {
  int iteration = 0;
  KrylovStatus reason = KrylovStatus::breakdown_rho;
};

struct KrylovResult {
  KrylovStatus status = KrylovStatus::max_iterations;
  int iterations = 0;
  /// ||r|| / ||b|| of the iteration's residual (preconditioned where the
  /// method tracks that one), one entry per iteration, the start first.
  std::vector<double> history;
  /// ||b - A x|| / ||b|| for the returned x.
  double true_relative_residual = 0;
  /// Each restart, in order (BiCGSTAB; CG's true-residual restarts too).
  std::vector<KrylovRestart> restarts;
  bool converged() const { return status == KrylovStatus::converged; }
};

}  // namespace trellis
