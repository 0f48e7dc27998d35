#pragma once
// Compressed sparse row matrix on Kokkos Views, with zero-copy interop both
// ways with KokkosSparse::CrsMatrix.
//
// Invariant of a canonical Trellis CSR matrix (what readers and generators
// produce and validate_csr() checks): row_map starts at 0 and never decreases,
// every column index is in range, and within a row columns are strictly
// increasing (sorted, no duplicates).
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <limits>
#include <string>

#include "trellis/core/errors.hpp"
#include "trellis/core/types.hpp"

namespace trellis {

template <class Scalar = double, class Device = DefaultDevice>
struct CsrMatrix {
  using scalar_type = Scalar;
  using device_type = Device;
  using execution_space = typename Device::execution_space;
  using memory_space = typename Device::memory_space;
  // row_map is const, as in KokkosSparse's graph, so both share one View type.
  using row_map_type = Kokkos::View<const offset_t*, Device>;
  using index_type = Kokkos::View<ordinal_t*, Device>;
  using values_type = Kokkos::View<Scalar*, Device>;
  using kokkos_type = KokkosSparse::CrsMatrix<Scalar, ordinal_t, Device, void, offset_t>;

  ordinal_t num_rows = 0;
  ordinal_t num_cols = 0;
  row_map_type row_map;  // num_rows + 1 offsets
  index_type entries;    // column of each nonzero
  values_type values;    // value of each nonzero

  CsrMatrix() = default;
  CsrMatrix(ordinal_t rows, ordinal_t cols, row_map_type rm, index_type ent, values_type val)
      : num_rows(rows), num_cols(cols), row_map(rm), entries(ent), values(val) {
    if (rows < 0 || cols < 0)
      throw StructureError("CsrMatrix: negative dimension " + std::to_string(rows) + "x" + std::to_string(cols));
    if (row_map.extent(0) != size_t(rows) + 1)
      throw StructureError("CsrMatrix: row_map has " + std::to_string(row_map.extent(0)) +
                           " entries, expected num_rows+1 = " + std::to_string(rows + 1));
    if (entries.extent(0) != values.extent(0))
      throw StructureError("CsrMatrix: " + std::to_string(entries.extent(0)) + " column indices but " +
                           std::to_string(values.extent(0)) + " values");
  }

  offset_t nnz() const { return offset_t(entries.extent(0)); }
  bool is_square() const { return num_rows == num_cols; }
};

/// CSR matrix in host memory: what readers and generators produce.
using HostCsr = CsrMatrix<double, HostDevice>;

/// Throws StructureError if nnz does not fit offset_t.
inline offset_t checked_nnz(long long nnz, const std::string& what) {
  if (nnz < 0 || nnz > std::numeric_limits<offset_t>::max())
    throw StructureError(what + ": " + std::to_string(nnz) + " nonzeros do not fit Trellis' 32-bit offsets");
  return offset_t(nnz);
}

/// Zero-copy view of a Trellis CSR matrix as a KokkosSparse::CrsMatrix.
template <class Scalar, class Device>
typename CsrMatrix<Scalar, Device>::kokkos_type to_kokkos(const CsrMatrix<Scalar, Device>& A) {
  using K = typename CsrMatrix<Scalar, Device>::kokkos_type;
  typename K::staticcrsgraph_type graph(A.entries, A.row_map);
  return K("trellis", A.num_cols, A.values, graph);
}

/// Zero-copy view of a KokkosSparse::CrsMatrix as a Trellis CSR matrix.
template <class Scalar, class Device>
CsrMatrix<Scalar, Device> from_kokkos(const KokkosSparse::CrsMatrix<Scalar, ordinal_t, Device, void, offset_t>& K) {
  return CsrMatrix<Scalar, Device>(K.numRows(), K.numCols(), K.graph.row_map, K.graph.entries, K.values);
}

/// Deep copy of a CSR matrix into another device's memory (host <-> device).
template <class DstDevice, class Scalar, class SrcDevice>
CsrMatrix<Scalar, DstDevice> copy_to(const CsrMatrix<Scalar, SrcDevice>& A) {
  using Dst = CsrMatrix<Scalar, DstDevice>;
  Kokkos::View<offset_t*, DstDevice> rm(Kokkos::ViewAllocateWithoutInitializing("trellis::row_map"),
                                        A.row_map.extent(0));
  typename Dst::index_type ent(Kokkos::ViewAllocateWithoutInitializing("trellis::entries"), A.entries.extent(0));
  typename Dst::values_type val(Kokkos::ViewAllocateWithoutInitializing("trellis::values"), A.values.extent(0));
  // deep_copy between spaces needs matching layouts and non-const destinations.
  Kokkos::deep_copy(rm, A.row_map);
  Kokkos::deep_copy(ent, A.entries);
  Kokkos::deep_copy(val, A.values);
  return Dst(A.num_rows, A.num_cols, rm, ent, val);
}

template <class Scalar, class Device>
CsrMatrix<Scalar, HostDevice> to_host(const CsrMatrix<Scalar, Device>& A) {
  return copy_to<HostDevice>(A);
}

template <class Device = DefaultDevice, class Scalar>
CsrMatrix<Scalar, Device> to_device(const CsrMatrix<Scalar, HostDevice>& A) {
  return copy_to<Device>(A);
}

/// Checks the canonical-CSR invariant on the host; throws StructureError naming
/// the first offending row. `what` names the matrix in the message.
void validate_csr(const HostCsr& A, const std::string& what = "matrix");

/// Builds a canonical host CSR matrix from coordinate triplets: sorts by
/// (row, col) and sums duplicates. Indices must already be in range.
HostCsr csr_from_triplets(ordinal_t num_rows, ordinal_t num_cols, const std::vector<ordinal_t>& rows,
                          const std::vector<ordinal_t>& cols, const std::vector<double>& vals);

}  // namespace trellis
