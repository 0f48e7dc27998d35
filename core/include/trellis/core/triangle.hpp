#pragma once
// Triangular parts of a square CSR matrix: lower/upper extraction, the
// diagonal, and the L + D + U split the ILU-type methods use. All run on the
// matrix's own device.
#include <Kokkos_Core.hpp>

#include "trellis/core/backend.hpp"
#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/name_table.hpp"

namespace trellis {

enum class Triangle { lower, upper };
enum class Diagonal { include, exclude };

template <>
struct NameTable<Triangle> {
  static constexpr const char* what = "triangle";
  static constexpr NameEntry<Triangle> entries[] = {
      {Triangle::lower, "lower"},
      {Triangle::upper, "upper"},
  };
};

/// True when entry (i, j) lies in triangle `t`, diagonal excluded: for a
/// triangular solve, row i then depends on row j.
KOKKOS_INLINE_FUNCTION bool in_strict_triangle(Triangle t, ordinal_t i, ordinal_t j) {
  return t == Triangle::lower ? j < i : j > i;
}

KOKKOS_INLINE_FUNCTION bool keeps_entry(Triangle t, bool with_diag, ordinal_t i, ordinal_t j) {
  return in_strict_triangle(t, i, j) || (with_diag && i == j);
}

/// The lower or upper triangle of A (with or without the diagonal), keeping
/// A's column order.
template <class Scalar, class Device>
CsrMatrix<Scalar, Device> extract_triangle(const CsrMatrix<Scalar, Device>& A, Triangle tri, Diagonal diag) {
  using exec = typename Device::execution_space;
  if (!A.is_square()) throw StructureError("extract_triangle: matrix is not square");
  const ordinal_t n = A.num_rows;
  auto row_map = A.row_map;
  auto entries = A.entries;
  auto values = A.values;
  const bool with_diag = diag == Diagonal::include;
  Kokkos::View<offset_t*, Device> out_map("trellis::triangle_row_map", size_t(n) + 1);
  Kokkos::parallel_for(
      "trellis::extract_triangle::count", trellis::RangePolicy<exec>(0, n), KOKKOS_LAMBDA(ordinal_t i) {
        offset_t c = 0;
        for (offset_t k = row_map(i); k < row_map(i + 1); ++k) c += keeps_entry(tri, with_diag, i, entries(k)) ? 1 : 0;
        out_map(i + 1) = c;
      });
  Kokkos::parallel_scan(
      "trellis::extract_triangle::scan", trellis::RangePolicy<exec>(0, n + 1),
      KOKKOS_LAMBDA(ordinal_t i, offset_t & sum, bool final) {
        sum += out_map(i);
        if (final) out_map(i) = sum;
      });
  offset_t nnz = 0;
  Kokkos::deep_copy(nnz, Kokkos::subview(out_map, n));
  typename CsrMatrix<Scalar, Device>::index_type out_ent(
      Kokkos::ViewAllocateWithoutInitializing("trellis::triangle_entries"), nnz);
  typename CsrMatrix<Scalar, Device>::values_type out_val(
      Kokkos::ViewAllocateWithoutInitializing("trellis::triangle_values"), nnz);
  Kokkos::parallel_for(
      "trellis::extract_triangle::fill", trellis::RangePolicy<exec>(0, n), KOKKOS_LAMBDA(ordinal_t i) {
        offset_t pos = out_map(i);
        for (offset_t k = row_map(i); k < row_map(i + 1); ++k)
          if (keeps_entry(tri, with_diag, i, entries(k))) {
            out_ent(pos) = entries(k);
            out_val(pos) = values(k);
            ++pos;
          }
      });
  return CsrMatrix<Scalar, Device>(n, n, out_map, out_ent, out_val);
}

/// The diagonal of A; rows without a stored diagonal get 0.
template <class Scalar, class Device>
Kokkos::View<Scalar*, Device> extract_diagonal(const CsrMatrix<Scalar, Device>& A) {
  using exec = typename Device::execution_space;
  auto row_map = A.row_map;
  auto entries = A.entries;
  auto values = A.values;
  Kokkos::View<Scalar*, Device> d("trellis::diagonal", A.num_rows);
  Kokkos::parallel_for(
      "trellis::extract_diagonal", trellis::RangePolicy<exec>(0, A.num_rows), KOKKOS_LAMBDA(ordinal_t i) {
        for (offset_t k = row_map(i); k < row_map(i + 1); ++k)
          if (entries(k) == i) d(i) = values(k);
      });
  return d;
}

namespace detail {
/// First row of a pattern with no entry in its own column, or -1.
template <class RowMap, class Entries>
ordinal_t first_row_missing_diagonal(ordinal_t n, const RowMap& row_map, const Entries& entries) {
  using exec = typename Entries::execution_space;
  ordinal_t first = n;  // the Min reducer starts from its identity, INT_MAX
  Kokkos::parallel_reduce(
      "trellis::first_row_missing_diagonal", trellis::RangePolicy<exec>(0, n),
      KOKKOS_LAMBDA(ordinal_t i, ordinal_t & m) {
        bool found = false;
        for (offset_t k = row_map(i); k < row_map(i + 1); ++k) found = found || entries(k) == i;
        if (!found && i < m) m = i;
      },
      Kokkos::Min<ordinal_t>(first));
  return first >= n ? -1 : first;
}
}  // namespace detail

/// First row with no stored diagonal entry, or -1 when every row has one.
template <class Scalar, class Device>
ordinal_t first_row_missing_diagonal(const CsrMatrix<Scalar, Device>& A) {
  return detail::first_row_missing_diagonal(A.num_rows, A.row_map, A.entries);
}

/// First block row with no diagonal block, or -1 when every one has it.
template <class Scalar, class Device>
ordinal_t first_row_missing_diagonal(const BsrMatrix<Scalar, Device>& A) {
  return detail::first_row_missing_diagonal(A.num_block_rows, A.row_map, A.entries);
}

/// A = L + D + U with L strictly lower, D the diagonal, U strictly upper.
template <class Scalar, class Device>
struct LduSplit {
  CsrMatrix<Scalar, Device> L;
  Kokkos::View<Scalar*, Device> D;
  CsrMatrix<Scalar, Device> U;
};

template <class Scalar, class Device>
LduSplit<Scalar, Device> split_ldu(const CsrMatrix<Scalar, Device>& A) {
  return {extract_triangle(A, Triangle::lower, Diagonal::exclude), extract_diagonal(A),
          extract_triangle(A, Triangle::upper, Diagonal::exclude)};
}

}  // namespace trellis
