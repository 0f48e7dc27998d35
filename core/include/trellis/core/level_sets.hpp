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
// analysis (one sync-free pass over the rows in solve order).
#include <Kokkos_Core.hpp>
#include <Kokkos_Sort.hpp>
#include <algorithm>
#include <string>
#include <vector>

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__) && __has_include(<cub/device/device_radix_sort.cuh>)
#include <cub/device/device_radix_sort.cuh>
#define TRELLIS_LEVELS_CUB_SORT 1
#endif

#include "trellis/core/backend.hpp"
#include "trellis/core/csr_matrix.hpp"
#include "trellis/core/kokkos_compat.hpp"
#include "trellis/core/tickets.hpp"
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
/// the number of levels. Serial, in the solve's order; A's arrays host-accessible.
template <class Matrix>
ordinal_t host_row_levels(const Matrix& A, Triangle tri, ordinal_t* row_level) {
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
    compat::bitonic_sort<View, exec, std::int64_t>(keys);
  }
}

/// The rows ordered by (level, row), on the default instance. On CUDA one
/// stable radix sort of the rows (entered ascending) by their level's bits
/// alone: a few launches, where the bitonic sort of the combined keys
/// level * n + row takes some 35 (0.5 ms a triangle on an H200 in the global
/// ILU0's setup, perf_tests/journal/RESULTS.md). Elsewhere that bitonic sort (std::sort on host).
template <class Device>
Kokkos::View<ordinal_t*, Device> rows_by_level(Kokkos::View<const ordinal_t*, Device> row_level, ordinal_t num_levels) {
  using exec = typename Device::execution_space;
  using policy = trellis::RangePolicy<exec>;
  const ordinal_t n = ordinal_t(row_level.extent(0));
  Kokkos::View<ordinal_t*, Device> order(Kokkos::ViewAllocateWithoutInitializing("trellis::order"), n);
#if defined(TRELLIS_LEVELS_CUB_SORT)
  if constexpr (std::is_same<exec, Kokkos::Cuda>::value) {
    if (n < 2) {
      if (n == 1) Kokkos::deep_copy(order, ordinal_t(0));
      return order;
    }
    Kokkos::View<ordinal_t*, Device> rows(Kokkos::ViewAllocateWithoutInitializing("trellis::levels::rows_in"), n);
    Kokkos::View<unsigned*, Device> sorted_levels(Kokkos::ViewAllocateWithoutInitializing("trellis::levels::sorted"),
                                                  n);
    Kokkos::parallel_for(
        "trellis::levels::iota", policy(0, n), KOKKOS_LAMBDA(ordinal_t i) { rows(i) = i; });
    int bits = 1;  // levels 0 .. num_levels - 1
    while (bits < 31 && (ordinal_t(1) << bits) < num_levels) ++bits;
    const auto* keys_in = reinterpret_cast<const unsigned*>(row_level.data());  // levels are >= 0
    const cudaStream_t stream = exec().cuda_stream();
    std::size_t bytes = 0;
    cudaError_t err = cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in, sorted_levels.data(), rows.data(),
                                                      order.data(), int(n), 0, bits, stream);
    Kokkos::View<char*, Device> temp(Kokkos::ViewAllocateWithoutInitializing("trellis::levels::sort_space"),
                                     std::max<std::size_t>(bytes, 1));
    if (err == cudaSuccess)
      err = cub::DeviceRadixSort::SortPairs(temp.data(), bytes, keys_in, sorted_levels.data(), rows.data(),
                                            order.data(), int(n), 0, bits, stream);
    if (err != cudaSuccess)
      throw Error(std::string("analyze_levels: the radix sort of the rows by level failed: ") +
                  cudaGetErrorString(err));
    exec().fence();  // temp and the inputs are freed on return
    return order;
  }
#endif
  (void)num_levels;
  Kokkos::View<std::int64_t*, Device> keys(Kokkos::ViewAllocateWithoutInitializing("trellis::keys"), n);
  Kokkos::parallel_for(
      "trellis::levels::keys", policy(0, n),
      KOKKOS_LAMBDA(ordinal_t i) { keys(i) = std::int64_t(row_level(i)) * n + i; });
  sort_keys<Device>(keys);
  Kokkos::parallel_for(
      "trellis::levels::unkey", policy(0, n), KOKKOS_LAMBDA(ordinal_t p) { order(p) = ordinal_t(keys(p) % n); });
  return order;
}

}  // namespace detail

