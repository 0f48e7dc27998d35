#pragma once
// Block sparse row matrix: b x b dense blocks stored row-major, one block per
// stored (block row, block column). The papers' point-block matrices (3x3 for
// seed 000's Laplacians, b unknowns per cell) use it.
//
// Canonical invariant: as CSR on the block pattern (sorted block columns, no
// duplicates); values has nnz_blocks * b * b entries, block k at k*b*b,
// entry (r, c) of a block at r*b + c.
#include <Kokkos_Core.hpp>
#include <string>

#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/types.hpp"

namespace trellis {

template <class Scalar = double, class Device = DefaultDevice>
struct BsrMatrix {
  using scalar_type = Scalar;
  using device_type = Device;
  using execution_space = typename Device::execution_space;
  using memory_space = typename Device::memory_space;
  using row_map_type = Kokkos::View<const offset_t*, Device>;
  using index_type = Kokkos::View<ordinal_t*, Device>;
  using values_type = Kokkos::View<Scalar*, Device>;

  int block_size = 1;
  ordinal_t num_block_rows = 0;
  ordinal_t num_block_cols = 0;
  row_map_type row_map;  // num_block_rows + 1 offsets into the block pattern
  index_type entries;    // block column of each stored block
  values_type values;    // nnz_blocks * block_size^2, row-major blocks

  BsrMatrix() = default;
  BsrMatrix(int b, ordinal_t block_rows, ordinal_t block_cols, row_map_type rm, index_type ent, values_type val)
      : block_size(b), num_block_rows(block_rows), num_block_cols(block_cols), row_map(rm), entries(ent), values(val) {
    if (b < 1) throw StructureError("BsrMatrix: block size " + std::to_string(b) + " < 1");
    if (row_map.extent(0) != size_t(block_rows) + 1)
      throw StructureError("BsrMatrix: row_map has " + std::to_string(row_map.extent(0)) +
                           " entries, expected num_block_rows+1 = " + std::to_string(block_rows + 1));
    if (values.extent(0) != entries.extent(0) * size_t(b) * size_t(b))
      throw StructureError("BsrMatrix: " + std::to_string(values.extent(0)) + " values for " +
                           std::to_string(entries.extent(0)) + " blocks of " + std::to_string(b) + "x" +
                           std::to_string(b));
  }

  offset_t nnz_blocks() const { return offset_t(entries.extent(0)); }
  ordinal_t num_rows() const { return num_block_rows * block_size; }
  ordinal_t num_cols() const { return num_block_cols * block_size; }
};

using HostBsr = BsrMatrix<double, HostDevice>;

/// A CSR matrix as the BSR of its 1x1 blocks, sharing its arrays (a
/// canonical CSR is one already: no copy).
template <class Scalar, class Device>
BsrMatrix<Scalar, Device> as_point_bsr(const CsrMatrix<Scalar, Device>& A) {
  return BsrMatrix<Scalar, Device>(1, A.num_rows, A.num_cols, A.row_map, A.entries, A.values);
}

/// A BSR matrix of 1x1 blocks as CSR, sharing its arrays (the inverse of
/// as_point_bsr); other block sizes are a StructureError.
template <class Scalar, class Device>
CsrMatrix<Scalar, Device> as_point_csr(const BsrMatrix<Scalar, Device>& A) {
  if (A.block_size != 1)
    throw StructureError("as_point_csr: blocks of size " + std::to_string(A.block_size) + ", not 1x1");
  return CsrMatrix<Scalar, Device>(A.num_block_rows, A.num_block_cols, A.row_map, A.entries, A.values);
}

/// Deep copy of a BSR matrix into another device's memory.
template <class DstDevice, class Scalar, class SrcDevice>
BsrMatrix<Scalar, DstDevice> copy_to(const BsrMatrix<Scalar, SrcDevice>& A) {
  using Dst = BsrMatrix<Scalar, DstDevice>;
  Kokkos::View<offset_t*, DstDevice> rm(Kokkos::ViewAllocateWithoutInitializing("trellis::row_map"),
                                        A.row_map.extent(0));
  typename Dst::index_type ent(Kokkos::ViewAllocateWithoutInitializing("trellis::entries"), A.entries.extent(0));
  typename Dst::values_type val(Kokkos::ViewAllocateWithoutInitializing("trellis::values"), A.values.extent(0));
  Kokkos::deep_copy(rm, A.row_map);
  Kokkos::deep_copy(ent, A.entries);
  Kokkos::deep_copy(val, A.values);
  return Dst(A.block_size, A.num_block_rows, A.num_block_cols, rm, ent, val);
}

/// Point (scalar) CSR form of a BSR matrix: every entry of every stored block,
/// explicit zeros included, so the pattern is the block pattern expanded.
HostCsr bsr_to_csr(const HostBsr& A);

/// BSR form of a CSR matrix with b x b blocks: a block is stored when any of
/// its entries is stored; missing entries inside a stored block are zeros.
/// Throws StructureError when the dimensions are not multiples of b.
HostBsr csr_to_bsr(const HostCsr& A, int block_size);

}  // namespace trellis
