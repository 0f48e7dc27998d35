#pragma once
// Level-set analysis of a triangular factor (seed 002, section 3; Table 4's
// #levels and parallelism). Row i of a lower (upper) solve depends on every
// row j < i (j > i) it has an entry in; level(i) = 1 + max level over its
// dependencies, 0 for rows with none. Rows of one level are independent.
//
// Works on any square matrix: only entries in the chosen strict triangle count,
// so a full matrix A gives the levels of its L (or U) factor directly.
//
// Two implementations that must agree: a serial host reference and a device
// analysis (Kahn's algorithm, one kernel per level over the current frontier).
#include <Kokkos_Core.hpp>
#include <KokkosKernels_Sorting.hpp>
#include <Kokkos_Sort.hpp>
#include <algorithm>
#include <vector>

#include "trellis/core/backend.hpp"
#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/triangle.hpp"

namespace trellis {

template <class Device>
struct LevelSets {
  Triangle triangle = Triangle::lower;
  ordinal_t num_rows = 0;
  ordinal_t num_levels = 0;
  /// Rows in level order, ascending within a level (deterministic).
  Kokkos::View<ordinal_t*, Device> level_rows;
  /// level_rows[level_ptr[l] .. level_ptr[l+1]) are the rows of level l.
  Kokkos::View<offset_t*, Device> level_ptr;
  Kokkos::View<offset_t*, Kokkos::HostSpace> level_ptr_host;  // for launching per level
  Kokkos::View<ordinal_t*, Device> row_level;                 // level of each row

  ordinal_t rows_in_level(ordinal_t l) const { return ordinal_t(level_ptr_host(l + 1) - level_ptr_host(l)); }
  /// Largest number of rows in one level.
  ordinal_t max_parallelism() const {
    ordinal_t m = 0;
    for (ordinal_t l = 0; l < num_levels; ++l) m = std::max(m, rows_in_level(l));
    return m;
  }
  /// Rows per level on average (seed 002's "parallelism").
  double avg_parallelism() const { return num_levels ? double(num_rows) / num_levels : 0.0; }
};

namespace detail {
/// row_level[i] = level of row i (row_level has A.num_rows entries); returns
/// the number of levels. Serial, in the solve's order.
inline ordinal_t host_row_levels(const HostCsr& A, Triangle tri, ordinal_t* row_level) {
  if (!A.is_square()) throw StructureError("analyze_levels: matrix is not square");
  const ordinal_t n = A.num_rows;
  ordinal_t num_levels = 0;
  for (ordinal_t step = 0; step < n; ++step) {
    const ordinal_t i = tri == Triangle::lower ? step : n - 1 - step;
    ordinal_t lev = 0;
    for (offset_t k = A.row_map(i); k < A.row_map(i + 1); ++k) {
      const ordinal_t j = A.entries(k);
      if (in_strict_triangle(tri, i, j)) lev = std::max(lev, row_level[j] + 1);
    }
    row_level[i] = lev;
    num_levels = std::max(num_levels, lev + 1);
  }
  return n == 0 ? 0 : num_levels;
}
}  // namespace detail

/// The number of levels alone (no level lists): what a choice between
/// algorithms needs. A's rows sorted by column (canonical CSR, which the
/// caller has checked): a row's strict triangle is then its prefix (lower)
/// or its suffix (upper), read alone, half the entries host_row_levels reads.
inline ordinal_t count_levels_host(const HostCsr& A, Triangle tri) {
  if (!A.is_square()) throw StructureError("count_levels: matrix is not square");
  const ordinal_t n = A.num_rows;
  std::vector<ordinal_t> row_level(size_t(std::max<ordinal_t>(n, 0)));
  ordinal_t num_levels = 0;
  for (ordinal_t step = 0; step < n; ++step) {
    ordinal_t lev = 0, i;
    if (tri == Triangle::lower) {
      i = step;
      for (offset_t k = A.row_map(i); k < A.row_map(i + 1) && A.entries(k) < i; ++k)
        lev = std::max(lev, row_level[A.entries(k)] + 1);
    } else {
      i = n - 1 - step;
      for (offset_t k = A.row_map(i + 1); k > A.row_map(i) && A.entries(k - 1) > i; --k)
        lev = std::max(lev, row_level[A.entries(k - 1)] + 1);
    }
    row_level[i] = lev;
    num_levels = std::max(num_levels, lev + 1);
  }
  return n == 0 ? 0 : num_levels;
}

/// Serial reference on the host.
inline LevelSets<HostDevice> analyze_levels_host(const HostCsr& A, Triangle tri) {
  if (!A.is_square()) throw StructureError("analyze_levels: matrix is not square");
  const ordinal_t n = A.num_rows;
  LevelSets<HostDevice> s;
  s.triangle = tri;
  s.num_rows = n;
  s.row_level = Kokkos::View<ordinal_t*, HostDevice>("trellis::row_level", n);
  s.num_levels = detail::host_row_levels(A, tri, s.row_level.data());
  s.level_ptr = Kokkos::View<offset_t*, HostDevice>("trellis::level_ptr", size_t(s.num_levels) + 1);
  for (ordinal_t i = 0; i < n; ++i) ++s.level_ptr(s.row_level(i) + 1);
  for (ordinal_t l = 0; l < s.num_levels; ++l) s.level_ptr(l + 1) += s.level_ptr(l);
  s.level_rows = Kokkos::View<ordinal_t*, HostDevice>("trellis::level_rows", n);
  std::vector<offset_t> next(s.level_ptr.data(), s.level_ptr.data() + s.num_levels);
  for (ordinal_t i = 0; i < n; ++i) s.level_rows(next[s.row_level(i)]++) = i;
  s.level_ptr_host = s.level_ptr;
  return s;
}

namespace detail {

/// Sorts a device array of keys ascending (std::sort on host spaces).
template <class Device, class View>
void sort_keys(View keys) {
  using exec = typename Device::execution_space;
  if (keys.extent(0) < 2) return;
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Device::memory_space>::accessible) {
    exec().fence();
    std::sort(keys.data(), keys.data() + keys.extent(0));
  } else {
    KokkosKernels::Impl::bitonicSort<View, exec, std::int64_t>(keys);
  }
}

}  // namespace detail

