#pragma once
// The Kronecker product A ⊗ M + tau B ⊗ L formed explicitly as point CSR
// (N s x N s, block (i, j) = a_ij M + tau b_ij L), for small test systems.
#include <vector>

#include "trellis/core/kronecker_system.hpp"

namespace trellis::reference {

inline HostCsr kronecker_product(const KroneckerSystem& k) {
  const HostCsr M = bsr_to_csr(k.M), L = bsr_to_csr(k.L);
  const ordinal_t N = M.num_rows;
  const int s = k.stages;
  std::vector<ordinal_t> rows, cols;
  std::vector<double> vals;
  auto add = [&](const HostCsr& X, int i, int j, double c) {
    if (c == 0) return;
    for (ordinal_t r = 0; r < N; ++r)
      for (offset_t q = X.row_map(r); q < X.row_map(r + 1); ++q) {
        rows.push_back(i * N + r);
        cols.push_back(j * N + X.entries(q));
        vals.push_back(c * X.values(q));
      }
  };
  for (int i = 0; i < s; ++i)
    for (int j = 0; j < s; ++j) {
      add(M, i, j, k.a(i, j));
      add(L, i, j, k.tau * k.b(i, j));
    }
  return csr_from_triplets(N * s, N * s, rows, cols, vals);
}

}  // namespace trellis::reference
