#include "trellis/partition/subdomain_layout.hpp"

#include <algorithm>
#include <numeric>

#include "trellis/core/errors.hpp"

namespace trellis {

ordinal_t SubdomainLayout::largest_subdomain() const {
  ordinal_t m = 0;
  for (size_t s = 0; s + 1 < sub_start.size(); ++s) m = std::max(m, sub_start[s + 1] - sub_start[s]);
  return m;
}

SubdomainLayout group_rows_by_part(const Partition& partition) {
  const ordinal_t n = ordinal_t(partition.part.size());
  std::vector<ordinal_t> count(size_t(partition.num_parts) + 1, 0);
  for (ordinal_t i = 0; i < n; ++i) {
    const ordinal_t p = partition.part[i];
    if (p < 0 || p >= partition.num_parts)
      throw InputError("partition: row " + std::to_string(i) + " has part " + std::to_string(p) +
                       ", outside [0, " + std::to_string(partition.num_parts) + ")");
    ++count[p + 1];
  }
  std::partial_sum(count.begin(), count.end(), count.begin());
  SubdomainLayout layout;
  layout.new_to_old.resize(n);
  std::vector<ordinal_t> next(count.begin(), count.end() - 1);
  for (ordinal_t i = 0; i < n; ++i) layout.new_to_old[next[partition.part[i]]++] = i;
  layout.sub_start.push_back(0);
  for (ordinal_t p = 0; p < partition.num_parts; ++p)
    if (count[p + 1] > count[p]) layout.sub_start.push_back(count[p + 1]);
  return layout;
}

HostBsr reorder_bsr(const HostBsr& A, const std::vector<ordinal_t>& new_to_old) {
  const ordinal_t n = A.num_block_rows;
  if (ordinal_t(new_to_old.size()) != n || A.num_block_cols != n)
    throw StructureError("reorder: permutation of size " + std::to_string(new_to_old.size()) +
                         " for a " + std::to_string(n) + " x " + std::to_string(A.num_block_cols) +
                         " block matrix");
  std::vector<ordinal_t> old_to_new(n, -1);
  for (ordinal_t i = 0; i < n; ++i) {
    const ordinal_t old = new_to_old[i];
    if (old < 0 || old >= n || old_to_new[old] != -1)
      throw InputError("reorder: entry " + std::to_string(i) + " (" + std::to_string(old) +
                       ") is not part of a permutation");
    old_to_new[old] = i;
  }
  const size_t bb = size_t(A.block_size) * A.block_size;
  Kokkos::View<offset_t*, HostDevice> map("reordered_row_map", size_t(n) + 1);
  HostBsr::index_type ent("reordered_entries", A.nnz_blocks());
  HostBsr::values_type val("reordered_values", A.values.extent(0));
  std::vector<std::pair<ordinal_t, offset_t>> row;  // (new column, old block position)
  for (ordinal_t i = 0; i < n; ++i) {
    const ordinal_t m = new_to_old[i];
    row.clear();
    for (offset_t q = A.row_map(m); q < A.row_map(m + 1); ++q)
      row.emplace_back(old_to_new[A.entries(q)], q);
    std::sort(row.begin(), row.end());
    offset_t pos = map(i);
    for (auto& [col, q] : row) {
      ent(pos) = col;
      std::copy_n(&A.values(q * bb), bb, &val(pos * bb));
      ++pos;
    }
    map(i + 1) = pos;
  }
  return HostBsr(A.block_size, n, n, map, ent, val);
}

HostBsr drop_between_subdomains(const HostBsr& reordered, const SubdomainLayout& layout,
                                offset_t& dropped_blocks) {
  const ordinal_t n = reordered.num_block_rows;
  if (layout.sub_start.empty() || layout.sub_start.back() != n)
    throw StructureError("drop: subdomains cover " +
                         std::to_string(layout.sub_start.empty() ? 0 : layout.sub_start.back()) +
                         " rows of a matrix with " + std::to_string(n));
  const size_t bb = size_t(reordered.block_size) * reordered.block_size;
  Kokkos::View<offset_t*, HostDevice> map("block_diagonal_row_map", size_t(n) + 1);
  std::vector<ordinal_t> ent;
  std::vector<double> val;
  for (ordinal_t s = 0; s < layout.num_subdomains(); ++s) {
    const ordinal_t lo = layout.sub_start[s], hi = layout.sub_start[s + 1];
    for (ordinal_t i = lo; i < hi; ++i) {
      for (offset_t q = reordered.row_map(i); q < reordered.row_map(i + 1); ++q) {
        const ordinal_t j = reordered.entries(q);
        if (j < lo || j >= hi) continue;
        ent.push_back(j);
        val.insert(val.end(), &reordered.values(q * bb), &reordered.values(q * bb) + bb);
      }
      map(i + 1) = offset_t(ent.size());
    }
  }
  dropped_blocks = reordered.nnz_blocks() - offset_t(ent.size());
  HostBsr::index_type e("block_diagonal_entries", ent.size());
  HostBsr::values_type v("block_diagonal_values", val.size());
  std::copy(ent.begin(), ent.end(), e.data());
  std::copy(val.begin(), val.end(), v.data());
  return HostBsr(reordered.block_size, n, n, map, e, v);
}

}  // namespace trellis
