#pragma once
// What `trellis info` reports about a matrix: size, symmetry, diagonal,
// row-length statistics, level-set parallelism of its L and U factors
// (seed 002, Table 4), and memory.
#include <string>

#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/name_table.hpp"

namespace trellis {

/// pattern_symmetric: the pattern is, the values are not.
enum class Symmetry { symmetric, pattern_symmetric, nonsymmetric, not_square };

template <>
struct NameTable<Symmetry> {
  static constexpr const char* what = "symmetry";
  static constexpr NameEntry<Symmetry> entries[] = {
      {Symmetry::symmetric, "symmetric"},
      {Symmetry::pattern_symmetric, "pattern-symmetric"},
      {Symmetry::nonsymmetric, "nonsymmetric"},
      {Symmetry::not_square, "not-square"},
  };
};

struct LevelSummary {
  ordinal_t num_levels = 0;
  ordinal_t max_parallelism = 0;
  double avg_parallelism = 0;
  double analysis_seconds = 0;  // device analysis, fenced
};

struct MatrixSummary {
  ordinal_t rows = 0, cols = 0;
  offset_t nnz = 0;
  Symmetry symmetry = Symmetry::nonsymmetric;
  ordinal_t rows_missing_diagonal = 0;
  ordinal_t first_row_missing_diagonal = -1;
  ordinal_t zero_diagonals = 0;
  ordinal_t empty_rows = 0;
  ordinal_t min_row_nnz = 0, max_row_nnz = 0;
  double avg_row_nnz = 0;
  ordinal_t bandwidth = 0;      // max |i - j| over stored entries
  LevelSummary lower, upper;    // only for square matrices
  std::size_t csr_bytes = 0;    // row_map + entries + values
  std::string execution_space;  // where the level analysis ran
};

/// Summarizes A; the level analysis runs on the default execution space.
MatrixSummary summarize(const HostCsr& A);

/// Human-readable multi-line report.
std::string format_summary(const MatrixSummary& s);

}  // namespace trellis
