// `trellis info [file.mtx | generated spec] [--json FILE]`: what a matrix is
// and how much parallelism its triangular factors offer; --json writes the
// same as one JSON document.
#include <Kokkos_Core.hpp>
#include <Kokkos_Timer.hpp>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "command_line.hpp"
#include "commands.hpp"
#include "output_files.hpp"
#include "trellis/config.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/matrix_summary.hpp"
#include "trellis/gallery/problem_spec.hpp"
#include "trellis/solvers/preconditioner_choice.hpp"

namespace trellis::cli {
namespace {

/// --json: what format_summary prints.
Json summary_json(const MatrixSummary& s) {
  Json j = {{"rows", s.rows},
            {"cols", s.cols},
            {"nonzeros", s.nnz},
            {"avg_row_nonzeros", s.avg_row_nnz},
            {"min_row_nonzeros", s.min_row_nnz},
            {"max_row_nonzeros", s.max_row_nnz},
            {"empty_rows", s.empty_rows},
            {"symmetry", to_string(s.symmetry)},
            {"rows_missing_diagonal", s.rows_missing_diagonal},
            {"zero_diagonals", s.zero_diagonals},
            {"bandwidth", s.bandwidth}};
  if (s.rows_missing_diagonal > 0) j["first_row_missing_diagonal"] = s.first_row_missing_diagonal;
  if (s.symmetry != Symmetry::not_square)
    for (auto [name, l] : {std::pair{"lower_levels", s.lower}, std::pair{"upper_levels", s.upper}})
      j[name] = {{"levels", l.num_levels},
                 {"max_parallelism", l.max_parallelism},
                 {"avg_parallelism", l.avg_parallelism},
                 {"analysis_seconds", l.analysis_seconds}};
  j["execution_space"] = s.execution_space;
  j["csr_bytes"] = s.csr_bytes;
  return j;
}

}  // namespace

const std::string info_usage =
    "usage: trellis info [PROBLEM] [--json FILE]\n"
    "  size, symmetry, diagonal, the level parallelism of L and U, memory, and what the\n"
    "  preconditioner auto would choose, of a Matrix Market file or a generated problem\n"
    "  (trellis help lists the forms); a kron-stokes: spec gives the system's sizes\n"
    "  --json FILE   the same as one JSON document\n";

int info_command(const std::vector<std::string>& given) {
  // A problem and --json FILE, read with CLI11: any other option is named, not opened.
  CLI::App app("what a matrix is", "trellis info");
  app.allow_extras();
  CLI::Option* problem_option = app.add_option("problem")->take_all();
  CLI::Option* json_option = app.add_option("--json")->take_all();
  if (!read_options(app, given)) return std::printf("%s", info_usage.c_str()), 0;
  std::vector<std::string> args = problem_option->results();
  for (const std::string& a : app.remaining()) args.push_back(a);
  for (const std::string& a : args)  // what CLI11 did not know, or took for a problem (-5)
    if (a.size() > 1 && a[0] == '-')
      throw InputError("unknown option '" + option_name(a) +
                       "' (trellis info takes one problem and --json FILE; --help)");
  std::string json;
  for_each_option_given(app, [&](const CLI::Option& o, const std::vector<std::string>& v) {
    if (&o != json_option) return;
    if (v[0].empty()) throw InputError("--json needs a file's path (got an empty one)");
    json = v[0];
  });
  const bool json_given = json_option->count() > 0;
  if (args.size() > 1) throw InputError("expected one problem, got " + std::to_string(args.size()) + " arguments");
  const std::string spec = args.empty() ? gallery::default_problem_spec : args[0];
  if (json_given) {
    std::error_code e1, e2;
    if (std::filesystem::exists(json, e1) && std::filesystem::exists(spec, e2) &&
        std::filesystem::equivalent(json, spec, e1))
      throw InputError("--json '" + json + "' is the problem's file: writing it would destroy the input; give " +
                       "another path");
    check_json_path(json);
  }
  Json doc = {{"command", "trellis info"}, {"trellis_version", TRELLIS_VERSION}, {"arguments", given}};
  if (spec.rfind("kron-stokes:", 0) == 0) {  // a Kronecker system: its sizes, then M's summary
    const KroneckerSystem sys = kron_stokes_system(spec);
    std::printf("trellis info: %s\n", spec.c_str());
    std::printf("  problem         %s\n", sys.description.c_str());
    std::printf(
        "  system          (A (x) M + tau B (x) L): N = %d rows x s = %d stages = %lld unknowns, block size %d\n",
        sys.space_rows(), sys.stages, (long long)sys.space_rows() * sys.stages, sys.M.block_size);
    std::printf("  M (the space operator's mass part):\n");
    const MatrixSummary summary = summarize(bsr_to_csr(sys.M));
    std::fputs(format_summary(summary).c_str(), stdout);
    if (json_given) {
      doc["problem"] = {{"spec", spec},
                        {"description", sys.description},
                        {"space_rows", sys.space_rows()},
                        {"stages", sys.stages},
                        {"unknowns", (long long)sys.space_rows() * sys.stages},
                        {"block_size", sys.M.block_size}};
      doc["mass_matrix"] = summary_json(summary);
      write_json_file(json, doc);
    }
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
  const MatrixSummary summary = summarize(problem.matrix);
  std::fputs(format_summary(summary).c_str(), stdout);
  PreconditionerOptions options;
  if (problem.grid[0] > 0) options.grid = {problem.grid[0], std::max(1, problem.grid[1]), std::max(1, problem.grid[2])};
  Json auto_choice;  // null: not square, or empty
  if (problem.matrix.is_square() && problem.matrix.num_rows > 0) {
    const PreconditionerChoice choice = choose_preconditioner(problem.matrix, options);
    std::printf("  preconditioner  %s\n", choice.reason.c_str());
    auto_choice = {{"builds", to_string(choice.kind)}, {"reason", choice.reason}};
  }
  if (json_given) {
    doc["problem"] = {{"spec", spec}, {"name", problem.name}, {"description", problem.description}};
    if (problem.block_matrix)
      doc["problem"]["blocks"] = {{"block_rows", problem.block_matrix->num_block_rows},
                                  {"block_cols", problem.block_matrix->num_block_cols},
                                  {"block_size", problem.block_matrix->block_size},
                                  {"stored_blocks", problem.block_matrix->nnz_blocks()}};
    doc["load_seconds"] = load_seconds;
    doc["matrix"] = summary_json(summary);
    doc["auto_preconditioner"] = auto_choice;
    write_json_file(json, doc);
  }
  return 0;
}

}  // namespace trellis::cli
