#pragma once
// The canonical-CSR check every public constructor runs on the matrix it is
// given (csr_matrix.hpp states the invariant): row_map of num_rows + 1
// entries from 0 to nnz, never decreasing; columns inside [0, num_cols),
// ascending without duplicates in each row. A matrix breaking it would make
// the kernels read or write out of bounds, or treat duplicates differently
// (SpMV would sum them, a triangular solve keep one): it is a StructureError
// naming the first offending row instead. The library's one rule for
// duplicate entries: the builders (Matrix Market reader, csr_from_triplets)
// sum them; everything else takes canonical matrices only. One pass over the pattern, run
// where the matrix lives (a kernel for device memory). csr_from_triplets
// builds a canonical matrix from unsorted entries, duplicates summed.
//
// Trusted callers that build their matrices canonically can skip the pass
// for the constructors of a scope: `trellis::TrustedInput trusted;` (the
// triangular solvers' numeric() then skips its pattern fingerprint too: the
// caller built the new values on the analysed pattern).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "trellis/core/backend.hpp"
#include "trellis/core/bsr_matrix.hpp"
#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/errors.hpp"

namespace trellis {

namespace detail {
inline bool& input_checks_skipped() {
  static thread_local bool skipped = false;
  return skipped;
}
}  // namespace detail

/// While one lives, constructors on this thread do not check their matrices
/// (nor TriangularSolver::numeric its pattern).
class TrustedInput {
 public:
  TrustedInput() : before_(detail::input_checks_skipped()) { detail::input_checks_skipped() = true; }
  ~TrustedInput() { detail::input_checks_skipped() = before_; }
  TrustedInput(const TrustedInput&) = delete;
  TrustedInput& operator=(const TrustedInput&) = delete;

 private:
  bool before_;
};

namespace detail {
/// The canonical check on a pattern (row_map, entries) of rows x cols where
/// they live; `row` names a row ("row" or "block row") in the messages.
template <class RowMap, class Entries>
void check_canonical_pattern(ordinal_t num_rows, ordinal_t num_cols, const RowMap& rm, const Entries& ent,
                             const std::string& what, const std::string& row_word) {
  using exec = typename Entries::execution_space;
  if (num_rows < 0 || num_cols < 0)
    throw StructureError(what + ": negative size " + std::to_string(num_rows) + "x" + std::to_string(num_cols));
  if (rm.extent(0) != size_t(num_rows) + 1)
    throw StructureError(what + ": row_map has " + std::to_string(rm.extent(0)) + " entries for " +
                         std::to_string(num_rows) + " " + row_word + "s");
  const offset_t nnz = offset_t(ent.extent(0));
  const ordinal_t cols = num_cols, n = num_rows;
  // The first bad row: i < n a row, n the end of row_map; none: the Min identity.
  ordinal_t first = 0;
  Kokkos::parallel_reduce(
      "trellis::check_canonical", trellis::RangePolicy<exec>(0, n + 1),
      KOKKOS_LAMBDA(ordinal_t i, ordinal_t & bad) {
        bool ok = rm(i) >= 0 && rm(i) <= nnz && (i > 0 || rm(0) == 0) && (i < n || rm(i) == nnz);
        if (ok && i < n) {
          ok = rm(i + 1) >= rm(i) && rm(i + 1) <= nnz;
          for (offset_t k = rm(i); ok && k < rm(i + 1); ++k)
            ok = ent(k) >= 0 && ent(k) < cols && (k == rm(i) || ent(k - 1) < ent(k));
        }
        if (!ok && i < bad) bad = i;
      },
      Kokkos::Min<ordinal_t>(first));
  if (first > n) return;
  // Describe the bad row from a host copy of it.
  offset_t lo = 0, hi = 0;
  Kokkos::deep_copy(lo, Kokkos::subview(rm, first));
  if (first == n) {
    throw StructureError(what + ": row_map ends at " + std::to_string(lo) + " for " + std::to_string(nnz) +
                         " stored entries");
  }
  Kokkos::deep_copy(hi, Kokkos::subview(rm, first + 1));
  const std::string row = what + ": " + row_word + " " + std::to_string(first);
  if (first == 0 && lo != 0) throw StructureError(what + ": row_map(0) = " + std::to_string(lo) + ", not 0");
  if (lo < 0 || hi < lo || hi > nnz)
    throw StructureError(row + ": row_map runs from " + std::to_string(lo) + " to " + std::to_string(hi) + " (" +
                         std::to_string(nnz) + " stored entries)");
  const auto cols_of_row = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), Kokkos::subview(ent, std::make_pair(size_t(lo), size_t(hi))));
  for (size_t k = 0; k < cols_of_row.extent(0); ++k) {
    const ordinal_t j = cols_of_row(k);
    if (j < 0 || j >= cols)
      throw StructureError(row + " has column " + std::to_string(j) + " outside [0, " + std::to_string(cols) + ")");
    if (k > 0 && cols_of_row(k - 1) >= j)
      throw StructureError(row + " has " + (cols_of_row(k - 1) == j ? "a duplicate" : "an unsorted") + " column " +
                           std::to_string(j) + " (csr_from_triplets sorts and sums duplicates)");
  }
  throw StructureError(row + ": not canonical");
}
}  // namespace detail

/// Throws StructureError naming `what` and the first row that breaks the
/// canonical invariant (nothing when a TrustedInput is alive).
template <class Scalar, class Device>
void check_canonical(const CsrMatrix<Scalar, Device>& A, const std::string& what) {
  if (detail::input_checks_skipped()) return;
  detail::check_canonical_pattern(A.num_rows, A.num_cols, A.row_map, A.entries, what, "row");
}

/// The same on a BSR matrix's block pattern (a duplicate block is refused as
/// a duplicate entry is).
template <class Scalar, class Device>
void check_canonical(const BsrMatrix<Scalar, Device>& A, const std::string& what) {
  if (detail::input_checks_skipped()) return;
  detail::check_canonical_pattern(A.num_block_rows, A.num_block_cols, A.row_map, A.entries, what, "block row");
}

namespace detail {
KOKKOS_INLINE_FUNCTION std::uint64_t mix64(std::uint64_t a, std::uint64_t b) {
  std::uint64_t h = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL + (a << 6) + (a >> 2));
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 29);
}
}  // namespace detail

/// A fingerprint of A's pattern (sizes, row_map, every column at its
/// position): equal patterns give equal fingerprints, and the same entries
/// in another order within a row a different one. One pass, where A lives.
template <class Scalar, class Device>
std::uint64_t pattern_fingerprint(const CsrMatrix<Scalar, Device>& A) {
  using exec = typename Device::execution_space;
  const auto rm = A.row_map;
  const auto ent = A.entries;
  const std::int64_t n = A.num_rows, nnz = std::int64_t(ent.extent(0));
  std::uint64_t sum = 0;
  Kokkos::parallel_reduce(
      "trellis::pattern_fingerprint", trellis::RangePolicy<exec>(0, (n + 1 > nnz ? n + 1 : nnz)),
      KOKKOS_LAMBDA(std::int64_t k, std::uint64_t & acc) {
        if (k <= n) acc += detail::mix64(std::uint64_t(k), std::uint64_t(rm(k)));
        if (k < nnz) acc += detail::mix64(std::uint64_t(k) + 0x100000000ULL, std::uint64_t(ent(k)));
      },
      sum);
  return detail::mix64(detail::mix64(sum, std::uint64_t(A.num_rows)), std::uint64_t(A.num_cols));
}

}  // namespace trellis
