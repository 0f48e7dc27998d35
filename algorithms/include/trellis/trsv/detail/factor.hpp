#pragma once
// The triangular factor every solve family reads: the strict triangle in CSR
// and, for the column algorithms, CSC, each with the positions in T its
// values come from; the inverse diagonal; for Gauss-Seidel the opposite
// strict triangle. The symbolic phase builds the pattern once, the numeric
// phase gathers new values into it.
#include <Kokkos_Core.hpp>
#include <string>

#include "trellis/core/backend.hpp"
#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/kokkos_compat.hpp"
#include "trellis/core/level_sets.hpp"
#include "trellis/core/triangle.hpp"

namespace trellis::detail {

/// A strict triangle by rows (CSR), as the row kernels read it.
template <class Scalar, class Device>
struct TriangleRows {
  Kokkos::View<offset_t*, Device> row_map;
  Kokkos::View<ordinal_t*, Device> col_ind;
  Kokkos::View<Scalar*, Device> values;
};

/// A strict triangle by columns (CSC): column j lists the rows that depend
/// on j. As the column kernels read it.
template <class Scalar, class Device>
struct TriangleColumns {
  Kokkos::View<offset_t*, Device> col_map;
  Kokkos::View<ordinal_t*, Device> row_ind;
  Kokkos::View<Scalar*, Device> values;
};

/// Kernels capture the parts they read (rows, columns, other, inv_diag),
/// never the whole factor.
template <class Scalar, class Device>
struct TriangularFactor {
  ordinal_t n = 0;
  offset_t nnz_strict = 0;
  Triangle triangle = Triangle::lower;
  bool unit_diagonal = false;
  bool has_csc = false;
  bool has_other = false;

  TriangleRows<Scalar, Device> rows;        // the strict triangle
  TriangleColumns<Scalar, Device> columns;  // the same by columns (has_csc)
  TriangleRows<Scalar, Device> other;       // opposite strict triangle (has_other: Gauss-Seidel)
  Kokkos::View<Scalar*, Device> inv_diag;   // 1/d, as the solves use it
  bool inv_diag_unit = false;               // inv_diag holds ones (a unit diagonal, filled once)

