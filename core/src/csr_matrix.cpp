#include "trellis/core/csr_matrix.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace trellis {

void validate_csr(const HostCsr& A, const std::string& what) {
  if (A.row_map.extent(0) != size_t(A.num_rows) + 1) throw StructureError(what + ": row_map has wrong length");
  if (A.row_map(0) != 0) throw StructureError(what + ": row_map(0) = " + std::to_string(A.row_map(0)) + ", not 0");
  if (A.row_map(A.num_rows) != A.nnz())
    throw StructureError(what + ": row_map ends at " + std::to_string(A.row_map(A.num_rows)) + " but there are " +
                         std::to_string(A.nnz()) + " nonzeros");
  for (ordinal_t i = 0; i < A.num_rows; ++i) {
    if (A.row_map(i + 1) < A.row_map(i)) throw StructureError(what + ": row_map decreases at row " + std::to_string(i));
    for (offset_t k = A.row_map(i); k < A.row_map(i + 1); ++k) {
      const ordinal_t j = A.entries(k);
      if (j < 0 || j >= A.num_cols)
        throw StructureError(what + ": row " + std::to_string(i) + " has column " + std::to_string(j) +
                             " outside [0, " + std::to_string(A.num_cols) + ")");
      if (k > A.row_map(i) && A.entries(k - 1) >= j)
        throw StructureError(what + ": row " + std::to_string(i) + " has unsorted or duplicate column " +
                             std::to_string(j));
    }
  }
}

HostCsr csr_from_triplets(ordinal_t num_rows, ordinal_t num_cols, const std::vector<ordinal_t>& rows,
                          const std::vector<ordinal_t>& cols, const std::vector<double>& vals) {
  const size_t n_in = rows.size();
  if (cols.size() != n_in || vals.size() != n_in)
    throw StructureError("csr_from_triplets: row, column and value arrays differ in length");
  // Counting sort by row, then sort each row by column and sum duplicates.
  std::vector<offset_t> count(size_t(num_rows) + 1, 0);
  for (size_t k = 0; k < n_in; ++k) {
    if (rows[k] < 0 || rows[k] >= num_rows || cols[k] < 0 || cols[k] >= num_cols)
      throw StructureError("csr_from_triplets: entry (" + std::to_string(rows[k]) + ", " + std::to_string(cols[k]) +
                           ") outside " + std::to_string(num_rows) + "x" + std::to_string(num_cols));
    ++count[rows[k] + 1];
  }
  checked_nnz((long long)n_in, "csr_from_triplets");
  std::partial_sum(count.begin(), count.end(), count.begin());
  std::vector<std::pair<ordinal_t, double>> by_row(n_in);
  {
    std::vector<offset_t> next(count.begin(), count.end() - 1);
    for (size_t k = 0; k < n_in; ++k) by_row[next[rows[k]]++] = {cols[k], vals[k]};
  }
  Kokkos::View<offset_t*, HostDevice> rm("trellis::row_map", size_t(num_rows) + 1);
  std::vector<ordinal_t> out_cols;
  std::vector<double> out_vals;
  out_cols.reserve(n_in);
  out_vals.reserve(n_in);
  for (ordinal_t i = 0; i < num_rows; ++i) {
    auto first = by_row.begin() + count[i], last = by_row.begin() + count[i + 1];
    std::stable_sort(first, last, [](auto& a, auto& b) { return a.first < b.first; });
    for (auto it = first; it != last; ++it) {
      if (!out_cols.empty() && size_t(rm(i)) < out_cols.size() && out_cols.back() == it->first)
        out_vals.back() += it->second;  // duplicate entry: summed
      else {
        out_cols.push_back(it->first);
        out_vals.push_back(it->second);
      }
    }
    rm(i + 1) = offset_t(out_cols.size());
  }
  HostCsr::index_type ent(Kokkos::ViewAllocateWithoutInitializing("trellis::entries"), out_cols.size());
  HostCsr::values_type val(Kokkos::ViewAllocateWithoutInitializing("trellis::values"), out_vals.size());
  std::copy(out_cols.begin(), out_cols.end(), ent.data());
  std::copy(out_vals.begin(), out_vals.end(), val.data());
  return HostCsr(num_rows, num_cols, rm, ent, val);
}

}  // namespace trellis
