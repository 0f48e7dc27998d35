#pragma once
// Serial reference of the domain-decomposition ILU0/ILDU0 (seed 000): the
// matrix renumbered so that each subdomain's block rows are contiguous, the
// blocks that couple two subdomains dropped, and the block ILU0 of what is
// left (ilu0.hpp), all in double on the host.
#include <algorithm>
#include <utility>
#include <vector>

#include "ilu0.hpp"
#include "trellis/core/bsr_matrix.hpp"

namespace trellis::reference {

/// P A P^T: block row and column new_to_old[i] of A become i; columns sorted
/// in each row.
inline HostBsr permute_blocks_symmetric(const HostBsr& A, const std::vector<ordinal_t>& new_to_old) {
  const ordinal_t n = A.num_block_rows;
  const size_t bb = size_t(A.block_size) * A.block_size;
  std::vector<ordinal_t> old_to_new(n);
  for (ordinal_t i = 0; i < n; ++i) old_to_new[new_to_old[i]] = i;
  Kokkos::View<offset_t*, HostDevice> map("reference_permute_map", size_t(n) + 1);
  HostBsr::index_type ent("reference_permute_entries", A.entries.extent(0));
  HostBsr::values_type val("reference_permute_values", A.values.extent(0));
  offset_t t = 0;
  for (ordinal_t i = 0; i < n; ++i) {
    const ordinal_t m = new_to_old[i];
    std::vector<std::pair<ordinal_t, offset_t>> row;  // (new column, position in A)
    for (offset_t q = A.row_map(m); q < A.row_map(m + 1); ++q) row.emplace_back(old_to_new[A.entries(q)], q);
    std::sort(row.begin(), row.end());
    for (const auto& [j, q] : row) {
      ent(t) = j;
      std::copy(&A.values(q * bb), &A.values(q * bb) + bb, &val(t * bb));
      ++t;
    }
    map(i + 1) = t;
  }
  return HostBsr(A.block_size, n, n, map, ent, val);
}

/// The blocks of a renumbered matrix whose row and column lie in the same
/// subdomain (sub_start: the first block row of each subdomain, then n).
inline HostBsr drop_between_subdomains(const HostBsr& R, const std::vector<ordinal_t>& sub_start) {
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

/// The factors of the DD preconditioner of A for a layout (new_to_old,
/// sub_start): block ILU0 of the renumbered matrix without the blocks between
/// subdomains. Its solves (ilu0_apply, ilu0_lower_solve) act in the new numbering.
inline Ilu0Factors dd_ilu0(const HostBsr& A, const std::vector<ordinal_t>& new_to_old,
                           const std::vector<ordinal_t>& sub_start, double tolerance = 1e-12) {
  return ilu0(drop_between_subdomains(permute_blocks_symmetric(A, new_to_old), sub_start), tolerance);
}

/// A vector of block size b in the new numbering: y_i = x_{new_to_old[i]}.
inline std::vector<double> to_new_numbering(const std::vector<double>& x, const std::vector<ordinal_t>& new_to_old,
                                            int b) {
  std::vector<double> y(x.size());
  for (size_t i = 0; i < new_to_old.size(); ++i)
    for (int c = 0; c < b; ++c) y[i * b + c] = x[size_t(new_to_old[i]) * b + c];
  return y;
}

/// The inverse of to_new_numbering: y_{new_to_old[i]} = x_i.
inline std::vector<double> to_old_numbering(const std::vector<double>& x, const std::vector<ordinal_t>& new_to_old,
                                            int b) {
  std::vector<double> y(x.size());
  for (size_t i = 0; i < new_to_old.size(); ++i)
    for (int c = 0; c < b; ++c) y[size_t(new_to_old[i]) * b + c] = x[i * b + c];
  return y;
}

}  // namespace trellis::reference
