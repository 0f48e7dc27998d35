#pragma once
// One entry point for a preconditioned Krylov solve. A Solver owns the
// system matrix, the preconditioner and the numbering the preconditioner
// works in (dd reorders its rows): vectors go in and come out in the
// caller's numbering, whatever was built.
//
//   trellis::Solver solver(A);                       // A: HostCsr; "auto", BiCGSTAB
//   trellis::SolveReport r = solver.solve(b, x);     // x: the start in, the solution out
//   solver.numeric(A_next);                          // new values, same pattern
//
// A default that does not give up while the library has a working answer:
// when the preconditioner's setup meets a failed pivot, or the Krylov solve
// breaks down, stagnates or ends non-finite (after BiCGSTAB's own restarts),
// the solve goes on with the next candidate, from the best iterate so far,
// within the one iteration budget (KrylovOptions::max_iterations):
//   the preconditioner asked for (auto: jacobi, dd or ilu0, by its rule)
//   -> ilu0 (global ILU0, the fastest triangular solve)
//   -> ilu0 with boosted pivots (SolverOptions::boosted_pivots)
// A candidate equal to one already tried is skipped. The report lists every
// attempt and why it ended. FallbackPolicy says when this applies; a
// candidate that converged is the one the next solve starts with.
//
// Built for double on the default device, in the library.
#include <Kokkos_Core.hpp>

#include <memory>
#include <string>
#include <vector>

#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/name_table.hpp"
#include "trellis/solvers/bicgstab.hpp"
#include "trellis/solvers/krylov.hpp"
#include "trellis/solvers/preconditioner_factory.hpp"

namespace trellis {

enum class KrylovMethod { bicgstab, gmres, cg };

template <>
struct NameTable<KrylovMethod> {
  static constexpr const char* what = "Krylov method";
  static constexpr NameEntry<KrylovMethod> entries[] = {
      {KrylovMethod::bicgstab, "bicgstab"},
      {KrylovMethod::gmres, "gmres"},
      {KrylovMethod::cg, "cg"},
  };
};

/// When a failed preconditioner hands over to the next candidate.
enum class FallbackPolicy {
  automatic,  // after `auto` only: a preconditioner named explicitly is what was asked for
  always,     // after any preconditioner
  strict,     // never: the first preconditioner's outcome is the solve's
};

template <>
struct NameTable<FallbackPolicy> {
  static constexpr const char* what = "fallback policy";
  static constexpr NameEntry<FallbackPolicy> entries[] = {
      {FallbackPolicy::automatic, "auto"},
      {FallbackPolicy::always, "always"},
      {FallbackPolicy::strict, "strict"},
  };
};

struct SolverOptions {
  std::string preconditioner = "auto";  // a make_preconditioner name
  KrylovMethod method = KrylovMethod::bicgstab;
  BicgstabForm form = BicgstabForm::right;  // M^{-1} whole: the fused DD kernels apply
  KrylovOptions krylov;
  PreconditionerOptions preconditioner_options;
  FallbackPolicy fallback = FallbackPolicy::automatic;
  /// The last candidate's pivot rule: a pivot below 1e-6 of its row's
  /// largest entry becomes 1e-3 of it (ilu::PivotOptions).
  ilu::PivotOptions boosted_pivots{1e-6, 1e-3};
};

/// One preconditioner tried.
struct SolveAttempt {
  std::string preconditioner;  // NAME[:VARIANT] as built (as asked, when the setup failed)
  std::string setup_error;     // the setup's error; empty when it was built
  KrylovResult result;         // the Krylov solve (none when the setup failed)
  double setup_seconds = 0;    // 0 when built by an earlier solve
  double solve_seconds = 0;
  bool boosted_pivots = false;  // built with SolverOptions::boosted_pivots
};

struct SolveReport {
  /// The whole solve: the status of the last attempt, the iterations and
  /// restarts of all attempts (restart iterations counted from the solve's
  /// start), their histories one after another, and ||b - A x|| / ||b|| of
  /// the x returned (the best iterate when none converged).
  KrylovResult result;
  std::vector<SolveAttempt> attempts;
  /// The preconditioner whose solve produced x.
  std::string preconditioner;
  bool converged() const { return result.converged(); }
  /// One line per attempt, and per restart, for people.
  std::string describe() const;
};

class Solver {
 public:
  using Device = DefaultDevice;
  using vector_type = Kokkos::View<double*, Device>;
  using const_vector_type = Kokkos::View<const double*, Device>;

  /// Builds the first candidate for A (point CSR, host memory). An unknown
  /// preconditioner or option is an InputError before any setup.
  explicit Solver(const HostCsr& A, SolverOptions options = {});
  /// The same, with A also as a block matrix in device memory (the SpMV's
  /// matrix; dd starts from its blocks).
  Solver(const HostCsr& A, const BsrMatrix<double, Device>& blocks, SolverOptions options = {});
  ~Solver();
  Solver(Solver&&) noexcept;
  Solver& operator=(Solver&&) noexcept;

  /// Solves A x = b, b and x in the caller's numbering, from the x given.
  SolveReport solve(const_vector_type b, vector_type x);

  /// New values for A's pattern (a Newton or time step): every candidate
  /// built so far takes them (BuiltPreconditioner::numeric), and so does
  /// the operator; the next solve starts again from the first candidate
  /// that still stands. A changed pattern is a StructureError. A candidate
  /// whose pivot now fails is skipped (strict: the PivotError is thrown)
  /// until a later numeric() factors it again; one whose setup failed
  /// stays out.
  void numeric(const HostCsr& A);
  void numeric(const BsrMatrix<double, Device>& blocks);

  /// The preconditioner the next solve starts with, and its setup (an
  /// Error if every candidate failed, or if the next one is built by the
  /// next solve).
  const BuiltPreconditioner& preconditioner() const;
  /// y = A x in the caller's numbering.
  const LinearOperator<double, Device>& op() const;
  const SolverOptions& options() const { return options_; }
  ordinal_t num_rows() const;

 private:
  void numeric_candidates(const HostCsr& A);
  struct State;
  std::unique_ptr<State> s_;
  SolverOptions options_;
};

}  // namespace trellis
