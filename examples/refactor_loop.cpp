// The loop of a Newton or time-stepping application: the matrix keeps its
// sparsity pattern and changes its values every step. Set up the solver once
// (analysis, partition, reordering: the expensive part), then each step call
// numeric(A) with the new values and solve.
//
//   refactor_loop [A.mtx] [STEPS]     (no file: a small generated problem)
#include <Kokkos_Core.hpp>
#include <chrono>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include <trellis/gallery/gallery.hpp>
#include <trellis/io/matrix_market.hpp>
#include <trellis/solvers/solver.hpp>

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  Kokkos::fence();  // device work is asynchronous: wait for it before reading the clock
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    trellis::HostCsr A =
        argc > 1 ? trellis::io::read_matrix_market(argv[1]) : trellis::gallery::convection_diffusion3d(16, 16, 16);
    const int steps = argc > 2 ? std::stoi(argv[2]) : 6;

    // The model: pseudo-transient continuation, A_k = A_0 + (1 / dt_k) diag(A_0)
    // with dt_k doubling every step. Only values change, never the pattern.
    Kokkos::View<double*, Kokkos::HostSpace> base("base", A.nnz());
    Kokkos::deep_copy(base, A.values);
    std::vector<trellis::offset_t> diagonal(A.num_rows, -1);  // where each row's diagonal sits
    for (trellis::ordinal_t i = 0; i < A.num_rows; ++i) {
      for (trellis::offset_t p = A.row_map(i); p < A.row_map(i + 1); ++p)
        if (A.entries(p) == i) diagonal[i] = p;
      if (diagonal[i] < 0) throw std::runtime_error("row " + std::to_string(i) + " has no diagonal entry");
    }
    // The application assembles into the same arrays every step. The Solver
    // shares them (no copy): after writing, call numeric() before solving.
    auto assemble = [&](double shift) {
      Kokkos::deep_copy(A.values, base);
      for (trellis::ordinal_t i = 0; i < A.num_rows; ++i) A.values(diagonal[i]) *= 1 + shift;
    };

    double dt = 0.25;
    assemble(1 / dt);
    auto t0 = std::chrono::steady_clock::now();
    trellis::Solver solver(A);  // once: the full setup
    std::printf("setup: %s, %.4f s\n", solver.preconditioner().name.c_str(), seconds_since(t0));

    Kokkos::View<double*> ones("ones", A.num_rows), b("b", A.num_rows), x("x", A.num_rows);
    Kokkos::deep_copy(ones, 1.0);
    std::printf("%4s %8s %12s %11s %6s %12s\n", "step", "dt", "numeric (s)", "solve (s)", "iters", "true resid");
    bool all_converged = true;
    for (int k = 0; k < steps; ++k, dt *= 2) {
      double numeric_seconds = 0;
      if (k > 0) {
        assemble(1 / dt);
        t0 = std::chrono::steady_clock::now();
        // New values, same pattern: every preconditioner factors again in
        // place and keeps its analysis. A changed pattern would throw.
        solver.numeric(A);
        numeric_seconds = seconds_since(t0);
      }
      solver.op().apply(ones, b);  // b = A_k * 1, with the values numeric() just took
      Kokkos::deep_copy(x, 0.0);   // a real application would start from the last step's x
      t0 = std::chrono::steady_clock::now();
      const trellis::SolveReport r = solver.solve(b, x);
      const double solve_seconds = seconds_since(t0);
      std::printf("%4d %8.2f %12.4f %11.4f %6d %12.3e%s\n", k, dt, numeric_seconds, solve_seconds, r.result.iterations,
                  r.result.true_relative_residual, r.converged() ? "" : "  NOT CONVERGED");
      all_converged = all_converged && r.converged();
    }
    return all_converged ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "refactor_loop: error: %s\n", e.what());
    return 2;
  }
}
