#include "trellis/solvers/solver.hpp"

#include <cmath>
#include <exception>
#include <optional>
#include <sstream>

#include "trellis/core/csr_check.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/stopwatch.hpp"
#include "trellis/solvers/bsr_operator.hpp"
#include "trellis/solvers/cg.hpp"
#include "trellis/solvers/detail/vector_ops.hpp"
#include "trellis/solvers/gmres.hpp"
#include "trellis/solvers/preconditioner_choice.hpp"

namespace trellis {

namespace {

using Device = DefaultDevice;
using Vector = Kokkos::View<double*, Device>;
using ConstVector = Kokkos::View<const double*, Device>;

/// Statuses after which the next candidate takes over. max_iterations is not
/// one: the iteration budget is spent.
bool failed(KrylovStatus s) { return s != KrylovStatus::converged && s != KrylovStatus::max_iterations; }

bool same_pivots(const ilu::PivotOptions& a, const ilu::PivotOptions& b) {
  return a.tolerance == b.tolerance && a.boost == b.boost;
}

}  // namespace

/// A preconditioner to try, built when first needed.
struct Candidate {
  std::string spec;
  PreconditionerOptions options;
  bool boosted = false;
  std::string auto_reason;  // the first candidate of auto: why it was chosen
  std::optional<BuiltPreconditioner> built;
  const LinearOperator<double, Device>* op = nullptr;  // dd, structilu: the reordered system (built's)
  std::string setup_error;                             // a failed pivot: skipped
  std::exception_ptr setup_exception;                  // that PivotError, to rethrow
  double setup_seconds = 0;
};

struct Solver::State {
  HostCsr A;  // the point matrix (host), what the preconditioners are built from
  BsrOperator<double, Device> op;
  std::vector<Candidate> candidates;
  size_t active = 0;  // the candidate the next solve starts with
  Vector work_b, work_x, best_x;
  BicgstabWorkspace<double, Device> bicgstab;

  // The work vectors are allocated here, with the setup, not in a solve.
  State(const HostCsr& a, const BsrMatrix<double, Device>& blocks) : A(a), op(blocks) {
    const size_t n = size_t(a.num_rows);
    work_b = Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trellis::solver::b"), n);
    work_x = Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trellis::solver::x"), n);
    best_x = Vector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "trellis::solver::best_x"), n);
    bicgstab.reserve(n);
  }

  /// Builds candidate k (once); false when its setup, or the numeric() of
  /// the values it now holds, failed on a pivot.
  bool build(size_t k) {
    Candidate& c = candidates[k];
    if (!c.setup_error.empty()) return false;
    if (c.built) return true;
    const auto t0 = now();
    try {
      const TrustedInput trusted;  // the Solver checked A once
      c.built = make_preconditioner(c.spec, A, op.matrix(), c.options);
    } catch (const PivotError& e) {
      c.setup_error = e.what();
      c.setup_exception = std::current_exception();
      return false;
    }
    Kokkos::fence();
    c.setup_seconds = seconds_since(t0);
    if (!c.auto_reason.empty()) {
      c.built->auto_reason = c.auto_reason;
      c.built->setup_report = c.auto_reason + (c.built->setup_report.empty() ? "" : "\n" + c.built->setup_report);
    }
    if (c.built->reordered()) c.op = &c.built->reordered_operator();
    return true;
  }

  /// Candidate k is one tried before it (same name and pivot rule).
  bool repeats(size_t k) const {
    const Candidate& c = candidates[k];
    for (size_t j = 0; j < k; ++j) {
      const Candidate& e = candidates[j];
      const std::string name = e.built ? e.built->name : canonical_preconditioner(e.spec);
      if (name == canonical_preconditioner(c.spec) && same_pivots(e.options.pivots, c.options.pivots)) return true;
    }
    return false;
  }
};

Solver::Solver(const HostCsr& A, SolverOptions options)
    : Solver(A, copy_to<DefaultDevice>(csr_to_bsr(A, 1)), std::move(options)) {}

