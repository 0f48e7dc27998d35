#pragma once
// The options of `trellis solve`, parsed apart from the solve so that tests
// and the fuzz target can call the parser alone.
#include <cmath>
#include <string>
#include <vector>

#include "trellis/gallery/problem_spec.hpp"
#include "trellis/solvers/bicgstab.hpp"
#include "trellis/solvers/krylov.hpp"
#include "trellis/solvers/preconditioner_factory.hpp"
#include "trellis/solvers/solver.hpp"

namespace trellis::cli {

struct SolveArgs {
  std::string problem = gallery::default_problem_spec;
  std::string solver = "bicgstab";
  std::string precond = "auto";             // dd or ilu0 by preconditioner_choice.hpp's rule
  BicgstabForm form = BicgstabForm::right;  // M^{-1} whole: the fused DD kernels apply
  KrylovOptions krylov;
  PreconditionerOptions options;
  FallbackPolicy fallback = FallbackPolicy::automatic;  // Solver's: after auto only
  bool compare = false;
  int repeat = 0;       // runs of each method, times their median; 0: 3 with --compare, else 1
  bool view = false;    // print the settings of the solve as run
  bool help = false;    // -h or --help: the usage, and nothing else read
  std::string history;  // CSV path; the SVG plot goes beside it
  std::string json;     // what the run printed, as one JSON document
  // Matrix Market vectors (array, one column): b and x0 read, x written.
  // Without rhs, b = A 1 (x = 1 exactly) from x0 = 0.
  std::string rhs, x0, solution;
  bool precond_given = false;
  // Kronecker systems (seed 001): --kron M L A B, or a kron-stokes: problem.
  std::vector<std::string> kron_files;
  double tau = std::nan("");
  int block_size = 1;
  bool kronecker() const { return !kron_files.empty() || problem.rfind("kron-stokes:", 0) == 0; }
};

/// The usage text of `trellis solve`.
extern const std::string solve_usage;

/// Parses the arguments after `solve` (with CLI11: --opt value and
/// --opt=value); a bad option is an InputError naming it. With -h or --help
/// (as an option, not another's value), only `help` is set.
SolveArgs parse_solve_args(const std::vector<std::string>& args);

}  // namespace trellis::cli
