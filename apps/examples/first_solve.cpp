// The program a new user writes first: read a matrix, solve A x = b with the
// default preconditioner (auto) and BiCGSTAB, say what happened. The Solver
// keeps whatever row order its preconditioner works in to itself: b and x
// are in the file's numbering.
//
//   first_solve A.mtx [PRECONDITIONER]      (b = A 1, so x should be 1)
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>
#include <string>

#include "trellis/io/matrix_market.hpp"
#include "trellis/solvers/solver.hpp"

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  if (argc < 2) return std::fprintf(stderr, "usage: first_solve A.mtx [PRECONDITIONER]\n"), 2;
  try {
    const trellis::HostCsr A = trellis::io::read_matrix_market(argv[1]);
    trellis::SolverOptions options;
    if (argc > 2) options.preconditioner = argv[2];
    trellis::Solver solver(A, options);

    Kokkos::View<double*> ones("ones", A.num_rows), b("b", A.num_rows), x("x", A.num_rows);
    Kokkos::deep_copy(ones, 1.0);
    solver.op().apply(ones, b);  // b = A 1
    const trellis::SolveReport r = solver.solve(b, x);

    const auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
    double error = 0;
    for (size_t i = 0; i < hx.extent(0); ++i) error = std::max(error, std::abs(hx(i) - 1.0));
    std::printf("%s: %s after %d iterations with %s, true residual %.2e, max |x - 1| %.2e\n%s", argv[1],
                trellis::to_string(r.result.status), r.result.iterations, r.preconditioner.c_str(),
                r.result.true_relative_residual, error, r.describe().c_str());
    return r.converged() ? 0 : 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "first_solve: error: %s\n", e.what());
    return 1;
  }
}
