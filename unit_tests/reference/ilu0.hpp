#pragma once
// Serial ILU0 in double, point (CSR) and block (BSR): the textbook IKJ
// elimination restricted to A's pattern, the pivot blocks inverted by dense
// LU with partial pivoting; then forward and backward substitution.
#include <algorithm>
#include <cmath>
#include <vector>

#include "dense_solve.hpp"
#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/csr_matrix.hpp"

namespace trellis::reference {

/// A = L U on A's pattern: L unit lower (strictly below the diagonal), U upper
/// with the diagonal, both stored in `lu` (A's pattern, b x b blocks).
struct Ilu0Factors {
  int block_size = 1;
  HostBsr lu;
  std::vector<double> inv_u_diag;  // U_ii^{-1} for every block row i
  long bad_row = -1;               // first block row whose pivot block is singular or not finite
};

/// C = P Q for dense row-major b x b blocks.
inline void block_multiply(const double* P, const double* Q, double* C, int b) {
  for (int r = 0; r < b; ++r)
    for (int c = 0; c < b; ++c) {
      double s = 0;
      for (int k = 0; k < b; ++k) s += P[r * b + k] * Q[k * b + c];
      C[r * b + c] = s;
    }
}

/// Block ILU0 of A (columns sorted in each row, diagonal block present). A
/// pivot block is singular when a pivot of its LU is at most `tolerance`
/// times the largest magnitude in its row of A; the factorization stops at
/// the first one (bad_row).
inline Ilu0Factors ilu0(const HostBsr& A, double tolerance = 1e-12) {
  Ilu0Factors f;
  f.block_size = A.block_size;
  const int b = f.block_size;
  const size_t bb = size_t(b) * b;
  HostBsr::values_type val("reference_ilu0_values", A.values.extent(0));
  Kokkos::deep_copy(val, A.values);
  f.lu = HostBsr(b, A.num_block_rows, A.num_block_cols, A.row_map, A.entries, val);
  f.inv_u_diag.assign(size_t(A.num_block_rows) * bb, 0.0);
  std::vector<double> lik(bb), prod(bb);
  std::vector<offset_t> pos(size_t(A.num_block_cols), -1);  // column -> position in row i; -1 outside row i
  for (ordinal_t i = 0; i < A.num_block_rows; ++i) {
    if (i > 0)
      for (offset_t q = A.row_map(i - 1); q < A.row_map(i); ++q) pos[A.entries(q)] = -1;
    double scale = 0;
    for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q) {
      pos[A.entries(q)] = q;
      for (size_t t = 0; t < bb; ++t) scale = std::max(scale, std::fabs(A.values(q * bb + t)));
    }
    for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q) {
      const ordinal_t k = A.entries(q);
      if (k >= i) break;
      // L_ik = A_ik U_kk^{-1}; then A_ij -= L_ik U_kj for every j > k in row i's pattern.
      block_multiply(&val(q * bb), &f.inv_u_diag[k * bb], lik.data(), b);
      std::copy(lik.begin(), lik.end(), &val(q * bb));
      for (offset_t t = A.row_map(k); t < A.row_map(k + 1); ++t) {
        const ordinal_t j = A.entries(t);
        if (j <= k || pos[j] < 0) continue;
        block_multiply(lik.data(), &val(t * bb), prod.data(), b);
        for (size_t e = 0; e < bb; ++e) val(pos[j] * bb + e) -= prod[e];
      }
    }
    if (i >= A.num_block_cols || pos[i] < 0 ||
        !dense_inverse(&val(pos[i] * bb), &f.inv_u_diag[i * bb], b, tolerance * scale)) {
      f.bad_row = i;
      return f;
    }
  }
  return f;
}

/// Point ILU0: the block form with 1 x 1 blocks.
inline Ilu0Factors ilu0(const HostCsr& A, double tolerance = 1e-12) { return ilu0(csr_to_bsr(A, 1), tolerance); }

namespace detail {

/// w = L^{-1} r (L unit lower in f.lu).
inline std::vector<double> unit_lower_solve(const Ilu0Factors& f, std::vector<double> w) {
  const HostBsr& A = f.lu;
  const int b = f.block_size;
  const size_t bb = size_t(b) * b;
  for (ordinal_t i = 0; i < A.num_block_rows; ++i)
    for (offset_t q = A.row_map(i); q < A.row_map(i + 1) && A.entries(q) < i; ++q)
      for (int c = 0; c < b; ++c)
        for (int d = 0; d < b; ++d) w[i * b + c] -= A.values(q * bb + c * b + d) * w[A.entries(q) * b + d];
  return w;
}

/// out = U_ii^{-1} t for block row i.
inline void diagonal_solve(const Ilu0Factors& f, ordinal_t i, const double* t, double* out) {
  const int b = f.block_size;
  const size_t bb = size_t(b) * b;
  for (int c = 0; c < b; ++c) {
    out[c] = 0;
    for (int d = 0; d < b; ++d) out[c] += f.inv_u_diag[i * bb + c * b + d] * t[d];
  }
}

}  // namespace detail

/// z = (L U)^{-1} r: the ILU0 preconditioner's application.
inline std::vector<double> ilu0_apply(const Ilu0Factors& f, const std::vector<double>& r) {
  const HostBsr& A = f.lu;
  const int b = f.block_size;
  const size_t bb = size_t(b) * b;
  const std::vector<double> w = detail::unit_lower_solve(f, r);
  std::vector<double> z(r.size());
  for (ordinal_t i = A.num_block_rows - 1; i >= 0; --i) {
    std::vector<double> t(&w[i * b], &w[i * b] + b);
    for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q) {
      const ordinal_t j = A.entries(q);
      if (j <= i) continue;
      for (int c = 0; c < b; ++c)
        for (int d = 0; d < b; ++d) t[c] -= A.values(q * bb + c * b + d) * z[j * b + d];
    }
    detail::diagonal_solve(f, i, t.data(), &z[i * b]);
  }
  return z;
}

/// y = (L D)^{-1} r, D the diagonal blocks of U: the lower solve of ILDU0.
inline std::vector<double> ilu0_lower_solve(const Ilu0Factors& f, const std::vector<double>& r) {
  const std::vector<double> w = detail::unit_lower_solve(f, r);
  std::vector<double> y(r.size());
  for (ordinal_t i = 0; i < f.lu.num_block_rows; ++i)
    detail::diagonal_solve(f, i, &w[i * f.block_size], &y[i * f.block_size]);
  return y;
}

}  // namespace trellis::reference
