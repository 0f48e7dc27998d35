#pragma once
// Serial forward / backward substitution with one triangle of a host CSR
// matrix, in double: the reference every triangular solver is checked against.
#include <vector>

#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/triangle.hpp"

namespace trellis::reference {

/// Where the diagonal of the triangular system comes from.
enum class DiagonalForm {
  stored,    // the matrix's own diagonal entries
  unit,      // ones (stored diagonal entries are ignored)
  separate,  // a vector given beside the matrix
};

/// x with T x = b, T = the strict `tri` triangle of A (entries on the other
/// side are ignored) plus the diagonal of `form`. Rows in order for lower,
/// in reverse for upper. A missing stored diagonal divides by zero: the result
/// is not finite and fails every check.
inline std::vector<double> triangular_solve(const HostCsr& A, Triangle tri, const std::vector<double>& b,
                                            DiagonalForm form = DiagonalForm::stored,
                                            const std::vector<double>& diagonal = {}) {
  const ordinal_t n = A.num_rows;
  std::vector<double> x(n);
  for (ordinal_t step = 0; step < n; ++step) {
    const ordinal_t i = tri == Triangle::lower ? step : n - 1 - step;
    double s = b[i], d = 0;
    for (offset_t k = A.row_map(i); k < A.row_map(i + 1); ++k) {
      const ordinal_t j = A.entries(k);
      if (in_strict_triangle(tri, i, j))
        s -= A.values(k) * x[j];
      else if (j == i)
        d = A.values(k);
    }
    if (form == DiagonalForm::unit) d = 1;
    if (form == DiagonalForm::separate) d = diagonal[i];
    x[i] = s / d;
  }
  return x;
}

/// A with every off-diagonal value rounded to float, the diagonal exact:
/// the matrix whose solution a solve with float values and sums in double
/// (the tiled solves' single_values) must reach.
inline HostCsr off_diagonal_in_float(const HostCsr& A) {
  Kokkos::View<double*, Kokkos::HostSpace> v("values", A.nnz());
  for (ordinal_t i = 0; i < A.num_rows; ++i)
    for (offset_t k = A.row_map(i); k < A.row_map(i + 1); ++k)
      v(k) = A.entries(k) == i ? A.values(k) : double(float(A.values(k)));
  return HostCsr(A.num_rows, A.num_cols, A.row_map, A.entries, v);
}

}  // namespace trellis::reference