Solver::Solver(const HostCsr& A, const BsrMatrix<double, Device>& blocks, SolverOptions options)
    : options_(std::move(options)) {
  check_canonical(A, "Solver");
  if (blocks.num_rows() != A.num_rows || blocks.nnz_blocks() * blocks.block_size * blocks.block_size < A.nnz())
    throw StructureError("Solver: the block matrix (" + std::to_string(blocks.num_rows()) +
                         " rows) is not the point matrix's (" + std::to_string(A.num_rows) + " rows)");
  const std::string first = canonical_preconditioner(options_.preconditioner);
  s_ = std::make_unique<State>(A, blocks);
  // auto's choice made here, so that the fallback knows what it built.
  std::string auto_reason;
  std::string spec = first;
  if (first == "auto") {
    const ProfilingRegion region("trellis::auto::setup");
    const PreconditionerChoice choice = [&] {
      const TrustedInput trusted;  // checked above
      return choose_preconditioner(A, blocks, options_.preconditioner_options);
    }();
    spec = to_string(choice.kind);
    auto_reason = choice.reason;
  }
  s_->candidates.push_back({spec, options_.preconditioner_options});
  s_->candidates.back().auto_reason = auto_reason;
  const bool fallback = options_.fallback == FallbackPolicy::always ||
                        (options_.fallback == FallbackPolicy::automatic && first == "auto");
  if (fallback) {
    s_->candidates.push_back({"ilu0", options_.preconditioner_options});
    Candidate boosted{"ilu0", options_.preconditioner_options, true};
    boosted.options.pivots = options_.boosted_pivots;
    s_->candidates.push_back(std::move(boosted));
  }
  // The first candidate now: its setup is the solver's. With no fallback its
  // failed pivot is the caller's error.
  for (size_t k = 0; k < s_->candidates.size(); ++k) {
    if (k > 0 && s_->repeats(k)) continue;
    if (s_->build(k)) {
      s_->active = k;
      return;
    }
  }
  if (s_->candidates.size() == 1) std::rethrow_exception(s_->candidates[0].setup_exception);
  std::string why = "Solver: every preconditioner failed its setup:";
  for (const Candidate& c : s_->candidates)
    if (!c.setup_error.empty()) why += "\n  " + c.spec + ": " + c.setup_error;
  throw Error(why);
}

Solver::~Solver() = default;
Solver::Solver(Solver&&) noexcept = default;
Solver& Solver::operator=(Solver&&) noexcept = default;

ordinal_t Solver::num_rows() const { return s_->A.num_rows; }
const LinearOperator<double, DefaultDevice>& Solver::op() const { return s_->op; }
const BuiltPreconditioner& Solver::preconditioner() const {
  const Candidate& c = s_->candidates[s_->active];
  if (!c.setup_error.empty()) throw Error("Solver: the preconditioner " + c.spec + " failed: " + c.setup_error);
  if (!c.built) throw Error("Solver: the preconditioner " + c.spec + " is built by the next solve");
  return *c.built;
}

SolveReport Solver::solve(const_vector_type b, vector_type x) {
  State& s = *s_;
  const size_t n = size_t(s.A.num_rows);
  if (b.extent(0) != n || x.extent(0) != n)
    throw StructureError("Solver::solve: vectors of length " + std::to_string(b.extent(0)) + " and " +
                         std::to_string(x.extent(0)) + " for a matrix of " + std::to_string(n) + " rows");
  if (b.data() == x.data()) throw StructureError("Solver::solve: b and x must differ");
  Kokkos::deep_copy(s.best_x, x);
  double best = detail::true_relative_residual<double, Device>(Device::execution_space(), s.op, b, x, s.work_x);
  SolveReport report;
  KrylovResult& total = report.result;
  total.true_relative_residual = best;
  int used = 0;
  bool any_built = false;
  for (size_t k = 0; k < s.candidates.size(); ++k) {
    Candidate& c = s.candidates[k];
    SolveAttempt attempt;
    attempt.boosted_pivots = c.boosted;
    // Before the active candidate: not tried again, but a failed setup is
    // still said.
    if (k < s.active && c.setup_error.empty()) continue;
    if (k > s.active && s.repeats(k)) continue;
    const bool was_built = bool(c.built);
    if (!s.build(k)) {
      attempt.preconditioner = c.spec;
      attempt.setup_error = c.setup_error;
      report.attempts.push_back(std::move(attempt));
      continue;
    }
    const BuiltPreconditioner& M = *c.built;
    attempt.preconditioner = M.name;
    attempt.setup_seconds = was_built ? 0 : c.setup_seconds;
    KrylovOptions o = options_.krylov;
    o.max_iterations = std::max(0, options_.krylov.max_iterations - used);
    const LinearOperator<double, Device>& A = c.op ? *c.op : s.op;
    M.to_reordered(b, s.work_b);
    M.to_reordered(s.best_x, s.work_x);
    const auto t0 = now();
    KrylovResult r;
    switch (options_.method) {
      case KrylovMethod::bicgstab:
        r = bicgstab(A, *M.preconditioner, s.work_b, s.work_x, o, options_.form, &s.bicgstab);
        break;
      case KrylovMethod::gmres: r = gmres(A, *M.preconditioner, s.work_b, s.work_x, o); break;
      case KrylovMethod::cg: r = cg(A, *M.preconditioner, s.work_b, s.work_x, o); break;
    }
    Kokkos::fence();
    attempt.solve_seconds = seconds_since(t0);
    for (KrylovRestart restart : r.restarts) {
      restart.iteration += used;
      total.restarts.push_back(restart);
    }
    total.history.insert(total.history.end(), r.history.begin(), r.history.end());
    used += r.iterations;
    total.iterations = used;
    total.status = r.status;
    any_built = true;
    const bool improved = std::isfinite(r.true_relative_residual) && r.true_relative_residual < best;
    if (r.converged() || improved) {
      M.from_reordered(s.work_x, s.best_x);
      best = r.true_relative_residual;
      report.preconditioner = M.name;
    }
    attempt.result = std::move(r);
    const KrylovStatus status = attempt.result.status;
    report.attempts.push_back(std::move(attempt));
    if (status == KrylovStatus::converged) {
      s.active = k;
      break;
    }
    if (!failed(status) || o.max_iterations == 0 || used >= options_.krylov.max_iterations) break;
  }
  if (!any_built) throw Error("Solver: no preconditioner could be built:\n" + report.describe());
  Kokkos::deep_copy(x, s.best_x);
  total.true_relative_residual = best;
  return report;
}

