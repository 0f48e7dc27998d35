// Read a matrix, solve A x = b with the default preconditioner ("auto") and
// BiCGSTAB, and say what happened. Start here.
//
//   solve_matrix_market [A.mtx]     (no file: a small generated problem)
//
// b = A * 1, so the exact solution is all ones.
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <exception>
#include <string>

#include <trellis/gallery/gallery.hpp>
#include <trellis/io/matrix_market.hpp>
#include <trellis/solvers/solver.hpp>

int main(int argc, char** argv) {
  // Kokkos must outlive every Trellis object: the guard comes first.
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    // The matrix lives in host memory as point CSR (.mtx.gz too, when built with zlib).
    const std::string name = argc > 1 ? argv[1] : "convection-diffusion 3D, 16^3 (generated)";
    const trellis::HostCsr A =
        argc > 1 ? trellis::io::read_matrix_market(argv[1]) : trellis::gallery::convection_diffusion3d(16, 16, 16);

    // One entry point: the Solver owns the matrix, the preconditioner and any
    // row reordering it does. The defaults are "auto" and BiCGSTAB to 1e-8.
    trellis::Solver solver(A);
    // What auto built, and why: read it now, before a solve that might fall
    // back to another preconditioner.
    const std::string chosen = solver.preconditioner().name;
    const std::string reason = solver.preconditioner().auto_reason;

    // Vectors are Kokkos Views on the default device, in A's row numbering.
    Kokkos::View<double*> ones("ones", A.num_rows), b("b", A.num_rows), x("x", A.num_rows);
    Kokkos::deep_copy(ones, 1.0);
    solver.op().apply(ones, b);  // b = A * 1

    // x is the starting guess in (zero here) and the solution out.
    const trellis::SolveReport report = solver.solve(b, x);

    std::printf("matrix:          %s (%d rows, %d nonzeros)\n", name.c_str(), A.num_rows, A.nnz());
    std::printf("auto chose:      %s\n", chosen.c_str());
    std::printf("why:             %s\n", reason.c_str());
    std::printf("solved with:     %s\n", report.preconditioner.c_str());
    std::printf("status:          %s\n", trellis::to_string(report.result.status));
    std::printf("iterations:      %d\n", report.result.iterations);
    // The true residual ||b - A x|| / ||b|| is computed from x at the end,
    // not taken from the iteration's own recurrence.
    std::printf("true residual:   %.3e\n", report.result.true_relative_residual);
    if (!report.converged()) {
      // describe() lists every preconditioner tried and why each stopped.
      std::fprintf(stderr, "did not converge:\n%s", report.describe().c_str());
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    // Trellis throws typed errors (trellis::InputError, ...) that name the input.
    std::fprintf(stderr, "solve_matrix_market: error: %s\n", e.what());
    return 2;
  }
}
