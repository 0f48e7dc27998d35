// iteration_spread: how much BiCGSTAB's iteration count varies from run to
// run under the preconditioners whose kernels accumulate with atomics in a
// schedule-dependent order (issue 20). Each run builds the preconditioner
// and solves A x = A*1 from x = 0 (right form, tolerance 1e-8) as `trellis
// solve` does; one line per problem and preconditioner: the runs, the
// smallest and largest iteration count, how many distinct counts, the
// smallest and largest true residual, and whether every run converged.
//
//   iteration_spread [--runs N] [--precond a,b,...] PROBLEM...
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "bench_command_line.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/gallery/problem_spec.hpp"
#include "trellis/solvers/bicgstab.hpp"
#include "trellis/solvers/bsr_operator.hpp"
#include "trellis/solvers/preconditioner_factory.hpp"
#include "trellis/solvers/solver.hpp"

namespace {

using namespace trellis;
using Device = DefaultDevice;
using Vector = Kokkos::View<double*, Device>;

struct Outcome {
  int iterations;
  double residual;
  bool converged;
};

Outcome solve_once(const gallery::Problem& p, const std::string& spec) {
  const size_t n = size_t(p.matrix.num_rows);
  const HostBsr blocks = p.block_matrix ? *p.block_matrix : csr_to_bsr(p.matrix, 1);
  const BsrOperator<double, Device> A(copy_to<Device>(blocks));
  Vector ones("ones", n), b("b", n), x("x", n);
  Kokkos::deep_copy(ones, 1.0);
  A.apply(ones, b);
  SolverOptions o;
  o.preconditioner = spec;
  o.fallback = FallbackPolicy::strict;  // the spread of this preconditioner's own counts
  if (p.grid[0] > 0) o.preconditioner_options.grid = {p.grid[0], std::max(1, p.grid[1]), std::max(1, p.grid[2])};
  Solver solver(p.matrix, A.matrix(), o);
  const KrylovResult r = solver.solve(b, x).result;
  return {r.iterations, r.true_relative_residual, r.converged()};
}

/// What the command line asks for.
struct Settings {
  int runs = 20;
  std::vector<std::string> specs{"dd:dag-ec-ilduo-fused", "ilu0:levelset-csc", "ilu0:elmc", "ilu0:syncfree-naive",
                                 "ilu0:tile-syncfree"};
  std::vector<std::string> problems;
};

/// Reads the options into st; -1 to go on, else the exit code.
int parse_options(int argc, char** argv, Settings& st) {
  bench::CommandLine cl("iteration_spread",
                        "How much BiCGSTAB's iteration count varies from run to run under the preconditioners "
                        "that accumulate with atomics.");
  cl.number("--runs", st.runs, "runs per problem and preconditioner (default 20)", 1, 1000000)
      .list("--precond", st.specs, "preconditioner specs, comma-separated")
      .positionals("problems", st.problems, "problem specs or Matrix Market files (default: the CLI's)");
  return cl.parse(argc, argv);
}

int run(Settings st) {
  const int runs = st.runs;
  const std::vector<std::string>& specs = st.specs;
  std::vector<std::string>& problems = st.problems;
  if (problems.empty()) problems.push_back(gallery::default_problem_spec);
  std::printf("iteration_spread: %d runs each, BiCGSTAB right form, tolerance 1e-8, backend %s\n", runs,
              Kokkos::DefaultExecutionSpace::name());
  std::printf("%-28s %-24s %5s %6s %6s %9s %10s %10s %s\n", "problem", "preconditioner", "runs", "min it", "max it",
              "distinct", "min res", "max res", "all converged");
  for (const auto& spec_p : problems) {
    const gallery::Problem p = gallery::load_problem(spec_p);
    for (const auto& spec : specs) {
      std::vector<Outcome> out;
      try {
        for (int r = 0; r < runs; ++r) out.push_back(solve_once(p, spec));
      } catch (const Error& e) {
        std::printf("%-28s %-24s error: %s\n", p.name.c_str(), spec.c_str(), e.what());
        continue;
      }
      std::set<int> distinct;
      int lo = out[0].iterations, hi = lo;
      double rlo = out[0].residual, rhi = rlo;
      bool all = true;
      for (const auto& o : out) {
        distinct.insert(o.iterations);
        lo = std::min(lo, o.iterations), hi = std::max(hi, o.iterations);
        rlo = std::min(rlo, o.residual), rhi = std::max(rhi, o.residual);
        all = all && o.converged;
      }
      std::printf("%-28s %-24s %5d %6d %6d %9zu %10.2e %10.2e %s\n", p.name.c_str(), spec.c_str(), runs, lo, hi,
                  distinct.size(), rlo, rhi, all ? "yes" : "NO");
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Settings st;
  if (const int rc = parse_options(argc, argv, st); rc >= 0) return rc;
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    return run(st);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "iteration_spread: error: %s\n", e.what());
    return 1;
  }
}
