#include "trellis/solvers/preconditioner_choice.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <string>

#include "trellis/core/csr_check.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/level_sets.hpp"

namespace trellis {

namespace {

void check_for_auto(const HostCsr& A) {
  if (!A.is_square())
    throw StructureError("auto: matrix is " + std::to_string(A.num_rows) + "x" + std::to_string(A.num_cols) +
                         ", not square");
  if (A.num_rows < 1) throw StructureError("auto: empty matrix");
  check_canonical(A, "auto");  // the level counts read sorted rows
}

PreconditionerChoice choose_with(const HostCsr& A, ordinal_t zero_diagonals, const PreconditionerOptions& options,
                                 const AutoRule& rule) {
  PreconditionerChoice out;
  out.zero_diagonals = zero_diagonals;
  if (out.zero_diagonals > 0) {
    out.kind = PreconditionerKind::ilu0;
    out.reason = "auto: ilu0, " + std::to_string(out.zero_diagonals) +
                 " rows with a stored zero diagonal (a saddle point: their pivots come from fill, which dd's "
                 "dropped couplings take away)";
    return out;
  }
  if (options.grid[0] > 0 && options.grid[1] > 0 && options.grid[2] > 0) {
    out.kind = PreconditionerKind::dd;
    out.reason = "auto: dd, the grid is known (geometric subdomains)";
    return out;
  }
  out.lower_levels = count_levels_host(A, Triangle::lower);
  out.upper_levels = count_levels_host(A, Triangle::upper);
  out.nonzeros_per_level = double(A.nnz()) / (out.lower_levels + out.upper_levels);  // n >= 1: >= 2 levels
  const bool deep = out.nonzeros_per_level < rule.dd_below_nonzeros_per_level;
  out.kind = deep ? PreconditionerKind::dd : PreconditionerKind::ilu0;
  char line[200];
  std::snprintf(line, sizeof line, "auto: %s, %d + %d levels of L and U, %.0f nonzeros per level (%s %.0f)",
                deep ? "dd" : "ilu0", int(out.lower_levels), int(out.upper_levels), out.nonzeros_per_level,
                deep ? "dd below" : "ilu0 from", rule.dd_below_nonzeros_per_level);
  out.reason = line;
  return out;
}

}  // namespace

ordinal_t count_zero_diagonals(const HostCsr& A) {
  // Each row's diagonal by binary search (rows are sorted): O(n log(row
  // length)), not a pass over every nonzero.
  ordinal_t zeros = 0;
  for (ordinal_t i = 0; i < A.num_rows; ++i) {
    const ordinal_t* first = A.entries.data() + A.row_map(i);
    const ordinal_t* last = A.entries.data() + A.row_map(i + 1);
    const ordinal_t* d = std::lower_bound(first, last, i);
    if (d != last && *d == i && A.values(A.row_map(i) + (d - first)) == 0) ++zeros;
  }
  return zeros;
}

ordinal_t count_zero_diagonals(const BsrMatrix<double, DefaultDevice>& A) {
  const auto map = A.row_map;
  const auto ent = A.entries;
  const auto val = A.values;
  const int b = A.block_size;
  ordinal_t zeros = 0;
  Kokkos::parallel_reduce(
      "trellis::auto::zero_diagonals", Kokkos::RangePolicy<DefaultDevice::execution_space>(0, A.num_block_rows),
      KOKKOS_LAMBDA(ordinal_t i, ordinal_t & count) {
        offset_t lo = map(i), hi = map(i + 1);  // the diagonal block by binary search (sorted rows)
        while (lo < hi) {
          const offset_t mid = (lo + hi) / 2;
          if (ent(mid) < i)
            lo = mid + 1;
          else
            hi = mid;
        }
        if (lo == map(i + 1) || ent(lo) != i) return;
        for (int d = 0; d < b; ++d) count += val(size_t(lo) * b * b + size_t(d) * b + d) == 0.0;
      },
      zeros);
  return zeros;
}

PreconditionerChoice choose_preconditioner(const HostCsr& A, const PreconditionerOptions& options,
                                           const AutoRule& rule) {
  check_for_auto(A);
  return choose_with(A, count_zero_diagonals(A), options, rule);
}

PreconditionerChoice choose_preconditioner(const HostCsr& A, const BsrMatrix<double, DefaultDevice>& blocks,
                                           const PreconditionerOptions& options, const AutoRule& rule) {
  check_for_auto(A);
  if (blocks.num_rows() != A.num_rows)
    throw StructureError("auto: the block matrix has " + std::to_string(blocks.num_rows()) + " rows, A " +
                         std::to_string(A.num_rows));
  return choose_with(A, count_zero_diagonals(blocks), options, rule);
}

}  // namespace trellis
