#pragma once
// Serial sparse matrix-vector product on a host CSR matrix, in double.
#include <vector>

#include "trellis/core/csr_matrix.hpp"

namespace trellis::reference {

/// alpha A x + beta y0, row by row in stored order; y0 is not read when
/// beta == 0 (so it may hold NaN, or be empty).
inline std::vector<double> spmv(double alpha, const HostCsr& A, const std::vector<double>& x, double beta,
                                const std::vector<double>& y0) {
  std::vector<double> y(A.num_rows);
  for (ordinal_t i = 0; i < A.num_rows; ++i) {
    double s = 0;
    for (offset_t k = A.row_map(i); k < A.row_map(i + 1); ++k) s += A.values(k) * x[A.entries(k)];
    y[i] = alpha * s + (beta == 0 ? 0.0 : beta * y0[i]);
  }
  return y;
}

/// A x.
inline std::vector<double> multiply(const HostCsr& A, const std::vector<double>& x) { return spmv(1.0, A, x, 0.0, {}); }

}  // namespace trellis::reference
