#pragma once
// Per-subdomain DAG analysis on the device (seed 000, Algorithm 4.2): one
// team per subdomain assigns levels to its rows; then the explicit per-level
// row lists (vertex-centric solves) and entry lists (edge-centric solves).
#include <Kokkos_Core.hpp>
#include <climits>
#include <vector>

#include "trellis/core/level_sets.hpp"
#include "trellis/core/types.hpp"
#include "trellis/core/view_arena.hpp"
#include "trellis/trsv/detail/launch_shape.hpp"

namespace trellis::dd {

/// Levels of one strict triangle (lower: a row waits on smaller columns,
/// upper: on larger ones), grouped by subdomain. Level g of the whole matrix
/// belongs to one subdomain: subdomain s has levels [level_begin(s), level_begin(s+1)).
template <class Device>
struct SubdomainSchedule {
  Kokkos::View<ordinal_t*, Device> level_begin;  // num_subdomains + 1
  Kokkos::View<offset_t*, Device> level_ptr;     // rows of level g: level_rows[level_ptr(g), level_ptr(g+1))
  Kokkos::View<ordinal_t*, Device> level_rows;
  Kokkos::View<offset_t*, Device> edge_ptr;   // entries of level g's rows: [edge_ptr(g), edge_ptr(g+1))
  Kokkos::View<offset_t*, Device> row_edge_ptr;  // entries of row level_rows(p): [row_edge_ptr(p), row_edge_ptr(p+1))
  Kokkos::View<ordinal_t*, Device> edge_row;  // the row of each such entry
  Kokkos::View<offset_t*, Device> edge_pos;   // its position in the triangle's CSR arrays
  ordinal_t total_levels = 0;
  ordinal_t max_levels = 0;  // most levels of any subdomain
};

namespace detail {

/// Algorithm 4.2: row_level(i) for the rows of each subdomain, and the level
/// count of each subdomain. A row joins level l when all its dependencies
/// have levels < l; `marked` in scratch holds the rows joining this round.
template <class Device>
void assign_subdomain_levels(Kokkos::View<const offset_t*, Device> map,
                             Kokkos::View<const ordinal_t*, Device> col,
                             Kokkos::View<const ordinal_t*, Device> sub_start, ordinal_t max_rows,
                             Kokkos::View<ordinal_t*, Device> row_level,
                             Kokkos::View<ordinal_t*, Device> num_levels) {
  using exec = typename Device::execution_space;
  using policy = Kokkos::TeamPolicy<exec>;
  using member = typename policy::member_type;
  using scratch_view = Kokkos::View<int*, typename exec::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  constexpr ordinal_t unassigned = INT_MAX;
  const ordinal_t num_sub = ordinal_t(sub_start.extent(0)) - 1;
  const int team = trellis::detail::is_host_space<exec>() ? 1 : 256;
  Kokkos::parallel_for(
      "trellis::dd::assign_levels",
      policy(num_sub, team).set_scratch_size(0, Kokkos::PerTeam(scratch_view::shmem_size(max_rows))),
      KOKKOS_LAMBDA(const member& m) {
        const ordinal_t s = m.league_rank(), lo = sub_start(s), hi = sub_start(s + 1);
        scratch_view marked(m.team_scratch(0), max_rows);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, lo, hi), [&](ordinal_t i) {
          row_level(i) = unassigned;
          marked(i - lo) = 0;
        });
        m.team_barrier();
        for (ordinal_t level = 0;; ++level) {
          ordinal_t added = 0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(m, lo, hi),
              [&](ordinal_t i, ordinal_t& count) {
                if (row_level(i) != unassigned) return;
                for (offset_t k = map(i); k < map(i + 1); ++k)
                  if (row_level(col(k)) >= level) return;
                marked(i - lo) = 1;
                ++count;
              },
              added);
          m.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, lo, hi), [&](ordinal_t i) {
            if (marked(i - lo)) row_level(i) = level, marked(i - lo) = 0;
          });
          m.team_barrier();
          if (added == 0) {
            Kokkos::single(Kokkos::PerTeam(m), [&]() { num_levels(s) = level; });
            break;
          }
        }
      });
}

}  // namespace detail

