// One preconditioner of each family the factory names, each solving A x = b
// (b = A * 1), in one table. Copy the row you need.
//
//   each_family [A.mtx]     (no file: a small generated problem)
//
// StructILU needs a structured grid and the Kronecker operator a Kronecker
// system, so those two rows solve small generated problems of their own.
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <trellis/gallery/gallery.hpp>
#include <trellis/gallery/kronecker_problems.hpp>
#include <trellis/io/matrix_market.hpp>
#include <trellis/solvers/gmres.hpp>
#include <trellis/solvers/kronecker_operator.hpp>
#include <trellis/solvers/preconditioners/kronecker_stages.hpp>
#include <trellis/solvers/solver.hpp>

namespace {

struct Row {
  std::string problem, preconditioner, method;
  trellis::KrylovResult result;
};

// The Solver path: any factory name in options.preconditioner.
Row solve(const std::string& problem, const trellis::HostCsr& A, const trellis::SolverOptions& options) {
  trellis::Solver solver(A, options);
  Kokkos::View<double*> ones("ones", A.num_rows), b("b", A.num_rows), x("x", A.num_rows);
  Kokkos::deep_copy(ones, 1.0);
  solver.op().apply(ones, b);  // b = A * 1
  const trellis::SolveReport r = solver.solve(b, x);
  // The name as built (dd fills in its default variant); r.preconditioner is
  // empty when no iterate improved on the start.
  return {problem, solver.preconditioner().name, trellis::to_string(options.method), r.result};
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    const trellis::HostCsr A =
        argc > 1 ? trellis::io::read_matrix_market(argv[1]) : trellis::gallery::convection_diffusion3d(16, 16, 16);
    const std::string path = argc > 1 ? argv[1] : "convdiff3d 16^3";
    const std::string name = path.substr(path.find_last_of('/') + 1);  // the file name, for the table
    std::vector<Row> rows;

    // A name picks the family; ":VARIANT" picks how it is applied: here the
    // ILU0 triangular solves by level sets (plain "ilu0" picks the algorithm).
    for (const char* spec : {"jacobi", "gs", "ilu0:levelset-csr", "dd"}) {
      trellis::SolverOptions options;
      options.preconditioner = spec;
      rows.push_back(solve(name, A, options));
    }

    // StructILU works on the stencil of a grid problem: the factory needs the
    // grid (x fastest, as the gallery numbers it). IC(0) is symmetric: CG.
    {
      const trellis::HostCsr G = trellis::gallery::laplace3d_7pt(20, 20, 20);
      trellis::SolverOptions options;
      options.preconditioner = "structilu:ic0";
      options.method = trellis::KrylovMethod::cg;
      options.preconditioner_options.grid = {20, 20, 20};
      rows.push_back(solve("lap3d7 20^3", G, options));
    }

    // A Kronecker system (A (x) M + tau B (x) L) U = F is never formed as a
    // matrix: the operator applies it, GMRES solves it, and the stage
    // preconditioner applies ILU0 of M + tau gamma L to each stage.
    {
      const trellis::KroneckerSystem sys = trellis::gallery::stokes_kronecker(6, 6, 5, /*stages=*/2);
      const trellis::KroneckerOperator<> K(sys);
      const trellis::KroneckerStagePreconditioner P(sys, /*first_block_row=*/0, "ilu0");
      Kokkos::View<double*> ones("ones", K.num_rows()), b("b", K.num_rows()), x("x", K.num_rows());
      Kokkos::deep_copy(ones, 1.0);
      K.apply(ones, b);  // stage j at [j N, (j + 1) N)
      const trellis::KrylovResult r = trellis::gmres(K, P, b, x);
      rows.push_back({"kron-stokes 6x6x5 s=2", "stages:" + P.stage().name, "gmres", r});
    }

    int failures = 0;
    std::printf("%-22s %-24s %-9s %6s %12s  %s\n", "problem", "preconditioner", "method", "iters", "true resid",
                "status");
    for (const Row& r : rows) {
      std::printf("%-22s %-24s %-9s %6d %12.3e  %s\n", r.problem.c_str(), r.preconditioner.c_str(), r.method.c_str(),
                  r.result.iterations, r.result.true_relative_residual, trellis::to_string(r.result.status));
      failures += !r.result.converged();
    }
    return failures == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "each_family: error: %s\n", e.what());
    return 2;
  }
}
