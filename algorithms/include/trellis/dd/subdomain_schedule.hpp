#pragma once
// Per-subdomain DAG analysis on the device (seed 000, Algorithm 4.2): one
// team per subdomain and triangle assigns levels to its rows and lists them
// level by level, with their entries (vertex-centric solves read the row
// lists, edge-centric ones the entry lists).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>

#include "trellis/core/backend.hpp"
#include "trellis/core/kokkos_compat.hpp"
#include "trellis/core/types.hpp"
#include "trellis/core/view_arena.hpp"

namespace trellis::dd {

/// Levels of one strict triangle (lower: a row waits on smaller columns,
/// upper: on larger ones), grouped by subdomain. Level g of the whole matrix
/// belongs to one subdomain: subdomain s has levels [level_begin(s), level_begin(s+1)).
template <class Device>
struct SubdomainSchedule {
  Kokkos::View<ordinal_t*, Device> level_begin;  // num_subdomains + 1
  Kokkos::View<offset_t*, Device> level_ptr;     // rows of level g: level_rows[level_ptr(g), level_ptr(g+1))
  Kokkos::View<ordinal_t*, Device> level_rows;
  Kokkos::View<offset_t*, Device> edge_ptr;      // entries of level g's rows: [edge_ptr(g), edge_ptr(g+1))
  Kokkos::View<offset_t*, Device> row_edge_ptr;  // entries of row level_rows(p): [row_edge_ptr(p), row_edge_ptr(p+1))
  Kokkos::View<ordinal_t*, Device> edge_row;     // the row of each such entry
  Kokkos::View<offset_t*, Device> edge_pos;      // its position in the triangle's CSR arrays
  ordinal_t total_levels = 0;
  ordinal_t max_levels = 0;  // most levels of any subdomain
};

namespace detail {

/// One triangle's arrays as the analysis kernels see them.
template <class Device>
struct TriangleAnalysis {
  Kokkos::View<const offset_t*, Device> map;
  Kokkos::View<const ordinal_t*, Device> col;
  Kokkos::View<ordinal_t*, Device> num_levels;  // per subdomain
  Kokkos::View<offset_t*, Device> level_start;  // at lo + l: where local level l starts, counted from lo
  Kokkos::View<ordinal_t*, Device> level_rows;
  Kokkos::View<offset_t*, Device> row_edge_ptr;
  Kokkos::View<ordinal_t*, Device> edge_row;
  Kokkos::View<offset_t*, Device> edge_pos;
  Kokkos::View<ordinal_t*, Device> level_begin;  // made on the host from num_levels
  Kokkos::View<offset_t*, Device> level_ptr;
  Kokkos::View<offset_t*, Device> edge_ptr;
};

/// Algorithm 4.2 for the rows of one subdomain [lo, hi) of one triangle: a
/// row joins level l when all its dependencies have levels < l. Each team
/// thread owns a contiguous block of the rows, so one team scan of the
/// threads' counts places a level's rows, ascending, as they join: the
/// schedule comes out in level order without a sort. Then the entries of the
/// rows in that order. `level` (team scratch, one slot per row) holds the
/// rows' levels. A pass reads other threads' slots and writes its own, so
/// reads and writes are kept apart by a barrier (the joining rows held as a
/// bit mask, 64 rows at a time): no thread reads a slot while it is written.
template <class Device, class Member, class Levels>
KOKKOS_INLINE_FUNCTION void schedule_subdomain(const Member& m, const TriangleAnalysis<Device>& t, ordinal_t s,
                                               ordinal_t lo, ordinal_t hi, const Levels& level) {
  constexpr ordinal_t unassigned = INT_MAX;
  const ordinal_t rows = hi - lo, team = m.team_size();
  const ordinal_t per_thread = (rows + team - 1) / team;
  auto block_start = [&](ordinal_t r) { return lo + (r * per_thread < rows ? r * per_thread : rows); };
  const ordinal_t mine_lo = block_start(m.team_rank()), mine_hi = block_start(m.team_rank() + 1);
  for (ordinal_t i = mine_lo; i < mine_hi; ++i) level(i - lo) = unassigned;
  m.team_barrier();
  offset_t placed = 0;
  for (ordinal_t l = 0;; ++l) {
    // A row joining now gets l before later chunks read it: a row that
    // depends on it reads l or unassigned, both >= l, and waits either way.
    ordinal_t joins = 0;
    for (ordinal_t c = 0; c < per_thread; c += 64) {  // the same count of barriers on every thread
      if (c > 0) m.team_barrier();                    // the previous chunk's writes are done
      const ordinal_t c_lo = mine_lo + c < mine_hi ? mine_lo + c : mine_hi;
      const ordinal_t c_hi = c_lo + 64 < mine_hi ? c_lo + 64 : mine_hi;
      std::uint64_t ready_rows = 0;
      for (ordinal_t i = c_lo; i < c_hi; ++i) {
        if (level(i - lo) != unassigned) continue;
        bool ready = true;
        for (offset_t k = t.map(i); k < t.map(i + 1) && ready; ++k) ready = level(t.col(k) - lo) < l;
        if (ready) ready_rows |= std::uint64_t(1) << (i - c_lo);
      }
      m.team_barrier();  // every read of this chunk is done
      for (ordinal_t i = c_lo; i < c_hi; ++i)
        if ((ready_rows >> (i - c_lo)) & 1) level(i - lo) = l, ++joins;
    }
    const ordinal_t before = m.team_scan(joins);  // the team's barrier: all joins of level l are seen after it
    ordinal_t added = before + joins;
    m.team_broadcast(added, team - 1);
    if (added == 0) {
      Kokkos::single(Kokkos::PerTeam(m), [&]() { t.num_levels(s) = l; });
      break;
    }
    Kokkos::single(Kokkos::PerTeam(m), [&]() { t.level_start(lo + l) = placed; });
    offset_t pos = lo + placed + before;
    for (ordinal_t i = mine_lo; i < mine_hi; ++i)
      if (level(i - lo) == l) t.level_rows(pos++) = i;
    placed += added;
  }
  m.team_barrier();  // every position of level_rows written
  // The subdomain's entries are [map(lo), map(hi)): listed position by position.
  offset_t count = 0;
  for (ordinal_t p = mine_lo; p < mine_hi; ++p) {
    const ordinal_t i = t.level_rows(p);
    count += t.map(i + 1) - t.map(i);
  }
  offset_t e = t.map(lo) + m.team_scan(count);
  for (ordinal_t p = mine_lo; p < mine_hi; ++p) {
    const ordinal_t i = t.level_rows(p);
    t.row_edge_ptr(p) = e;
    for (offset_t k = t.map(i); k < t.map(i + 1); ++k, ++e) t.edge_row(e) = i, t.edge_pos(e) = k;
  }
  if (hi == ordinal_t(t.map.extent(0)) - 1)
    Kokkos::single(Kokkos::PerTeam(m), [&]() { t.row_edge_ptr(hi) = t.map(hi); });
}

}  // namespace detail

/// Analysis of both strict triangles of the subdomain factors (CSR arrays of
/// block rows, index 0 the lower triangle, 1 the upper; columns are rows of
/// the same subdomain) over the subdomains sub_start: two launches for both,
/// one team per subdomain and triangle, and one trip to the host for the
/// level counts. Rows of a level are listed ascending; the entries
/// ("edges") level by level, row by row, each row's in CSR order. Arrays
/// come from `arena`.
template <class Device>
std::array<SubdomainSchedule<Device>, 2> analyze_subdomains(
    const typename Device::execution_space& space, const std::array<Kokkos::View<const offset_t*, Device>, 2>& map,
    const std::array<Kokkos::View<const ordinal_t*, Device>, 2>& col, Kokkos::View<const ordinal_t*, Device> sub_start,
    ordinal_t max_rows, ViewArena<Device>& arena) {
  using exec = typename Device::execution_space;
  using policy = trellis::TeamPolicy<exec>;
  using member = typename policy::member_type;
  using scratch_view = Kokkos::View<int*, typename exec::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  const ordinal_t n = ordinal_t(map[0].extent(0)) - 1;
  const ordinal_t num_sub = ordinal_t(sub_start.extent(0)) - 1;
  const bool host = trellis::detail::is_host_space<exec>();

  using Arena = ViewArena<Device>;
  arena.template reserve<ordinal_t>(Arena::temporary, 2 * size_t(num_sub), n, n);
  const auto num_levels =
      arena.template take<ordinal_t>("trellis::dd::num_levels", 2 * size_t(num_sub), Arena::temporary);
  arena.template reserve<ordinal_t>(Arena::kept, n, size_t(n) + 1, col[0].extent(0), col[0].extent(0), n, size_t(n) + 1,
                                    col[1].extent(0), col[1].extent(0));
  std::array<detail::TriangleAnalysis<Device>, 2> t;
  for (int k = 0; k < 2; ++k) {
    const offset_t nnz = offset_t(col[k].extent(0));
    t[k].map = map[k];
    t[k].col = col[k];
    t[k].num_levels = Kokkos::subview(num_levels, std::make_pair(size_t(k) * num_sub, size_t(k + 1) * num_sub));
    t[k].level_start = arena.template take<offset_t>("trellis::dd::level_start", n, Arena::temporary);
    t[k].level_rows = arena.template take<ordinal_t>("trellis::dd::level_rows", n);
    t[k].row_edge_ptr = arena.template take<offset_t>("trellis::dd::row_edge_ptr", size_t(n) + 1);
    t[k].edge_row = arena.template take<ordinal_t>("trellis::dd::edge_row", nnz);
    t[k].edge_pos = arena.template take<offset_t>("trellis::dd::edge_pos", nnz);
  }
  const auto lower = t[0], upper = t[1];
  Kokkos::parallel_for(
      "trellis::dd::schedule",
      policy(space, 2 * num_sub, host ? 1 : 256)
          .set_scratch_size(0, Kokkos::PerTeam(scratch_view::shmem_size(max_rows))),
      KOKKOS_LAMBDA(const member& m) {
        const ordinal_t s = m.league_rank() % num_sub;
        scratch_view level(m.team_scratch(0), max_rows);
        detail::schedule_subdomain<Device>(m, m.league_rank() < num_sub ? lower : upper, s, sub_start(s),
                                           sub_start(s + 1), level);
      });

  // Levels are numbered across subdomains: subdomain s of a triangle owns
  // [level_begin(s), level_begin(s+1)). The counts are few (one per
  // subdomain): summed on the host.
  auto counts = compat::create_mirror_view_uninitialized(Kokkos::HostSpace(), num_levels);
  Kokkos::deep_copy(space, counts, num_levels);
  space.fence();  // the host reads the counts
  auto begin = arena.template take<ordinal_t>("trellis::dd::level_begin", 2 * (size_t(num_sub) + 1));
  auto begin_host = compat::create_mirror_view_uninitialized(Kokkos::HostSpace(), begin);
  std::array<SubdomainSchedule<Device>, 2> out;
  for (int k = 0; k < 2; ++k) {
    ordinal_t* b = begin_host.data() + k * (size_t(num_sub) + 1);
    b[0] = 0;
    for (ordinal_t s = 0; s < num_sub; ++s) {
      const ordinal_t c = counts(size_t(k) * num_sub + s);
      b[s + 1] = b[s] + c;
      out[k].max_levels = std::max(out[k].max_levels, c);
    }
    out[k].total_levels = b[num_sub];
  }
  Kokkos::deep_copy(space, begin, begin_host);
  arena.template reserve<offset_t>(Arena::kept, out[0].total_levels + 1, out[0].total_levels + 1,
                                   out[1].total_levels + 1, out[1].total_levels + 1);
  for (int k = 0; k < 2; ++k) {
    const size_t levels = size_t(out[k].total_levels) + 1;
    t[k].level_begin =
        Kokkos::subview(begin, std::make_pair(k * (size_t(num_sub) + 1), (k + 1) * (size_t(num_sub) + 1)));
    t[k].level_ptr = arena.template take<offset_t>("trellis::dd::level_ptr", levels);
    t[k].edge_ptr = arena.template take<offset_t>("trellis::dd::edge_ptr", levels);
  }
  const auto lower_ptrs = t[0], upper_ptrs = t[1];
  Kokkos::parallel_for(
      "trellis::dd::level_pointers", policy(space, 2 * num_sub, Kokkos::AUTO), KOKKOS_LAMBDA(const member& m) {
        const ordinal_t s = m.league_rank() % num_sub;
        const auto& a = m.league_rank() < num_sub ? lower_ptrs : upper_ptrs;
        const ordinal_t lo = sub_start(s), g0 = a.level_begin(s);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, 0, a.level_begin(s + 1) - g0), [&](ordinal_t l) {
          const offset_t p = lo + a.level_start(lo + l);
          a.level_ptr(g0 + l) = p;
          a.edge_ptr(g0 + l) = a.row_edge_ptr(p);
        });
        if (s == num_sub - 1)
          Kokkos::single(Kokkos::PerTeam(m), [&]() {
            a.level_ptr(a.level_begin(num_sub)) = n;
            a.edge_ptr(a.level_begin(num_sub)) = a.row_edge_ptr(n);
          });
      });
  for (int k = 0; k < 2; ++k) {
    out[k].level_begin = t[k].level_begin;
    out[k].level_ptr = t[k].level_ptr;
    out[k].level_rows = t[k].level_rows;
    out[k].edge_ptr = t[k].edge_ptr;
    out[k].row_edge_ptr = t[k].row_edge_ptr;
    out[k].edge_row = t[k].edge_row;
    out[k].edge_pos = t[k].edge_pos;
  }
  return out;
}

}  // namespace trellis::dd
