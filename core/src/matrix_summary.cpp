#include "trellis/core/matrix_summary.hpp"

#include <Kokkos_Timer.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "trellis/core/level_sets.hpp"
#include "trellis/core/transpose.hpp"

namespace trellis {

namespace {

Symmetry classify_symmetry(const HostCsr& A) {
  if (!A.is_square()) return Symmetry::not_square;
  const HostCsr T = transpose(A);  // canonical: sorted rows, so compare entrywise
  bool same_values = true;
  for (ordinal_t i = 0; i <= A.num_rows; ++i)
    if (A.row_map(i) != T.row_map(i)) return Symmetry::nonsymmetric;
  for (offset_t k = 0; k < A.nnz(); ++k) {
    if (A.entries(k) != T.entries(k)) return Symmetry::nonsymmetric;
    same_values = same_values && A.values(k) == T.values(k);
  }
  return same_values ? Symmetry::symmetric : Symmetry::pattern_symmetric;
}

LevelSummary level_summary(const CsrMatrix<double, DefaultDevice>& A, Triangle tri) {
  using exec = DefaultDevice::execution_space;
  exec().fence();  // time the analysis alone
  Kokkos::Timer timer;
  const auto s = analyze_levels(A, tri);
  exec().fence();
  LevelSummary out;
  out.analysis_seconds = timer.seconds();
  out.num_levels = s.num_levels;
  out.max_parallelism = s.max_parallelism();
  out.avg_parallelism = s.avg_parallelism();
  return out;
}

std::string human_bytes(double b) {
  const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) b /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", b, unit[u]);
  return buf;
}

}  // namespace

MatrixSummary summarize(const HostCsr& A) {
  MatrixSummary s;
  s.rows = A.num_rows;
  s.cols = A.num_cols;
  s.nnz = A.nnz();
  s.symmetry = classify_symmetry(A);
  s.min_row_nnz = A.num_rows ? A.nnz() : 0;
  for (ordinal_t i = 0; i < A.num_rows; ++i) {
    const ordinal_t len = A.row_map(i + 1) - A.row_map(i);
    s.min_row_nnz = std::min(s.min_row_nnz, len);
    s.max_row_nnz = std::max(s.max_row_nnz, len);
    s.empty_rows += len == 0;
    bool has_diag = false;
    for (offset_t k = A.row_map(i); k < A.row_map(i + 1); ++k) {
      const ordinal_t j = A.entries(k);
      s.bandwidth = std::max(s.bandwidth, std::abs(i - j));
      if (j == i) {
        has_diag = true;
        s.zero_diagonals += A.values(k) == 0.0;
      }
    }
    if (!has_diag && i < A.num_cols) {
      ++s.rows_missing_diagonal;
      if (s.first_row_missing_diagonal < 0) s.first_row_missing_diagonal = i;
    }
  }
  s.avg_row_nnz = A.num_rows ? double(A.nnz()) / A.num_rows : 0.0;
  s.csr_bytes = sizeof(offset_t) * (size_t(A.num_rows) + 1) + (sizeof(ordinal_t) + sizeof(double)) * size_t(A.nnz());
  s.execution_space = Kokkos::DefaultExecutionSpace::name();
  if (A.is_square()) {
    const auto dA = to_device(A);
    s.lower = level_summary(dA, Triangle::lower);
    s.upper = level_summary(dA, Triangle::upper);
  }
  return s;
}

std::string format_summary(const MatrixSummary& s) {
  char buf[2048];
  std::string out;
  auto line = [&](const char* fmt, auto... args) {
    std::snprintf(buf, sizeof buf, fmt, args...);
    out += buf;
  };
  line("  size            %d x %d\n", s.rows, s.cols);
  line("  nonzeros        %d (%.2f per row, min %d, max %d, %d empty rows)\n", s.nnz, s.avg_row_nnz, s.min_row_nnz,
       s.max_row_nnz, s.empty_rows);
  line("  symmetry        %s\n", to_string(s.symmetry));
  if (s.rows_missing_diagonal == 0)
    line("  diagonal        present in every row (%d zero)\n", s.zero_diagonals);
  else
    line("  diagonal        MISSING in %d rows (first: row %d); %d stored zeros\n", s.rows_missing_diagonal,
         s.first_row_missing_diagonal, s.zero_diagonals);
  line("  bandwidth       %d\n", s.bandwidth);
  if (s.symmetry != Symmetry::not_square) {
    for (auto [name, l] : {std::pair{"L levels ", s.lower}, std::pair{"U levels ", s.upper}})
      line("  %s       %d (parallelism: max %d, avg %.1f rows/level; analysis %.3f ms on %s)\n", name, l.num_levels,
           l.max_parallelism, l.avg_parallelism, l.analysis_seconds * 1e3, s.execution_space.c_str());
  }
  line("  memory (CSR)    %s\n", human_bytes(double(s.csr_bytes)).c_str());
  return out;
}

}  // namespace trellis
