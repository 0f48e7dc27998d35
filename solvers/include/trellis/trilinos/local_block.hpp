#pragma once
// The rank's diagonal block of a Tpetra matrix as Trellis's host CSR: its
// rows, and the columns it owns numbered as its rows (block Jacobi, or the
// local matrix Ifpack2's AdditiveSchwarz hands its inner solver).
//
// Copies, and why:
// - Tpetra's row offsets are size_t, Trellis's 32-bit (offset_t): the offsets
//   are always copied (and checked to fit).
// - From a CrsMatrix whose memory is host memory, whose local columns are
//   numbered as its rows (the column map starts with the rows in order, as
//   Tpetra makes it) and with no entry in another rank's column (one rank, or
//   a block-diagonal matrix), column indices and values are Tpetra's own
//   views, not copies. Otherwise they are copied row by row (any RowMatrix:
//   Ifpack2's LocalFilter, a reordered view), renumbered, the foreign entries
//   dropped and each row sorted.
#include <Teuchos_OrdinalTraits.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <Tpetra_RowMatrix.hpp>
#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/types.hpp"
#include "trellis/trilinos/tpetra_compat.hpp"

namespace trellis::trilinos {

namespace detail {

/// Local column -> local row of the same global index, or -1 where another
/// rank owns it; `identity` says whether every column c < rows is row c and
/// there is no other column.
template <class Matrix>
std::vector<ordinal_t> columns_as_rows(const Matrix& A, bool& identity) {
  const auto rows = A.getRowMap();
  const auto cols = A.getColMap();
  const size_t n = compat::local_num_elements(*rows);
  const size_t num_cols = compat::local_num_elements(*cols);
  using LO = typename Matrix::local_ordinal_type;
  std::vector<ordinal_t> col_to_row(num_cols);
  identity = num_cols == n;
  for (size_t c = 0; c < num_cols; ++c) {
    const LO r = rows->getLocalElement(cols->getGlobalElement(LO(c)));
    col_to_row[c] = r == Teuchos::OrdinalTraits<LO>::invalid() ? -1 : ordinal_t(r);
    identity = identity && col_to_row[c] == ordinal_t(c);
  }
  return col_to_row;
}

/// Appends one row's kept entries, renumbered and sorted, to entries/values.
template <class Indices, class Values>
void append_row(const Indices& ind, const Values& val, size_t count, const std::vector<ordinal_t>& col_to_row,
                std::vector<std::pair<ordinal_t, double>>& row, HostCsr::index_type& entries,
                HostCsr::values_type& values, offset_t& kept) {
  row.clear();
  for (size_t k = 0; k < count; ++k)
    if (const ordinal_t c = col_to_row[size_t(ind(k))]; c >= 0) row.emplace_back(c, double(val(k)));
  std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [c, v] : row) {
    entries(kept) = c;
    values(kept) = v;
    ++kept;
  }
}

inline HostCsr trimmed(ordinal_t n, const Kokkos::View<offset_t*, HostDevice>& row_map,
                       const HostCsr::index_type& entries, const HostCsr::values_type& values, offset_t kept) {
  return HostCsr(n, n, row_map, Kokkos::subview(entries, std::make_pair(offset_t(0), kept)),
                 Kokkos::subview(values, std::make_pair(offset_t(0), kept)));
}

}  // namespace detail

/// The rank's diagonal block of A in host CSR. A must be fillComplete'd and
/// its row map the same as its range and domain maps. Collective for a
/// distributed matrix (the map checks).
template <class SC, class LO, class GO, class Node>
HostCsr local_diagonal_block(const Tpetra::RowMatrix<SC, LO, GO, Node>& A) {
  static_assert(std::is_same_v<SC, double>, "trellis::trilinos: Trellis preconditioners are built for double");
  if (!A.isFillComplete())
    throw InputError("trellis::trilinos: the Tpetra matrix is not fillComplete'd; call fillComplete() first");
  const auto rows = A.getRowMap();
  if (!rows->isSameAs(*A.getRangeMap()) || !rows->isSameAs(*A.getDomainMap()))
    throw InputError(
        "trellis::trilinos: the Tpetra matrix's row map differs from its range or domain map; block Jacobi "
        "needs each rank to own the rows of the vector entries it preconditions");
  const size_t n = compat::local_num_elements(*rows);
  if (n > size_t(std::numeric_limits<ordinal_t>::max()))
    throw StructureError("trellis::trilinos: " + std::to_string(n) +
                         " local rows do not fit Trellis's 32-bit ordinals");
  const ordinal_t rows_i = ordinal_t(n);
  const offset_t total =
      checked_nnz((long long)compat::local_num_entries(A), "trellis::trilinos: the rank's local matrix");
  bool identity = false;
  const std::vector<ordinal_t> col_to_row = detail::columns_as_rows(A, identity);
  Kokkos::View<offset_t*, HostDevice> row_map("trellis::trilinos::row_map", n + 1);
  HostCsr::index_type entries(Kokkos::ViewAllocateWithoutInitializing("trellis::trilinos::entries"), total);
  HostCsr::values_type values(Kokkos::ViewAllocateWithoutInitializing("trellis::trilinos::values"), total);
  std::vector<std::pair<ordinal_t, double>> row;
  offset_t kept = 0;

  if (const auto* crs = dynamic_cast<const Tpetra::CrsMatrix<SC, LO, GO, Node>*>(&A)) {
    const auto local = crs->getLocalMatrixHost();  // the device's own views on a host-only Node
    const auto& rm = local.graph.row_map;
    const auto& ent = local.graph.entries;
    const auto& val = local.values;
    constexpr bool same_storage =
        std::is_same_v<typename std::decay_t<decltype(val)>::memory_space, Kokkos::HostSpace> &&
        std::is_same_v<LO, ordinal_t>;
    if constexpr (same_storage) {
      bool in_place = identity;  // every entry kept in place, sorted
      for (size_t i = 0; in_place && i < n; ++i)
        for (size_t k = rm(i) + 1; k < rm(i + 1); ++k) in_place = in_place && ent(k - 1) < ent(k);
      if (in_place) {
        for (size_t i = 0; i <= n; ++i) row_map(i) = offset_t(rm(i));
        return HostCsr(rows_i, rows_i, row_map, ent, val);
      }
    }
    for (size_t i = 0; i < n; ++i) {
      const auto range = std::make_pair(size_t(rm(i)), size_t(rm(i + 1)));
      detail::append_row(Kokkos::subview(ent, range), Kokkos::subview(val, range), range.second - range.first,
                         col_to_row, row, entries, values, kept);
      row_map(i + 1) = kept;
    }
    return detail::trimmed(rows_i, row_map, entries, values, kept);
  }

  // Any other RowMatrix, a row at a time.
  using matrix_type = Tpetra::RowMatrix<SC, LO, GO, Node>;
  const size_t width = compat::local_max_row_entries(A);
  typename matrix_type::nonconst_local_inds_host_view_type ind("trellis::trilinos::row_indices", width);
  typename matrix_type::nonconst_values_host_view_type val("trellis::trilinos::row_values", width);
  for (size_t i = 0; i < n; ++i) {
    size_t count = 0;
    A.getLocalRowCopy(LO(i), ind, val, count);
    if (count > size_t(total - kept))
      throw StructureError("trellis::trilinos: the local matrix's rows hold more entries than it reports (" +
                           std::to_string(total) + ")");
    detail::append_row(ind, val, count, col_to_row, row, entries, values, kept);
    row_map(i + 1) = kept;
  }
  return detail::trimmed(rows_i, row_map, entries, values, kept);
}

}  // namespace trellis::trilinos
