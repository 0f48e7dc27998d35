#pragma once
// Serial double-precision block ILU0 reference for the domain-decomposition
// tests: textbook IKJ on a host BSR matrix, dense block inverses by Gaussian
// elimination with partial pivoting, forward and backward substitution.
#include <cmath>
#include <map>
#include <vector>

#include "trellis/core/bsr_matrix.hpp"

namespace trellis::test {

struct ReferenceIlu0 {
  int b = 1;
  HostBsr LU;                  // L (unit, strict lower) and U (with diagonal) in A's pattern
  std::vector<double> inv_u;  // inverse of each U_ii
  long bad_row = -1;          // first row whose pivot block is singular or not finite
};

/// The blocks of a reordered matrix whose row and column lie in the same
/// subdomain (sub_start: first row of each subdomain, then n).
inline HostBsr reference_drop_between(const HostBsr& R, const std::vector<ordinal_t>& sub_start) {
  const size_t bb = size_t(R.block_size) * R.block_size;
  Kokkos::View<offset_t*, HostDevice> map("reference_drop_map", size_t(R.num_block_rows) + 1);
  std::vector<ordinal_t> ent;
  std::vector<double> val;
  for (size_t s = 0; s + 1 < sub_start.size(); ++s)
    for (ordinal_t i = sub_start[s]; i < sub_start[s + 1]; ++i) {
      for (offset_t q = R.row_map(i); q < R.row_map(i + 1); ++q)
        if (R.entries(q) >= sub_start[s] && R.entries(q) < sub_start[s + 1]) {
          ent.push_back(R.entries(q));
          val.insert(val.end(), &R.values(q * bb), &R.values(q * bb) + bb);
        }
      map(i + 1) = offset_t(ent.size());
    }
  HostBsr::index_type e("reference_drop_entries", ent.size());
  HostBsr::values_type v("reference_drop_values", val.size());
  std::copy(ent.begin(), ent.end(), e.data());
  std::copy(val.begin(), val.end(), v.data());
  return HostBsr(R.block_size, R.num_block_rows, R.num_block_cols, map, e, v);
}

/// inv = M^{-1} for a dense b x b block; false when singular or not finite.
inline bool reference_invert(const double* M, double* inv, int b, double tiny) {
  std::vector<double> a(M, M + b * b);
  for (int k = 0; k < b * b; ++k) inv[k] = 0;
  for (int r = 0; r < b; ++r) inv[r * b + r] = 1;
  for (int c = 0; c < b; ++c) {
    int p = c;
    for (int r = c + 1; r < b; ++r)
      if (std::fabs(a[r * b + c]) > std::fabs(a[p * b + c])) p = r;
    for (int k = 0; k < b; ++k) std::swap(a[c * b + k], a[p * b + k]), std::swap(inv[c * b + k], inv[p * b + k]);
    const double piv = a[c * b + c];
    if (!std::isfinite(piv) || std::fabs(piv) <= tiny) return false;
    for (int k = 0; k < b; ++k) a[c * b + k] /= piv, inv[c * b + k] /= piv;
    for (int r = 0; r < b; ++r)
      if (r != c) {
        const double f = a[r * b + c];
        for (int k = 0; k < b; ++k) a[r * b + k] -= f * a[c * b + k], inv[r * b + k] -= f * inv[c * b + k];
      }
  }
  return true;
}

inline void reference_matmul(const double* P, const double* Q, double* C, int b) {
  for (int r = 0; r < b; ++r)
    for (int c = 0; c < b; ++c) {
      double s = 0;
      for (int k = 0; k < b; ++k) s += P[r * b + k] * Q[k * b + c];
      C[r * b + c] = s;
    }
}

inline ReferenceIlu0 reference_ilu0(const HostBsr& A, double tolerance = 1e-12) {
  ReferenceIlu0 f;
  f.b = A.block_size;
  const int b = f.b;
  const size_t bb = size_t(b) * b;
  HostBsr::values_type val("ref_lu", A.values.extent(0));
  Kokkos::deep_copy(val, A.values);
  f.LU = HostBsr(b, A.num_block_rows, A.num_block_cols, A.row_map, A.entries, val);
  f.inv_u.assign(size_t(A.num_block_rows) * bb, 0.0);
  std::vector<double> lik(bb), prod(bb);
  for (ordinal_t i = 0; i < A.num_block_rows; ++i) {
    std::map<ordinal_t, offset_t> pos;
    double scale = 0;
    for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q) {
      pos[A.entries(q)] = q;
      for (size_t t = 0; t < bb; ++t) scale = std::max(scale, std::fabs(A.values(q * bb + t)));
    }
    for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q) {
      const ordinal_t k = A.entries(q);
      if (k >= i) break;
      reference_matmul(&val(q * bb), &f.inv_u[k * bb], lik.data(), b);
      std::copy(lik.begin(), lik.end(), &val(q * bb));
      for (offset_t t = A.row_map(k); t < A.row_map(k + 1); ++t) {
        const ordinal_t j = A.entries(t);
        if (j <= k || !pos.count(j)) continue;
        reference_matmul(lik.data(), &val(t * bb), prod.data(), b);
        for (size_t e = 0; e < bb; ++e) val(pos[j] * bb + e) -= prod[e];
      }
    }
    if (!pos.count(i) || !reference_invert(&val(pos[i] * bb), &f.inv_u[i * bb], b, tolerance * scale)) {
      f.bad_row = i;
      return f;
    }
  }
  return f;
}

/// y = (L D)^{-1} r, or z = (L U)^{-1} r when with_upper.
inline std::vector<double> reference_solve(const ReferenceIlu0& f, const std::vector<double>& r, bool with_upper) {
  const HostBsr& A = f.LU;
  const int b = f.b;
  const size_t bb = size_t(b) * b;
  const ordinal_t n = A.num_block_rows;
  std::vector<double> w(r), z(r.size());
  for (ordinal_t i = 0; i < n; ++i)
    for (offset_t q = A.row_map(i); q < A.row_map(i + 1) && A.entries(q) < i; ++q)
      for (int c = 0; c < b; ++c)
        for (int d = 0; d < b; ++d) w[i * b + c] -= A.values(q * bb + c * b + d) * w[A.entries(q) * b + d];
  auto solve_diag = [&](ordinal_t i, const double* t, double* out) {
    for (int c = 0; c < b; ++c) {
      out[c] = 0;
      for (int d = 0; d < b; ++d) out[c] += f.inv_u[i * bb + c * b + d] * t[d];
    }
  };
  if (!with_upper) {
    for (ordinal_t i = 0; i < n; ++i) solve_diag(i, &w[i * b], &z[i * b]);
    return z;
  }
  for (ordinal_t i = n - 1; i >= 0; --i) {
    std::vector<double> t(&w[i * b], &w[i * b] + b);
    for (offset_t q = A.row_map(i); q < A.row_map(i + 1); ++q) {
      const ordinal_t j = A.entries(q);
      if (j <= i) continue;
      for (int c = 0; c < b; ++c)
        for (int d = 0; d < b; ++d) t[c] -= A.values(q * bb + c * b + d) * z[j * b + d];
    }
    solve_diag(i, t.data(), &z[i * b]);
  }
  return z;
}

}  // namespace trellis::test
