// libFuzzer target: the options of `trellis solve` (cli::parse_solve_args,
// apps/solve_args.hpp). The input is the argument list, one argument per
// line ("--tol\n1e-8\nlap2d5:8x8"); an empty line is an empty argument.
// Every input ends in SolveArgs whose numbers are in their documented ranges,
// or in an InputError (the CLI's `trellis solve: error: ...`).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "solve_args.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  trellis::fuzz::start_kokkos();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args;
  std::string arg;
  for (std::size_t k = 0; k < size; ++k) {
    if (data[k] == '\n') {
      args.push_back(arg);
      arg.clear();
    } else {
      arg += char(data[k]);
    }
  }
  if (!arg.empty()) args.push_back(arg);
  try {
    const trellis::cli::SolveArgs a = trellis::cli::parse_solve_args(args);
    using trellis::fuzz::finding;
    const auto& k = a.krylov;
    if (!(k.rel_tol > 0 && k.rel_tol <= 0.5)) finding("--tol out of range: " + std::to_string(k.rel_tol));
    if (k.max_iterations < 0) finding("--max-iter negative: " + std::to_string(k.max_iterations));
    if (k.restart < 1) finding("--restart below 1: " + std::to_string(k.restart));
    if (a.options.subdomain_rows < 0) finding("--subdomain-rows negative");
    if (!(a.options.pivots.boost >= 0) || !std::isfinite(a.options.pivots.boost)) finding("--pivot-boost not finite");
    if (a.block_size < 1 || a.block_size > 8) finding("--block-size out of 1..8");
    if (a.solver != "bicgstab" && a.solver != "gmres" && a.solver != "cg") finding("unknown solver accepted");
  } catch (const trellis::InputError&) {
  }
  return 0;
}
