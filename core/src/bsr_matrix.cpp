#include "trellis/core/bsr_matrix.hpp"

#include "trellis/core/csr_check.hpp"

#include <algorithm>
#include <vector>

namespace trellis {

HostCsr bsr_to_csr(const HostBsr& A) {
  const int b = A.block_size;
  const long long nnz = (long long)A.nnz_blocks() * b * b;
  checked_nnz(nnz, "bsr_to_csr");
  Kokkos::View<offset_t*, HostDevice> rm("trellis::row_map", size_t(A.num_rows()) + 1);
  HostCsr::index_type ent(Kokkos::ViewAllocateWithoutInitializing("trellis::entries"), nnz);
  HostCsr::values_type val(Kokkos::ViewAllocateWithoutInitializing("trellis::values"), nnz);
  offset_t pos = 0;
  for (ordinal_t bi = 0; bi < A.num_block_rows; ++bi) {
    for (int r = 0; r < b; ++r) {
      // Block columns are sorted, so scalar columns come out sorted too.
      for (offset_t k = A.row_map(bi); k < A.row_map(bi + 1); ++k) {
        for (int c = 0; c < b; ++c) {
          ent(pos) = A.entries(k) * b + c;
          val(pos) = A.values(size_t(k) * b * b + r * b + c);
          ++pos;
        }
      }
      rm(bi * b + r + 1) = pos;
    }
  }
  return HostCsr(A.num_rows(), A.num_cols(), rm, ent, val);
}

HostBsr csr_to_bsr(const HostCsr& A, int b) {
  if (b < 1) throw StructureError("csr_to_bsr: block size " + std::to_string(b) + " < 1");
  if (A.num_rows % b != 0 || A.num_cols % b != 0)
    throw StructureError("csr_to_bsr: a " + std::to_string(A.num_rows) + "x" + std::to_string(A.num_cols) +
                         " matrix is not made of " + std::to_string(b) + "x" + std::to_string(b) + " blocks");
  check_canonical(A, "csr_to_bsr");  // its columns index the blocks below
  if (b == 1) {                      // a canonical CSR is already the BSR of 1x1 blocks: copies, no assembly
    Kokkos::View<offset_t*, HostDevice> rm(Kokkos::ViewAllocateWithoutInitializing("trellis::row_map"),
                                           A.row_map.extent(0));
    HostBsr::index_type ent(Kokkos::ViewAllocateWithoutInitializing("trellis::entries"), A.entries.extent(0));
    HostBsr::values_type val(Kokkos::ViewAllocateWithoutInitializing("trellis::values"), A.values.extent(0));
    Kokkos::deep_copy(rm, A.row_map), Kokkos::deep_copy(ent, A.entries), Kokkos::deep_copy(val, A.values);
    return HostBsr(1, A.num_rows, A.num_cols, rm, ent, val);
  }
  const ordinal_t nbr = A.num_rows / b, nbc = A.num_cols / b;
  Kokkos::View<offset_t*, HostDevice> rm("trellis::row_map", size_t(nbr) + 1);
  std::vector<ordinal_t> block_cols;
  std::vector<double> vals;
  std::vector<ordinal_t> cols_of_row;
  for (ordinal_t bi = 0; bi < nbr; ++bi) {
    cols_of_row.clear();
    for (int r = 0; r < b; ++r)
      for (offset_t k = A.row_map(bi * b + r); k < A.row_map(bi * b + r + 1); ++k)
        cols_of_row.push_back(A.entries(k) / b);
    std::sort(cols_of_row.begin(), cols_of_row.end());
    cols_of_row.erase(std::unique(cols_of_row.begin(), cols_of_row.end()), cols_of_row.end());
    const size_t first_block = block_cols.size();
    block_cols.insert(block_cols.end(), cols_of_row.begin(), cols_of_row.end());
    vals.resize(block_cols.size() * b * b, 0.0);
    for (int r = 0; r < b; ++r)
      for (offset_t k = A.row_map(bi * b + r); k < A.row_map(bi * b + r + 1); ++k) {
        const ordinal_t bj = A.entries(k) / b;
        const size_t slot =
            first_block + (std::lower_bound(cols_of_row.begin(), cols_of_row.end(), bj) - cols_of_row.begin());
        vals[slot * b * b + r * b + A.entries(k) % b] += A.values(k);
      }
    rm(bi + 1) = checked_nnz((long long)block_cols.size(), "csr_to_bsr");
  }
  HostBsr::index_type ent(Kokkos::ViewAllocateWithoutInitializing("trellis::entries"), block_cols.size());
  HostBsr::values_type val(Kokkos::ViewAllocateWithoutInitializing("trellis::values"), vals.size());
  std::copy(block_cols.begin(), block_cols.end(), ent.data());
  std::copy(vals.begin(), vals.end(), val.data());
  return HostBsr(b, nbr, nbc, rm, ent, val);
}

}  // namespace trellis
