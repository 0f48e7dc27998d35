#include "trellis/solvers/preconditioner_choice.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "trellis/core/csr_check.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/kokkos_compat.hpp"
#include "trellis/core/level_sets.hpp"

namespace trellis {

namespace {

/// A row's or column's ratio: NaN (0 / 0, or NaN values) counts as not dominant.
KOKKOS_INLINE_FUNCTION double not_dominant_if_nan(double ratio) { return ratio == ratio ? ratio : HUGE_VAL; }

void check_for_auto(const HostCsr& A) {
  if (!A.is_square())
    throw StructureError("auto: matrix is " + std::to_string(A.num_rows) + "x" + std::to_string(A.num_cols) +
                         ", not square");
  if (A.num_rows < 1) throw StructureError("auto: empty matrix");
  check_canonical(A, "auto");  // the level counts read sorted rows
}

/// dominance_of: A's diagonal_dominance, computed only where the rule reads it.
PreconditionerChoice choose_with(const HostCsr& A, ordinal_t zero_diagonals,
                                 const std::function<double()>& dominance_of, const PreconditionerOptions& options,
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
  out.dominance = dominance_of();
  if (out.dominance < rule.jacobi_below_dominance) {
    out.kind = PreconditionerKind::jacobi;
    char line[200];
    std::snprintf(line, sizeof line,
                  "auto: jacobi, strictly diagonally dominant (off-diagonal sums at most %.3g of the diagonal, "
                  "jacobi below %.3g)",
                  out.dominance, rule.jacobi_below_dominance);
    out.reason = line;
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

double diagonal_dominance(const HostCsr& A) {
  const ordinal_t n = A.num_rows;
  std::vector<double> diag(size_t(n), 0.0), col_off(size_t(n), 0.0);
  double by_rows = 0;
  for (ordinal_t i = 0; i < n; ++i) {
    double off = 0;
    for (offset_t k = A.row_map(i); k < A.row_map(i + 1); ++k) {
      const ordinal_t j = A.entries(k);
      const double a = std::fabs(A.values(k));
      if (j == i)
        diag[size_t(i)] += A.values(k);
      else
        off += a, col_off[size_t(j)] += a;
    }
    by_rows = std::max(by_rows, not_dominant_if_nan(off / std::fabs(diag[size_t(i)])));  // x / 0: infinity
  }
  double by_cols = 0;
  for (ordinal_t j = 0; j < n; ++j)
    by_cols = std::max(by_cols, not_dominant_if_nan(col_off[size_t(j)] / std::fabs(diag[size_t(j)])));
  return std::min(by_rows, by_cols);
}

double diagonal_dominance(const BsrMatrix<double, DefaultDevice>& A) {
  using exec = DefaultDevice::execution_space;
  const auto map = A.row_map;
  const auto ent = A.entries;
  const auto val = A.values;
  const int b = A.block_size;
  const ordinal_t n = A.num_rows();
  Kokkos::View<double*, DefaultDevice> diag("trellis::auto::diagonal", size_t(n));
  Kokkos::View<double*, DefaultDevice> col_off("trellis::auto::column_off_diagonal", size_t(n));
  // By point rows: each block row's b rows, their diagonals and column sums.
  double by_rows = 0;
  Kokkos::parallel_reduce(
      "trellis::auto::row_dominance", Kokkos::RangePolicy<exec>(0, A.num_block_rows),
      KOKKOS_LAMBDA(ordinal_t I, double& worst) {
        for (int r = 0; r < b; ++r) {
          const ordinal_t i = I * b + r;
          double d = 0, off = 0;
          for (offset_t k = map(I); k < map(I + 1); ++k)
            for (int c = 0; c < b; ++c) {
              const ordinal_t j = ent(k) * b + c;
              const double a = val(size_t(k) * b * b + size_t(r) * b + c);
              if (j == i) {
                d += a;
              } else if (a != 0) {
                off += math::fabs(a);
                Kokkos::atomic_add(&col_off(j), math::fabs(a));
              }
            }
          diag(i) = d;
          const double ratio = not_dominant_if_nan(off / math::fabs(d));
          if (ratio > worst) worst = ratio;
        }
      },
      Kokkos::Max<double>(by_rows));
  double by_cols = 0;
  Kokkos::parallel_reduce(
      "trellis::auto::column_dominance", Kokkos::RangePolicy<exec>(0, n),
      KOKKOS_LAMBDA(ordinal_t j, double& worst) {
        const double ratio = not_dominant_if_nan(col_off(j) / math::fabs(diag(j)));
        if (ratio > worst) worst = ratio;
      },
      Kokkos::Max<double>(by_cols));
  return std::min(by_rows, by_cols);
}

PreconditionerChoice choose_preconditioner(const HostCsr& A, const PreconditionerOptions& options,
                                           const AutoRule& rule) {
  check_for_auto(A);
  return choose_with(
      A, count_zero_diagonals(A), [&] { return diagonal_dominance(A); }, options, rule);
}

PreconditionerChoice choose_preconditioner(const HostCsr& A, const BsrMatrix<double, DefaultDevice>& blocks,
                                           const PreconditionerOptions& options, const AutoRule& rule) {
  check_for_auto(A);
  if (blocks.num_rows() != A.num_rows)
    throw StructureError("auto: the block matrix has " + std::to_string(blocks.num_rows()) + " rows, A " +
                         std::to_string(A.num_rows));
  return choose_with(
      A, count_zero_diagonals(blocks), [&] { return diagonal_dominance(blocks); }, options, rule);
}

}  // namespace trellis
