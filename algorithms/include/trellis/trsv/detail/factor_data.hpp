#pragma once
// What a triangular solve needs after analysis: the strict triangle in CSR
// and (for the column algorithms) CSC with maps back to T's value positions,
// the inverse diagonal, the level sets, the launch plan of the level-set
// kernels, and the flags / counters / ticket of the sync-free kernels.
#include <Kokkos_Core.hpp>
#include <KokkosKernels_SparseUtils.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/errors.hpp"
#include "trellis/core/level_sets.hpp"
#include "trellis/core/triangle.hpp"
#include "trellis/trsv/detail/launch_shape.hpp"

namespace trellis::detail {

/// One launch of a level-set kernel: levels [first_level, last_level) with
/// vector width K. More than one level only when each fits one team (a
/// chain run by a single team with barriers between levels).
struct LevelLaunch {
  ordinal_t first_level, last_level;
  int vector_width;
  bool chained;
};

/// The device data of a factor, as a plain bundle of Views that kernels
/// capture by value.
template <class Scalar, class Device>
struct FactorViews {
  Kokkos::View<offset_t*, Device> row_map;
  Kokkos::View<ordinal_t*, Device> col_ind;
  Kokkos::View<Scalar*, Device> row_values;
  Kokkos::View<offset_t*, Device> col_map;
  Kokkos::View<ordinal_t*, Device> row_ind;
  Kokkos::View<Scalar*, Device> col_values;
  Kokkos::View<Scalar*, Device> inv_diag;
  // The opposite strict triangle (Gauss-Seidel sweeps read x_k through it);
  // empty for plain triangular solves.
  Kokkos::View<offset_t*, Device> other_map;
  Kokkos::View<ordinal_t*, Device> other_ind;
  Kokkos::View<Scalar*, Device> other_values;
  Kokkos::View<ordinal_t*, Device> level_rows;
  Kokkos::View<offset_t*, Device> level_ptr;
  Kokkos::View<int*, Device> ready;
  Kokkos::View<int*, Device> counters;
  Kokkos::View<int*, Device> deps;
  Kokkos::View<int, Device> ticket;
};

template <class Scalar, class Device>
struct FactorData {
  using exec = typename Device::execution_space;
  template <class T>
  using view = Kokkos::View<T, Device>;

  ordinal_t n = 0;
  offset_t nnz_strict = 0;
  Triangle triangle = Triangle::lower;
  bool unit_diagonal = false;
  bool has_csc = false;
  bool has_other = false;

  // Strict triangle, CSR, and where each entry's value comes from in T.
  view<offset_t*> row_map;
  view<ordinal_t*> col_ind;
  view<Scalar*> row_values;
  view<offset_t*> row_source;
  // Strict triangle, CSC (column j lists the rows that depend on j).
  view<offset_t*> col_map;
  view<ordinal_t*> row_ind;
  view<Scalar*> col_values;
  view<offset_t*> col_source;
  // Diagonal: position in T (-1: none), and 1/d used by the solves.
  view<offset_t*> diag_source;
  view<Scalar*> inv_diag;
  // Opposite strict triangle, CSR (Gauss-Seidel only).
  view<offset_t*> other_map;
  view<ordinal_t*> other_ind;
  view<Scalar*> other_values;
  view<offset_t*> other_source;

  LevelSets<Device> levels;
  std::vector<LevelLaunch> launches;

  // Sync-free state. Flags and counters count solves ("epochs") so that they
  // never need resetting between solves; the ticket resets itself.
  view<int*> ready;        // ready(i) == epoch: x(i) published in this solve
  view<int*> counters;     // counters(i) == epoch * deps(i): all dependencies in
  view<int*> deps;         // dependencies of each row (strict row length)
  view<int> ticket;        // next unknown to hand out, in level order
  int max_deps = 0;
  int epoch = 0;
  // Copy of an input that aliases x, for kernels that overwrite x first
  // (elmr-value); allocated on first need.
  view<Scalar*> work;

