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

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t comma; (comma = s.find(',', start)) != std::string::npos; start = comma + 1)
    out.push_back(s.substr(start, comma - start));
  out.push_back(s.substr(start));
  return out;
}

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

int run(int argc, char** argv) {
  int runs = 20;
  std::vector<std::string> specs{"dd:dag-ec-ilduo-fused", "ilu0:levelset-csc", "ilu0:elmc", "ilu0:syncfree-naive",
                                 "ilu0:tile-syncfree"};
  std::vector<std::string> problems;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--runs" && i + 1 < argc)
      runs = std::stoi(argv[++i]);
    else if (k == "--precond" && i + 1 < argc)
      specs = split(argv[++i]);
    else if (k.rfind("--", 0) == 0)
      throw InputError("unknown option '" + k + "'");
    else
      problems.push_back(k);
  }
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
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "iteration_spread: error: %s\n", e.what());
    return 1;
  }
}