void Solver::numeric(const HostCsr& A) {
  check_canonical(A, "Solver::numeric");  // once here, not again by each candidate
  const auto& blocks = s_->op.matrix();
  const HostBsr mine = csr_to_bsr(A, blocks.block_size);
  if (mine.values.extent(0) != blocks.values.extent(0))
    throw StructureError("Solver::numeric: the new matrix's pattern is not the one the solver was built for");
  numeric_candidates(A);
  Kokkos::deep_copy(blocks.values, mine.values);
}

void Solver::numeric(const BsrMatrix<double, Device>& blocks) {
  const auto& mine = s_->op.matrix();
  if (blocks.block_size != mine.block_size || blocks.num_block_rows != mine.num_block_rows ||
      blocks.values.extent(0) != mine.values.extent(0))
    throw StructureError("Solver::numeric: the new block matrix's shape is not the one the solver was built for");
  const HostCsr point = bsr_to_csr(copy_to<HostDevice>(blocks));
  check_canonical(point, "Solver::numeric");  // once here, not again by each candidate
  numeric_candidates(point);
  if (blocks.values.data() != mine.values.data()) Kokkos::deep_copy(mine.values, blocks.values);
}

void Solver::numeric_candidates(const HostCsr& A) {
  State& s = *s_;
  if (A.num_rows != s.A.num_rows || A.nnz() != s.A.nnz())
    throw StructureError("Solver::numeric: a matrix of " + std::to_string(A.num_rows) + " rows and " +
                         std::to_string(A.nnz()) + " nonzeros for one of " + std::to_string(s.A.num_rows) +
                         " rows and " + std::to_string(s.A.nnz()) + " nonzeros");
  const TrustedInput trusted;  // the caller checked A
  // A built candidate refactors, and stands again if an earlier numeric()
  // failed its pivots (its analysis was kept); one not built yet is built
  // from the new values when a solve needs it; one whose setup failed stays
  // out (a new setup per numeric() would repeat its cost at every step).
  for (Candidate& c : s.candidates) {
    if (!c.built) continue;
    c.setup_error.clear();
    c.setup_exception = nullptr;
    try {
      c.built->numeric(A);
    } catch (const PivotError& e) {
      if (options_.fallback == FallbackPolicy::strict) throw;
      c.setup_error = e.what();
      c.setup_exception = std::current_exception();
    }
  }
  s.A = A;  // what later candidates are built from; the caller's first matrix is left as it was
  // The next solve starts again from the first candidate that still stands.
  for (s.active = 0; s.active + 1 < s.candidates.size() && !s.candidates[s.active].setup_error.empty(); ++s.active) {
  }
}

std::string SolveReport::describe() const {
  std::ostringstream out;
  int start = 0;
  for (const SolveAttempt& a : attempts) {
    out << "  " << a.preconditioner << (a.boosted_pivots ? " (boosted pivots)" : "") << ": ";
    if (!a.setup_error.empty()) {
      out << "setup failed: " << a.setup_error << "\n";
      continue;
    }
    out << to_string(a.result.status) << " after " << a.result.iterations << " iterations, true residual "
        << a.result.true_relative_residual << "\n";
    for (const KrylovRestart& r : a.result.restarts)
      out << "    restarted at iteration " << start + r.iteration << ": " << to_string(r.reason) << "\n";
    start += a.result.iterations;
  }
  return out.str();
}

}  // namespace trellis