  FactorViews<Scalar, Device> views() const {
    return {row_map,      col_ind,           row_values,       col_map, row_ind,
            col_values,   inv_diag,          other_map,        other_ind, other_values,
            levels.level_rows, levels.level_ptr, ready,        counters, deps,
            ticket};
  }
};

/// Largest power of two <= v, at least 1.
inline int floor_pow2(int v) {
  int p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

/// Symbolic phase: pattern of the strict triangle, CSC with source maps, the
/// diagonal positions, levels (on the device) and the level launch plan.
template <class Scalar, class Device>
void analyze_factor(FactorData<Scalar, Device>& d, const CsrMatrix<Scalar, Device>& T, Triangle tri,
                    bool unit_diagonal, bool need_csc, bool keep_other = false) {
  using exec = typename Device::execution_space;
  using policy = Kokkos::RangePolicy<exec>;
  if (!T.is_square())
    throw StructureError("triangular solve: matrix is " + std::to_string(T.num_rows) + "x" +
                         std::to_string(T.num_cols) + ", not square");
  const ordinal_t n = T.num_rows;
  d.n = n;
  d.triangle = tri;
  d.unit_diagonal = unit_diagonal;
  auto t_map = T.row_map;
  auto t_ent = T.entries;

  // Strict-triangle CSR pattern and the diagonal's position.
  d.row_map = Kokkos::View<offset_t*, Device>("trsv_row_map", size_t(n) + 1);
  d.diag_source = Kokkos::View<offset_t*, Device>("trsv_diag_source", n);
  auto row_map = d.row_map;
  auto diag_source = d.diag_source;
  Kokkos::parallel_for(
      "trellis::trsv::count", policy(0, n), KOKKOS_LAMBDA(ordinal_t i) {
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
      "trellis::trsv::scan", policy(0, n + 1),
      KOKKOS_LAMBDA(ordinal_t i, offset_t & sum, bool final) {
        sum += row_map(i);
        if (final) row_map(i) = sum;
      });
  Kokkos::deep_copy(d.nnz_strict, Kokkos::subview(row_map, n));
  d.col_ind = Kokkos::View<ordinal_t*, Device>("trsv_col_ind", d.nnz_strict);
  d.row_values = Kokkos::View<Scalar*, Device>("trsv_row_values", d.nnz_strict);
  d.row_source = Kokkos::View<offset_t*, Device>("trsv_row_source", d.nnz_strict);
  auto col_ind = d.col_ind;
  auto row_source = d.row_source;
  Kokkos::parallel_for(
      "trellis::trsv::fill", policy(0, n), KOKKOS_LAMBDA(ordinal_t i) {
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
        "trellis::trsv::missing_diagonal", policy(0, n),
        KOKKOS_LAMBDA(ordinal_t i, ordinal_t & m) {
          if (diag_source(i) < 0 && i < m) m = i;
        },
        Kokkos::Min<ordinal_t>(missing));
    if (missing < n)
      throw PivotError("triangular solve: no diagonal entry stored", missing, 0.0);
  }

  // Dependency counts (strict row lengths), for the counter-based kernels.
  d.deps = Kokkos::View<int*, Device>("trsv_deps", n);
  auto deps = d.deps;
  int max_deps = 0;
  Kokkos::parallel_reduce(
      "trellis::trsv::deps", policy(0, n),
      KOKKOS_LAMBDA(ordinal_t i, int& m) {
        deps(i) = int(row_map(i + 1) - row_map(i));
        if (deps(i) > m) m = deps(i);
      },
      Kokkos::Max<int>(max_deps));
  d.max_deps = n ? max_deps : 0;

  if (need_csc) {
    // Column counts, scan, fill with atomic cursors, then sort each column by
    // row (carrying the source positions) so the CSC is deterministic.
    d.col_map = Kokkos::View<offset_t*, Device>("trsv_col_map", size_t(n) + 1);
    auto col_map = d.col_map;
    Kokkos::parallel_for(
        "trellis::trsv::csc_count", policy(0, d.nnz_strict),
        KOKKOS_LAMBDA(offset_t k) { Kokkos::atomic_increment(&col_map(col_ind(k) + 1)); });
    Kokkos::parallel_scan(
        "trellis::trsv::csc_scan", policy(0, n + 1),
        KOKKOS_LAMBDA(ordinal_t j, offset_t & sum, bool final) {
          sum += col_map(j);
          if (final) col_map(j) = sum;
        });
    d.row_ind = Kokkos::View<ordinal_t*, Device>("trsv_row_ind", d.nnz_strict);
    d.col_values = Kokkos::View<Scalar*, Device>("trsv_col_values", d.nnz_strict);
    d.col_source = Kokkos::View<offset_t*, Device>("trsv_col_source", d.nnz_strict);
    auto row_ind = d.row_ind;
    auto col_source = d.col_source;
    Kokkos::View<offset_t*, Device> cursor(Kokkos::ViewAllocateWithoutInitializing("cursor"), n);
    Kokkos::deep_copy(cursor, Kokkos::subview(col_map, std::make_pair(0, n)));
    Kokkos::parallel_for(
        "trellis::trsv::csc_fill", policy(0, n), KOKKOS_LAMBDA(ordinal_t i) {
          for (offset_t p = row_map(i); p < row_map(i + 1); ++p) {
            const offset_t q = Kokkos::atomic_fetch_add(&cursor(col_ind(p)), offset_t(1));
            row_ind(q) = i;
            col_source(q) = row_source(p);
          }
        });
    KokkosKernels::Impl::sort_crs_matrix<exec>(col_map, row_ind, col_source);
    d.has_csc = true;
  }

  if (keep_other) {
    const Triangle opposite = tri == Triangle::lower ? Triangle::upper : Triangle::lower;
    d.other_map = Kokkos::View<offset_t*, Device>("trsv_other_map", size_t(n) + 1);
    auto other_map = d.other_map;
    Kokkos::parallel_scan(
        "trellis::trsv::other_scan", policy(0, n),
        KOKKOS_LAMBDA(ordinal_t i, offset_t & sum, bool final) {
          for (offset_t k = t_map(i); k < t_map(i + 1); ++k)
            sum += in_strict_triangle(opposite, i, t_ent(k)) ? 1 : 0;
          if (final) other_map(i + 1) = sum;
        });
    offset_t nnz_other = 0;
    Kokkos::deep_copy(nnz_other, Kokkos::subview(other_map, n));
    d.other_ind = Kokkos::View<ordinal_t*, Device>("trsv_other_ind", nnz_other);
    d.other_values = Kokkos::View<Scalar*, Device>("trsv_other_values", nnz_other);
    d.other_source = Kokkos::View<offset_t*, Device>("trsv_other_source", nnz_other);
    auto other_ind = d.other_ind;
    auto other_source = d.other_source;
    Kokkos::parallel_for(
        "trellis::trsv::other_fill", policy(0, n), KOKKOS_LAMBDA(ordinal_t i) {
          offset_t pos = other_map(i);
          for (offset_t k = t_map(i); k < t_map(i + 1); ++k)
            if (in_strict_triangle(opposite, i, t_ent(k))) {
              other_ind(pos) = t_ent(k);
              other_source(pos) = k;
              ++pos;
            }
        });
    d.has_other = true;
  }

  d.levels = analyze_levels(CsrMatrix<Scalar, Device>(n, n, row_map, col_ind, d.row_values), tri);

  // Launch plan: per level, K = lanes per row from the level's mean row
  // length (2..32, as in LEVR); consecutive levels small enough for one team
  // are chained into one launch.
  auto rows_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d.levels.level_rows);
  auto map_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_map);
  d.launches.clear();
  for (ordinal_t l = 0; l < d.levels.num_levels; ++l) {
    const offset_t p0 = d.levels.level_ptr_host(l), p1 = d.levels.level_ptr_host(l + 1);
    offset_t nnz = 0;
    for (offset_t p = p0; p < p1; ++p) nnz += map_h(rows_h(p) + 1) - map_h(rows_h(p));
    const int mean = int((nnz + (p1 - p0) - 1) / (p1 - p0));
    const int K_max = max_vector_width<exec>();
    const int K = std::min(K_max, std::max(std::min(2, K_max), floor_pow2(std::max(mean, 1))));
    const bool small = (p1 - p0) <= chain_rows<exec>(K);
    if (small && !d.launches.empty() && d.launches.back().chained &&
        d.launches.back().vector_width == K) {
      d.launches.back().last_level = l + 1;
    } else {
      d.launches.push_back({l, l + 1, K, small});
    }
  }

  d.ready = Kokkos::View<int*, Device>("trsv_ready", n);
  d.counters = Kokkos::View<int*, Device>("trsv_counters", n);
  d.ticket = Kokkos::View<int, Device>("trsv_ticket");
  d.epoch = 0;
}

/// Numeric phase: gathers values from T (and D from `diagonal` if given) and
/// checks every pivot; PivotError names the first bad row.
template <class Scalar, class Device>
void load_factor_values(FactorData<Scalar, Device>& d, const CsrMatrix<Scalar, Device>& T,
                        Kokkos::View<const Scalar*, Device> diagonal) {
  using exec = typename Device::execution_space;
  using policy = Kokkos::RangePolicy<exec>;
  if (T.num_rows != d.n || T.nnz() < d.nnz_strict)
    throw StructureError("triangular solve: numeric() got a matrix with a different pattern");
  if (diagonal.data() && diagonal.extent(0) != size_t(d.n))
    throw StructureError("triangular solve: diagonal has " + std::to_string(diagonal.extent(0)) +
                         " entries for " + std::to_string(d.n) + " rows");
  auto t_val = T.values;
  auto row_values = d.row_values;
  auto row_source = d.row_source;
  Kokkos::parallel_for(
      "trellis::trsv::gather_rows", policy(0, d.nnz_strict),
      KOKKOS_LAMBDA(offset_t k) { row_values(k) = t_val(row_source(k)); });
  if (d.has_csc) {
    auto col_values = d.col_values;
    auto col_source = d.col_source;
    Kokkos::parallel_for(
        "trellis::trsv::gather_cols", policy(0, d.nnz_strict),
        KOKKOS_LAMBDA(offset_t k) { col_values(k) = t_val(col_source(k)); });
  }
  if (d.has_other) {
    auto other_values = d.other_values;
    auto other_source = d.other_source;
    Kokkos::parallel_for(
        "trellis::trsv::gather_other", policy(0, offset_t(other_values.extent(0))),
        KOKKOS_LAMBDA(offset_t k) { other_values(k) = t_val(other_source(k)); });
  }
  d.inv_diag = Kokkos::View<Scalar*, Device>("trsv_inv_diag", d.n);
  auto inv_diag = d.inv_diag;
  auto diag_source = d.diag_source;
  const bool unit = d.unit_diagonal && !diagonal.data();
  const bool separate = diagonal.data() != nullptr;
  ordinal_t bad = d.n;
  Kokkos::parallel_reduce(
      "trellis::trsv::pivots", policy(0, d.n),
      KOKKOS_LAMBDA(ordinal_t i, ordinal_t & first_bad) {
        const Scalar a = unit ? Scalar(1) : separate ? diagonal(i) : t_val(diag_source(i));
        const bool ok = a != Scalar(0) && Kokkos::Experimental::isfinite(a) &&
                        Kokkos::Experimental::isfinite(Scalar(1) / a);
        inv_diag(i) = Scalar(1) / a;
        if (!ok && i < first_bad) first_bad = i;
      },
      Kokkos::Min<ordinal_t>(bad));
  if (bad < d.n) {
    Scalar value = 0;
    auto inv = Kokkos::subview(d.inv_diag, bad);
    Kokkos::deep_copy(value, inv);
    throw PivotError("triangular solve: zero or non-finite diagonal", bad,
                     double(value == Scalar(0) ? Scalar(0) : Scalar(1) / value));
  }
}

}  // namespace trellis::detail
