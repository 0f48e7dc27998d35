#pragma once
// Transpose of a CSR matrix (equivalently: the CSC form of A), with sorted
// columns, on A's device. Kokkos Kernels does the transpose; its output rows
// are filled by atomics, so they are sorted afterwards to stay canonical.
#include <Kokkos_Core.hpp>

#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/kokkos_compat.hpp"

namespace trellis {

template <class Scalar, class Device>
CsrMatrix<Scalar, Device> transpose(const CsrMatrix<Scalar, Device>& A) {
  using exec = typename Device::execution_space;
  using M = CsrMatrix<Scalar, Device>;
  Kokkos::View<offset_t*, Device> t_map("trellis::transpose_row_map", size_t(A.num_cols) + 1);
  typename M::index_type t_ent(Kokkos::ViewAllocateWithoutInitializing("trellis::transpose_entries"), A.nnz());
  typename M::values_type t_val(Kokkos::ViewAllocateWithoutInitializing("trellis::transpose_values"), A.nnz());
  compat::transpose_matrix<typename M::row_map_type, typename M::index_type, typename M::values_type, decltype(t_map),
                           typename M::index_type, typename M::values_type, decltype(t_map), exec>(
      A.num_rows, A.num_cols, A.row_map, A.entries, A.values, t_map, t_ent, t_val);
  compat::sort_crs_matrix<exec>(t_map, t_ent, t_val);
  return M(A.num_cols, A.num_rows, t_map, t_ent, t_val);
}

}  // namespace trellis