/// Device analysis in one pass: level(i) = 1 + the largest level of row i's
/// dependencies, computed on GPUs by one vector group per row as soon as
/// those are known (on host backends by one thread in solve order). A row's level is its own ready flag (-1 until set),
/// and rows are handed out by ticket in solve order, in which every dependency comes first: a row only waits on rows
/// already taken by running groups (core/tickets.hpp). Two host round trips in all (the level count and the level
/// pointers), whatever the number of levels: a pass per level would cost a launch and a round trip each. Rows are then
/// sorted by (level, row).
template <class Scalar, class Device>
LevelSets<Device> analyze_levels(const CsrMatrix<Scalar, Device>& A, Triangle tri) {
  using exec = typename Device::execution_space;
  using policy = trellis::RangePolicy<exec>;
  using member_type = typename trellis::TeamPolicy<exec>::member_type;
  if (!A.is_square()) throw StructureError("analyze_levels: matrix is not square");
  const ordinal_t n = A.num_rows;
  auto row_map = A.row_map;
  auto entries = A.entries;
  const bool lower = tri == Triangle::lower;

  Kokkos::View<ordinal_t*, Device> row_level(Kokkos::ViewAllocateWithoutInitializing("trellis::row_level"), n);
  if constexpr (detail::is_host_space<exec>()) {
    // Host threads must not spin: with more threads than free cores (MPI
    // ranks times threads, a loaded machine) a waiting thread burns the time
    // slice of the one it waits on. One pass in solve order, as the reference.
    exec().fence();  // A's arrays may come from kernels still running
    detail::host_row_levels(A, tri, row_level.data());
  } else {
    Kokkos::deep_copy(row_level, ordinal_t(-1));
    Kokkos::View<int, Device> ticket("trellis::levels::ticket");
    detail::for_each_ticket(
        exec(), ticket, n, "trellis::levels::rows", detail::max_vector_width<exec>(),
        KOKKOS_LAMBDA(const member_type& m, int t) {
          const ordinal_t i = lower ? t : n - 1 - t;
          const offset_t k0 = row_map(i), k1 = row_map(i + 1);
          detail::wait_until_ready(m, k0, k1, [&](offset_t k) {
            const ordinal_t j = entries(k);
            return !in_strict_triangle(tri, i, j) || Kokkos::volatile_load(&row_level(j)) >= 0;
          });
          ordinal_t deepest = -1;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(m, k0, k1),
              [&](offset_t k, ordinal_t& most) {
                const ordinal_t j = entries(k);
                if (in_strict_triangle(tri, i, j)) {
                  const ordinal_t l = Kokkos::volatile_load(&row_level(j));
                  if (l > most) most = l;
                }
              },
              Kokkos::Max<ordinal_t>(deepest));
          if (deepest < -1) deepest = -1;  // no dependency: the reduction's identity
          Kokkos::single(Kokkos::PerThread(m), [&]() { Kokkos::volatile_store(&row_level(i), deepest + 1); });
        });
  }

  ordinal_t num_levels = 0;
  Kokkos::parallel_reduce(
      "trellis::levels::count_levels", policy(0, n),
      KOKKOS_LAMBDA(ordinal_t i, ordinal_t & most) {
        if (row_level(i) + 1 > most) most = row_level(i) + 1;
      },
      Kokkos::Max<ordinal_t>(num_levels));
  if (n == 0) num_levels = 0;
  Kokkos::View<offset_t*, Device> level_ptr("trellis::level_ptr", size_t(num_levels) + 1);
  Kokkos::parallel_for(
      "trellis::levels::level_sizes", policy(0, n),
      KOKKOS_LAMBDA(ordinal_t i) { compat::atomic_increment(&level_ptr(row_level(i) + 1)); });
  Kokkos::parallel_scan(
      "trellis::levels::level_ptr", policy(0, num_levels + 1), KOKKOS_LAMBDA(ordinal_t l, offset_t & sum, bool final) {
        sum += level_ptr(l);
        if (final) level_ptr(l) = sum;
      });

  const Kokkos::View<ordinal_t*, Device> order = detail::rows_by_level<Device>(row_level, num_levels);

  LevelSets<Device> s;
  s.triangle = tri;
  s.num_rows = n;
  s.num_levels = num_levels;
  s.level_rows = order;
  s.row_level = row_level;
  s.level_ptr = level_ptr;
  s.level_ptr_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), level_ptr);
  return s;
}

}  // namespace trellis