/// Analysis of one strict triangle (CSR arrays of block rows; columns are
/// global rows of the same subdomain) over the subdomains sub_start. The
/// entries ("edges") are listed level by level, row by row, each row's in
/// CSR order. Arrays come from `arena`.
template <class Device>
SubdomainSchedule<Device> analyze_subdomains(Kokkos::View<const offset_t*, Device> map,
                                             Kokkos::View<const ordinal_t*, Device> col,
                                             Kokkos::View<const ordinal_t*, Device> sub_start,
                                             ordinal_t max_rows, ViewArena<Device>& arena) {
  using exec = typename Device::execution_space;
  using range = Kokkos::RangePolicy<exec>;
  const ordinal_t n = ordinal_t(map.extent(0)) - 1;
  const ordinal_t num_sub = ordinal_t(sub_start.extent(0)) - 1;
  Kokkos::View<ordinal_t*, Device> row_level = arena.template take<ordinal_t>("dd_row_level", n);  // each team fills its rows
  Kokkos::View<ordinal_t*, Device> num_levels = arena.template take<ordinal_t>("dd_num_levels", num_sub);
  detail::assign_subdomain_levels<Device>(map, col, sub_start, max_rows, row_level, num_levels);

  SubdomainSchedule<Device> s;
  s.level_begin = arena.template take<ordinal_t>("dd_level_begin", size_t(num_sub) + 1);
  auto level_begin = s.level_begin;
  Kokkos::parallel_scan(
      "trellis::dd::level_begin", range(0, num_sub),
      KOKKOS_LAMBDA(ordinal_t t, ordinal_t & sum, bool final) {
        sum += num_levels(t);
        if (final) level_begin(t + 1) = sum;
        if (final && t == 0) level_begin(0) = 0;
      });
  ordinal_t max_levels = 0;
  Kokkos::parallel_reduce(
      "trellis::dd::max_levels", range(0, num_sub),
      KOKKOS_LAMBDA(ordinal_t t, ordinal_t & m) { m = num_levels(t) > m ? num_levels(t) : m; },
      Kokkos::Max<ordinal_t>(max_levels));
  Kokkos::deep_copy(s.total_levels, Kokkos::subview(level_begin, num_sub));
  s.max_levels = max_levels;
  const ordinal_t total = s.total_levels;

  // Rows sorted by (global level, row): the key is level * n + row.
  Kokkos::View<std::int64_t*, Device> keys = arena.template take<std::int64_t>("dd_keys", n);
  Kokkos::View<offset_t*, Device> level_ptr = arena.template take<offset_t>("dd_level_ptr", size_t(total) + 1);
  Kokkos::parallel_for("trellis::dd::clear_level_ptr", range(0, total + 1), KOKKOS_LAMBDA(ordinal_t g) { level_ptr(g) = 0; });
  Kokkos::parallel_for(
      "trellis::dd::level_keys", Kokkos::TeamPolicy<exec>(num_sub, Kokkos::AUTO),
      KOKKOS_LAMBDA(const typename Kokkos::TeamPolicy<exec>::member_type& m) {
        const ordinal_t t = m.league_rank();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, sub_start(t), sub_start(t + 1)),
                             [&](ordinal_t i) {
                               const std::int64_t g = level_begin(t) + row_level(i);
                               keys(i) = g * n + i;
                               Kokkos::atomic_increment(&level_ptr(g + 1));
                             });
      });
  trellis::detail::sort_keys<Device>(keys);
  Kokkos::parallel_scan(
      "trellis::dd::level_ptr", range(0, total + 1),
      KOKKOS_LAMBDA(ordinal_t g, offset_t & sum, bool final) {
        sum += level_ptr(g);
        if (final) level_ptr(g) = sum;
      });
  s.level_ptr = level_ptr;
  s.level_rows = arena.template take<ordinal_t>("dd_level_rows", n);
  auto level_rows = s.level_rows;
  // Entries in the same order: row by row of level_rows.
  Kokkos::View<offset_t*, Device> entry_start = arena.template take<offset_t>("dd_entry_start", size_t(n) + 1);
  Kokkos::parallel_scan(
      "trellis::dd::entry_start", range(0, n), KOKKOS_LAMBDA(ordinal_t p, offset_t & sum, bool final) {
        const ordinal_t i = ordinal_t(keys(p) % n);
        if (final) level_rows(p) = i, entry_start(p) = sum;
        sum += map(i + 1) - map(i);
        if (final && p == n - 1) entry_start(n) = sum;
      });
  s.row_edge_ptr = entry_start;
  const offset_t nnz = offset_t(col.extent(0));
  s.edge_row = arena.template take<ordinal_t>("dd_edge_row", nnz);
  s.edge_pos = arena.template take<offset_t>("dd_edge_pos", nnz);
  s.edge_ptr = arena.template take<offset_t>("dd_edge_ptr", size_t(total) + 1);
  auto edge_row = s.edge_row;
  auto edge_pos = s.edge_pos;
  auto edge_ptr = s.edge_ptr;
  Kokkos::parallel_for(
      "trellis::dd::edges", range(0, n), KOKKOS_LAMBDA(ordinal_t p) {
        const ordinal_t i = level_rows(p);
        offset_t e = entry_start(p);
        for (offset_t k = map(i); k < map(i + 1); ++k, ++e) edge_row(e) = i, edge_pos(e) = k;
      });
  Kokkos::parallel_for(
      "trellis::dd::edge_ptr", range(0, total + 1),
      KOKKOS_LAMBDA(ordinal_t g) { edge_ptr(g) = entry_start(level_ptr(g)); });
  return s;
}

}  // namespace trellis::dd