  // Where each value comes from in T (diag_source -1: none stored).
  Kokkos::View<offset_t*, Device> row_source;
  Kokkos::View<offset_t*, Device> col_source;
  Kokkos::View<offset_t*, Device> other_source;
  Kokkos::View<offset_t*, Device> diag_source;
};

/// Gauss-Seidel's x_k part of row i: sum over the opposite triangle of
/// A(i,j) x_old(j); zero for plain triangular solves (no opposite triangle).
template <class Member, class Rows, class OldView>
KOKKOS_INLINE_FUNCTION typename OldView::non_const_value_type other_part(const Member& m, const Rows& other,
                                                                         ordinal_t i, const OldView& x_old) {
  typename OldView::non_const_value_type sum = 0;
  if (other.row_map.extent(0) == 0) return sum;
  Kokkos::parallel_reduce(
      Kokkos::ThreadVectorRange(m, other.row_map(i), other.row_map(i + 1)),
      [&](offset_t k, typename OldView::non_const_value_type& s) { s += other.values(k) * x_old(other.col_ind(k)); },
      sum);
  return sum;
}

/// Symbolic phase: pattern of the strict triangle, the diagonal positions,
/// and on request the CSC copy and the opposite triangle, with source maps.
template <class Scalar, class Device>
TriangularFactor<Scalar, Device> analyze_factor(const typename Device::execution_space& space,
                                                const CsrMatrix<Scalar, Device>& T, Triangle tri, bool unit_diagonal,
                                                bool need_csc, bool keep_other = false) {
  using exec = typename Device::execution_space;
  using policy = trellis::RangePolicy<exec>;
  using offsets = Kokkos::View<offset_t*, Device>;
  using ordinals = Kokkos::View<ordinal_t*, Device>;
  using scalars = Kokkos::View<Scalar*, Device>;
  if (!T.is_square())
    throw StructureError("triangular solve: matrix is " + std::to_string(T.num_rows) + "x" +
                         std::to_string(T.num_cols) + ", not square");
  TriangularFactor<Scalar, Device> f;
  const ordinal_t n = T.num_rows;
  f.n = n;
  f.triangle = tri;
  f.unit_diagonal = unit_diagonal;
  auto t_map = T.row_map;
  auto t_ent = T.entries;
  // Arrays written in full before they are read.
  const auto uninit = [&](const std::string& label) {
    return Kokkos::view_alloc(space, Kokkos::WithoutInitializing, label);
  };

  // Strict-triangle CSR pattern and the diagonal's position.
  f.rows.row_map = offsets(Kokkos::view_alloc(space, "trellis::trsv::row_map"), size_t(n) + 1);
  f.diag_source = offsets(uninit("trellis::trsv::diag_source"), n);
  auto row_map = f.rows.row_map;
  auto diag_source = f.diag_source;
  Kokkos::parallel_for(
      "trellis::trsv::count", policy(space, 0, n), KOKKOS_LAMBDA(ordinal_t i) {
        offset_t c = 0, diag = -1;
        for (offset_t k = t_map(i); k < t_map(i + 1); ++k) {
          const ordinal_t j = t_ent(k);
          if (in_strict_triangle(tri, i, j)) ++c;
          if (j == i) diag = k;
        }
        row_map(i + 1) = c;
        diag_source(i) = diag;
      });
  Kokkos::parallel_scan(
      "trellis::trsv::scan", policy(space, 0, n + 1), KOKKOS_LAMBDA(ordinal_t i, offset_t & sum, bool final) {
        sum += row_map(i);
        if (final) row_map(i) = sum;
      });
  Kokkos::deep_copy(space, f.nnz_strict, Kokkos::subview(row_map, n));
  space.fence();  // nnz_strict sizes what follows
  f.rows.col_ind = ordinals(uninit("trellis::trsv::col_ind"), f.nnz_strict);
  f.rows.values = scalars(uninit("trellis::trsv::row_values"), f.nnz_strict);
  f.row_source = offsets(uninit("trellis::trsv::row_source"), f.nnz_strict);
  auto col_ind = f.rows.col_ind;
  auto row_source = f.row_source;
  Kokkos::parallel_for(
      "trellis::trsv::fill", policy(space, 0, n), KOKKOS_LAMBDA(ordinal_t i) {
        offset_t pos = row_map(i);
        for (offset_t k = t_map(i); k < t_map(i + 1); ++k)
          if (in_strict_triangle(tri, i, t_ent(k))) {
            col_ind(pos) = t_ent(k);
            row_source(pos) = k;
            ++pos;
          }
      });

  if (!unit_diagonal) {
    ordinal_t missing = n;
    Kokkos::parallel_reduce(
        "trellis::trsv::missing_diagonal", policy(space, 0, n),
        KOKKOS_LAMBDA(ordinal_t i, ordinal_t & m) {
          if (diag_source(i) < 0 && i < m) m = i;
        },
        Kokkos::Min<ordinal_t>(missing));
    if (missing < n) throw PivotError("triangular solve: no diagonal entry stored", missing, 0.0);
  }

  if (need_csc) {
    // Column counts, scan, fill with atomic cursors, then sort each column by
    // row (carrying the source positions) so the CSC is deterministic.
    f.columns.col_map = offsets(Kokkos::view_alloc(space, "trellis::trsv::col_map"), size_t(n) + 1);
    auto col_map = f.columns.col_map;
    Kokkos::parallel_for(
        "trellis::trsv::csc_count", policy(space, 0, f.nnz_strict),
        KOKKOS_LAMBDA(offset_t k) { compat::atomic_increment(&col_map(col_ind(k) + 1)); });
    Kokkos::parallel_scan(
        "trellis::trsv::csc_scan", policy(space, 0, n + 1), KOKKOS_LAMBDA(ordinal_t j, offset_t & sum, bool final) {
          sum += col_map(j);
          if (final) col_map(j) = sum;
        });
    f.columns.row_ind = ordinals(uninit("trellis::trsv::row_ind"), f.nnz_strict);
    f.columns.values = scalars(uninit("trellis::trsv::col_values"), f.nnz_strict);
    f.col_source = offsets(uninit("trellis::trsv::col_source"), f.nnz_strict);
    auto row_ind = f.columns.row_ind;
    auto col_source = f.col_source;
    offsets cursor(uninit("trellis::trsv::csc_cursor"), n);
    Kokkos::deep_copy(space, cursor, Kokkos::subview(col_map, std::make_pair(0, n)));
    Kokkos::parallel_for(
        "trellis::trsv::csc_fill", policy(space, 0, n), KOKKOS_LAMBDA(ordinal_t i) {
          for (offset_t p = row_map(i); p < row_map(i + 1); ++p) {
            const offset_t q = Kokkos::atomic_fetch_add(&cursor(col_ind(p)), offset_t(1));
            row_ind(q) = i;
            col_source(q) = row_source(p);
          }
        });
    on_default_instance(space, [&] { compat::sort_crs_matrix<exec>(col_map, row_ind, col_source); });
    f.has_csc = true;
  }

  if (keep_other) {
    const Triangle opposite = tri == Triangle::lower ? Triangle::upper : Triangle::lower;
    f.other.row_map = offsets(Kokkos::view_alloc(space, "trellis::trsv::other_map"), size_t(n) + 1);
    auto other_map = f.other.row_map;
    Kokkos::parallel_scan(
        "trellis::trsv::other_scan", policy(space, 0, n), KOKKOS_LAMBDA(ordinal_t i, offset_t & sum, bool final) {
          for (offset_t k = t_map(i); k < t_map(i + 1); ++k) sum += in_strict_triangle(opposite, i, t_ent(k)) ? 1 : 0;
          if (final) other_map(i + 1) = sum;
        });
    offset_t nnz_other = 0;
    Kokkos::deep_copy(space, nnz_other, Kokkos::subview(other_map, n));
    space.fence();  // nnz_other sizes what follows
    f.other.col_ind = ordinals(uninit("trellis::trsv::other_ind"), nnz_other);
    f.other.values = scalars(uninit("trellis::trsv::other_values"), nnz_other);
    f.other_source = offsets(uninit("trellis::trsv::other_source"), nnz_other);
    auto other_ind = f.other.col_ind;
    auto other_source = f.other_source;
    Kokkos::parallel_for(
        "trellis::trsv::other_fill", policy(space, 0, n), KOKKOS_LAMBDA(ordinal_t i) {
          offset_t pos = other_map(i);
          for (offset_t k = t_map(i); k < t_map(i + 1); ++k)
            if (in_strict_triangle(opposite, i, t_ent(k))) {
              other_ind(pos) = t_ent(k);
              other_source(pos) = k;
              ++pos;
            }
        });
    f.has_other = true;
  }

  f.inv_diag = scalars(uninit("trellis::trsv::inv_diag"), n);
  return f;
}

/// Level sets of the factor's strict triangle (seed 002, section 3).
template <class Scalar, class Device>
LevelSets<Device> factor_levels(const typename Device::execution_space& space,
                                const TriangularFactor<Scalar, Device>& f) {
  LevelSets<Device> levels;
  on_default_instance(space, [&] {
    const CsrMatrix<Scalar, Device> pattern(f.n, f.n, f.rows.row_map, f.rows.col_ind, f.rows.values);
    levels = analyze_levels(pattern, f.triangle);
  });
  return levels;
}

/// Numeric phase: gathers values from T (and D from `diagonal` if given) and
/// checks every pivot; PivotError names the first bad row.
template <class Scalar, class Device>
void load_factor_values(const typename Device::execution_space& space, TriangularFactor<Scalar, Device>& f,
                        const CsrMatrix<Scalar, Device>& T, Kokkos::View<const Scalar*, Device> diagonal) {
  using exec = typename Device::execution_space;
  using policy = trellis::RangePolicy<exec>;
  if (T.num_rows != f.n || T.nnz() < f.nnz_strict)
    throw StructureError("triangular solve: numeric() got a matrix with a different pattern");
  if (diagonal.data() && diagonal.extent(0) != size_t(f.n))
    throw StructureError("triangular solve: diagonal has " + std::to_string(diagonal.extent(0)) + " entries for " +
                         std::to_string(f.n) + " rows");
  auto t_val = T.values;
  auto row_values = f.rows.values;
  auto row_source = f.row_source;
  Kokkos::parallel_for(
      "trellis::trsv::gather_rows", policy(space, 0, f.nnz_strict),
      KOKKOS_LAMBDA(offset_t k) { row_values(k) = t_val(row_source(k)); });
  if (f.has_csc) {
    auto col_values = f.columns.values;
    auto col_source = f.col_source;
    Kokkos::parallel_for(
        "trellis::trsv::gather_cols", policy(space, 0, f.nnz_strict),
        KOKKOS_LAMBDA(offset_t k) { col_values(k) = t_val(col_source(k)); });
  }
  if (f.has_other) {
    auto other_values = f.other.values;
    auto other_source = f.other_source;
    Kokkos::parallel_for(
        "trellis::trsv::gather_other", policy(space, 0, offset_t(other_values.extent(0))),
        KOKKOS_LAMBDA(offset_t k) { other_values(k) = t_val(other_source(k)); });
  }
  auto inv_diag = f.inv_diag;
  auto diag_source = f.diag_source;
  const bool unit = f.unit_diagonal && !diagonal.data();
  const bool separate = diagonal.data() != nullptr;
  if (unit) {  // nothing to check: no reduction, no wait for the host
    if (!f.inv_diag_unit) Kokkos::deep_copy(space, inv_diag, Scalar(1));
    f.inv_diag_unit = true;
    return;
  }
  f.inv_diag_unit = false;
  ordinal_t bad = f.n;
  Kokkos::parallel_reduce(
      "trellis::trsv::pivots", policy(space, 0, f.n),
      KOKKOS_LAMBDA(ordinal_t i, ordinal_t & first_bad) {
        const Scalar a = unit ? Scalar(1) : separate ? diagonal(i) : t_val(diag_source(i));
        const bool ok = a != Scalar(0) && math::isfinite(a) && math::isfinite(Scalar(1) / a);
        inv_diag(i) = Scalar(1) / a;
        if (!ok && i < first_bad) first_bad = i;
      },
      Kokkos::Min<ordinal_t>(bad));
  if (bad < f.n) {
    Scalar value = 0;
    Kokkos::deep_copy(space, value, Kokkos::subview(f.inv_diag, bad));
    space.fence();
    throw PivotError("triangular solve: zero or non-finite diagonal", bad,
                     double(value == Scalar(0) ? Scalar(0) : Scalar(1) / value));
  }
}

}  // namespace trellis::detail
