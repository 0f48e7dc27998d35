#pragma once
// Dense LU with partial pivoting (row-major, in double), for small exact
// checks: a direct solve to compare iterative solvers with, and the inverses
// of the pivot blocks of the block ILU0 reference.
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "trellis/core/csr_matrix.hpp"

namespace trellis::reference {

/// P A = L U of a dense n x n matrix: `lu` holds U on and above the diagonal
/// and L's multipliers below it (L unit); row c was swapped with pivot[c] at
/// step c. singular_column >= 0: the first column whose pivot is not finite
/// or at most `tiny` in magnitude (the factorization stops there).
struct DenseLu {
  int n = 0;
  std::vector<double> lu;
  std::vector<int> pivot;
  int singular_column = -1;
};

/// Gaussian elimination with partial pivoting of the row-major n x n `a`.
inline DenseLu dense_lu(std::vector<double> a, int n, double tiny = 0) {
  DenseLu f;
  f.n = n;
  f.pivot.assign(n, 0);
  auto at = [&](int r, int c) -> double& { return a[size_t(r) * n + c]; };
  for (int c = 0; c < n; ++c) {
    int p = c;
    for (int r = c + 1; r < n; ++r)
      if (std::abs(at(r, c)) > std::abs(at(p, c))) p = r;
    f.pivot[c] = p;
    for (int j = 0; j < n; ++j) std::swap(at(c, j), at(p, j));
    const double piv = at(c, c);
    if (!std::isfinite(piv) || std::abs(piv) <= tiny) {
      f.singular_column = c;
      break;
    }
    for (int r = c + 1; r < n; ++r) {
      const double m = at(r, c) / piv;
      at(r, c) = m;
      for (int j = c + 1; j < n; ++j) at(r, j) -= m * at(c, j);
    }
  }
  f.lu = std::move(a);
  return f;
}

/// x with A x = b from A's factors (the row swaps, L y = P b, U x = y).
inline std::vector<double> lu_solve(const DenseLu& f, std::vector<double> b) {
  const int n = f.n;
  if (f.singular_column >= 0)
    throw std::runtime_error("dense_solve: singular pivot in column " + std::to_string(f.singular_column));
  auto at = [&](int r, int c) { return f.lu[size_t(r) * n + c]; };
  for (int c = 0; c < n; ++c) std::swap(b[c], b[f.pivot[c]]);
  for (int c = 0; c < n; ++c)
    for (int r = c + 1; r < n; ++r) b[r] -= at(r, c) * b[c];
  std::vector<double> x(n);
  for (int i = n - 1; i >= 0; --i) {
    double s = b[i];
    for (int j = i + 1; j < n; ++j) s -= at(i, j) * x[j];
    x[i] = s / at(i, i);
  }
  return x;
}

/// x with A x = b, A a (small) host CSR matrix made dense (duplicates summed).
inline std::vector<double> dense_solve(const HostCsr& A, const std::vector<double>& b) {
  const int n = A.num_rows;
  std::vector<double> dense(size_t(n) * n, 0.0);
  for (int i = 0; i < n; ++i)
    for (offset_t k = A.row_map(i); k < A.row_map(i + 1); ++k) dense[size_t(i) * n + A.entries(k)] += A.values(k);
  return lu_solve(dense_lu(std::move(dense), n), b);
}

/// inv = M^{-1} for the row-major n x n `m`; false (inv unset) when a pivot
/// is not finite or at most `tiny` in magnitude.
inline bool dense_inverse(const double* m, double* inv, int n, double tiny) {
  const DenseLu f = dense_lu(std::vector<double>(m, m + size_t(n) * n), n, tiny);
  if (f.singular_column >= 0) return false;
  for (int c = 0; c < n; ++c) {
    std::vector<double> e(n, 0.0);
    e[c] = 1;
    const std::vector<double> column = lu_solve(f, e);
    for (int r = 0; r < n; ++r) inv[size_t(r) * n + c] = column[r];
  }
  return true;
}

}  // namespace trellis::reference
