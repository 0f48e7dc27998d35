#pragma once
// Problems named by a string, for the command line and the benchmarks:
//
//   lap2d5:NXxNY         lap2d9:NXxNY         lap3d7:NXxNYxNZ    lap3d27:NXxNYxNZ
//   blocklap3d:NXxNYxNZ[:b=B]                  (BSR, default b = 3)
//   layered3d:NXxNYxNZ[:decades=D][:seed=S]    convdiff3d:NXxNYxNZ[:pe=P]
//   convdiff2d:NXxNY[:pe=P]                    random:N[:nnz=K][:seed=S]
//
// or a path to a Matrix Market file. Bad specs throw InputError saying what is
// wrong and listing what is accepted.
#include <array>
#include <optional>
#include <string>

#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/csr_matrix.hpp"

namespace trellis::gallery {

/// The problem the command line runs when given none.
inline constexpr const char* default_problem_spec = "blocklap3d:32x32x32:b=3";

struct Problem {
  std::string name;                        // the spec or file path it came from
  std::string description;                 // one line, human readable
  HostCsr matrix;                          // always present (BSR problems expanded to points)
  std::optional<HostBsr> block_matrix;     // present for block problems
  std::array<ordinal_t, 3> grid{0, 0, 0};  // cells per dimension, 0 if unstructured
};

/// True when `arg` names a generator (the text before the first ':' is one of
/// the names above), false for anything else (taken as a file path).
bool is_problem_spec(const std::string& arg);

/// Builds the problem for a spec, or reads the Matrix Market file.
Problem load_problem(const std::string& spec_or_path);

/// The accepted spec forms, one per line, for help and error messages.
std::string problem_spec_help();

}  // namespace trellis::gallery
