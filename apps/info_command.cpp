// `trellis info [file.mtx | generated spec]`: what a matrix is and how much
// parallelism its triangular factors offer.
#include <Kokkos_Core.hpp>
#include <Kokkos_Timer.hpp>
#include <algorithm>
#include <cstdio>

#include "commands.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/matrix_summary.hpp"
#include "trellis/gallery/problem_spec.hpp"
#include "trellis/solvers/preconditioner_choice.hpp"

namespace trellis::cli {

int info_command(const std::vector<std::string>& args) {
  for (const std::string& a : args)  // info takes a problem only: an option is named, not opened as a file
    if (a.size() > 1 && a[0] == '-')
      throw InputError("unknown option '" + a + "' (trellis info takes one problem and no options; --help)");
  if (args.size() > 1) throw InputError("expected one problem, got " + std::to_string(args.size()) + " arguments");
  const std::string spec = args.empty() ? gallery::default_problem_spec : args[0];
  if (spec.rfind("kron-stokes:", 0) == 0) {  // a Kronecker system: its sizes, then M's summary
    const KroneckerSystem sys = kron_stokes_system(spec);
    std::printf("trellis info: %s\n", spec.c_str());
    std::printf("  problem         %s\n", sys.description.c_str());
    std::printf(
        "  system          (A (x) M + tau B (x) L): N = %d rows x s = %d stages = %lld unknowns, block size %d\n",
        sys.space_rows(), sys.stages, (long long)sys.space_rows() * sys.stages, sys.M.block_size);
    std::printf("  M (the space operator's mass part):\n");
    std::fputs(format_summary(summarize(bsr_to_csr(sys.M))).c_str(), stdout);
    return 0;
  }
  Kokkos::Timer timer;
  const gallery::Problem problem = gallery::load_problem(spec);
  const double load_seconds = timer.seconds();
  std::printf("trellis info: %s\n", problem.name.c_str());
  std::printf("  problem         %s\n", problem.description.c_str());
  if (problem.block_matrix)
    std::printf("  blocks          %d x %d blocks of %dx%d, %d stored blocks (BSR)\n",
                problem.block_matrix->num_block_rows, problem.block_matrix->num_block_cols,
                problem.block_matrix->block_size, problem.block_matrix->block_size, problem.block_matrix->nnz_blocks());
  std::printf("  load time       %.3f s\n", load_seconds);
  std::fputs(format_summary(summarize(problem.matrix)).c_str(), stdout);
  PreconditionerOptions options;
  if (problem.grid[0] > 0) options.grid = {problem.grid[0], std::max(1, problem.grid[1]), std::max(1, problem.grid[2])};
  if (problem.matrix.is_square() && problem.matrix.num_rows > 0)
    std::printf("  preconditioner  %s\n", choose_preconditioner(problem.matrix, options).reason.c_str());
  return 0;
}

}  // namespace trellis::cli