/// Device analysis: Kahn's algorithm. The frontier of level l is the list of
/// rows whose last dependency was finished in level l-1; the frontiers are
/// appended one after another, then sorted by (level, row) for determinism.
template <class Scalar, class Device>
LevelSets<Device> analyze_levels(const CsrMatrix<Scalar, Device>& A, Triangle tri) {
  using exec = typename Device::execution_space;
  using policy = trellis::RangePolicy<exec>;
  if (!A.is_square()) throw StructureError("analyze_levels: matrix is not square");
  const ordinal_t n = A.num_rows;
  auto row_map = A.row_map;
  auto entries = A.entries;

  // Dependency counts, and the dependents of each row (the transposed pattern).
  Kokkos::View<ordinal_t*, Device> pending("trellis::pending", n);
  Kokkos::View<offset_t*, Device> dep_ptr("trellis::dependents_ptr", size_t(n) + 1);
  Kokkos::parallel_for(
      "trellis::levels::count", policy(0, n), KOKKOS_LAMBDA(ordinal_t i) {
        ordinal_t c = 0;
        for (offset_t k = row_map(i); k < row_map(i + 1); ++k) {
          const ordinal_t j = entries(k);
          if (in_strict_triangle(tri, i, j)) {
            ++c;
            Kokkos::atomic_increment(&dep_ptr(j + 1));
          }
        }
        pending(i) = c;
      });
  Kokkos::parallel_scan(
      "trellis::levels::scan", policy(0, n + 1), KOKKOS_LAMBDA(ordinal_t i, offset_t & sum, bool final) {
        sum += dep_ptr(i);
        if (final) dep_ptr(i) = sum;
      });
  offset_t num_edges = 0;
  Kokkos::deep_copy(num_edges, Kokkos::subview(dep_ptr, n));
  Kokkos::View<ordinal_t*, Device> dependents(Kokkos::ViewAllocateWithoutInitializing("trellis::dependents"),
                                              num_edges);
  {
    Kokkos::View<offset_t*, Device> cursor(Kokkos::ViewAllocateWithoutInitializing("trellis::cursor"), n);
    Kokkos::deep_copy(cursor, Kokkos::subview(dep_ptr, std::make_pair(0, n)));
    Kokkos::parallel_for(
        "trellis::levels::fill", policy(0, n), KOKKOS_LAMBDA(ordinal_t i) {
          for (offset_t k = row_map(i); k < row_map(i + 1); ++k) {
            const ordinal_t j = entries(k);
            if (in_strict_triangle(tri, i, j)) dependents(Kokkos::atomic_fetch_add(&cursor(j), offset_t(1))) = i;
          }
        });
  }

  // Level 0: rows with no dependencies, compacted in row order.
  Kokkos::View<ordinal_t*, Device> order(Kokkos::ViewAllocateWithoutInitializing("trellis::order"), n);
  Kokkos::View<ordinal_t*, Device> row_level("trellis::row_level", n);
  Kokkos::View<ordinal_t, Device> tail("trellis::tail");
  Kokkos::parallel_scan(
      "trellis::levels::roots", policy(0, n), KOKKOS_LAMBDA(ordinal_t i, ordinal_t & pos, bool final) {
        if (pending(i) == 0) {
          if (final) order(pos) = i;
          ++pos;
        }
        if (final && i == n - 1) tail() = pos;
      });
  std::vector<offset_t> ptr{0};
  ordinal_t end = 0;
  if (n > 0) Kokkos::deep_copy(end, tail);
  while (end > ptr.back()) {
    const ordinal_t begin = ptr.back();
    ptr.push_back(end);
    const ordinal_t next_level = ordinal_t(ptr.size()) - 1;
    Kokkos::parallel_for(
        "trellis::levels::frontier", policy(begin, end), KOKKOS_LAMBDA(ordinal_t p) {
          const ordinal_t r = order(p);
          for (offset_t k = dep_ptr(r); k < dep_ptr(r + 1); ++k) {
            const ordinal_t i = dependents(k);
            if (Kokkos::atomic_fetch_add(&pending(i), -1) == 1) {
              row_level(i) = next_level;
              order(Kokkos::atomic_fetch_add(&tail(), 1)) = i;
            }
          }
        });
    Kokkos::deep_copy(end, tail);
  }
  if (ptr.back() != n) throw StructureError("analyze_levels: dependency cycle (matrix pattern is corrupt)");

  // Sort each frontier by row: keys (level, row) sorted globally.
  Kokkos::View<std::int64_t*, Device> keys(Kokkos::ViewAllocateWithoutInitializing("trellis::keys"), n);
  Kokkos::parallel_for(
      "trellis::levels::keys", policy(0, n), KOKKOS_LAMBDA(ordinal_t p) {
        const ordinal_t i = order(p);
        keys(p) = std::int64_t(row_level(i)) * n + i;
      });
  detail::sort_keys<Device>(keys);
  Kokkos::parallel_for(
      "trellis::levels::unkey", policy(0, n), KOKKOS_LAMBDA(ordinal_t p) { order(p) = ordinal_t(keys(p) % n); });

  LevelSets<Device> s;
  s.triangle = tri;
  s.num_rows = n;
  s.num_levels = ordinal_t(ptr.size()) - 1;
  s.level_rows = order;
  s.row_level = row_level;
  s.level_ptr_host = Kokkos::View<offset_t*, Kokkos::HostSpace>("trellis::level_ptr_host", ptr.size());
  std::copy(ptr.begin(), ptr.end(), s.level_ptr_host.data());
  s.level_ptr = Kokkos::View<offset_t*, Device>("trellis::level_ptr", ptr.size());
  Kokkos::deep_copy(s.level_ptr, s.level_ptr_host);
  return s;
}

}  // namespace trellis
